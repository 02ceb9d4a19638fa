package cbor

import (
	"bytes"
	"io"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// plainWriter hides a buffer's type, so Encode takes its path for other writers.
type plainWriter struct {
	io.Writer
	writes int
}

func (w *plainWriter) Write(p []byte) (int, error) { w.writes++; return w.Writer.Write(p) }

func TestEncode_BufferAndOtherWritersGetTheSameBytes(t *testing.T) {
	big := &v1.WidgetList{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"}}
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
	ser := New(api.NewScheme())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := []byte("already here")
			direct := bytes.NewBuffer(bytes.Clone(prefix))
			if err := ser.Encode(direct, tt.obj); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(direct.Bytes(), prefix) {
				t.Fatalf("Encode into a bytes.Buffer overwrote what it held")
			}
			want := direct.Bytes()[len(prefix):]
			// Twice: the second encode starts from the size hint of the first.
			for i := range 2 {
				var out bytes.Buffer
				w := &plainWriter{Writer: &out}
				if err := ser.Encode(w, tt.obj); err != nil {
					t.Fatal(err)
				}
				if w.writes != 1 {
					t.Errorf("encode %d: %d writes, want one", i, w.writes)
				}
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("encode %d: writer got %d bytes that differ from the buffer's %d", i, out.Len(), len(want))
				}
			}
		})
	}
}

func TestEncode_FailureLeavesTheBufferAsItWas(t *testing.T) {
	ser := New(api.NewScheme())
	buf := bytes.NewBufferString("kept")
	bad := &scheme.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "X", "f": nan()}}
	if err := ser.Encode(buf, bad); err == nil {
		t.Fatal("encoding NaN succeeded")
	}
	if buf.String() != "kept" {
		t.Errorf("buffer holds %q after a failed encode, want %q", buf.String(), "kept")
	}
}
