package codec

import (
	"bytes"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
)

// WriteAppended writes what appendTo appends to an empty buffer to w, in one Write, and
// nothing at all when appendTo fails. Every serializer's Encode goes through it:
//   - a *bytes.Buffer is appended to in place (its spare capacity is written into, so a
//     reused buffer costs no allocation);
//   - any other writer gets a pooled buffer sized from the last encoding of a value of
//     the same Go type as sizeKey, so that big lists do not grow (and copy) their buffer
//     from nothing. Buffers of big lists live in a pool of their own, so that the many
//     small encodes never hold them; w must not keep the bytes.
func WriteAppended(w io.Writer, sizeKey any, appendTo func([]byte) ([]byte, error)) error {
	if bb, ok := w.(*bytes.Buffer); ok {
		b, err := appendTo(bb.AvailableBuffer())
		if err == nil {
			_, err = bb.Write(b)
		}
		return err
	}
	hint := sizeHint(sizeKey)
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
