package codec

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/codec/internal/encodetest"
	"github.com/apikit-dev/apikit/scheme"
)

func TestJSONEncode_BufferAndOtherWritersGetTheSameBytes(t *testing.T) {
	items := make([]any, 0, 5000)
	for range 5000 { // over the small-buffer size class
		items = append(items, map[string]any{"name": "item", "labels": map[string]any{"app": "demo"}})
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"small object", &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "n": int64(1)}}},
		{"large object", &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "XList", "items": items}}},
	}
	ser := NewJSON(testScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := encodetest.BufferAndWriterAgree(t, ser, tt.obj)
			if !bytes.HasSuffix(want, []byte("}\n")) {
				t.Errorf("encoding does not end in a newline: %q", want[max(0, len(want)-10):])
			}
		})
	}
}

func TestJSONEncode_FailureLeavesTheBufferAsItWas(t *testing.T) {
	buf := bytes.NewBufferString("kept")
	bad := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "f": math.NaN()}}
	if err := NewJSON(testScheme()).Encode(buf, bad); err == nil {
		t.Fatal("encoding NaN succeeded")
	}
	if buf.String() != "kept" {
		t.Errorf("buffer holds %q after a failed encode, want %q", buf.String(), "kept")
	}
}

func TestSizeHint_EachTypeKeepsItsOwnThroughSlotCollisions(t *testing.T) {
	// More types than sizeHintSlots has slots, so that some share a slot and take turns.
	values := make([]any, 3*len(sizeHintSlots))
	for i := range values {
		values[i] = reflect.New(reflect.ArrayOf(i+1, reflect.TypeFor[byte]())).Elem().Interface()
	}
	for round := range 2 {
		for i, v := range values {
			sizeHint(v).Store(int64(1000*round + i))
		}
		for i, v := range values {
			if got, want := sizeHint(v).Load(), int64(1000*round+i); got != want {
				t.Fatalf("round %d: hint of %T is %d, want %d", round, v, got, want)
			}
		}
	}
	if sizeHint(values[0]) == sizeHint(&values[0]) {
		t.Error("a value and a pointer to it share a hint")
	}
}
