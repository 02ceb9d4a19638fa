package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

var benchSizes = []int{20, 200}

func BenchmarkDecodeTyped(b *testing.B) {
	for _, n := range benchSizes {
		data := widgetJSON(n)
		b.Run(fmt.Sprintf("parts=%d/codec", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var w Widget
				if _, err := Unmarshal(data, &w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parts=%d/encoding-json", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var w Widget
				if err := json.Unmarshal(data, &w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeUnstructured(b *testing.B) {
	for _, n := range benchSizes {
		data := widgetJSON(n)
		b.Run(fmt.Sprintf("parts=%d/codec", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var u scheme.Unstructured
				if _, err := Unmarshal(data, &u); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parts=%d/encoding-json", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var m map[string]any
				if err := json.Unmarshal(data, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSerializerDecode(b *testing.B) {
	s := NewJSON(testScheme())
	for _, n := range benchSizes {
		data := widgetJSON(n)
		b.Run(fmt.Sprintf("parts=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := s.Decode(data, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeTyped(b *testing.B) {
	s := NewJSON(testScheme())
	for _, n := range benchSizes {
		var w Widget
		if _, err := Unmarshal(widgetJSON(n), &w); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("parts=%d/codec", n), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := s.Encode(&buf, &w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parts=%d/codec-append", n), func(b *testing.B) {
			b.ReportAllocs()
			out := make([]byte, 0, 16<<10)
			for b.Loop() {
				var err error
				if out, err = AppendJSON(out[:0], &w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parts=%d/encoding-json", n), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := json.NewEncoder(&buf).Encode(&w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeUnstructured(b *testing.B) {
	for _, n := range benchSizes {
		var u scheme.Unstructured
		if _, err := Unmarshal(widgetJSON(n), &u); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("parts=%d/codec", n), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 16<<10)
			for b.Loop() {
				var err error
				if buf, err = AppendJSON(buf[:0], u.Object); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("parts=%d/encoding-json", n), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := json.NewEncoder(&buf).Encode(u.Object); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
