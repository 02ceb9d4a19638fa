package protobuf

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// A protobuf envelope that repeats apiVersion or kind, or its TypeMeta, is of the kind
// the last values name, as protobuf reads any repeated scalar field (and as
// apimachinery's runtime.Unknown does): the same rule as for a JSON or YAML body.
func TestDecodeEnvelope_RepeatedKindIsTheLastOne(t *testing.T) {
	typeMeta := func(fields ...[2]string) []byte {
		var b []byte
		for _, f := range fields {
			num := protowire.Number(1)
			if f[0] == "kind" {
				num = 2
			}
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendString(b, f[1])
		}
		return b
	}
	envelope := func(typeMetas ...[]byte) []byte {
		b := append([]byte(nil), Magic...)
		for _, tm := range typeMetas {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendBytes(b, tm)
		}
		return b
	}
	for _, tc := range []struct {
		name                 string
		data                 []byte
		apiVersion, wantKind string
	}{
		{"kind twice", envelope(typeMeta([2]string{"apiVersion", "toys.example.com/v1"}, [2]string{"kind", "Warehouse"}, [2]string{"kind", "Widget"})), "toys.example.com/v1", "Widget"},
		{"kind twice, reversed", envelope(typeMeta([2]string{"apiVersion", "toys.example.com/v1"}, [2]string{"kind", "Widget"}, [2]string{"kind", "Warehouse"})), "toys.example.com/v1", "Warehouse"},
		{"apiVersion after kind", envelope(typeMeta([2]string{"apiVersion", "toys.example.com/v2"}, [2]string{"kind", "Widget"}, [2]string{"apiVersion", "toys.example.com/v1"})), "toys.example.com/v1", "Widget"},
		{"two TypeMetas merge", envelope(typeMeta([2]string{"apiVersion", "toys.example.com/v1"}, [2]string{"kind", "Warehouse"}), typeMeta([2]string{"kind", "Widget"})), "toys.example.com/v1", "Widget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := DecodeEnvelope(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if u.APIVersion != tc.apiVersion || u.Kind != tc.wantKind {
				t.Errorf("decoded %s %s, want %s %s", u.APIVersion, u.Kind, tc.apiVersion, tc.wantKind)
			}
		})
	}
}
