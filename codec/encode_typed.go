package codec

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/apikit-dev/apikit/internal/jsonwire"

	"github.com/apikit-dev/apikit/codec/internal/plancache"
	"github.com/apikit-dev/apikit/scheme"
)

// encodeFunc appends the JSON of the value of its compiled type stored at p.
type encodeFunc func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error)

// encKey selects a compiled encoder: the type, whether values of it are addressable
// where they are met (which decides, as in encoding/json, whether pointer-receiver
// MarshalJSON and MarshalText are called), and the ",string" option.
type encKey struct {
	t      reflect.Type
	addr   bool
	quoted bool
}

var encoderCache sync.Map // encKey -> encodeFunc

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
	numberType        = reflect.TypeFor[json.Number]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	fieldsV1Type      = reflect.TypeFor[scheme.FieldsV1]()
)

// encoderFor returns the compiled encoder of a key, building it once. A recursive type
// meets a placeholder that forwards to the finished encoder.
func encoderFor(k encKey) encodeFunc {
	if !quotable(k.t) {
		k.quoted = false
	}
	return plancache.Get(&encoderCache, k, newEncoder, func(get func() encodeFunc) encodeFunc {
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) { return get()(e, b, p) }
	})
}

// quotable reports whether the ",string" option can reach values of t.
func quotable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String, reflect.Pointer:
		return true
	}
	return false
}

func newEncoder(k encKey) encodeFunc {
	t := k.t
	if t.Kind() != reflect.Pointer && k.addr && reflect.PointerTo(t).Implements(marshalerType) {
		if f := knownMarshaler(t, t); f != nil {
			return f
		}
		return addrMarshalerEncoder(t)
	}
	if t.Implements(marshalerType) {
		if f := knownMarshaler(t, t); f != nil {
			return f
		}
		return marshalerEncoder(t)
	}
	if t.Kind() != reflect.Pointer && k.addr && reflect.PointerTo(t).Implements(textMarshalerType) {
		return addrTextMarshalerEncoder(t)
	}
	if t.Implements(textMarshalerType) {
		return textMarshalerEncoder(t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return quote(encodeBool, k.quoted)
	case reflect.Int:
		return quote(encodeInt[int], k.quoted)
	case reflect.Int8:
		return quote(encodeInt[int8], k.quoted)
	case reflect.Int16:
		return quote(encodeInt[int16], k.quoted)
	case reflect.Int32:
		return quote(encodeInt[int32], k.quoted)
	case reflect.Int64:
		return quote(encodeInt[int64], k.quoted)
	case reflect.Uint:
		return quote(encodeUint[uint], k.quoted)
	case reflect.Uint8:
		return quote(encodeUint[uint8], k.quoted)
	case reflect.Uint16:
		return quote(encodeUint[uint16], k.quoted)
	case reflect.Uint32:
		return quote(encodeUint[uint32], k.quoted)
	case reflect.Uint64:
		return quote(encodeUint[uint64], k.quoted)
	case reflect.Uintptr:
		return quote(encodeUint[uintptr], k.quoted)
	case reflect.Float32:
		return quote(floatEncoder(t, 32), k.quoted)
	case reflect.Float64:
		return quote(floatEncoder(t, 64), k.quoted)
	case reflect.String:
		if t == numberType {
			return quote(encodeNumber, k.quoted)
		}
		if k.quoted {
			return encodeQuotedString
		}
		return encodeString
	case reflect.Interface:
		return interfaceEncoder(t)
	case reflect.Struct:
		return newStructEncoder(t, k.addr)
	case reflect.Map:
		return newMapEncoder(t)
	case reflect.Slice:
		return newSliceEncoder(t)
	case reflect.Array:
		return newArrayEncoder(t, k.addr)
	case reflect.Pointer:
		return newPointerEncoder(t, k.quoted)
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		return b, &json.UnsupportedTypeError{Type: t}
	}
}

// appendDynamic encodes the dynamic value of an interface, which is not addressable.
func (e *encodeState) appendDynamic(b []byte, v any) ([]byte, error) {
	t := reflect.TypeOf(v)
	data := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
	switch t.Kind() {
	case reflect.Pointer:
		return pointerEncoderFor(t)(e, b, data)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String, reflect.Slice:
		// Never pointer-shaped: the interface's data word points at the value.
		return encoderFor(encKey{t: t})(e, b, data)
	case reflect.Struct, reflect.Array:
		if t.Size() != unsafe.Sizeof(uintptr(0)) {
			return encoderFor(encKey{t: t})(e, b, data)
		}
	}
	c := reflect.New(t)
	c.Elem().Set(reflect.ValueOf(v))
	return encoderFor(encKey{t: t})(e, b, c.UnsafePointer())
}

// pointerValueFunc encodes a value of a pointer type given the pointer itself.
type pointerValueFunc func(e *encodeState, b []byte, ptr unsafe.Pointer) ([]byte, error)

var pointerCache sync.Map // reflect.Type -> pointerValueFunc

func pointerEncoderFor(t reflect.Type) pointerValueFunc {
	if f, ok := pointerCache.Load(t); ok {
		return f.(pointerValueFunc)
	}
	f, _ := pointerCache.LoadOrStore(t, newPointerValueEncoder(t, false))
	return f.(pointerValueFunc)
}

// newPointerValueEncoder is encoding/json's treatment of a pointer: a Marshaler or
// TextMarshaler is called (null when nil); otherwise null when nil, else the
// addressable element.
func newPointerValueEncoder(t reflect.Type, quoted bool) pointerValueFunc {
	et := t.Elem()
	switch {
	case t.Implements(marshalerType):
		if f := knownMarshaler(et, t); f != nil {
			return func(e *encodeState, b []byte, ptr unsafe.Pointer) ([]byte, error) {
				if ptr == nil {
					return append(b, "null"...), nil
				}
				return f(e, b, ptr)
			}
		}
		return func(e *encodeState, b []byte, ptr unsafe.Pointer) ([]byte, error) {
			if ptr == nil {
				return append(b, "null"...), nil
			}
			return callMarshalJSON(b, reflect.NewAt(et, ptr).Interface().(json.Marshaler), t)
		}
	case t.Implements(textMarshalerType):
		return func(e *encodeState, b []byte, ptr unsafe.Pointer) ([]byte, error) {
			if ptr == nil {
				return append(b, "null"...), nil
			}
			return callMarshalText(b, reflect.NewAt(et, ptr).Interface().(encoding.TextMarshaler), t)
		}
	}
	var elem encodeFunc
	var once sync.Once
	return func(e *encodeState, b []byte, ptr unsafe.Pointer) ([]byte, error) {
		if ptr == nil {
			return append(b, "null"...), nil
		}
		once.Do(func() { elem = encoderFor(encKey{t: et, addr: true, quoted: quoted}) })
		k := cycleKey{typ: t, ptr: ptr}
		if e.enter(k) {
			return b, cycleError(reflect.NewAt(et, ptr))
		}
		b, err := elem(e, b, ptr)
		if err != nil {
			return b, err
		}
		e.leave(k)
		return b, nil
	}
}

func newPointerEncoder(t reflect.Type, quoted bool) encodeFunc {
	var f pointerValueFunc
	if quoted {
		f = newPointerValueEncoder(t, true)
	} else {
		f = pointerEncoderFor(t)
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		return f(e, b, *(*unsafe.Pointer)(p))
	}
}

// knownMarshaler returns a direct encoder, with output identical to calling the method
// and compacting, for the types of this module and encoding/json whose MarshalJSON is
// known; errType is the type encoding/json names in a MarshalerError.
func knownMarshaler(t, errType reflect.Type) encodeFunc {
	switch t {
	case timeType:
		return encodeTime
	case microTimeType:
		return encodeMicroTime
	case rawMessageType:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			raw := *(*[]byte)(p)
			if raw == nil {
				return append(b, "null"...), nil
			}
			return appendCompactJSON(b, raw, errType)
		}
	case fieldsV1Type:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			raw := (*scheme.FieldsV1)(p).Raw
			if raw == nil {
				return append(b, "null"...), nil
			}
			return compactFieldsV1.appendCompact(b, raw, errType)
		}
	case unstructuredType:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			b, err := e.appendMapStringAny(b, (*scheme.Unstructured)(p).Object)
			if err != nil {
				return b, &json.MarshalerError{Type: errType, Err: err}
			}
			return b, nil
		}
	case unstructuredListType:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			b, err := e.appendMapStringAny(b, (*scheme.UnstructuredList)(p).UnstructuredContent())
			if err != nil {
				return b, &json.MarshalerError{Type: errType, Err: err}
			}
			return b, nil
		}
	}
	return nil
}

// encodeTime is scheme.Time's MarshalJSON without the allocation and the compaction.
func encodeTime(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	t := (*scheme.Time)(p)
	if t.IsZero() {
		return append(b, "null"...), nil
	}
	return AppendTime(b, t.Time, false), nil
}

// encodeMicroTime is scheme.MicroTime's MarshalJSON without the allocation and the
// compaction (audit events carry two, managedFields entries and events one).
func encodeMicroTime(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	t := (*scheme.MicroTime)(p)
	if t.IsZero() {
		return append(b, "null"...), nil
	}
	return AppendTime(b, t.Time, true), nil
}

// marshal and marshalText call a value's MarshalJSON or MarshalText.
func marshal(b []byte, v any, t reflect.Type) ([]byte, error) {
	return callMarshalJSON(b, v.(json.Marshaler), t)
}

func marshalText(b []byte, v any, t reflect.Type) ([]byte, error) {
	return callMarshalText(b, v.(encoding.TextMarshaler), t)
}

func addrMarshalerEncoder(t reflect.Type) encodeFunc     { return addrMethodEncoder(t, marshal) }
func marshalerEncoder(t reflect.Type) encodeFunc         { return methodEncoder(t, marshal) }
func addrTextMarshalerEncoder(t reflect.Type) encodeFunc { return addrMethodEncoder(t, marshalText) }
func textMarshalerEncoder(t reflect.Type) encodeFunc     { return methodEncoder(t, marshalText) }

// addrMethodEncoder encodes a t whose pointer has the method call makes.
func addrMethodEncoder(t reflect.Type, call func([]byte, any, reflect.Type) ([]byte, error)) encodeFunc {
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		return call(b, reflect.NewAt(t, p).Interface(), t)
	}
}

// methodEncoder encodes a t that has the method call makes: a nil pointer through the
// pointer encoder, a nil interface as null.
func methodEncoder(t reflect.Type, call func([]byte, any, reflect.Type) ([]byte, error)) encodeFunc {
	switch t.Kind() {
	case reflect.Pointer:
		f := pointerEncoderFor(t)
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			return f(e, b, *(*unsafe.Pointer)(p))
		}
	case reflect.Interface:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			v := reflect.NewAt(t, p).Elem()
			if v.IsNil() {
				return append(b, "null"...), nil
			}
			return call(b, v.Interface(), t)
		}
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		return call(b, reflect.NewAt(t, p).Elem().Interface(), t)
	}
}

func callMarshalJSON(b []byte, m json.Marshaler, t reflect.Type) ([]byte, error) {
	out, err := m.MarshalJSON()
	if err != nil {
		return b, &json.MarshalerError{Type: t, Err: err}
	}
	return appendCompactJSON(b, out, t)
}

func callMarshalText(b []byte, m encoding.TextMarshaler, t reflect.Type) ([]byte, error) {
	out, err := m.MarshalText()
	if err != nil {
		return b, textMarshalerError(t, err)
	}
	return appendString(b, unsafe.String(unsafe.SliceData(out), len(out))), nil
}

// failingText has a MarshalText that fails, so that encoding/json builds the
// MarshalerError of a MarshalText failure (its method name is not settable).
type failingText struct{ err error }

func (f failingText) MarshalText() ([]byte, error) { return nil, f.err }

// textMarshalerError is encoding/json's error for a failed MarshalText of type t.
func textMarshalerError(t reflect.Type, err error) error {
	_, merr := json.Marshal(failingText{err})
	if me, ok := merr.(*json.MarshalerError); ok {
		me.Type, me.Err = t, err
		return me
	}
	return &json.MarshalerError{Type: t, Err: err}
}

// Bounds of compactFieldsV1: documents up to maxCompactCachedBytes, all of them up to
// maxCompactCacheBytes (then it starts over).
const (
	maxCompactCachedBytes = 8 << 10
	maxCompactCacheBytes  = 256 << 10
)

// compactFieldsV1 remembers fieldsV1 documents appendCompactJSON accepted, with what
// it made of them: every object of a kind written the same way carries the same
// managedFields, which each response and each size check encodes again, and checking
// that a document is valid JSON costs more than looking it up.
var compactFieldsV1 compactCache

// compactCache maps JSON documents to their compacted form. The zero value is ready.
type compactCache struct {
	mu    sync.RWMutex
	docs  map[string][]byte
	bytes int
}

// appendCompact is appendCompactJSON through the cache.
func (c *compactCache) appendCompact(b, src []byte, t reflect.Type) ([]byte, error) {
	if len(src) > maxCompactCachedBytes {
		return appendCompactJSON(b, src, t)
	}
	c.mu.RLock()
	out, ok := c.docs[string(src)]
	c.mu.RUnlock()
	if ok {
		return append(b, out...), nil
	}
	start := len(b)
	b, err := appendCompactJSON(b, src, t)
	if err != nil {
		return b, err
	}
	size := len(src) + len(b) - start
	c.mu.Lock()
	if c.docs == nil || c.bytes+size > maxCompactCacheBytes {
		c.docs, c.bytes = map[string][]byte{}, 0
	}
	c.docs[string(src)] = bytes.Clone(b[start:])
	c.bytes += size
	c.mu.Unlock()
	return b, nil
}

// compactSpecial marks the bytes appendCompactJSON must look at.
var compactSpecial = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n\"\\<>&\xe2") {
		t[c] = true
	}
	return t
}()

// appendCompactJSON appends a Marshaler's output the way encoding/json does: it must
// be valid JSON (else a MarshalerError wrapping encoding/json's SyntaxError), and it
// is compacted with <, >, &, U+2028 and U+2029 escaped.
func appendCompactJSON(b, src []byte, t reflect.Type) ([]byte, error) {
	if !json.Valid(src) {
		var scratch bytes.Buffer
		err := json.Compact(&scratch, src)
		if err == nil {
			err = fmt.Errorf("invalid JSON from %v", t)
		}
		return b, &json.MarshalerError{Type: t, Err: err}
	}
	start, inString := 0, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !compactSpecial[c] {
			continue
		}
		switch c {
		case '"':
			inString = !inString
		case '\\':
			i++ // valid JSON: an escape is inside a string and its next byte is ASCII
		case ' ', '\t', '\r', '\n':
			if !inString {
				b = append(b, src[start:i]...)
				start = i + 1
			}
		case '<', '>', '&':
			b = append(b, src[start:i]...)
			b = append(b, '\\', 'u', '0', '0', jsonwire.HexDigits[c>>4], jsonwire.HexDigits[c&0xF])
			start = i + 1
		case 0xe2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8 {
				b = append(b, src[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', jsonwire.HexDigits[src[i+2]&0xF])
				start = i + 3
				i += 2
			}
		}
	}
	return append(b, src[start:]...), nil
}

// quote wraps a scalar encoder in the quotes of the ",string" option.
func quote(f encodeFunc, quoted bool) encodeFunc {
	if !quoted {
		return f
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		b = append(b, '"')
		b, err := f(e, b, p)
		return append(b, '"'), err
	}
}

func encodeBool(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	return strconv.AppendBool(b, *(*bool)(p)), nil
}

func encodeInt[T int | int8 | int16 | int32 | int64](_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	return strconv.AppendInt(b, int64(*(*T)(p)), 10), nil
}

func encodeUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	return strconv.AppendUint(b, uint64(*(*T)(p)), 10), nil
}

func floatEncoder(t reflect.Type, bits int) encodeFunc {
	return func(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		var f float64
		if bits == 32 {
			f = float64(*(*float32)(p))
		} else {
			f = *(*float64)(p)
		}
		b, err := appendFloat(b, f, bits)
		if err != nil {
			return b, &json.UnsupportedValueError{Value: reflect.NewAt(t, p).Elem(), Str: strconv.FormatFloat(f, 'g', -1, bits)}
		}
		return b, nil
	}
}

func encodeString(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendString(b, *(*string)(p)), nil
}

// encodeQuotedString is a string under ",string": its JSON encoding, encoded again.
func encodeQuotedString(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	var small [64]byte
	inner := appendString(small[:0], *(*string)(p))
	return appendString(b, unsafe.String(unsafe.SliceData(inner), len(inner))), nil
}

// encodeNumber writes a json.Number as its literal, "" as 0, failing on anything that
// is not a JSON number, like encoding/json.
func encodeNumber(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	s := *(*string)(p)
	if s == "" {
		s = "0"
	}
	if !validNumber(s) {
		return b, fmt.Errorf("json: invalid number literal %q", s)
	}
	return append(b, s...), nil
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		digits()
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[1:]
		digits()
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		digits()
	}
	return s == ""
}

func interfaceEncoder(t reflect.Type) encodeFunc {
	if t.NumMethod() == 0 {
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			return e.appendValue(b, *(*any)(p))
		}
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		v := reflect.NewAt(t, p).Elem()
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return e.appendValue(b, v.Elem().Interface())
	}
}

// fieldEncoder is one member of a struct's compiled encoder.
type fieldEncoder struct {
	key    string     // the quoted, escaped name and a colon
	offset uintptr    // from the struct, when the field is not behind embedded pointers
	hops   []fieldHop // the way through embedded pointers, else nil
	omit   omitFunc   // reports the value as left out, or nil
	enc    encodeFunc
}

// fieldHop is one step to a field promoted through embedded pointers: add offset, and
// then, unless it is the last step, follow the pointer found there.
type fieldHop struct {
	offset uintptr
	deref  bool
}

type omitFunc func(p unsafe.Pointer) bool

func newStructEncoder(t reflect.Type, addr bool) encodeFunc {
	fields := typeFields(t)
	fes := make([]fieldEncoder, len(fields))
	for i, f := range fields {
		fe := &fes[i]
		fe.key = string(appendString(nil, f.name)) + ":"
		st, fieldAddr := t, addr
		var hops []fieldHop
		anyDeref := false
		for j, x := range f.index {
			sf := st.Field(x)
			h := fieldHop{offset: sf.Offset}
			st = sf.Type
			if j < len(f.index)-1 && st.Kind() == reflect.Pointer {
				h.deref, anyDeref, fieldAddr = true, true, true
				st = st.Elem()
			}
			hops = append(hops, h)
		}
		if anyDeref {
			fe.hops = hops
		} else {
			for _, h := range hops {
				fe.offset += h.offset
			}
		}
		ft := f.typ
		fe.enc = encoderFor(encKey{t: ft, addr: fieldAddr, quoted: f.quoted})
		var empty, zero omitFunc
		if f.omitEmpty {
			empty = emptyFunc(ft)
		}
		if f.omitZero {
			zero = zeroFunc(ft, fieldAddr)
		}
		switch {
		case empty != nil && zero != nil:
			fe.omit = func(p unsafe.Pointer) bool { return empty(p) || zero(p) }
		case empty != nil:
			fe.omit = empty
		default:
			fe.omit = zero
		}
	}
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		b = append(b, '{')
		first := true
	fields:
		for i := range fes {
			f := &fes[i]
			fp := unsafe.Add(p, f.offset)
			if f.hops != nil {
				fp = p
				for _, h := range f.hops {
					fp = unsafe.Add(fp, h.offset)
					if h.deref {
						if fp = *(*unsafe.Pointer)(fp); fp == nil {
							continue fields
						}
					}
				}
			}
			if f.omit != nil && f.omit(fp) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, f.key...)
			var err error
			if b, err = f.enc(e, b, fp); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
}

// emptyFunc is encoding/json's isEmptyValue for values of t, or nil when a value of t
// is never empty.
func emptyFunc(t reflect.Type) omitFunc {
	switch t.Kind() {
	case reflect.Array:
		if t.Len() == 0 {
			return func(unsafe.Pointer) bool { return true }
		}
		return nil
	case reflect.Map:
		if t == mapStringStringType {
			return func(p unsafe.Pointer) bool { return len(*(*map[string]string)(p)) == 0 }
		}
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return len(*(*[]byte)(p)) == 0 }
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Interface, reflect.Pointer:
		return zeroBits(t.Size())
	case reflect.Float32:
		return func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }
	case reflect.Float64:
		return func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }
	}
	return nil
}

// zeroBits reports a scalar of the given size as zero when all its bytes are: the
// rule of reflect.Value.IsZero for booleans, integers, pointers, maps and interfaces
// (whose first word is nil exactly when they are). Floats are compared as numbers
// instead, so that -0 is zero too.
func zeroBits(size uintptr) omitFunc {
	switch size {
	case 1:
		return func(p unsafe.Pointer) bool { return *(*uint8)(p) == 0 }
	case 2:
		return func(p unsafe.Pointer) bool { return *(*uint16)(p) == 0 }
	case 4:
		return func(p unsafe.Pointer) bool { return *(*uint32)(p) == 0 }
	case 8, 16: // an interface is zero when its type word is
		return func(p unsafe.Pointer) bool { return *(*uint64)(p) == 0 }
	}
	panic(fmt.Sprintf("codec: unexpected scalar size %d", size))
}

// emptyOrNil is the zero test of scalars, pointers, interfaces and maps (nil).
func emptyOrNil(t reflect.Type) omitFunc {
	if t.Kind() == reflect.Map {
		return zeroBits(t.Size())
	}
	return emptyFunc(t)
}

// zeroFunc is encoding/json's omitzero test for a field of type t: its IsZero method
// if it has one, else reflect.Value.IsZero.
func zeroFunc(t reflect.Type, addr bool) omitFunc {
	switch {
	case t == timeType:
		return func(p unsafe.Pointer) bool { return (*scheme.Time)(p).IsZero() }
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p).Elem()
			return v.IsNil() || v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() ||
				v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p).Elem()
			return v.IsNil() || v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			return reflect.NewAt(t, p).Elem().Interface().(interface{ IsZero() bool }).IsZero()
		}
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(p unsafe.Pointer) bool {
			v := reflect.NewAt(t, p)
			if !addr {
				// encoding/json calls the method on a copy of an unaddressable value.
				c := reflect.New(t)
				c.Elem().Set(v.Elem())
				v = c
			}
			return v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer, reflect.Map:
		return emptyOrNil(t)
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return unsafe.SliceData(*(*[]byte)(p)) == nil }
	}
	return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }
}

func newMapEncoder(t reflect.Type) encodeFunc {
	kt, et := t.Key(), t.Elem()
	switch kt.Kind() {
	case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		if !kt.Implements(textMarshalerType) {
			return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
				return b, &json.UnsupportedTypeError{Type: t}
			}
		}
	}
	switch t {
	case mapStringStringType:
		return encodeMapStringString
	case mapStringAnyType:
		return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
			return e.appendMapStringAny(b, *(*map[string]any)(p))
		}
	}
	elem := encoderFor(encKey{t: et})
	size := et.Size()
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		mp := *(*unsafe.Pointer)(p)
		if mp == nil {
			return append(b, "null"...), nil
		}
		v := reflect.NewAt(t, p).Elem()
		k := cycleKey{ptr: mp}
		if e.enter(k) {
			return b, cycleError(v)
		}
		n := v.Len()
		type entry struct {
			key string
			i   int
		}
		entries := make([]entry, 0, n)
		vals := reflect.MakeSlice(reflect.SliceOf(et), n, n)
		it := v.MapRange()
		for i := 0; it.Next(); i++ {
			if i >= n { // the map grew under us; encoding/json would not see more either
				break
			}
			ks, err := mapKeyString(it.Key())
			if err != nil {
				return b, fmt.Errorf("json: encoding error for type %q: %q", t.String(), err.Error())
			}
			entries = append(entries, entry{ks, i})
			vals.Index(i).SetIterValue(it)
		}
		slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
		base := vals.UnsafePointer()
		b = append(b, '{')
		for j, en := range entries {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, en.key)
			b = append(b, ':')
			var err error
			if b, err = elem(e, b, unsafe.Add(base, uintptr(en.i)*size)); err != nil {
				return b, err
			}
		}
		e.leave(k)
		return append(b, '}'), nil
	}
}

// mapKeyString is encoding/json's resolveKeyName.
func mapKeyString(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", nil
		}
		buf, err := tm.MarshalText()
		return string(buf), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("unexpected map key type %v", k.Type())
}

// encodeMapStringString is the map encoder of labels and annotations, sorting the
// entries in the state's scratch space (such a map holds nothing that could nest).
func encodeMapStringString(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	m := *(*map[string]string)(p)
	if m == nil {
		return append(b, "null"...), nil
	}
	pairs := e.pairs[:0]
	for k, v := range m {
		pairs = append(pairs, stringPair{k, v})
	}
	slices.SortFunc(pairs, func(a, b stringPair) int { return strings.Compare(a.k, b.k) })
	b = append(b, '{')
	for i, kv := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, kv.k)
		b = append(b, ':')
		b = appendString(b, kv.v)
	}
	e.pairs = pairs[:0]
	return append(b, '}'), nil
}

func newSliceEncoder(t reflect.Type) encodeFunc {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 {
		pt := reflect.PointerTo(et)
		if !pt.Implements(marshalerType) && !pt.Implements(textMarshalerType) {
			return encodeByteSlice
		}
	}
	elem := encoderFor(encKey{t: et, addr: true})
	size := et.Size()
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		s := *(*[]byte)(p) // only the header: data pointer and length
		data := unsafe.Pointer(unsafe.SliceData(s))
		if data == nil {
			return append(b, "null"...), nil
		}
		k := cycleKey{ptr: data, len: len(s)}
		if e.enter(k) {
			return b, cycleError(reflect.NewAt(t, p).Elem())
		}
		b = append(b, '[')
		for i := range len(s) {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = elem(e, b, unsafe.Add(data, uintptr(i)*size)); err != nil {
				return b, err
			}
		}
		e.leave(k)
		return append(b, ']'), nil
	}
}

func encodeByteSlice(_ *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
	s := *(*[]byte)(p)
	if s == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, s)
	return append(b, '"'), nil
}

func newArrayEncoder(t reflect.Type, addr bool) encodeFunc {
	elem := encoderFor(encKey{t: t.Elem(), addr: addr})
	n, size := t.Len(), t.Elem().Size()
	return func(e *encodeState, b []byte, p unsafe.Pointer) ([]byte, error) {
		b = append(b, '[')
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = elem(e, b, unsafe.Add(p, uintptr(i)*size)); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
}
