package e2e

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// The first bytes of each binary encoding on the wire.
var (
	cborSelfDescribed = []byte{0xd9, 0xd9, 0xf7}
	protobufMagic     = []byte("k8s\x00")
)

// wireExchange is what one request and its response looked like on the wire: media
// types and the first bytes of each body.
type wireExchange struct {
	Method, Path              string
	RequestType, ResponseType string // media types without parameters
	ResponseContentType       string // the full response Content-Type
	RequestHead               []byte
	responseHead              *headRecorder
	StatusCode                int
}

func (x wireExchange) String() string {
	return fmt.Sprintf("%s %s [%s %x] -> %d [%s %x]", x.Method, x.Path, x.RequestType, x.RequestHead, x.StatusCode, x.ResponseType, x.responseHead.head())
}

// wireLog is a RoundTripper that records every exchange's media types and body
// prefixes without changing what the client reads.
type wireLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	log  []wireExchange
}

func (l *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	x := wireExchange{Method: r.Method, Path: r.URL.Path, RequestType: mediaTypeOf(r.Header.Get("Content-Type"))}
	if r.Body != nil && r.Body != http.NoBody {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body.Close()
		x.RequestHead = data[:min(len(data), 4)]
		r.Body = io.NopCloser(bytes.NewReader(data))
	}
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	x.StatusCode = resp.StatusCode
	x.ResponseType = mediaTypeOf(resp.Header.Get("Content-Type"))
	x.ResponseContentType = resp.Header.Get("Content-Type")
	x.responseHead = &headRecorder{r: resp.Body}
	resp.Body = x.responseHead
	l.mu.Lock()
	l.log = append(l.log, x)
	l.mu.Unlock()
	return resp, nil
}

// WrappedRoundTripper lets client-go reach the transport underneath.
func (l *wireLog) WrappedRoundTripper() http.RoundTripper { return l.next }

func (l *wireLog) exchanges() []wireExchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.log)
}

// headRecorder passes a body through and keeps its first four bytes.
type headRecorder struct {
	r  io.ReadCloser
	mu sync.Mutex
	b  []byte
}

func (h *headRecorder) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.mu.Lock()
	if len(h.b) < 4 {
		h.b = append(h.b, p[:min(n, 4-len(h.b))]...)
	}
	h.mu.Unlock()
	return n, err
}

func (h *headRecorder) Close() error { return h.r.Close() }

func (h *headRecorder) head() []byte {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.b)
}

func mediaTypeOf(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return contentType
	}
	return mt
}

// wireConfig returns es's client configuration with every exchange recorded in the
// returned log.
func wireConfig(t *testing.T, es *exampleServer) (*rest.Config, *wireLog) {
	cfg := es.restConfig(t)
	log := &wireLog{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { log.next = rt; return log })
	return cfg, log
}

// TestWire_DynamicClientSpeaksCBOR drives the example server with client-go's dynamic
// client preferring CBOR (KUBE_FEATURE_ClientsAllowCBOR and
// KUBE_FEATURE_ClientsPreferCBOR) and checks on the wire that every object body, both
// ways, and the watch stream were CBOR.
func TestWire_DynamicClientSpeaksCBOR(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsAllowCBOR, true)
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsPreferCBOR, true)
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		cfg, log := wireConfig(t, es)
		widgets := dynamic.NewForConfigOrDie(cfg).Resource(gvrWidgets).Namespace("cbor")

		created, err := widgets.Create(ctx, newWidget("cbor", "c1", "red", 2, map[string]string{"app": "toy"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.GetUID() == "" || created.GetCreationTimestamp().Time.IsZero() {
			t.Errorf("created widget lacks server fields: %v", created.Object["metadata"])
		}
		if r, _, _ := unstructuredInt(created.Object, "spec", "replicas"); r != 2 {
			t.Errorf("created spec.replicas = %v, want 2 (an int64 through CBOR)", r)
		}
		w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion()})
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		defer w.Stop()

		got, err := widgets.Get(ctx, "c1", metav1.GetOptions{})
		if err != nil || got.GetUID() != created.GetUID() {
			t.Fatalf("get: %v %v", got, err)
		}
		got.Object["spec"].(map[string]any)["color"] = "green"
		updated, err := widgets.Update(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if c := updated.Object["spec"].(map[string]any)["color"]; c != "green" || updated.GetGeneration() != 2 {
			t.Errorf("update = color %v generation %d, want green 2", c, updated.GetGeneration())
		}
		if _, err := widgets.Create(ctx, newWidget("cbor", "c2", "blue", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create c2: %v", err)
		}
		list, err := widgets.List(ctx, metav1.ListOptions{LabelSelector: "app=toy"})
		if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "c1" || list.GetResourceVersion() == "" {
			t.Fatalf("list app=toy: %v %v", list, err)
		}
		if _, err := widgets.Get(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get of a missing widget: %v, want NotFound from a CBOR Status", err)
		}
		stale := got.DeepCopy()
		stale.Object["spec"].(map[string]any)["color"] = "blue"
		if _, err := widgets.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			t.Errorf("stale update: %v, want Conflict", err)
		}
		if err := widgets.Delete(ctx, "c2", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}

		var events []string
		for len(events) < 3 {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatalf("watch closed after %q", events)
				}
				if ev.Type == watch.Bookmark {
					continue
				}
				u, isU := ev.Object.(interface{ GetName() string })
				if !isU {
					t.Fatalf("watch event %s of %T", ev.Type, ev.Object)
				}
				events = append(events, string(ev.Type)+" "+u.GetName())
			case <-ctx.Done():
				t.Fatalf("watch saw only %q", events)
			}
		}
		if want := []string{"MODIFIED c1", "ADDED c2", "DELETED c2"}; !slices.Equal(events, want) {
			t.Errorf("watch events %q, want %q", events, want)
		}

		var sawCreate, sawUpdate, sawList, sawWatch bool
		for _, x := range log.exchanges() {
			if x.Method == "POST" || x.Method == "PUT" {
				if x.RequestType != "application/cbor" || !bytes.HasPrefix(x.RequestHead, cborSelfDescribed) {
					t.Errorf("request body not CBOR: %v", x)
				}
				sawCreate = sawCreate || x.Method == "POST"
				sawUpdate = sawUpdate || x.Method == "PUT"
			}
			if x.Method == "DELETE" {
				continue // client-go sends DeleteOptions as JSON whatever the content type
			}
			isWatch := x.ResponseType == "application/cbor-seq"
			if isWatch {
				sawWatch = true
			} else if x.ResponseType != "application/cbor" {
				t.Errorf("response not CBOR: %v", x)
			}
			if h := x.responseHead.head(); len(h) > 0 && !bytes.HasPrefix(h, cborSelfDescribed) {
				t.Errorf("response body does not start with the CBOR self-described tag: %v", x)
			}
			if x.Method == "GET" && !isWatch && strings.HasSuffix(x.Path, "/widgets") {
				sawList = true
			}
		}
		if !sawCreate || !sawUpdate || !sawList || !sawWatch {
			t.Errorf("exchanges seen: create %v update %v list %v watch %v: %v", sawCreate, sawUpdate, sawList, sawWatch, log.exchanges())
		}
	})
}

func unstructuredInt(obj map[string]any, path ...string) (int64, bool, error) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = m[p]
	}
	v, ok := cur.(int64)
	return v, ok, nil
}

// TestWire_ProtobufClients reads Widgets with protobuf clients: client-go's metadata
// client (which asks for PartialObjectMetadataList in protobuf) for a list and a
// watch, and a REST client configured with ContentType
// application/vnd.kubernetes.protobuf for one Widget, checked on the wire and decoded
// by apimachinery's protobuf envelope decoder and by apikit's.
func TestWire_ProtobufClients(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	es := startExampleServer(t, server.StorageMemory)
	ctx := ctxFor(t)
	plain := dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("pb")
	for i := range 3 {
		if _, err := plain.Create(ctx, newWidget("pb", fmt.Sprintf("p%d", i), "red", int64(i+1), map[string]string{"i": fmt.Sprint(i)}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	cfg, log := wireConfig(t, es)
	mc := metadata.NewForConfigOrDie(cfg).Resource(gvrWidgets).Namespace("pb")
	list, err := mc.List(ctx, metav1.ListOptions{LabelSelector: "i!=1"})
	if err != nil {
		t.Fatalf("metadata list: %v", err)
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.Name)
		if it.UID == "" || it.Namespace != "pb" || it.CreationTimestamp.IsZero() {
			t.Errorf("item %s: uid %q namespace %q created %v", it.Name, it.UID, it.Namespace, it.CreationTimestamp)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"p0", "p2"}) || list.ResourceVersion == "" {
		t.Errorf("metadata list = %q at %q", names, list.ResourceVersion)
	}
	w, err := mc.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatalf("metadata watch: %v", err)
	}
	defer w.Stop()
	if _, err := plain.Create(ctx, newWidget("pb", "p3", "blue", 1, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		pom, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type != watch.Added || !ok || pom.Name != "p3" {
			t.Errorf("metadata watch event %s %T, want ADDED PartialObjectMetadata p3", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no metadata watch event")
	}
	var sawList, sawWatch bool
	for _, x := range log.exchanges() {
		switch {
		case x.ResponseContentType == "application/vnd.kubernetes.protobuf;stream=watch":
			sawWatch = true
		case x.ResponseContentType == "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io":
			sawList = true
			if !bytes.HasPrefix(x.responseHead.head(), protobufMagic) {
				t.Errorf("protobuf list body does not start with k8s\\x00: %v", x)
			}
		default:
			t.Errorf("metadata client exchange not protobuf: %v (Content-Type %q)", x, x.ResponseContentType)
		}
	}
	if !sawList || !sawWatch {
		t.Errorf("protobuf list %v watch %v: %v", sawList, sawWatch, log.exchanges())
	}

	// One Widget through a REST client that speaks protobuf.
	pcfg := rest.CopyConfig(cfg)
	pcfg.ContentType = "application/vnd.kubernetes.protobuf"
	pcfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	gv := gvrWidgets.GroupVersion()
	pcfg.GroupVersion = &gv
	pcfg.APIPath = "/apis"
	pcfg.NegotiatedSerializer = metainternalscheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	var contentType string
	raw, err := rc.Get().Namespace("pb").Resource("widgets").Name("p2").Do(ctx).ContentType(&contentType).Raw()
	if err != nil {
		t.Fatalf("protobuf get: %v", err)
	}
	if contentType != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(raw, protobufMagic) {
		t.Fatalf("protobuf get answered %q %x", contentType, raw[:min(len(raw), 8)])
	}
	var unk runtime.Unknown
	if _, gvk, err := kproto.NewSerializer(nil, nil).Decode(raw, nil, &unk); err != nil || gvk.Kind != "Widget" || unk.APIVersion != "toys.example.com/v1" {
		t.Errorf("apimachinery's envelope decoder: %v %v %+v", gvk, err, unk.TypeMeta)
	}
	res, err := protobuf.New(api.NewScheme()).Decode(raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if wd, ok := res.Object.(*toysv1.Widget); !ok || wd.Name != "p2" || wd.Spec.Replicas == nil || *wd.Spec.Replicas != 3 || wd.Labels["i"] != "2" {
		t.Errorf("decoded widget %#v", res.Object)
	}
	// A missing Widget: client-go reads the protobuf Status into a typed error.
	if err := rc.Get().Namespace("pb").Resource("widgets").Name("nope").Do(ctx).ContentType(&contentType).Error(); !apierrors.IsNotFound(err) || contentType != "application/vnd.kubernetes.protobuf" {
		t.Errorf("protobuf get of a missing widget: %v (%q), want NotFound from a protobuf Status", err, contentType)
	}

	// Deletes: this client sends its DeleteOptions in protobuf too.
	wrongUID := types.UID("not-the-uid")
	deletes := []struct {
		opts metav1.DeleteOptions
		want func(error) bool
	}{
		{metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}}, apierrors.IsConflict},
		{metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}, func(err error) bool { return err == nil }},
		{metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationBackground)}, func(err error) bool { return err == nil }},
	}
	before := len(log.exchanges())
	for _, d := range deletes {
		if err := rc.Delete().Namespace("pb").Resource("widgets").Name("p0").Body(&d.opts).Do(ctx).Error(); !d.want(err) {
			t.Errorf("protobuf delete with %+v: %v", d.opts, err)
		}
	}
	if _, err := plain.Get(ctx, "p0", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after the protobuf delete: %v, want NotFound", err)
	}
	for _, x := range log.exchanges()[before:] {
		if x.Method == "DELETE" && (x.RequestType != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(x.RequestHead, protobufMagic)) {
			t.Errorf("delete body not protobuf: %v", x)
		}
	}
}
