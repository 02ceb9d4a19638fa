package rest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

const (
	protobufType   = "application/vnd.kubernetes.protobuf"
	cborType       = "application/cbor"
	alphaPath      = "/apis/toys.example.com/v1alpha1/namespaces/default/widgets"
	tableJSON      = "application/json;as=Table;v=v1;g=meta.k8s.io"
	tableProtobuf  = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"
	tableCBOR      = "application/cbor;as=Table;v=v1;g=meta.k8s.io"
	pomListPB      = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	pomListCBOR    = "application/cbor;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	pomProtobuf    = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
	protobufStream = "application/vnd.kubernetes.protobuf;stream=watch"
)

// decodeAs decodes a response body with the serializer of its media type and returns
// the object (an Unstructured for JSON, YAML and CBOR; the typed or meta kind for
// protobuf).
func decodeAs(t *testing.T, mediaType string, body []byte) scheme.Kinded {
	t.Helper()
	s := testapi.NewScheme()
	var into scheme.Kinded
	var ser codec.Serializer
	switch mediaType {
	case protobufType:
		ser = protobuf.New(s)
	case cborType:
		ser, into = cbor.New(s), &scheme.Unstructured{}
	case codec.MediaTypeYAML:
		ser, into = codec.NewYAML(s), &scheme.Unstructured{}
	default:
		ser, into = codec.NewJSON(s), &scheme.Unstructured{}
	}
	res, err := ser.Decode(body, nil, into)
	if err != nil {
		t.Fatalf("decoding the %s body: %v: %q", mediaType, err, body)
	}
	return res.Object
}

// reasonOf returns the reason of a decoded Status, typed or unstructured.
func reasonOf(k scheme.Kinded) string {
	switch st := k.(type) {
	case *scheme.Status:
		return string(st.Reason)
	case *scheme.Unstructured:
		r, _ := st.Object["reason"].(string)
		return r
	}
	return ""
}

func kindOf(k scheme.Kinded) string { return k.GetObjectKind().GroupVersionKind().Kind }

func TestWire_ResponseMediaTypeFollowsAcceptAndWhatTheKindCanBeEncodedIn(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	tests := []struct {
		name, path, accept string
		code               int
		contentType        string // exact Content-Type of the response
		kind               string
	}{
		{"protobuf for a kind with protobuf fields", widgetsPath + "/w", protobufType, 200, protobufType, "Widget"},
		{"protobuf list", widgetsPath, protobufType, 200, protobufType, "WidgetList"},
		{"CBOR", widgetsPath + "/w", cborType, 200, cborType, "Widget"},
		{"CBOR list", widgetsPath, cborType, 200, cborType, "WidgetList"},
		{"YAML", widgetsPath + "/w", "application/yaml", 200, "application/yaml", "Widget"},
		{"CBOR preferred by q like client-go's dynamic client", widgetsPath + "/w", "application/json;q=0.9,application/cbor;q=1", 200, cborType, "Widget"},
		{"JSON preferred by q over CBOR", widgetsPath + "/w", "application/cbor;q=0.5, application/json", 200, "application/json", "Widget"},
		{"wildcard is JSON", widgetsPath + "/w", "*/*", 200, "application/json", "Widget"},
		{"type wildcard is JSON", widgetsPath + "/w", "application/*", 200, "application/json", "Widget"},
		{"no Accept is JSON", widgetsPath + "/w", "", 200, "application/json", "Widget"},
		{"protobuf-only for a kind without protobuf is NotAcceptable", alphaPath + "/w", protobufType, 406, protobufType, "Status"},
		{"protobuf then JSON for a kind without protobuf falls back to JSON", alphaPath + "/w", protobufType + ", application/json", 200, "application/json", "Widget"},
		{"protobuf then wildcard for a kind without protobuf falls back to JSON", alphaPath, protobufType + ", */*", 200, "application/json", "WidgetList"},
		{"protobuf list for a kind without protobuf is NotAcceptable", alphaPath, protobufType, 406, protobufType, "Status"},
		{"Table has no protobuf: NotAcceptable, as JSON since only as=Table was offered", widgetsPath, tableProtobuf, 406, "application/json", "Status"},
		{"Table in protobuf falls back to Table in JSON", widgetsPath, tableProtobuf + "," + tableJSON, 200, tableJSON, "Table"},
		{"Table in CBOR", widgetsPath, tableCBOR, 200, tableCBOR, "Table"},
		{"Table in YAML", widgetsPath + "/w", "application/yaml;as=Table;v=v1;g=meta.k8s.io", 200, "application/yaml;as=Table;v=v1;g=meta.k8s.io", "Table"},
		{"PartialObjectMetadataList in protobuf", widgetsPath, pomListPB, 200, pomListPB, "PartialObjectMetadataList"},
		{"PartialObjectMetadataList in protobuf for a kind without protobuf", alphaPath, pomListPB, 200, pomListPB, "PartialObjectMetadataList"},
		{"PartialObjectMetadata in protobuf", widgetsPath + "/w", pomProtobuf, 200, pomProtobuf, "PartialObjectMetadata"},
		{"PartialObjectMetadataList in CBOR", widgetsPath, pomListCBOR, 200, pomListCBOR, "PartialObjectMetadataList"},
		{"missing object is a protobuf Status for a protobuf client", widgetsPath + "/nope", protobufType, 404, protobufType, "Status"},
		{"missing object is a CBOR Status for a CBOR client", widgetsPath + "/nope", cborType, 404, cborType, "Status"},
		{"missing object is a YAML Status for a YAML client", widgetsPath + "/nope", "application/yaml", 404, "application/yaml", "Status"},
		{"missing object of a kind without protobuf is a protobuf Status", alphaPath + "/nope", protobufType + ", application/json", 404, protobufType, "Status"},
		{"nothing acceptable is a JSON Status", widgetsPath + "/w", "text/html", 406, "application/json", "Status"},
		{"the scale subresource in protobuf", widgetsPath + "/w/scale", protobufType, 200, protobufType, "Scale"},
		{"the scale subresource in CBOR", widgetsPath + "/w/scale", cborType, 200, cborType, "Scale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("GET", tt.path, "", "", "Accept", tt.accept)
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %q", r.code, tt.code, r.body)
			}
			if got := r.header.Get("Content-Type"); got != tt.contentType {
				t.Fatalf("Content-Type = %q, want %q", got, tt.contentType)
			}
			mt, _, _ := strings.Cut(tt.contentType, ";")
			obj := decodeAs(t, mt, r.body)
			if got := kindOf(obj); got != tt.kind {
				t.Errorf("kind = %q, want %q", got, tt.kind)
			}
			if st, ok := obj.(*scheme.Status); ok && st.Code != int32(tt.code) {
				t.Errorf("Status code = %d, want %d", st.Code, tt.code)
			}
		})
	}
}

func TestWire_NotAcceptableListsWhatTheKindCanBeServedIn(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	r := s.do("GET", "/apis/toys.example.com/v1alpha1/namespaces/default/widgets/w", "", "", "Accept", protobufType)
	st := decodeAs(t, protobufType, r.body).(*scheme.Status)
	want := "only the following media types are accepted: application/json, application/yaml, application/cbor"
	if r.code != 406 || st.Reason != scheme.StatusReasonNotAcceptable || st.Message != want {
		t.Errorf("got %d %s %q, want 406 NotAcceptable %q", r.code, st.Reason, st.Message, want)
	}
}

func TestWire_TypedProtobufResponseDecodesIntoTheGoType(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "green")
	r := s.do("GET", widgetsPath+"/w", "", "", "Accept", protobufType)
	w, ok := decodeAs(t, protobufType, r.body).(*toys.WidgetV1)
	if !ok || w.Name != "w" || w.Spec.Color != "green" || w.Spec.Replicas == nil || *w.Spec.Replicas != 1 || w.UID == "" {
		t.Errorf("decoded %#v", w)
	}
}

// widgetBody encodes a v1 Widget with the serializer of mediaType.
func widgetBody(t *testing.T, mediaType, name, color string) string {
	t.Helper()
	w := &toys.WidgetV1{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Name: name},
		Spec:       toys.WidgetSpec{Color: color},
	}
	s := testapi.NewScheme()
	var ser codec.Serializer = codec.NewJSON(s)
	switch mediaType {
	case protobufType:
		ser = protobuf.New(s)
	case cborType:
		ser = cbor.New(s)
	}
	var b bytes.Buffer
	if err := ser.Encode(&b, w); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// cborDoc encodes a map as a CBOR document.
func cborDoc(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := cbor.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWire_RequestBodiesDecodeByContentType(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, path, contentType, body, accept string
		code                                  int
		reason                                string
	}{
		{"CBOR create", widgetsPath, cborType, widgetBody(t, cborType, "c1", "red"), cborType, 201, ""},
		{"protobuf create", widgetsPath, protobufType, widgetBody(t, protobufType, "p1", "blue"), protobufType, 201, ""},
		{"Content-Type parameters are ignored", widgetsPath, cborType + "; charset=binary", widgetBody(t, cborType, "c2", "red"), "", 201, ""},
		{"protobuf body for a kind without protobuf is UnsupportedMediaType", alphaPath, protobufType, widgetBody(t, protobufType, "p2", "blue"), "", 415, "UnsupportedMediaType"},
		{"protobuf body without the k8s prefix is BadRequest", widgetsPath, protobufType, "not protobuf", "", 400, "BadRequest"},
		{"malformed CBOR is BadRequest", widgetsPath, cborType, "\xbf", "", 400, "BadRequest"},
		{"an unknown Content-Type is UnsupportedMediaType", widgetsPath, "text/plain", "hello", "", 415, "UnsupportedMediaType"},
		{"a protobuf delete body of another kind than DeleteOptions is UnsupportedMediaType", widgetsPath + "/c1", protobufType, widgetBody(t, protobufType, "c1", "red"), "", 415, "UnsupportedMediaType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := "POST"
			if strings.HasSuffix(tt.path, "/c1") {
				method = "DELETE"
			}
			r := s.do(method, tt.path, tt.contentType, tt.body, "Accept", tt.accept)
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %q", r.code, tt.code, r.body)
			}
			mt, _, _ := strings.Cut(r.header.Get("Content-Type"), ";")
			obj := decodeAs(t, mt, r.body)
			if tt.reason != "" {
				if got := reasonOf(obj); got != tt.reason {
					t.Errorf("response %#v, want reason %s", obj, tt.reason)
				}
				return
			}
			if mt != tt.accept && tt.accept != "" {
				t.Errorf("response Content-Type %q, want %q", mt, tt.accept)
			}
			if kindOf(obj) != "Widget" {
				t.Errorf("response kind %q", kindOf(obj))
			}
		})
	}
}

func TestWire_CBORBodiesFollowFieldValidationLikeJSON(t *testing.T) {
	s := newServer(t, nil)
	unknown := cborDoc(t, map[string]any{
		"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "u"},
		"spec":     map[string]any{"color": "blue", "colour": "blue", "parts": []any{map[string]any{"name": "a", "nmae": "b"}}},
	})
	// A map with "color" twice, written by hand: 0xa2 map(2) "color" "blue" "color" "red".
	prefix := cborDoc(t, map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "d"}})
	dupSpec := "\x44spec\xa2\x45color\x44blue\x45color\x43red"
	// prefix is a map of 3 pairs (0xa3 after the 3-byte self-described tag); make it 4.
	dup := prefix[:3] + "\xa4" + prefix[4:] + dupSpec
	tests := []struct {
		name, body, query string
		code              int
		contains          []string // in the Status message (400) or the Warning headers
	}{
		{"Strict lists every unknown field", unknown, "?fieldValidation=Strict", 400, []string{`unknown field "spec.colour"`, `unknown field "spec.parts[0].nmae"`}},
		{"Warn sends Warning headers", unknown, "?fieldValidation=Warn", 201, []string{`299 - "unknown field \"spec.colour\""`, `299 - "unknown field \"spec.parts[0].nmae\""`}},
		{"the default warns", strings.Replace(unknown, "\x41u", "\x42u2", 1), "", 201, []string{`299 - "unknown field \"spec.colour\""`}},
		{"Ignore drops them", strings.Replace(unknown, "\x41u", "\x42u3", 1), "?fieldValidation=Ignore", 201, nil},
		{"Strict lists duplicate fields", dup, "?fieldValidation=Strict", 400, []string{`duplicate field "spec.color"`}},
		{"Warn warns of duplicate fields", dup, "?fieldValidation=Warn", 201, []string{`299 - "duplicate field \"spec.color\""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("POST", widgetsPath+tt.query, cborType, tt.body, "Accept", "application/json")
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			var text string
			if r.code == 400 {
				text, _ = r.json(t)["message"].(string)
			} else {
				text = strings.Join(r.header.Values("Warning"), "\n")
				if len(tt.contains) == 0 && text != "" {
					t.Errorf("warnings %q, want none", text)
				}
			}
			for _, c := range tt.contains {
				if !strings.Contains(text, c) {
					t.Errorf("%q does not contain %q", text, c)
				}
			}
		})
	}
}

func TestWire_DisableCBORAnswers415And406(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.DisableCBOR = true })
	r := s.do("POST", widgetsPath, cborType, widgetBody(t, cborType, "c", "red"))
	if r.code != 415 || r.json(t)["reason"] != "UnsupportedMediaType" {
		t.Errorf("CBOR body with CBOR disabled: %d %s", r.code, r.body)
	}
	s.create("w", "blue")
	r = s.do("GET", widgetsPath+"/w", "", "", "Accept", cborType)
	if r.code != 406 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("CBOR-only Accept with CBOR disabled: %d %q %s", r.code, r.header.Get("Content-Type"), r.body)
	}
	r = s.do("GET", widgetsPath+"/w", "", "", "Accept", "application/json;q=0.9,application/cbor;q=1")
	if r.code != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("CBOR then JSON with CBOR disabled: %d %q", r.code, r.header.Get("Content-Type"))
	}
}

// openWatch starts a watch and returns its response; the request ends with the test.
func (s *testServer) openWatch(t *testing.T, path, accept string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// eventReader reads watch events of one stream framing.
type eventReader func() (watch.Event, error)

func newEventReader(t *testing.T, contentType string, body io.Reader) eventReader {
	t.Helper()
	s := testapi.NewScheme()
	switch contentType {
	case codec.MediaTypeCBORSeq:
		d := cbor.NewEventDecoder(body, cbor.New(s))
		return func() (watch.Event, error) { return d.Decode(nil) }
	case protobufStream:
		fr := protobuf.NewFrameReader(body, 0)
		ser := protobuf.New(s)
		return func() (watch.Event, error) {
			frame, err := fr.ReadFrame()
			if err != nil {
				return watch.Event{}, err
			}
			return ser.DecodeEvent(frame, nil)
		}
	}
	t.Fatalf("no event reader for %q", contentType)
	return nil
}

func TestWire_WatchStreamsInEachFraming(t *testing.T) {
	tests := []struct {
		name, accept, contentType string
	}{
		{"CBOR is a cbor-seq stream", cborType, codec.MediaTypeCBORSeq},
		{"CBOR preferred by q", "application/json;q=0.9,application/cbor;q=1", codec.MediaTypeCBORSeq},
		{"protobuf is length-prefixed frames", protobufType, protobufStream},
		{"protobuf with stream=watch", protobufStream, protobufStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, nil)
			s.create("a", "blue")
			res := s.openWatch(t, widgetsPath+"?watch=1&resourceVersion=0&allowWatchBookmarks=true", tt.accept)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != tt.contentType {
				t.Fatalf("watch: %d %q, want 200 %q", res.StatusCode, res.Header.Get("Content-Type"), tt.contentType)
			}
			next := newEventReader(t, tt.contentType, res.Body)
			ev, err := next()
			if err != nil || ev.Type != watch.Added || kindOf(ev.Object) != "Widget" {
				t.Fatalf("first event %v %v, want ADDED Widget", ev, err)
			}
			if got := ev.Object.(scheme.Object).GetName(); got != "a" {
				t.Errorf("ADDED %q, want a", got)
			}
			s.do("DELETE", widgetsPath+"/a", "", "")
			ev, err = next()
			if err != nil || ev.Type != watch.Deleted || ev.Object.(scheme.Object).GetName() != "a" {
				t.Errorf("second event %v %v, want DELETED a", ev, err)
			}
		})
	}
}

func TestWire_WatchErrorsAreEventsInTheStreamFraming(t *testing.T) {
	for _, accept := range []string{cborType, protobufType} {
		t.Run(accept, func(t *testing.T) {
			s := newServer(t, nil)
			for _, n := range []string{"w1", "w2", "w3"} {
				s.create(n, "blue")
			}
			if err := s.store.Compact(context.Background(), 3); err != nil {
				t.Fatal(err)
			}
			res := s.openWatch(t, widgetsPath+"?watch=1&resourceVersion=1", accept)
			ev, err := newEventReader(t, res.Header.Get("Content-Type"), res.Body)()
			st, ok := ev.Object.(*scheme.Status)
			if err != nil || ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != scheme.StatusReasonExpired {
				t.Errorf("event %v %v, want ERROR with a 410 Expired Status", ev, err)
			}
		})
	}
}

func TestWire_WatchNegotiation(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, path, accept string
		code               int
		contentType        string
	}{
		{"protobuf-only watch of a kind without protobuf is NotAcceptable", alphaPath, protobufType, 406, protobufType},
		{"protobuf then JSON watch of a kind without protobuf is JSON", alphaPath, protobufType + ", application/json", 200, "application/json"},
		{"a YAML-only watch is NotAcceptable: YAML has no stream framing", widgetsPath, "application/yaml", 406, "application/yaml"},
		{"YAML then JSON watch is JSON", widgetsPath, "application/yaml, application/json;q=0.5", 200, "application/json"},
		{"a stream other than watch is not acceptable", widgetsPath, "application/json;stream=other", 406, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.openWatch(t, tt.path+"?watch=1", tt.accept)
			if res.StatusCode != tt.code || res.Header.Get("Content-Type") != tt.contentType {
				t.Errorf("watch: %d %q, want %d %q", res.StatusCode, res.Header.Get("Content-Type"), tt.code, tt.contentType)
			}
		})
	}
}

func TestWire_WatchAsPartialObjectMetadataInProtobuf(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	res := s.openWatch(t, alphaPath+"?watch=1&resourceVersion=0", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != protobufStream {
		t.Fatalf("watch: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	ev, err := newEventReader(t, protobufStream, res.Body)()
	pm, ok := ev.Object.(*scheme.PartialObjectMetadata)
	if err != nil || !ok || pm.Name != "a" || ev.Type != watch.Added {
		t.Errorf("event %v %v, want ADDED PartialObjectMetadata a", ev, err)
	}
}

// client-go's typed clients configured for protobuf send DeleteOptions in protobuf,
// under the group version they talk to; kube-apiserver reads them like JSON ones.
func TestWire_ProtobufDeleteOptionsBodies(t *testing.T) {
	s := newServer(t, nil)
	r := s.do("POST", widgetsPath, "application/json", widgetBody(t, "application/json", "d1", "red"))
	if r.code != 201 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	created := decodeAs(t, "application/json", r.body).(*scheme.Unstructured)
	deleteBody := func(apiVersion string, o *registry.DeleteOptions) string {
		t.Helper()
		gv, err := scheme.ParseGroupVersion(apiVersion)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := protobuf.New(testapi.NewScheme()).EncodeAs(&b, gv.WithKind("DeleteOptions"), o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	wrongUID := scheme.UID("not-" + created.GetUID())
	uid := scheme.UID(created.GetUID())
	rv := created.GetResourceVersion()
	sideways := registry.DeletionPropagation("Sideways")
	tests := []struct {
		name, apiVersion string
		opts             registry.DeleteOptions
		code             int
		reason           string
	}{
		{"a failed uid precondition is Conflict", "toys.example.com/v1", registry.DeleteOptions{Preconditions: &registry.DeletePreconditions{UID: &wrongUID}}, 409, "Conflict"},
		{"an invalid propagationPolicy is Invalid", "meta.k8s.io/v1", registry.DeleteOptions{PropagationPolicy: &sideways}, 422, "Invalid"},
		{"dryRun deletes nothing", "v1", registry.DeleteOptions{DryRun: []string{"All"}}, 200, ""},
		{"matching preconditions delete", "toys.example.com/v1", registry.DeleteOptions{Preconditions: &registry.DeletePreconditions{UID: &uid, ResourceVersion: &rv}}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do("DELETE", widgetsPath+"/d1", protobufType, deleteBody(tt.apiVersion, &tt.opts))
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			if tt.reason != "" {
				if got := reasonOf(decodeAs(t, "application/json", r.body)); got != tt.reason {
					t.Errorf("reason %q, want %q", got, tt.reason)
				}
			}
		})
	}
	if r := s.do("GET", widgetsPath+"/d1", "", ""); r.code != 404 {
		t.Errorf("after the delete: GET answered %d, want 404", r.code)
	}
}
