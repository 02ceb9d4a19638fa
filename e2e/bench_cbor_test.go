package e2e

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/codec/cbor"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Side-by-side CBOR benchmarks: apikit and k8s.io/apimachinery doing the same work on
// the same bytes (TestCBORInterop_* proves the bytes identical). Compare with
//
//	go test ./e2e -run '^$' -bench 'CBOR' -count 10 > out.txt
//	benchstat -col /impl out.txt
//
// Both sides decode strictly (apimachinery's Strict(true) serializer; apikit always
// reports unknown and duplicate fields).

func BenchmarkCBORDecodeTyped(b *testing.B) {
	ours := cbor.New(api.NewScheme())
	theirs := k8sCBOR()
	for _, sz := range sizes {
		data := apikitEncodeCBOR(b, widgetFixture(sz.parts))
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

func BenchmarkCBOREncodeTyped(b *testing.B) {
	ours := cbor.New(api.NewScheme())
	theirs := k8sCBOR()
	for _, sz := range sizes {
		w := widgetFixture(sz.parts)
		kw := toK8s(b, w)
		var buf bytes.Buffer
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := ours.Encode(&buf, w); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := theirs.Encode(kw, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}

func BenchmarkCBORDecodeUnstructured(b *testing.B) {
	ours := cbor.New(api.NewScheme())
	theirs := k8sCBOR()
	for _, sz := range sizes {
		data := apikitEncodeCBOR(b, widgetFixture(sz.parts))
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var u scheme.Unstructured
				if res, err := ours.Decode(data, nil, &u); err != nil || len(res.Issues) != 0 {
					b.Fatal(err, res.Issues)
				}
			}
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var u unstructured.Unstructured
				if _, _, err := theirs.Decode(data, nil, &u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCBOREncodeUnstructured(b *testing.B) {
	ours := cbor.New(api.NewScheme())
	theirs := k8sCBOR()
	for _, sz := range sizes {
		u := &scheme.Unstructured{Object: unstructuredFromJSON(b, widgetFixture(sz.parts))}
		ku := &unstructured.Unstructured{Object: unstructuredFromJSON(b, widgetFixture(sz.parts))}
		var buf bytes.Buffer
		b.Run(sz.name+"/impl=apikit", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := ours.Encode(&buf, u); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
		b.Run(sz.name+"/impl=apimachinery", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := theirs.Encode(ku, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}
