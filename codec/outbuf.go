package codec

import (
	"bytes"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
)

// WriteAppended writes what appendTo appends to an empty buffer to w, in one Write, and
// nothing at all when appendTo fails. Every serializer's Encode goes through it. The
// buffer appended to is sized from the last encoding of a value of the same Go type as
// sizeKey, so that an encoding does not grow (and copy) its buffer from nothing:
//   - a *bytes.Buffer with room for that much is appended to in place (a reused buffer
//     costs no allocation);
//   - otherwise a pooled buffer is appended to and written to w (a new bytes.Buffer then
//     costs one allocation of the encoding's size, where growing it from nothing cost
//     about ten and three times the size). Buffers of big lists live in a pool of their
//     own, so that the many small encodes never hold them; w must not keep the bytes.
func WriteAppended(w io.Writer, sizeKey any, appendTo func([]byte) ([]byte, error)) error {
	hint := sizeHint(sizeKey)
	if bb, ok := w.(*bytes.Buffer); ok && bb.Available() >= int(hint.Load()) {
		b, err := appendTo(bb.AvailableBuffer())
		if err == nil {
			hint.Store(int64(len(b)))
			_, err = bb.Write(b)
		}
		return err
	}
	bp := getOutputBuffer(int(hint.Load()))
	b, err := appendTo((*bp)[:0])
	if err == nil {
		hint.Store(int64(len(b)))
		_, err = w.Write(b)
	}
	*bp = b[:0]
	putOutputBuffer(bp)
	return err
}

// maxSmallOutputBuffer bounds the buffers kept in the pool of small buffers, and
// maxLargeOutputBuffer those kept in the pool of large ones.
const (
	maxSmallOutputBuffer = 256 << 10
	maxLargeOutputBuffer = 64 << 20
)

var smallOutputBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// largeOutputBuffers lets go of what stays unused for two garbage collections, like
// every sync.Pool.
var largeOutputBuffers sync.Pool

// sizeHints maps a reflect.Type to the length of its last encoding (*atomic.Int64).
var sizeHints sync.Map

func sizeHint(v any) *atomic.Int64 {
	t := reflect.TypeOf(v)
	if h, ok := sizeHints.Load(t); ok {
		return h.(*atomic.Int64)
	}
	h, _ := sizeHints.LoadOrStore(t, new(atomic.Int64))
	return h.(*atomic.Int64)
}

// getOutputBuffer returns an empty buffer with room for at least hint bytes.
func getOutputBuffer(hint int) *[]byte {
	if hint <= maxSmallOutputBuffer {
		return smallOutputBuffers.Get().(*[]byte)
	}
	bp, _ := largeOutputBuffers.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	// A little headroom, so that a list that grew by a few items does not double.
	if want := hint + hint/8; cap(*bp) < want {
		*bp = make([]byte, 0, want)
	}
	return bp
}

// putOutputBuffer returns a buffer of getOutputBuffer for reuse.
func putOutputBuffer(bp *[]byte) {
	switch c := cap(*bp); {
	case c <= maxSmallOutputBuffer:
		smallOutputBuffers.Put(bp)
	case c <= maxLargeOutputBuffer:
		largeOutputBuffers.Put(bp)
	}
}
