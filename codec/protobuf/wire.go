package protobuf

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

// Low-level wire helpers. Encoding appends forwards: a nested message reserves one
// length byte and is shifted when its body turns out to need more, which keeps every
// message a single pass without computing sizes first.

// The appenders below are small enough for the compiler to inline (a loop costs it
// less than a call): a field is written in place, without a call, at every site.

// appendVarint appends v as a varint.
func appendVarint(b []byte, v uint64) []byte {
	for ; v >= 0x80; v >>= 7 {
		b = append(b, byte(v)|0x80)
	}
	return append(b, byte(v))
}

// appendTag appends a field key.
func appendTag(b []byte, num protowire.Number, typ protowire.Type) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(typ))
}

// appendString appends a length-delimited string field, empty or not (gogo's
// non-nullable proto2 fields are always written).
func appendString(b []byte, num protowire.Number, s string) []byte {
	return append(appendVarint(appendTag(b, num, protowire.BytesType), uint64(len(s))), s...)
}

// appendBytesField appends a length-delimited bytes field.
func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	return append(appendVarint(appendTag(b, num, protowire.BytesType), uint64(len(v))), v...)
}

// appendVarintField appends a varint field; negative int32 and int64 values are
// sign-extended to ten bytes, as protobuf requires.
func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	return appendVarint(appendTag(b, num, protowire.VarintType), v)
}

// appendBoolField appends a bool field.
func appendBoolField(b []byte, num protowire.Number, v bool) []byte {
	return appendVarintField(b, num, protowire.EncodeBool(v))
}

// beginMessage appends the key of an embedded message and one placeholder length
// byte; endMessage fixes the length. start is where the body begins.
func beginMessage(b []byte, num protowire.Number) ([]byte, int) {
	b = appendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

// endMessage writes the length of the body that began at start, moving the body up
// when the length needs more than one byte.
func endMessage(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	k := 1 // the bytes the length needs beyond the placeholder
	for v := n >> 14; v > 0; v >>= 7 {
		k++
	}
	b = append(b, lengthPad[:k]...)
	copy(b[start+k:], b[start:start+n])
	for i := start - 1; n >= 0x80; i, n = i+1, n>>7 {
		b[i] = byte(n) | 0x80
	}
	b[start+k-1] = byte(n)
	return b
}

// lengthPad is what endMessage grows a message by: at most 9 more bytes of length.
var lengthPad [9]byte

// maxDepth bounds the nesting of decoded messages, as protobuf-go's recursion limit
// does: a recursive message type would otherwise recurse once per two bytes of input.
const maxDepth = 10000

// nested returns a reader of data one level below r, failing past maxDepth.
func nested(data []byte, msg string, depth int) (reader, error) {
	if depth > maxDepth {
		return reader{}, fmt.Errorf("%w: %s: nested more than %d deep", ErrMalformed, msg, maxDepth)
	}
	return reader{b: data, msg: msg, depth: depth}, nil
}

// ErrMalformed is wrapped by every error about input that is not valid protobuf, or
// not the protobuf of the expected message.
var ErrMalformed = errors.New("malformed protobuf")

// wireError reports malformed input at a message and field.
func wireError(msg string, num protowire.Number, format string, args ...any) error {
	return fmt.Errorf("%w: %s field %d: %s", ErrMalformed, msg, num, fmt.Sprintf(format, args...))
}

// reader walks the fields of one message. Every length is checked against what is
// left of the input before it is used, so no input makes it read out of bounds or
// allocate more than the input's size.
//
// The common cases (a one-byte field key, a length under 128) are read inline; the
// position is an index rather than a re-sliced b, so advancing stores no pointer.
//
// Its reads keep the first error in err and move to the end of the message, so that a
// decode loop is "for r.field() { switch r.num { ... } }; return r.err": the hot reads
// return one value and are small enough to be inlined into that loop. The methods that
// return an error as well (next, bytes, string, ...) serve the reflective decoders.
type reader struct {
	b   []byte // the message
	pos int    // the first byte not read yet
	// src, when set, is b as one string: strings are cut from it instead of each being
	// copied, one allocation per message instead of one per string field.
	src string
	msg string // message name, for errors
	err error  // the first error; the reader is at its end once it is set
	// depth is how deep the message is nested, counted by the decoders of messages
	// that may contain themselves (derived from recursive Go types).
	depth int

	num protowire.Number
	typ protowire.Type
}

// field reads the next field key into num and typ; it returns false at the end of the
// message and after an error (in err).
func (r *reader) field() bool {
	if r.pos < len(r.b) {
		if c := r.b[r.pos]; c < 0x80 && c >= 1<<3 { // a one-byte key with a field number
			r.num, r.typ = protowire.Number(c>>3), protowire.Type(c&7)
			r.pos++
			return true
		}
		return r.fieldLong()
	}
	return false
}

func (r *reader) fieldLong() bool {
	num, typ, n := protowire.ConsumeTag(r.b[r.pos:])
	if n < 0 {
		r.fail(fmt.Errorf("%w: %s: bad field key: %v", ErrMalformed, r.msg, protowire.ParseError(n)))
		return false
	}
	r.pos += n
	r.num, r.typ = num, typ
	return true
}

// fail keeps err, unless an earlier error was kept, and ends the message.
func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.pos = len(r.b)
}

// check fails the reader with err when it is not nil (the error of a nested decode).
func (r *reader) check(err error) {
	if err != nil {
		r.fail(err)
	}
}

// next is field for the decoders that take errors as results.
func (r *reader) next() (bool, error) {
	ok := r.field()
	return ok, r.err
}

// expect checks the wire type of the current field.
func (r *reader) expect(typ protowire.Type) bool {
	if r.typ != typ {
		r.fail(wireError(r.msg, r.num, "wrong wire type %d, want %d", r.typ, typ))
		return false
	}
	return true
}

// shortLen returns the length of the length-delimited value at pos when its length
// takes one byte and the value is all there, else -1. It calls nothing, so that it
// is inlined into raw, str and sub: each of them then reads the common value without
// a call.
func (r *reader) shortLen() int {
	if r.typ == protowire.BytesType && r.pos < len(r.b) {
		if n := int(r.b[r.pos]); n < 0x80 && n < len(r.b)-r.pos {
			return n
		}
	}
	return -1
}

// raw reads a length-delimited value. The result aliases the input; it is nil after
// an error.
func (r *reader) raw() []byte {
	if n := r.shortLen(); n >= 0 {
		r.pos += 1 + n
		return r.b[r.pos-n : r.pos]
	}
	return r.rawLong()
}

func (r *reader) rawLong() []byte {
	if !r.expect(protowire.BytesType) {
		return nil
	}
	if n, k := twoByteLen(r.b, r.pos); k > 0 && n <= len(r.b)-r.pos-k {
		r.pos += k + n
		return r.b[r.pos-n : r.pos]
	}
	v, n := protowire.ConsumeBytes(r.b[r.pos:])
	if n < 0 {
		r.fail(wireError(r.msg, r.num, "%v", protowire.ParseError(n)))
		return nil
	}
	r.pos += n
	return v
}

// twoByteLen reads the two-byte varint at b[i:] (a length from 128 to 16,383, an
// object's metadata or a list item), returning the value and 2, or 0, 0 when the
// varint at i is not two bytes long.
func twoByteLen(b []byte, i int) (n, k int) {
	if i+1 < len(b) && b[i] >= 0x80 && b[i+1] < 0x80 {
		return int(b[i]&0x7f) | int(b[i+1])<<7, 2
	}
	return 0, 0
}

// bytes is raw with its error.
func (r *reader) bytes() ([]byte, error) {
	v := r.raw()
	return v, r.err
}

// str reads a length-delimited value as a string, cut from src when the reader has
// one, else copied.
func (r *reader) str() string {
	if n := r.shortLen(); n >= 0 && r.src != "" {
		r.pos += 1 + n
		return r.src[r.pos-n : r.pos]
	}
	return r.strLong()
}

func (r *reader) strLong() string {
	if r.src == "" {
		return string(r.raw())
	}
	v := r.rawLong()
	return r.src[r.pos-len(v) : r.pos]
}

// leadingStrings reads the string fields num, num+1, ... (all under 16) into dst while
// they come in that order with one-byte lengths, as encoders write the leading strings
// of a message, cutting them from src in one call; the decode loop reads what follows
// (and any field again, the last one winning as always). It reads nothing without src.
func (r *reader) leadingStrings(num protowire.Number, dst ...*string) {
	if r.src == "" {
		return
	}
	b, p := r.b, r.pos
	for i, d := range dst {
		if p+1 >= len(b) || b[p] != byte(num+protowire.Number(i))<<3|byte(protowire.BytesType) {
			break
		}
		n := int(b[p+1])
		if n >= 0x80 || n > len(b)-p-2 {
			break
		}
		*d = r.src[p+2 : p+2+n]
		p += 2 + n
	}
	r.pos = p
}

// string is str with its error.
func (r *reader) string() (string, error) {
	s := r.str()
	return s, r.err
}

// sharedReader returns a reader of data whose strings share one copy of data.
func sharedReader(data []byte, msg string) reader {
	return reader{b: data, msg: msg, src: ownedCopy(data)}
}

// itemCopies makes the shared copies of a list's items (see sharedReader). Items that
// come one after another share a chunk of at most itemChunkBytes, so that a list of
// 500 small items costs a few allocations rather than 500; an item kept after the rest
// of its list is dropped holds at most that much besides its own bytes. An item larger
// than half a chunk gets a copy of its own.
type itemCopies struct {
	free []byte // the unused part of the current chunk
}

// itemChunkBytes bounds a chunk of item copies.
const itemChunkBytes = 4 << 10

// reader returns a reader of item whose strings share a copy of it; rest is the number
// of bytes of the list from item on, which bounds the size of a new chunk.
func (c *itemCopies) reader(item []byte, rest int, msg string) reader {
	n := len(item)
	if n == 0 || n > itemChunkBytes/2 {
		return sharedReader(item, msg)
	}
	if n > len(c.free) {
		c.free = make([]byte, min(itemChunkBytes, max(rest, n)))
	}
	dst := c.free[:n:n]
	copy(dst, item)
	c.free = c.free[n:]
	return reader{b: item, msg: msg, src: unsafe.String(unsafe.SliceData(dst), n)}
}

// ownedCopy returns a copy of data as a string whose bytes this package allocated
// (never a static or stack string, as a conversion may return): bytesShared may hand
// out parts of it as []byte. Empty data gives "".
func ownedCopy(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	c := make([]byte, len(data)) // fewer instructions than append's growslice
	copy(c, data)
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// bytesShared reads a length-delimited value kept as []byte (a FieldsV1 field set)
// from the reader's shared copy, when it has one, instead of copying it again: the
// value's own bytes, which no string cut from the copy covers, with the capacity cut
// at its end so that an append cannot write past it. Without a shared copy, or for an
// empty value, it returns a copy (a non-nil empty slice for an empty one). nil after
// an error.
func (r *reader) bytesShared() []byte {
	v := r.raw()
	switch {
	case r.err != nil:
		return nil
	case len(v) == 0:
		return []byte{}
	case r.src == "":
		return append([]byte{}, v...)
	}
	// The shared copy is a byte slice this package made (ownedCopy's or a chunk of
	// itemCopies): its bytes may be seen as []byte.
	whole := unsafe.Slice(unsafe.StringData(r.src), len(r.src))
	return whole[r.pos-len(v) : r.pos : r.pos]
}

// sub reads a length-delimited embedded message and returns a reader of it that
// shares r's string copy, if r has one. After an error it is a reader of nothing.
func (r *reader) sub(msg string) reader {
	v := r.raw()
	s := reader{b: v, msg: msg}
	if r.src != "" {
		s.src = r.src[r.pos-len(v) : r.pos]
	}
	return s
}

// embedded is sub with its error.
func (r *reader) embedded(msg string) (reader, error) {
	s := r.sub(msg)
	return s, r.err
}

// uvarint reads a varint value; 0 after an error.
func (r *reader) uvarint() uint64 {
	if r.typ == protowire.VarintType && r.pos < len(r.b) {
		if c := r.b[r.pos]; c < 0x80 {
			r.pos++
			return uint64(c)
		}
	}
	return r.uvarintLong()
}

func (r *reader) uvarintLong() uint64 {
	if !r.expect(protowire.VarintType) {
		return 0
	}
	if v, n := shortVarint(r.b, r.pos); n > 0 {
		r.pos += n
		return v
	}
	v, n := protowire.ConsumeVarint(r.b[r.pos:])
	if n < 0 {
		r.fail(wireError(r.msg, r.num, "%v", protowire.ParseError(n)))
		return 0
	}
	r.pos += n
	return v
}

// shortVarint reads a varint of up to nine bytes (any value below 2^63: seconds,
// generations) at b[i:] without a call, returning it and its length, or 0, 0 when
// there is none that short there (protowire.ConsumeVarint then tells why).
func shortVarint(b []byte, i int) (uint64, int) {
	var v uint64
	for j, s := i, uint(0); j < len(b) && s < 63; j, s = j+1, s+7 {
		c := b[j]
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return v, j + 1 - i
		}
	}
	return 0, 0
}

// varint is uvarint with its error.
func (r *reader) varint() (uint64, error) {
	v := r.uvarint()
	return v, r.err
}

// int64 reads an int64 varint.
func (r *reader) int64() (int64, error) {
	v, err := r.varint()
	return int64(v), err
}

// int32 reads an int32 varint (the high bits of a sign-extended value are dropped,
// as in every protobuf implementation).
func (r *reader) int32() (int32, error) {
	v, err := r.varint()
	return int32(v), err
}

// bool reads a bool varint.
func (r *reader) bool() (bool, error) {
	v, err := r.varint()
	return v != 0, err
}

// double reads a fixed64 value as a float64.
func (r *reader) double() (float64, error) {
	if !r.expect(protowire.Fixed64Type) {
		return 0, r.err
	}
	v, n := protowire.ConsumeFixed64(r.b[r.pos:])
	if n < 0 {
		r.fail(wireError(r.msg, r.num, "%v", protowire.ParseError(n)))
		return 0, r.err
	}
	r.pos += n
	return math.Float64frombits(v), nil
}

// skip passes over the value of an unknown field. Groups (deprecated and never used
// by Kubernetes) are rejected, which also keeps skipping free of recursion.
func (r *reader) skip() error {
	if r.typ == protowire.StartGroupType || r.typ == protowire.EndGroupType {
		r.fail(wireError(r.msg, r.num, "groups are not supported"))
		return r.err
	}
	n := protowire.ConsumeFieldValue(r.num, r.typ, r.b[r.pos:])
	if n < 0 {
		r.fail(wireError(r.msg, r.num, "%v", protowire.ParseError(n)))
		return r.err
	}
	r.pos += n
	return nil
}

// countField counts the occurrences of field num (below 32) in a message, so that a
// repeated field's slice is allocated once at its size.
func countField(data []byte, num protowire.Number) int {
	var counts [32]int
	countFields(data, counts[:num+1])
	return counts[num]
}

// countFields adds the occurrences of each field number below len(counts) in a
// message to counts[number], in one pass (the repeated and pointer fields of an
// ObjectMeta are allocated together at their sizes). It stops, with what it counted,
// at the first malformed key or value, which the decode that follows reports. A
// one-byte key followed by a one-byte length or varint, or a two-byte length, is
// stepped over without a call.
func countFields(data []byte, counts []int) {
	for i := 0; i < len(data); {
		if c := data[i]; c < 0x80 && c >= 1<<3 && i+1 < len(data) {
			l, k := int(data[i+1]), 1
			if l >= 0x80 {
				l, k = twoByteLen(data, i+1)
			}
			switch protowire.Type(c & 7) {
			case protowire.BytesType:
				if k == 0 {
					break
				}
				if i += 1 + k + l; i > len(data) {
					return
				}
				if int(c>>3) < len(counts) {
					counts[c>>3]++
				}
				continue
			case protowire.VarintType:
				if k != 1 {
					break
				}
				i += 2
				if int(c>>3) < len(counts) {
					counts[c>>3]++
				}
				continue
			}
		}
		fn, typ, k := protowire.ConsumeTag(data[i:])
		if k < 0 || typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			return
		}
		m := protowire.ConsumeFieldValue(fn, typ, data[i+k:])
		if m < 0 {
			return
		}
		if fn < protowire.Number(len(counts)) {
			counts[fn]++
		}
		i += k + m
	}
}
