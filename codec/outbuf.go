package codec

import (
	"bytes"
	"io"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
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

// sizeHints maps a reflect.Type to the length of its last encoding (*sizeHintEntry).
var sizeHints sync.Map

// sizeHintEntry is the hint of one Go type, under the word that names its type in an
// interface value (see typeWord).
type sizeHintEntry struct {
	typeWord uintptr
	atomic.Int64
}

// sizeHintSlots caches sizeHints' entries by typeWord, in the slot its hash picks: a
// hit costs a load and a compare, where sizeHints' Load hashes the type and walks a
// trie (about 150 instructions, 7% of encoding a Status). Types whose slots collide
// take turns in it, and a miss only goes to sizeHints.
var sizeHintSlots [64]atomic.Pointer[sizeHintEntry]

func sizeHint(v any) *atomic.Int64 {
	w := typeWord(v)
	slot := &sizeHintSlots[(uint64(w)*0x9e3779b97f4a7c15)>>58]
	if e := slot.Load(); e != nil && e.typeWord == w {
		return &e.Int64
	}
	t := reflect.TypeOf(v)
	h, ok := sizeHints.Load(t)
	if !ok {
		h, _ = sizeHints.LoadOrStore(t, &sizeHintEntry{typeWord: w})
	}
	e := h.(*sizeHintEntry)
	slot.Store(e)
	return &e.Int64
}

// typeWord returns the first word of the interface value v: the address of its dynamic
// type's descriptor, one per type (0 for nil).
func typeWord(v any) uintptr {
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0])
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
