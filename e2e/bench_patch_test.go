package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
)

// Server-side apply of a Widget with 50 parts, side by side with apimachinery's field
// manager (what kube-apiserver runs) on the same schema and inputs. Each iteration
// applies a configuration that changes every part's count, alternating between two,
// against the result of the previous one:
//
//	go test ./e2e -run '^$' -bench 'ApplyWidget50Parts' -count 10 > out.txt; benchstat -col /impl out.txt
func BenchmarkApplyWidget50Parts(b *testing.B) {
	cfg := func(count int) map[string]any {
		parts := make([]any, 50)
		for i := range parts {
			parts[i] = map[string]any{"name": fmt.Sprintf("part-%02d", i), "count": int64(count)}
		}
		return map[string]any{
			"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default", "labels": map[string]any{"app": "bench"}},
			"spec":     map[string]any{"color": "red", "parts": parts},
		}
	}
	b.Run("impl=apikit", func(b *testing.B) {
		b.ReportAllocs()
		fm, err := patch.NewFieldManager(api.NewScheme(), scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}, patch.Options{})
		if err != nil {
			b.Fatal(err)
		}
		live, managed, err := fm.Apply(nil, cfg(1), "bench", false)
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			live["metadata"].(map[string]any)["managedFields"] = managed
			if live, managed, err = fm.Apply(live, cfg(i%2+2), "bench", false); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("impl=apimachinery", func(b *testing.B) {
		b.ReportAllocs()
		es := startExampleServer(b, server.StorageMemory)
		code, _, body := es.do(b, "GET", "/openapi/v3/apis/toys.example.com/v1", nil, nil)
		if code != http.StatusOK {
			b.Fatalf("openapi: %d", code)
		}
		var doc spec3.OpenAPI
		if err := json.Unmarshal(body, &doc); err != nil {
			b.Fatal(err)
		}
		tc, err := managedfields.NewTypeConverter(doc.Components.Schemas, false)
		if err != nil {
			b.Fatal(err)
		}
		fm := managedfieldstest.NewTestFieldManager(tc, schema.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"})
		if err := fm.Apply(&unstructured.Unstructured{Object: cfg(1)}, "bench", false); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			if err := fm.Apply(&unstructured.Unstructured{Object: cfg(i%2 + 2)}, "bench", false); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
