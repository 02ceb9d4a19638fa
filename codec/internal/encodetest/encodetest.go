// Package encodetest checks, for the tests of every serializer, what codec.WriteAppended
// promises each serializer's Encode: a *bytes.Buffer is appended to in place, and any
// other writer gets the same bytes in one Write.
package encodetest

import (
	"bytes"
	"io"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

// PlainWriter hides a buffer's type, so Encode takes its path for other writers, and
// counts the writes it gets.
type PlainWriter struct {
	io.Writer
	Writes int
}

func (w *PlainWriter) Write(p []byte) (int, error) { w.Writes++; return w.Writer.Write(p) }

// Encoder is the Encode method every serializer has.
type Encoder interface {
	Encode(w io.Writer, obj scheme.Kinded) error
}

// BufferAndWriterAgree encodes obj into a buffer that already holds bytes, which must
// keep them, and then twice into a PlainWriter (the second time from the size hint of
// the first), which must get the same bytes in one write each. It returns the encoding.
func BufferAndWriterAgree(t *testing.T, enc Encoder, obj scheme.Kinded) []byte {
	t.Helper()
	prefix := []byte("already here")
	direct := bytes.NewBuffer(bytes.Clone(prefix))
	if err := enc.Encode(direct, obj); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(direct.Bytes(), prefix) {
		t.Fatalf("Encode into a bytes.Buffer overwrote what it held")
	}
	want := direct.Bytes()[len(prefix):]
	for i := range 2 {
		var out bytes.Buffer
		w := &PlainWriter{Writer: &out}
		if err := enc.Encode(w, obj); err != nil {
			t.Fatal(err)
		}
		if w.Writes != 1 {
			t.Errorf("encode %d: %d writes, want one", i, w.Writes)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("encode %d: writer got %d bytes that differ from the buffer's %d", i, out.Len(), len(want))
		}
	}
	return want
}
