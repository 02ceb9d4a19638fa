package codec

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

// plainWriter hides a buffer's type, so Encode takes its path for other writers.
type plainWriter struct {
	io.Writer
	writes int
}

func (w *plainWriter) Write(p []byte) (int, error) { w.writes++; return w.Writer.Write(p) }

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
			prefix := []byte("already here")
			direct := bytes.NewBuffer(bytes.Clone(prefix))
			if err := ser.Encode(direct, tt.obj); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(direct.Bytes(), prefix) {
				t.Fatalf("Encode into a bytes.Buffer overwrote what it held")
			}
			want := direct.Bytes()[len(prefix):]
			if !bytes.HasSuffix(want, []byte("}\n")) {
				t.Errorf("encoding does not end in a newline: %q", want[max(0, len(want)-10):])
			}
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
