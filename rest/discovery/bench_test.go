package discovery_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest/discovery"
)

func BenchmarkNew(b *testing.B) {
	s := testapi.NewScheme()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := discovery.New(s, discovery.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkServe(b *testing.B) {
	h := newWidgetsHandler(b)
	for _, bm := range []struct{ name, path, accept string }{
		{"aggregated", "/apis", acceptKubectl},
		{"resourceList", "/apis/toys.example.com/v1", "application/json, */*"},
		{"openapiV3", "/openapi/v3/apis/toys.example.com/v1", "application/json"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bm.path, nil)
			req.Header.Set("Accept", bm.accept)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

func BenchmarkNew_LazyOpenAPI(b *testing.B) {
	s := testapi.NewScheme()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := discovery.New(s, discovery.Options{LazyOpenAPI: true}); err != nil {
			b.Fatal(err)
		}
	}
}
