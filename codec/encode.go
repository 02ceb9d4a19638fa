package codec

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/apikit-dev/apikit/internal/jsonwire"
)

// Marshal returns the JSON encoding of v, byte-identical to encoding/json's Marshal
// for every value (typed structs, unstructured trees, scalars) and failing with the
// same error types. See [AppendJSON].
func Marshal(v any) ([]byte, error) {
	return AppendJSON(make([]byte, 0, 512), v)
}

// MarshalUnstructured encodes an unstructured tree (map[string]any, []any, string, bool,
// int64, float64, nil, or anything encoding/json accepts) to JSON. The output is
// byte-identical to json.Marshal of the same value. It is [Marshal] under the name the
// unstructured callers know.
func MarshalUnstructured(v any) ([]byte, error) {
	return Marshal(v)
}

// AppendJSON appends the JSON encoding of v to dst, byte-identical to json.Marshal:
// struct fields by their json tags and Go's embedding rules, omitempty and omitzero,
// map keys sorted, HTML characters and U+2028/U+2029 escaped, invalid UTF-8 replaced,
// json.Marshaler and encoding.TextMarshaler called exactly when encoding/json calls
// them (their output validated and compacted). Unstructured trees take a direct path;
// other types are encoded by a plan compiled once per Go type. On error dst is
// returned with unspecified bytes appended; errors are those encoding/json returns
// (*json.UnsupportedTypeError, *json.UnsupportedValueError for NaN, infinities and
// cycles, *json.MarshalerError wrapping a method's error).
func AppendJSON(dst []byte, v any) ([]byte, error) {
	e := getEncodeState()
	b, err := e.appendValue(dst, v)
	putEncodeState(e)
	return b, err
}

// encodeState is the per-call state of one encode: the cycle detector, kept like
// encoding/json's (it only starts looking after startDetectingCyclesAfter nested
// pointers, maps and slices), and scratch space for sorting map keys.
type encodeState struct {
	ptrLevel uint
	ptrSeen  map[cycleKey]struct{}
	pairs    []stringPair
}

// cycleKey names a pointer, map or slice on the current encoding path, distinguished
// the way encoding/json distinguishes them (a pointer by type and address, a map by
// address, a slice by address and length).
type cycleKey struct {
	typ reflect.Type
	ptr unsafe.Pointer
	len int
}

// stringPair is a map entry of map[string]string, sorted by key before writing.
type stringPair struct{ k, v string }

const startDetectingCyclesAfter = 1000

var encodeStatePool = sync.Pool{New: func() any { return new(encodeState) }}

func getEncodeState() *encodeState { return encodeStatePool.Get().(*encodeState) }

func putEncodeState(e *encodeState) {
	e.ptrLevel = 0
	clear(e.ptrSeen)
	if cap(e.pairs) > 1024 {
		e.pairs = nil
	}
	clear(e.pairs[:cap(e.pairs)])
	e.pairs = e.pairs[:0]
	encodeStatePool.Put(e)
}

// enter records one more pointer, map or slice on the path and, deep enough, reports
// whether it closes a cycle (then the caller fails with cycleError). A false result
// must be matched by leave.
func (e *encodeState) enter(k cycleKey) (cycle bool) {
	e.ptrLevel++
	if e.ptrLevel <= startDetectingCyclesAfter {
		return false
	}
	if e.ptrSeen == nil {
		e.ptrSeen = map[cycleKey]struct{}{}
	}
	if _, ok := e.ptrSeen[k]; ok {
		return true
	}
	e.ptrSeen[k] = struct{}{}
	return false
}

// cycleError is encoding/json's error for a cyclic value.
func cycleError(v reflect.Value) error {
	return &json.UnsupportedValueError{Value: v, Str: fmt.Sprintf("encountered a cycle via %s", v.Type())}
}

func (e *encodeState) leave(k cycleKey) {
	if e.ptrLevel > startDetectingCyclesAfter {
		delete(e.ptrSeen, k)
	}
	e.ptrLevel--
}

var (
	mapStringAnyRType = reflect.TypeFor[map[string]any]()
	sliceAnyRType     = reflect.TypeFor[[]any]()
)

// appendValue encodes a value held in an interface: the shapes of unstructured trees
// directly, anything else through the compiled encoder of its dynamic type.
func (e *encodeState) appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case float64:
		return appendFloat(b, x, 64)
	case float32:
		return appendFloat(b, float64(x), 32)
	case map[string]any:
		return e.appendMapStringAny(b, x)
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		k := cycleKey{ptr: unsafe.Pointer(unsafe.SliceData(x)), len: len(x)}
		if e.enter(k) {
			return b, cycleError(reflect.ValueOf(x))
		}
		b = append(b, '[')
		for i, el := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = e.appendValue(b, el); err != nil {
				return b, err
			}
		}
		e.leave(k)
		return append(b, ']'), nil
	}
	return e.appendDynamic(b, v)
}

func (e *encodeState) appendMapStringAny(b []byte, x map[string]any) ([]byte, error) {
	if x == nil {
		return append(b, "null"...), nil
	}
	k := cycleKey{ptr: *(*unsafe.Pointer)(unsafe.Pointer(&x))}
	if e.enter(k) {
		return b, cycleError(reflect.ValueOf(x))
	}
	var small [16]string
	keys := small[:0]
	if len(x) > len(small) {
		keys = make([]string, 0, len(x))
	}
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = e.appendValue(b, x[k]); err != nil {
			return b, err
		}
	}
	e.leave(k)
	return append(b, '}'), nil
}

// appendFloat formats like encoding/json: shortest representation, exponent form
// only for very small or large magnitudes, "e-07" shortened to "e-7".
func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		var v reflect.Value
		if bits == 32 {
			v = reflect.ValueOf(float32(f))
		} else {
			v = reflect.ValueOf(f)
		}
		return b, &json.UnsupportedValueError{Value: v, Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// AppendString appends s as a JSON string, the bytes encoding/json writes (HTML
// characters escaped), for hand-written encoders of hot types (audit events).
func AppendString(b []byte, s string) []byte { return jsonwire.AppendString(b, s) }

// AppendTime appends t in UTC as a JSON string, the bytes of scheme.Time's MarshalJSON
// or, with micro, of scheme.MicroTime's; a zero t is not special-cased.
func AppendTime(b []byte, t time.Time, micro bool) []byte { return jsonwire.AppendTime(b, t, micro) }

// appendString is jsonwire.AppendString, the one JSON string encoder of the module.
func appendString(b []byte, s string) []byte { return jsonwire.AppendString(b, s) }
