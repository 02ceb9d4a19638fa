package cbor

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/scheme"
)

var benchSizes = []struct {
	name  string
	parts int
}{{"parts=20", 20}, {"parts=200", 200}}

func BenchmarkEncode(b *testing.B) {
	s := New(testapi.NewScheme())
	for _, sz := range benchSizes {
		w := widget(sz.parts)
		var u scheme.Unstructured
		if _, err := s.Decode(encode(b, w), nil, &u); err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			obj  scheme.Kinded
		}{{"typed", w}, {"unstructured", &u}} {
			b.Run(sz.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				var buf bytes.Buffer
				for i := 0; i < b.N; i++ {
					buf.Reset()
					if err := s.Encode(&buf, c.obj); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(buf.Len()))
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	s := New(testapi.NewScheme())
	for _, sz := range benchSizes {
		data := encode(b, widget(sz.parts))
		b.Run(sz.name+"/typed", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := s.Decode(data, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(sz.name+"/unstructured", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var u scheme.Unstructured
				if _, err := s.Decode(data, nil, &u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
