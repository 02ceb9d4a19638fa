package rest_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// deepSpec is {"a": {"a": ... leaf ...}} with depth objects.
func deepSpec(depth int, leaf string) string {
	return strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth)
}

// TestMergePatch_DeepObjectCostsLinearInDepth creates a custom resource whose spec
// (x-kubernetes-preserve-unknown-fields) nests 1,000 and 8,000 levels deep and merge
// patches its deepest value, through the Handler: what the 8,000-level PATCH
// allocates is bounded by a linear growth (16 times the 1,000-level one, twice the
// depth ratio; a merge that re-reads each level allocated about 60 times, 0.8 GiB).
// Times are logged, not asserted.
func TestMergePatch_DeepObjectCostsLinearInDepth(t *testing.T) {
	h, _, _ := newTestHandler(t, func(o *rest.Options) {
		gv := scheme.GroupVersion{Group: "deep.example.com", Version: "v1"}
		openapi.Register(o.Scheme, gv.WithKind("Tree"), crdSchema(t, `{"type":"object","properties":{
			"spec":{"x-kubernetes-preserve-unknown-fields":true,"type":"object"}}}`))
		o.Scheme.AddUnstructuredKind(gv.WithKind("TreeList"))
		if err := o.Scheme.AddResource(scheme.Resource{Group: gv.Group, Kind: "Tree", ListKind: "TreeList", Plural: "trees", Namespaced: true}); err != nil {
			t.Fatal(err)
		}
	})
	const path = "/apis/deep.example.com/v1/namespaces/default/trees"
	serve := func(method, path, contentType, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	const small, large = 1000, 8000
	var allocated [2]uint64
	for i, depth := range []int{small, large} {
		name := []string{"small", "large"}[i]
		if rec := serve("POST", path, "application/json", `{"apiVersion":"deep.example.com/v1","kind":"Tree","metadata":{"name":"`+name+`"},"spec":`+
			deepSpec(depth, `{"x":1}`)+`}`); rec.Code != http.StatusCreated {
			t.Fatalf("create at depth %d: %d %.300s", depth, rec.Code, rec.Body)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		rec := serve("PATCH", path+"/"+name, "application/merge-patch+json", `{"spec":`+deepSpec(depth, `{"x":null,"y":2}`)+`}`)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		allocated[i] = after.TotalAlloc - before.TotalAlloc
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `{"a":{"y":2}}`) || strings.Contains(rec.Body.String(), `"x"`) {
			t.Fatalf("merge patch at depth %d: %d %.300s", depth, rec.Code, rec.Body)
		}
		t.Logf("merge patch at depth %d: %v, %d KiB allocated", depth, took.Round(time.Millisecond), allocated[i]>>10)
	}
	if ratio := float64(allocated[1]) / float64(allocated[0]); ratio > 2*large/small {
		t.Errorf("depth %d allocates %.1f times what depth %d does: more than linear", large, ratio, small)
	}
}
