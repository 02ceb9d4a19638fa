package e2e

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Side-by-side benchmarks: apikit and k8s.io/apimachinery doing the same work on the same
// bytes. Compare with
//
//	go test ./e2e -run '^$' -bench 'JSON|Unstructured|DeepCopy' -count 10 > out.txt
//	benchstat -col /impl out.txt
//
// Both sides decode strictly (unknown and duplicate fields are detected), as a server
// honouring fieldValidation must.

var sizes = []struct {
	name  string
	parts int
}{{"parts=20", 20}, {"parts=200", 200}}

func k8sStrictJSON() *kjson.Serializer {
	s := newK8sScheme()
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, s, s, kjson.SerializerOptions{Strict: true})
}

func BenchmarkJSONDecodeTyped(b *testing.B) {
	ours := codec.NewJSON(api.NewScheme())
	theirs := k8sStrictJSON()
	for _, sz := range sizes {
		data, _ := json.Marshal(widgetFixture(sz.parts))
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				res, err := ours.Decode(data, nil, nil)
				if err != nil || len(res.Issues) != 0 {
					b.Fatal(err, res.Issues)
				}
				if _, ok := res.Object.(*toysv1.Widget); !ok {
					b.Fatalf("decoded %T", res.Object)
				}
			}
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				obj, _, err := theirs.Decode(data, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := obj.(*k8sWidget); !ok {
					b.Fatalf("decoded %T", obj)
				}
			}
		})
	}
}

func BenchmarkJSONEncodeTyped(b *testing.B) {
	ours := codec.NewJSON(api.NewScheme())
	theirs := k8sStrictJSON()
	for _, sz := range sizes {
		w := widgetFixture(sz.parts)
		kw := k8sWidgetFixture(b, sz.parts)
		var buf bytes.Buffer
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := ours.Encode(&buf, w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := theirs.Encode(kw, &buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJSONDecodeUnstructured(b *testing.B) {
	ours := codec.NewJSON(api.NewScheme())
	for _, sz := range sizes {
		data, _ := json.Marshal(widgetFixture(sz.parts))
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := ours.Decode(data, nil, &scheme.Unstructured{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, &unstructured.Unstructured{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJSONEncodeUnstructured(b *testing.B) {
	ours := codec.NewJSON(api.NewScheme())
	for _, sz := range sizes {
		data, _ := json.Marshal(widgetFixture(sz.parts))
		var u scheme.Unstructured
		if err := json.Unmarshal(data, &u); err != nil {
			b.Fatal(err)
		}
		ku := &unstructured.Unstructured{}
		if _, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, ku); err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := ours.Encode(&buf, &u); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := unstructured.UnstructuredJSONScheme.Encode(ku, &buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sink keeps benchmark results on the heap: a result dropped with _ lets the compiler
// put an inlined copy's top-level struct on the stack, which no real caller gets.
var sink any

func BenchmarkDeepCopy(b *testing.B) {
	for _, sz := range sizes {
		w := widgetFixture(sz.parts)
		kw := k8sWidgetFixture(b, sz.parts)
		b.Run("typed/"+sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = scheme.DeepCopy(w)
			}
		})
		// apimachinery's side is what deepcopy-gen writes (hand-written here to the same shape).
		b.Run("typed/"+sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = kw.DeepCopy()
			}
		})
		data, _ := json.Marshal(w)
		var u scheme.Unstructured
		_ = json.Unmarshal(data, &u)
		ku := &unstructured.Unstructured{}
		_, _, _ = unstructured.UnstructuredJSONScheme.Decode(data, nil, ku)
		b.Run("unstructured/"+sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = scheme.DeepCopy(&u)
			}
		})
		b.Run("unstructured/"+sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink = ku.DeepCopy()
			}
		})
	}
}

var _ runtime.Object = (*k8sWidget)(nil)
