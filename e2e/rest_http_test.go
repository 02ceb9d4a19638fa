package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableAccept is the Accept header kubectl sends for tables (first choice only).
const tableAccept = "application/json;as=Table;g=meta.k8s.io;v=v1"

// widgetJSON is a Widget document for raw requests.
func widgetJSON(namespace, name, color string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":%q,"namespace":%q},"spec":{"color":%q,"replicas":2}}`, name, namespace, color)
}

func jsonHeader(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// decodeStatus decodes a Status body, failing the test when it is not one.
func decodeStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(body, &s); err != nil || s.Kind != "Status" || s.APIVersion != "v1" {
		t.Fatalf("body is not a v1 Status (err %v): %s", err, body)
	}
	return s
}

// TestRawHTTP_Table requests widgets as meta.k8s.io/v1 Tables, as kubectl does.
func TestRawHTTP_Table(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		for _, n := range []string{"t1", "t2"} {
			if code, _, body := es.do(t, "POST", "/apis/toys.example.com/v1/namespaces/tbl/widgets", jsonHeader(), widgetJSON("tbl", n, "red")); code != http.StatusCreated {
				t.Fatalf("create %s: %d %s", n, code, body)
			}
		}
		tests := []struct {
			name       string
			path       string
			rows       int
			objectKind string // kind of rows[].object; "" for none
		}{
			{"a list with the default includeObject carries metadata", "/apis/toys.example.com/v1/namespaces/tbl/widgets", 2, "PartialObjectMetadata"},
			{"includeObject=Object carries the widgets", "/apis/toys.example.com/v1/namespaces/tbl/widgets?includeObject=Object", 2, "Widget"},
			{"includeObject=None carries no object", "/apis/toys.example.com/v1/namespaces/tbl/widgets?includeObject=None", 2, ""},
			{"a single get is a one-row table", "/apis/toys.example.com/v1/namespaces/tbl/widgets/t1", 1, "PartialObjectMetadata"},
			{"all namespaces", "/apis/toys.example.com/v1/widgets", 2, "PartialObjectMetadata"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, hdr, body := es.do(t, "GET", tt.path, http.Header{"Accept": {tableAccept}}, nil)
				if code != http.StatusOK {
					t.Fatalf("GET %s: %d %s", tt.path, code, body)
				}
				if ct := hdr.Get("Content-Type"); !strings.Contains(ct, "as=Table") {
					t.Errorf("Content-Type = %q, want the Table media type", ct)
				}
				var tbl metav1.Table
				if err := json.Unmarshal(body, &tbl); err != nil {
					t.Fatalf("not a Table: %v", err)
				}
				if tbl.Kind != "Table" || tbl.APIVersion != "meta.k8s.io/v1" || tbl.ResourceVersion == "" {
					t.Errorf("table = %s %s rv %q", tbl.APIVersion, tbl.Kind, tbl.ResourceVersion)
				}
				var cols []string
				for _, c := range tbl.ColumnDefinitions {
					cols = append(cols, c.Name+":"+c.Type)
				}
				if want := []string{"Name:string", "Color:string", "Replicas:integer", "Phase:string", "Age:date"}; !slices.Equal(cols, want) {
					t.Errorf("columns = %q, want %q", cols, want)
				}
				if len(tbl.ColumnDefinitions) > 0 && tbl.ColumnDefinitions[0].Format != "name" {
					t.Errorf("Name column format = %q, want name", tbl.ColumnDefinitions[0].Format)
				}
				if len(tbl.Rows) != tt.rows {
					t.Fatalf("%d rows, want %d", len(tbl.Rows), tt.rows)
				}
				r := tbl.Rows[0]
				if len(r.Cells) != 5 || r.Cells[0] != "t1" || r.Cells[1] != "red" || r.Cells[2] != float64(2) {
					t.Errorf("first row cells = %#v, want t1 red 2 ...", r.Cells)
				}
				var obj struct{ Kind, APIVersion string }
				if len(r.Object.Raw) > 0 {
					if err := json.Unmarshal(r.Object.Raw, &obj); err != nil {
						t.Fatal(err)
					}
				}
				if obj.Kind != tt.objectKind {
					t.Errorf("row object kind = %q, want %q", obj.Kind, tt.objectKind)
				}
			})
		}
	})
}

// TestRawHTTP_Errors checks Status responses for the failures the conventions list.
func TestRawHTTP_Errors(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/errs/widgets"
	if code, _, body := es.do(t, "POST", coll, jsonHeader(), widgetJSON("errs", "w", "red")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	unknownAndDup := []byte(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"strict"},"spec":{"color":"red","colour":"red","replicas":1,"replicas":2}}`)
	huge := append(append([]byte(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"huge","annotations":{"a":"`), bytes.Repeat([]byte("x"), 4<<20)...), []byte(`"}},"spec":{"color":"red"}}`)...)
	tests := []struct {
		name       string
		method     string
		path       string
		header     http.Header
		body       []byte
		wantCode   int
		wantReason metav1.StatusReason
		wantInMsg  []string
	}{
		{"strict field validation lists every unknown and duplicate field", "POST", coll + "?fieldValidation=Strict", jsonHeader(), unknownAndDup,
			400, metav1.StatusReasonBadRequest, []string{`unknown field "spec.colour"`, `duplicate field "spec.replicas"`}},
		{"an unknown fieldValidation value is 422 Invalid CreateOptions, as in kube", "POST", coll + "?fieldValidation=Loud", jsonHeader(), widgetJSON("errs", "fv", "red"),
			422, metav1.StatusReasonInvalid, []string{"CreateOptions", "fieldValidation"}},
		{"an unacceptable Accept is 406", "GET", coll, http.Header{"Accept": {"application/xml"}}, nil,
			406, metav1.StatusReasonNotAcceptable, nil},
		{"an unsupported Content-Type is 415", "POST", coll, http.Header{"Content-Type": {"text/plain"}}, widgetJSON("errs", "x", "red"),
			415, metav1.StatusReasonUnsupportedMediaType, nil},
		{"an unknown patch type is 415", "PATCH", coll + "/w", http.Header{"Content-Type": {"application/xml-patch+xml"}}, []byte(`<x/>`),
			415, metav1.StatusReasonUnsupportedMediaType, nil},
		{"a body over 3 MiB is 413", "POST", coll, jsonHeader(), huge,
			413, metav1.StatusReasonRequestEntityTooLarge, nil},
		{"a namespace in the body other than the path's is 400", "POST", coll, jsonHeader(), widgetJSON("other", "x", "red"),
			400, metav1.StatusReasonBadRequest, []string{"namespace"}},
		{"an unsupported field selector is 400 naming the field", "GET", coll + "?fieldSelector=spec.replicas%3D1", nil, nil,
			400, metav1.StatusReasonBadRequest, []string{"spec.replicas"}},
		// kube-apiserver validates ListOptions first (ValidateListOptions): 422 Invalid of
		// meta.k8s.io ListOptions, as this server already answers for watches.
		{"resourceVersionMatch without resourceVersion is 422 Invalid ListOptions", "GET", coll + "?resourceVersionMatch=NotOlderThan", nil, nil,
			422, metav1.StatusReasonInvalid, []string{"ListOptions", "resourceVersionMatch is forbidden unless resourceVersion is provided"}},
		{"resourceVersionMatch=Exact with resourceVersion=0 is 422 Invalid ListOptions", "GET", coll + "?resourceVersionMatch=Exact&resourceVersion=0", nil, nil,
			422, metav1.StatusReasonInvalid, []string{"ListOptions", "resourceVersionMatch"}},
		{"an unknown resourceVersionMatch is 422 Invalid ListOptions", "GET", coll + "?resourceVersionMatch=Bogus&resourceVersion=1", nil, nil,
			422, metav1.StatusReasonInvalid, []string{"ListOptions", "Unsupported value"}},
		{"sendInitialEvents without resourceVersionMatch is 422 Invalid ListOptions", "GET", coll + "?watch=true&sendInitialEvents=true", nil, nil,
			422, metav1.StatusReasonInvalid, []string{"ListOptions", "sendInitialEvents"}},
		{"continue with a resourceVersion is 400", "GET", coll + "?limit=1&continue=abc&resourceVersion=5", nil, nil,
			400, metav1.StatusReasonBadRequest, []string{"specifying resource version is not allowed when using continue"}},
		{"a malformed continue token is 400", "GET", coll + "?limit=1&continue=not-a-token", nil, nil,
			400, "", nil},
		{"a malformed label selector is 400", "GET", coll + "?labelSelector=a%20in%20(b", nil, nil,
			400, metav1.StatusReasonBadRequest, nil},
		{"an unknown resource is 404", "GET", "/apis/toys.example.com/v1/namespaces/errs/gadgets", nil, nil,
			404, metav1.StatusReasonNotFound, nil},
		{"PUT on a collection is 405", "PUT", coll, jsonHeader(), widgetJSON("errs", "x", "red"),
			405, metav1.StatusReasonMethodNotAllowed, nil},
		{"POST on a named object is 405", "POST", coll + "/w", jsonHeader(), widgetJSON("errs", "w", "red"),
			405, metav1.StatusReasonMethodNotAllowed, nil},
		{"a name in the body other than the path's is 400", "PUT", coll + "/w", jsonHeader(), widgetJSON("errs", "not-w", "red"),
			400, metav1.StatusReasonBadRequest, []string{"name"}},
		{"PUT of a missing widget is 404 (no create-on-update)", "PUT", coll + "/nobody", jsonHeader(), widgetJSON("errs", "nobody", "red"),
			404, metav1.StatusReasonNotFound, nil},
		{"malformed JSON is 400", "POST", coll, jsonHeader(), []byte(`{"kind":`),
			400, metav1.StatusReasonBadRequest, nil},
		{"a kind other than the resource's is 400", "POST", coll, jsonHeader(), []byte(`{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"wh"},"spec":{"location":"x"}}`),
			400, metav1.StatusReasonBadRequest, nil},
		{"an invalid merge patch result is 422", "PATCH", coll + "/w", http.Header{"Content-Type": {"application/merge-patch+json"}}, []byte(`{"spec":{"color":"mauve"}}`),
			422, metav1.StatusReasonInvalid, []string{"spec.color"}},
		{"a json patch test that fails is 422 or 409", "PATCH", coll + "/w", http.Header{"Content-Type": {"application/json-patch+json"}}, []byte(`[{"op":"test","path":"/spec/color","value":"mauve"}]`),
			422, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := es.do(t, tt.method, tt.path, tt.header, tt.body)
			if code != tt.wantCode {
				t.Errorf("status %d, want %d; body %s", code, tt.wantCode, trim(body))
			}
			if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			s := decodeStatus(t, body)
			if s.Status != metav1.StatusFailure || int(s.Code) != code {
				t.Errorf("status %q code %d, want Failure and %d", s.Status, s.Code, code)
			}
			if tt.wantReason != "" && s.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q (message %q)", s.Reason, tt.wantReason, s.Message)
			}
			for _, w := range tt.wantInMsg {
				if !strings.Contains(s.Message, w) {
					t.Errorf("message %q lacks %q", s.Message, w)
				}
			}
			// Storage keys are internal: kube-apiserver never shows its etcd keys.
			if strings.Contains(s.Message, "(key /") {
				t.Errorf("message %q exposes a storage key", s.Message)
			}
		})
	}

	t.Run("requests without the token are 401", func(t *testing.T) {
		resp, err := es.Client.Get(es.URL + coll)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || decodeStatus(t, body).Reason != metav1.StatusReasonUnauthorized {
			t.Errorf("status %d body %s, want a 401 Unauthorized Status", resp.StatusCode, body)
		}
	})
}

// trim shortens a body for messages.
func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// TestRawHTTP_FieldValidationWarnings checks the Warning headers of fieldValidation=Warn
// (the default) and their absence under Ignore.
func TestRawHTTP_FieldValidationWarnings(t *testing.T) {
	// sigs.k8s.io/json, which kube-apiserver decodes with, names duplicates by full path.
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/warn/widgets"
	doc := func(name string) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":"red","colour":"red","replicas":1,"replicas":2}}`, name)
	}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"Warn warns per field", "?fieldValidation=Warn", []string{`299 - "unknown field \"spec.colour\""`, `299 - "duplicate field \"spec.replicas\""`}},
		{"the default is Warn", "", []string{`299 - "unknown field \"spec.colour\""`, `299 - "duplicate field \"spec.replicas\""`}},
		{"Ignore says nothing", "?fieldValidation=Ignore", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := es.do(t, "POST", coll+tt.query, jsonHeader(), doc(fmt.Sprintf("w%d", i)))
			if code != http.StatusCreated {
				t.Fatalf("status %d, want 201: %s", code, body)
			}
			got := hdr.Values("Warning")
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Warning headers = %q, want %q", got, want)
			}
			var w struct {
				Spec struct{ Replicas int }
			}
			if err := json.Unmarshal(body, &w); err != nil || w.Spec.Replicas != 2 {
				t.Errorf("replicas = %d (err %v), want the last duplicate, 2", w.Spec.Replicas, err)
			}
		})
	}
}

// TestRawHTTP_Endpoints checks the non-resource paths and discovery documents.
func TestRawHTTP_Endpoints(t *testing.T) {
	es := startExampleServer(t, "memory")
	tests := []struct {
		path   string
		accept string
		want   []string
	}{
		{"/version", "", []string{`"gitVersion"`}},
		{"/healthz", "", []string{"ok"}},
		{"/livez", "", []string{"ok"}},
		{"/readyz", "", []string{"ok"}},
		{"/api", "", []string{`"kind":"APIVersions"`}},
		{"/apis", "", []string{`"kind":"APIGroupList"`, `"name":"toys.example.com"`, `"groupVersion":"toys.example.com/v1"`, `"preferredVersion":{"groupVersion":"toys.example.com/v1"`}},
		{"/apis/toys.example.com", "", []string{`"kind":"APIGroup"`, `"toys.example.com/v1alpha1"`}},
		{"/apis/toys.example.com/v1", "", []string{`"kind":"APIResourceList"`, `"name":"widgets/status"`, `"name":"widgets/scale"`, `"group":"autoscaling","version":"v1","kind":"Scale"`, `"storageVersionHash"`, `"singularName":"widget"`, `"shortNames":["wg"]`}},
		{"/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", []string{`"kind":"APIGroupDiscoveryList"`, `"resource":"widgets"`, `"subresource":"scale"`}},
		{"/openapi/v2", "", []string{`"x-kubernetes-group-version-kind"`, `"x-kubernetes-patch-merge-key":"name"`, `"x-kubernetes-list-map-keys":["name"]`}},
		{"/openapi/v3", "", []string{`"apis/toys.example.com/v1"`}},
		{"/openapi/v3/apis/toys.example.com/v1", "", []string{`"x-kubernetes-group-version-kind"`, `"x-kubernetes-list-type":"map"`, `"x-kubernetes-patch-strategy":"merge"`}},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.accept, func(t *testing.T) {
			h := http.Header{}
			if tt.accept != "" {
				h.Set("Accept", tt.accept)
			}
			code, hdr, body := es.do(t, "GET", tt.path, h, nil)
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, trim(body))
			}
			compact := body
			if strings.Contains(hdr.Get("Content-Type"), "json") {
				var buf bytes.Buffer
				if err := json.Compact(&buf, body); err == nil {
					compact = buf.Bytes()
				}
			}
			for _, w := range tt.want {
				if !bytes.Contains(compact, []byte(w)) {
					t.Errorf("body lacks %s: %s", w, trim(compact))
				}
			}
		})
	}
}

// TestRawHTTP_Gzip asks for gzip on a large list.
func TestRawHTTP_Gzip(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/gz/widgets"
	parts := make([]string, 3000)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"name":"part-%04d","count":%d}`, i, i)
	}
	doc := fmt.Appendf(nil, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"color":"red","parts":[%s]}}`, strings.Join(parts, ","))
	if code, _, body := es.do(t, "POST", coll, jsonHeader(), doc); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, trim(body))
	}
	// es.do sets Accept-Encoding itself, so Go's transport does not unzip transparently.
	code, hdr, body := es.do(t, "GET", coll, http.Header{"Accept-Encoding": {"gzip"}}, nil)
	if code != http.StatusOK {
		t.Fatalf("list: %d", code)
	}
	if hdr.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q for a %d-byte list, want gzip", hdr.Get("Content-Encoding"), len(body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(plain, []byte(`"part-2999"`)) {
		t.Errorf("unzipped list lacks the last part")
	}
	// A small response is not compressed.
	_, hdr, _ = es.do(t, "GET", "/version", http.Header{"Accept-Encoding": {"gzip"}}, nil)
	if hdr.Get("Content-Encoding") == "gzip" {
		t.Errorf("a small response was gzipped")
	}
}

// TestRawHTTP_WatchStream reads a watch over HTTP: a chunked stream of WatchEvent
// documents that ends after timeoutSeconds, on the modern and the legacy /watch/ path.
func TestRawHTTP_WatchStream(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/ws/widgets"
	code, _, body := es.do(t, "POST", coll, jsonHeader(), widgetJSON("ws", "a", "red"))
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	var created struct {
		Metadata struct{ ResourceVersion string }
	}
	_ = json.Unmarshal(body, &created)
	if code, _, body := es.do(t, "POST", coll, jsonHeader(), widgetJSON("ws", "b", "blue")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"from a resourceVersion", coll + "?watch=true&timeoutSeconds=1&resourceVersion=" + created.Metadata.ResourceVersion, []string{"ADDED b"}},
		{"without a resourceVersion: the current state first", coll + "?watch=true&timeoutSeconds=1", []string{"ADDED a", "ADDED b"}},
		{"from 0 (any) with the current state", coll + "?watch=1&timeoutSeconds=1&resourceVersion=0", []string{"ADDED a", "ADDED b"}},
		{"legacy /watch/ path", "/apis/toys.example.com/v1/watch/namespaces/ws/widgets?timeoutSeconds=1&resourceVersion=0", []string{"ADDED a", "ADDED b"}},
		{"legacy /watch/ of one name", "/apis/toys.example.com/v1/watch/namespaces/ws/widgets/a?timeoutSeconds=1&resourceVersion=0", []string{"ADDED a"}},
		{"initial events end with a bookmark", coll + "?watch=true&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			[]string{"ADDED a", "ADDED b", "BOOKMARK k8s.io/initial-events-end=true"}},
		{"field selector filters the stream", coll + "?watch=true&timeoutSeconds=1&resourceVersion=0&fieldSelector=spec.color%3Dblue", []string{"ADDED b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", es.URL+tt.path, nil)
			req.Header.Set("Authorization", "Bearer "+es.Token)
			resp, err := es.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
				t.Errorf("Transfer-Encoding = %q, want chunked", resp.TransferEncoding)
			}
			var got []string
			dec := json.NewDecoder(bufio.NewReader(resp.Body))
			for {
				var ev struct {
					Type   string
					Object struct {
						Kind     string
						Metadata struct {
							Name        string
							Annotations map[string]string
						}
					}
				}
				if err := dec.Decode(&ev); err == io.EOF {
					break // the server ended the stream after timeoutSeconds
				} else if err != nil {
					t.Fatalf("decoding the stream: %v (after %q)", err, got)
				}
				if ev.Type == "BOOKMARK" {
					if v := ev.Object.Metadata.Annotations["k8s.io/initial-events-end"]; v != "" {
						got = append(got, "BOOKMARK k8s.io/initial-events-end="+v)
					}
					continue
				}
				got = append(got, ev.Type+" "+ev.Object.Metadata.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRawHTTP_WatchAs checks that a watch honours the as= parameter of its Accept header
// like a get or list does: kubectl get --watch asks for Tables, client-go's metadata
// client (and metadata informers) for PartialObjectMetadata. kube-apiserver converts
// every event's object.
func TestRawHTTP_WatchAs(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/wa/widgets"
	if code, _, body := es.do(t, "POST", coll, jsonHeader(), widgetJSON("wa", "a", "red")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	tests := []struct {
		name   string
		accept string
		kind   string
	}{
		{"as=PartialObjectMetadata", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json", "PartialObjectMetadata"},
		{"as=Table", tableAccept + ",application/json", "Table"},
		{"plain JSON", "application/json", "Widget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, hdr, body := es.do(t, "GET", coll+"?watch=true&timeoutSeconds=1&resourceVersion=0", http.Header{"Accept": {tt.accept}}, nil)
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, trim(body))
			}
			var ev struct {
				Type   string
				Object struct{ Kind, APIVersion string }
			}
			if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ev); err != nil {
				t.Fatalf("decoding the first event: %v: %s", err, trim(body))
			}
			if ev.Type != "ADDED" || ev.Object.Kind != tt.kind {
				t.Errorf("first event %s of kind %s %s (Content-Type %q), want ADDED %s", ev.Type, ev.Object.APIVersion, ev.Object.Kind, hdr.Get("Content-Type"), tt.kind)
			}
		})
	}
}

// TestRawHTTP_BodyDefaults checks what kube-apiserver fills in for a request body: the
// namespace from the path when the body has none (create, update and status update
// alike: rest.EnsureObjectNamespaceMatchesRequestNamespace), and JSON when the request
// has no Content-Type (NegotiateInputSerializer takes the first supported type).
func TestRawHTTP_BodyDefaults(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/defaults/widgets"
	noNS := func(name, color string) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":%q},"spec":{"color":%q},"status":{"phase":"Seen"}}`, name, color)
	}
	tests := []struct {
		name     string
		method   string
		path     string
		header   http.Header
		body     []byte
		wantCode int
	}{
		{"create without a namespace in the body", "POST", coll, jsonHeader(), noNS("a", "red"), http.StatusCreated},
		{"update without a namespace in the body", "PUT", coll + "/a", jsonHeader(), noNS("a", "blue"), http.StatusOK},
		{"status update without a namespace in the body", "PUT", coll + "/a/status", jsonHeader(), noNS("a", "blue"), http.StatusOK},
		{"create without a Content-Type is JSON", "POST", coll, http.Header{}, noNS("b", "red"), http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := es.do(t, tt.method, tt.path, tt.header, tt.body)
			if code != tt.wantCode {
				t.Fatalf("status %d, want %d: %s", code, tt.wantCode, trim(body))
			}
			var obj struct{ Metadata struct{ Namespace string } }
			if err := json.Unmarshal(body, &obj); err != nil || obj.Metadata.Namespace != "defaults" {
				t.Errorf("namespace = %q (err %v), want the path's", obj.Metadata.Namespace, err)
			}
		})
	}
}

// TestRawHTTP_Pretty: ?pretty=true indents JSON, as kube-apiserver does.
func TestRawHTTP_Pretty(t *testing.T) {
	es := startExampleServer(t, "memory")
	const coll = "/apis/toys.example.com/v1/namespaces/pretty/widgets"
	if code, _, body := es.do(t, "POST", coll, jsonHeader(), widgetJSON("pretty", "p", "red")); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	_, _, body := es.do(t, "GET", coll+"/p?pretty=true", nil, nil)
	if !bytes.Contains(body, []byte("\n  \"kind\": \"Widget\"")) {
		t.Errorf("?pretty=true body is not indented: %s", trim(body))
	}
}
