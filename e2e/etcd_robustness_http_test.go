package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kwatch "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// robustHTTPStore drives the robustness model through one example-server replica's REST
// API, as a client of a load-balanced apiserver does. The model's widget (a
// storagetest.Widget and its size) is the example's toys.example.com/v1 Widget and its
// spec.replicas; a storage key's last segments are the namespace and the name. A Status
// the model knows (AlreadyExists, Conflict, NotFound, 410) becomes the storage error it
// stands for; any other failure leaves the outcome of a write unknown.
type robustHTTPStore struct {
	es      *exampleServer
	widgets dynamic.NamespaceableResourceInterface // for watches
}

func newRobustHTTPStore(t *testing.T, es *exampleServer) *robustHTTPStore {
	return &robustHTTPStore{es: es, widgets: dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets)}
}

// splitKey returns the namespace and name of a storage key
// ("/<group>/<resource>/<namespace>/<name>"), or of a namespace's prefix (name "").
func splitKey(key string) (namespace, name string) {
	parts := strings.Split(strings.TrimPrefix(key, "/"), "/")
	if len(parts) < 3 {
		return "", ""
	}
	return parts[2], strings.Join(parts[3:], "")
}

func (s *robustHTTPStore) path(namespace, name string) string {
	p := fmt.Sprintf("/apis/%s/%s/namespaces/%s/%s", gvrWidgets.Group, gvrWidgets.Version, namespace, gvrWidgets.Resource)
	if name != "" {
		p += "/" + name
	}
	return p
}

// do sends one request and decodes a 2xx answer's JSON into out; any other answer is
// the storage error of its Status.
func (s *robustHTTPStore) do(ctx context.Context, method, path, contentType string, body any, out any) error {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.es.URL+path, reader)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+s.es.Token)
	resp, err := s.es.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 == 2 {
		return json.Unmarshal(data, out)
	}
	return statusStorageError(resp.StatusCode, data)
}

// statusStorageError is the storage error a Status response stands for.
func statusStorageError(code int, data []byte) error {
	var st metav1.Status
	if err := json.Unmarshal(data, &st); err != nil || st.Kind != "Status" {
		return fmt.Errorf("answer %d is not a Status: %q", code, data)
	}
	var sentinel error
	switch {
	case st.Reason == metav1.StatusReasonAlreadyExists:
		sentinel = storage.ErrAlreadyExists
	case st.Reason == metav1.StatusReasonConflict:
		sentinel = storage.ErrConflict
	case st.Reason == metav1.StatusReasonNotFound:
		sentinel = storage.ErrNotFound
	case code == http.StatusGone:
		sentinel = storage.ErrGone
	default:
		return fmt.Errorf("%d %s: %s", code, st.Reason, st.Message)
	}
	return fmt.Errorf("%w: %d %s: %s", sentinel, code, st.Reason, st.Message)
}

// modelWidget is the model's view of an example Widget.
func modelWidget(u map[string]any) *storagetest.Widget {
	obj := &unstructured.Unstructured{Object: u}
	var size int64
	switch n := obj.Object["spec"].(map[string]any)["replicas"].(type) {
	case float64: // encoding/json's number
		size = int64(n)
	case int64: // client-go's
		size = n
	}
	w := storagetest.NewWidget(obj.GetNamespace(), obj.GetName(), nil, size)
	w.ResourceVersion = obj.GetResourceVersion()
	return w
}

func (s *robustHTTPStore) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	ns, name := splitKey(key)
	var out map[string]any
	body := newWidget(ns, name, "red", obj.(*storagetest.Widget).Spec.Size, nil).Object
	if err := s.do(ctx, http.MethodPost, s.path(ns, ""), "application/json", body, &out); err != nil {
		return nil, err
	}
	return modelWidget(out), nil
}

func (s *robustHTTPStore) Get(ctx context.Context, key string, _ storage.GetOptions) (scheme.Object, error) {
	ns, name := splitKey(key)
	var out map[string]any
	if err := s.do(ctx, http.MethodGet, s.path(ns, name), "", nil, &out); err != nil {
		return nil, err
	}
	return modelWidget(out), nil
}

// List is a consistent list (resourceVersion unset) of a namespace's widgets.
func (s *robustHTTPStore) List(ctx context.Context, prefix string, _ storage.ListOptions) (*storage.ListResult, error) {
	ns, _ := splitKey(prefix)
	var out struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []map[string]any `json:"items"`
	}
	if err := s.do(ctx, http.MethodGet, s.path(ns, ""), "", nil, &out); err != nil {
		return nil, err
	}
	res := &storage.ListResult{ResourceVersion: out.Metadata.ResourceVersion}
	for _, item := range out.Items {
		res.Items = append(res.Items, modelWidget(item))
	}
	return res, nil
}

// GuaranteedUpdate sends what tryUpdate does to the model's widget (its size, and a
// resourceVersion when it sets one as a precondition) as a JSON merge patch: the
// server's read-modify-write, with kube's precondition on a resourceVersion in the
// patch.
func (s *robustHTTPStore) GuaranteedUpdate(ctx context.Context, key string, _ storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	ns, name := splitKey(key)
	changed, err := tryUpdate(storagetest.NewWidget(ns, name, nil, 0))
	if err != nil {
		return nil, err
	}
	w := changed.(*storagetest.Widget)
	patch := map[string]any{"spec": map[string]any{"replicas": w.Spec.Size}}
	if w.ResourceVersion != "" {
		patch["metadata"] = map[string]any{"resourceVersion": w.ResourceVersion}
	}
	var out map[string]any
	if err := s.do(ctx, http.MethodPatch, s.path(ns, name), "application/merge-patch+json", patch, &out); err != nil {
		return nil, err
	}
	return modelWidget(out), nil
}

func (s *robustHTTPStore) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	ns, name := splitKey(key)
	body := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}}
	if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
		body.Preconditions = &metav1.Preconditions{ResourceVersion: opts.Preconditions.ResourceVersion}
	}
	// Like kube-apiserver for a custom resource, the server answers a delete with a
	// Status of success, not the deleted object: the model learns nothing more.
	var out metav1.Status
	if err := s.do(ctx, http.MethodDelete, s.path(ns, name), "application/json", body, &out); err != nil {
		return nil, err
	}
	if out.Kind != "Status" || out.Status != metav1.StatusSuccess || out.Details == nil || out.Details.Name != name {
		return nil, fmt.Errorf("delete of %s answered %+v, want a Status of success naming it", name, out)
	}
	return nil, nil
}

// Watch watches a namespace's widgets with client-go's dynamic client from
// opts.ResourceVersion; a 410 answer is storage.ErrGone and an ERROR event carries a
// scheme.Status, as a storage watch's does.
func (s *robustHTTPStore) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	ns, _ := splitKey(key)
	kw, err := s.widgets.Namespace(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: opts.ResourceVersion, AllowWatchBookmarks: opts.Bookmarks})
	switch {
	case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
		return nil, fmt.Errorf("%w: %v", storage.ErrGone, err)
	case err != nil:
		return nil, err
	}
	w := &modelWatch{kw: kw, out: make(chan watch.Event), done: make(chan struct{})}
	go w.run()
	return w, nil
}

// modelWatch turns a client-go watch of example Widgets into a storage watch of the
// model's widgets.
type modelWatch struct {
	kw   kwatch.Interface
	out  chan watch.Event
	done chan struct{}
	once sync.Once
}

func (w *modelWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *modelWatch) Stop() { w.once.Do(func() { close(w.done); w.kw.Stop() }) }

func (w *modelWatch) run() {
	defer close(w.out)
	for ev := range w.kw.ResultChan() {
		var obj scheme.Kinded
		switch o := ev.Object.(type) {
		case *metav1.Status:
			obj = &scheme.Status{Code: o.Code, Reason: scheme.StatusReason(o.Reason), Message: o.Message}
		case *unstructured.Unstructured:
			obj = modelWidget(o.Object)
		default:
			obj = &scheme.Status{Code: http.StatusInternalServerError, Message: fmt.Sprintf("a watch event carries %T", ev.Object)}
		}
		select {
		case w.out <- watch.Event{Type: watch.EventType(ev.Type), Object: obj}:
		case <-w.done:
			return
		}
	}
}

// TestEtcdRobustness_ThroughTwoHTTPReplicas is TestEtcdRobustness with the clients and
// watchers on the REST API of two example-server replicas over the three-member
// cluster, as concurrent kube clients would be: creates, merge-patch updates, deletes
// with preconditions, gets and consistent lists, while the leader is killed and
// restarted and each replica's compactor runs. Replica a serves through its watch
// cache (the default); replica b reads and watches etcd directly (kube's
// --watch-cache=false), so that its lagging watcher falls behind the compactor and has
// to resume after a 410, and both read paths are checked.
func TestEtcdRobustness_ThroughTwoHTTPReplicas(t *testing.T) {
	c := startTestCluster(t)
	var reps []*robustHTTPStore
	for i := range 2 {
		es := startExampleServerWith(t, server.StorageEtcd, func(cfg *server.Config) {
			cfg.Etcd = server.EtcdConfig{Endpoints: c.Endpoints(), Prefix: "/robust-http", CompactionInterval: 100 * time.Millisecond, NoWatchCache: i == 1}
		})
		reps = append(reps, newRobustHTTPStore(t, es))
	}
	a, b := reps[0], reps[1]
	ctx, cancel := context.WithTimeout(t.Context(), etcdSafetyDeadline)
	defer cancel()
	start, err := a.List(ctx, storage.Prefix(storagetest.Widgets, "ns1"), storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	startRV, err := storage.ParseResourceVersion(start.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	runRobustness(t, ctx, robustScenario{
		cluster: c,
		stores:  []robustStore{a, b},
		watchers: []*robustWatcher{
			{name: "replica a (watch cache)", st: a},
			{name: "replica b (etcd)", st: b},
			{name: "lagging replica a (watch cache)", st: a, lag: true},
			{name: "lagging replica b (etcd)", st: b, lag: true},
		},
		startRV: startRV,
		marker:  a,
	})
}

// TestRobustHTTPStore_MapsStatusesToStorageErrors: the adapter's errors are the storage
// errors the model classifies, so that a certain failure is never taken for an unknown
// one or the other way round.
func TestRobustHTTPStore_MapsStatusesToStorageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		code int
		body string
		want error
	}{
		{"409 AlreadyExists", 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"AlreadyExists","code":409}`, storage.ErrAlreadyExists},
		{"409 Conflict", 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`, storage.ErrConflict},
		{"404 NotFound", 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`, storage.ErrNotFound},
		{"410 Expired", 410, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}`, storage.ErrGone},
		{"504 Timeout is unknown", 504, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Timeout","code":504}`, nil},
		{"an answer that is no Status is unknown", 502, `bad gateway`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := statusStorageError(tc.code, []byte(tc.body))
			for _, sentinel := range []error{storage.ErrAlreadyExists, storage.ErrConflict, storage.ErrNotFound, storage.ErrGone} {
				if got := errors.Is(err, sentinel); got != (sentinel == tc.want) {
					t.Errorf("errors.Is(%v, %v) = %t", err, sentinel, got)
				}
			}
			if tc.want == nil && classify(err) != outcomeUnknown {
				t.Errorf("%v classified %d, want unknown", err, classify(err))
			}
		})
	}
}
