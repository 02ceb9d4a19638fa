package codec

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// BenchmarkYAML converts an ordinary object (a widget of 20 parts, 2.5 KB of JSON)
// both ways, side by side with sigs.k8s.io/yaml (kube-apiserver's converter; the
// decode row is its strict conversion, the one a clean body costs):
//
//	go test -run '^$' -bench BenchmarkYAML -benchmem ./codec/
func BenchmarkYAML(b *testing.B) {
	j := widgetJSON(20)
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode/apikit", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(j)))
		for b.Loop() {
			if _, err := JSONToYAML(j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/sigs.k8s.io-yaml", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(j)))
		for b.Loop() {
			if _, err := yaml.JSONToYAML(j); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/apikit", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(y)))
		for b.Loop() {
			if _, _, err := YAMLToJSONWithin(y, 3<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/sigs.k8s.io-yaml", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(y)))
		for b.Loop() {
			if _, err := yaml.YAMLToJSONStrict(y); err != nil {
				b.Fatal(err)
			}
		}
	})
}
