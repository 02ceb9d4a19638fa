package rest_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/storage"
)

// addDefaultedLists registers Hoard in crd.example.com: a schema-only kind whose
// spec.things are objects with a defaulted string s, and whose spec.names are strings
// defaulted where an item is null, both defaults of def's length.
func addDefaultedLists(t testing.TB, s *scheme.Scheme, def int) {
	t.Helper()
	big := `"` + strings.Repeat("d", def) + `"`
	gv := scheme.GroupVersion{Group: crdGroup, Version: "v1"}
	openapi.Register(s, gv.WithKind("Hoard"), crdSchema(t, `{"type":"object","properties":{
		"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
		"spec":{"type":"object","properties":{
			"things":{"type":"array","items":{"type":"object","properties":{"s":{"type":"string","default":`+big+`}}}},
			"names":{"type":"array","items":{"type":"string","default":`+big+`}},
			"nested":{"type":"array","items":{"type":"object","default":{},"properties":{
				"inner":{"type":"object","default":{},"properties":{"s":{"type":"string","default":`+big+`}}}}}}}}}}`))
	s.AddUnstructuredKind(gv.WithKind("HoardList"))
	if err := s.AddResource(scheme.Resource{Group: crdGroup, Kind: "Hoard", ListKind: "HoardList", Plural: "hoards", Namespaced: true, StorageVersion: "v1"}); err != nil {
		t.Fatal(err)
	}
}

const hoardsPath = "/apis/crd.example.com/v1/namespaces/default/hoards"

// hoard is a Hoard whose spec has field set to n copies of item.
func hoard(name, field, item string, n int) string {
	return `{"apiVersion":"crd.example.com/v1","kind":"Hoard","metadata":{"name":"` + name + `"},"spec":{"` + field + `":[` +
		strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}}`
}

// The case, scaled down: a body of 2,000 empty items whose 50 KB default
// makes a 100 MB object was defaulted whole (and encoded twice to measure it) before
// storage refused it. Defaulting stops once the defaults alone pass the limit: the
// answer is kube's 500 for an object etcd refuses, before admission, within a few
// times the limit of memory; objects whose defaults fit are stored defaulted.
func TestCRD_DefaultsPastTheObjectLimitStopAtTheLimit(t *testing.T) {
	const def = 50 << 10
	admitted := &admissionCounter{}
	s := newServer(t, func(o *rest.Options) {
		addDefaultedLists(t, o.Scheme, def)
		o.MutatingAdmission = append(o.MutatingAdmission, admitted)
	})
	for _, tc := range []struct {
		name        string
		field, item string
		n           int
	}{
		{"empty objects with a defaulted field", "things", "{}", 2000},
		{"null items of defaulted items", "names", "null", 2000},
		{"null items whose defaults are defaulted below", "nested", "null", 2000},
		{"just past the limit", "things", "{}", rest.DefaultMaxObjectBytes/def + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := admitted.count()
			body := hoard("big", tc.field, tc.item, tc.n)
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			start := time.Now()
			r := s.do("POST", hoardsPath, "application/json", body)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&m1)
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("%d items of a %d-byte default (a %d-byte body): %d in %v, %.1f MiB allocated",
				tc.n, def, len(body), r.code, elapsed, float64(alloc)/(1<<20))
			if m := r.json(t); r.code != http.StatusInternalServerError || m["message"] != "etcdserver: request is too large" {
				t.Errorf("%d %.300s, want kube's 500 for an object etcd refuses", r.code, r.body)
			}
			if n := admitted.count() - before; n != 0 {
				t.Errorf("the over-limit object reached admission %d times, want it refused while decoding", n)
			}
			// The defaults stop at the limit (1.5 MiB), before the object is encoded
			// to be measured: the request allocates less than twice that.
			if limit := uint64(2 * rest.DefaultMaxObjectBytes); alloc > limit {
				t.Errorf("the request allocated %d bytes, want at most %d", alloc, limit)
			}
		})
	}

	fits := rest.DefaultMaxObjectBytes/def - 1
	r := s.do("POST", hoardsPath, "application/json", hoard("fits", "things", "{}", fits))
	if r.code != http.StatusCreated {
		t.Fatalf("%d items whose defaults fit: %d %.300s, want 201", fits, r.code, r.body)
	}
	things, _ := get(r.json(t), "spec", "things").([]any)
	if len(things) != fits || len(get(things[fits-1].(map[string]any), "s").(string)) != def {
		t.Errorf("the stored object is not defaulted: %d things", len(things))
	}
}

// Patches and applies are defaulted like creates, and so stop at the limit too; an
// object stored before its schema had the defaults that would grow it past the limit
// is a 500 to read rather than an unbounded response.
func TestCRD_DefaultsPastTheObjectLimitOnPatchApplyAndRead(t *testing.T) {
	const def = 50 << 10
	admitted := &admissionCounter{}
	s := newServer(t, func(o *rest.Options) {
		addDefaultedLists(t, o.Scheme, def)
		o.MutatingAdmission = append(o.MutatingAdmission, admitted)
	})
	if r := s.do("POST", hoardsPath, "application/json", hoard("small", "things", "{}", 2)); r.code != http.StatusCreated {
		t.Fatalf("create: %d %.300s", r.code, r.body)
	}
	many := "[" + strings.TrimSuffix(strings.Repeat("{},", 2000), ",") + "]"
	for _, tc := range []struct {
		name, method, path, contentType, body string
	}{
		{"a merge patch of empty items", "PATCH", "/small", "application/merge-patch+json", `{"spec":{"things":` + many + `}}`},
		{"a JSON patch of empty items", "PATCH", "/small", "application/json-patch+json", `[{"op":"replace","path":"/spec/things","value":` + many + `}]`},
		{"an apply of empty items", "PATCH", "/applied?fieldManager=test", "application/apply-patch+yaml", hoard("applied", "things", "{}", 2000)},
		{"an update of empty items", "PUT", "/small", "application/json", hoard("small", "things", "{}", 2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := admitted.count()
			r := s.do(tc.method, hoardsPath+tc.path, tc.contentType, tc.body)
			if m := r.json(t); r.code != http.StatusInternalServerError || m["message"] != "etcdserver: request is too large" {
				t.Errorf("%d %.300s, want kube's 500 for an object etcd refuses", r.code, r.body)
			}
			if n := admitted.count() - before; n != 0 {
				t.Errorf("the over-limit object reached admission %d times", n)
			}
		})
	}

	// Stored as it was before the schema had its defaults.
	old := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "crd.example.com/v1", "kind": "Hoard",
		"metadata": map[string]any{"name": "old", "namespace": "default", "uid": "u-old"},
		"spec":     map[string]any{"things": make([]any, 0, 2000)},
	}}
	for range 2000 {
		old.Object["spec"].(map[string]any)["things"] = append(old.Object["spec"].(map[string]any)["things"].([]any), map[string]any{})
	}
	if _, err := s.store.Create(context.Background(), storage.Key(scheme.GroupResource{Group: crdGroup, Resource: "hoards"}, "default", "old"), old); err != nil {
		t.Fatal(err)
	}
	const want = `Internal error occurred: the defaults of the schema of Hoard "old" add more than 1572864 bytes to it`
	for _, tc := range []struct{ name, method, path, contentType, body string }{
		{"get", "GET", "/old", "", ""},
		{"list", "GET", "", "", ""},
		{"update", "PUT", "/old", "application/json", hoard("old", "things", "{}", 1)},
		{"delete", "DELETE", "/old", "", ""},
	} {
		t.Run("the stored object on "+tc.name, func(t *testing.T) {
			r := s.do(tc.method, hoardsPath+tc.path, tc.contentType, tc.body)
			if m := r.json(t); r.code != http.StatusInternalServerError || m["reason"] != "InternalError" || m["message"] != want {
				t.Errorf("%d %.300s, want 500 %s", r.code, r.body, want)
			}
		})
	}
}
