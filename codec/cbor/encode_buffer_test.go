package cbor

import (
	"bytes"
	"testing"

	"github.com/apikit-dev/apikit/codec/internal/encodetest"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

func TestEncode_BufferAndOtherWritersGetTheSameBytes(t *testing.T) {
	big := &toys.WidgetListV1{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"}}
	for range 1000 { // over the small-buffer size class
		big.Items = append(big.Items, *widget(20))
	}
	tests := []struct {
		name string
		obj  scheme.Kinded
	}{
		{"small object", widget(3)},
		{"large list", big},
		{"unstructured", &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "n": int64(1)}}},
	}
	ser := New(testapi.NewScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { encodetest.BufferAndWriterAgree(t, ser, tt.obj) })
	}
}

func TestEncode_FailureLeavesTheBufferAsItWas(t *testing.T) {
	tests := []struct {
		name   string
		buffer func() *bytes.Buffer
		want   string
	}{
		{"buffer holding bytes", func() *bytes.Buffer { return bytes.NewBufferString("kept") }, "kept"},
		{"empty buffer", func() *bytes.Buffer { return new(bytes.Buffer) }, ""},
		{"buffer partly read", func() *bytes.Buffer {
			b := bytes.NewBufferString("readkept")
			b.Next(4)
			return b
		}, "kept"},
	}
	ser := New(testapi.NewScheme())
	bad := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "f": nan()}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := tt.buffer()
			if err := ser.Encode(buf, bad); err == nil {
				t.Fatal("encoding NaN succeeded")
			}
			if buf.String() != tt.want {
				t.Errorf("buffer holds %q after a failed encode, want %q", buf.String(), tt.want)
			}
			// And it still takes the next encode after what it held.
			good := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X"}}
			if err := ser.Encode(buf, good); err != nil {
				t.Fatal(err)
			}
			want, err := Marshal(good.Object)
			if err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tt.want+string(want) {
				t.Errorf("buffer holds %x after a good encode, want %x", got, tt.want+string(want))
			}
		})
	}
}

func TestEncodeEvent_IsAppendEventOfTheEncodedObjectInOneWrite(t *testing.T) {
	ser := New(testapi.NewScheme())
	tests := []struct {
		name string
		ev   watch.Event
	}{
		{"typed object", watch.Event{Type: watch.Added, Object: widget(3)}},
		{"unstructured object", watch.Event{Type: watch.Modified, Object: &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "n": int64(1)}}}},
		{"bookmark", watch.Event{Type: watch.Bookmark, Object: widget(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj bytes.Buffer
			if err := ser.Encode(&obj, tt.ev.Object); err != nil {
				t.Fatal(err)
			}
			want := AppendEvent(nil, tt.ev.Type, obj.Bytes())
			var out bytes.Buffer
			w := &encodetest.PlainWriter{Writer: &out}
			if err := ser.EncodeEvent(w, tt.ev); err != nil {
				t.Fatal(err)
			}
			if w.Writes != 1 || !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%d writes of %x, want one of %x", w.Writes, out.Bytes(), want)
			}
		})
	}
	t.Run("failed encode writes nothing", func(t *testing.T) {
		var out bytes.Buffer
		w := &encodetest.PlainWriter{Writer: &out}
		bad := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "f": nan()}}
		if err := ser.EncodeEvent(w, watch.Event{Type: watch.Added, Object: bad}); err == nil {
			t.Fatal("encoding NaN succeeded")
		}
		if w.Writes != 0 || out.Len() != 0 {
			t.Errorf("%d writes of %x after a failure, want none", w.Writes, out.Bytes())
		}
	})
}
