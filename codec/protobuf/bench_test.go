package protobuf

import (
	"io"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func benchEncodeDecode(b *testing.B, obj scheme.Kinded, newObj func() scheme.Kinded) {
	s := New(testScheme())
	data := encode(b, s, obj)
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := s.Encode(io.Discard, obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := s.Decode(data, nil, newObj()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkStatus(b *testing.B) {
	benchEncodeDecode(b, sampleStatus(), func() scheme.Kinded { return &scheme.Status{} })
}

func BenchmarkPartialObjectMetadata(b *testing.B) {
	pom := &scheme.PartialObjectMetadata{TypeMeta: scheme.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: fullMeta()}
	benchEncodeDecode(b, pom, func() scheme.Kinded { return &scheme.PartialObjectMetadata{} })
}

func BenchmarkWidget(b *testing.B) {
	benchEncodeDecode(b, sampleWidget(5), func() scheme.Kinded { return &Widget{} })
}

func BenchmarkWidgetUnstructured(b *testing.B) {
	s := New(testScheme())
	data := encode(b, s, sampleWidget(5))
	res, err := s.Decode(data, nil, &scheme.Unstructured{})
	if err != nil {
		b.Fatal(err)
	}
	benchEncodeDecode(b, res.Object, func() scheme.Kinded { return &scheme.Unstructured{} })
}

func BenchmarkWidgetList500(b *testing.B) {
	l := &WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"}}
	for range 500 {
		l.Items = append(l.Items, listItem(5))
	}
	benchEncodeDecode(b, l, func() scheme.Kinded { return &WidgetList{} })
}
