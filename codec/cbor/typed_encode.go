package cbor

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/internal/plancache"
	"github.com/apikit-dev/apikit/scheme"
)

// The typed encoder writes the same bytes as fxamacker under the encode mode `enc`
// (see encOptions) for the Go types the scheme's objects are made of, from plans
// compiled once per type: no reflection per value. A plan covers structs with json
// tags, strings, booleans, integers, pointers, slices, map[string]string and
// scheme.Time; any other value (floats, interfaces, other maps, types with
// MarshalJSON) is handed to fxamacker on its own, which writes it exactly as it would
// inside the whole object since CBOR encoding is compositional. Any error on the typed
// path makes the caller encode the whole object again with fxamacker, so that errors
// keep fxamacker's wording.

// encodeFunc appends the CBOR of the value of its compiled type stored at p.
type encodeFunc func(b []byte, p unsafe.Pointer) ([]byte, error)

// emptyFunc reports whether the value at p is empty for omitempty, by fxamacker's
// OmitEmptyGoValue rules (encoding/json's, with structs never empty).
type emptyFunc func(p unsafe.Pointer) bool

var typedEncoders sync.Map // reflect.Type -> encodeFunc

var (
	cborMarshalerType = reflect.TypeFor[fx.Marshaler]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	schemeTimeType    = reflect.TypeFor[scheme.Time]()
)

// typedEncoderFor returns the compiled encoder of t, building it once.
func typedEncoderFor(t reflect.Type) encodeFunc {
	return plancache.Get(&typedEncoders, t, newTypedEncoder, func(get func() encodeFunc) encodeFunc {
		return func(b []byte, p unsafe.Pointer) ([]byte, error) { return get()(b, p) }
	})
}

func newTypedEncoder(t reflect.Type) encodeFunc {
	if t == schemeTimeType {
		return encodeSchemeTime
	}
	if t.Kind() == reflect.Pointer {
		return newPointerEncoder(t)
	}
	if hasMarshalMethod(t) {
		return delegateEncoder(t)
	}
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool
	case reflect.String:
		return encodeString
	case reflect.Int:
		return encodeInt[int]
	case reflect.Int8:
		return encodeInt[int8]
	case reflect.Int16:
		return encodeInt[int16]
	case reflect.Int32:
		return encodeInt[int32]
	case reflect.Int64:
		return encodeInt[int64]
	case reflect.Uint:
		return encodeUint[uint]
	case reflect.Uint8:
		return encodeUint[uint8]
	case reflect.Uint16:
		return encodeUint[uint16]
	case reflect.Uint32:
		return encodeUint[uint32]
	case reflect.Uint64:
		return encodeUint[uint64]
	case reflect.Uintptr:
		return encodeUint[uintptr]
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return newSliceEncoder(t)
		}
	case reflect.Map:
		if t.Key() == stringType && t.Elem() == stringType {
			return encodeStringMap
		}
	case reflect.Struct:
		if f := newStructEncoder(t); f != nil {
			return f
		}
	}
	return delegateEncoder(t)
}

var stringType = reflect.TypeFor[string]()

// hasMarshalMethod reports whether fxamacker treats t other than by its kind: a
// MarshalCBOR, MarshalJSON (transcoded), MarshalText or MarshalBinary method on t or
// *t (the last two are off in the mode, but change omitempty), or one of its own
// types.
func hasMarshalMethod(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(cborMarshalerType) || pt.Implements(jsonMarshalerType) {
		return true
	}
	for _, m := range [...]string{"MarshalText", "MarshalBinary"} {
		if _, ok := pt.MethodByName(m); ok {
			return true
		}
	}
	return t.PkgPath() == "github.com/fxamacker/cbor/v2" || t.PkgPath() == "math/big" || t.PkgPath() == "time"
}

// delegateEncoder hands values of t to fxamacker. It passes a *t, which fxamacker
// encodes as the t it points to.
func delegateEncoder(t reflect.Type) encodeFunc {
	return func(b []byte, p unsafe.Pointer) ([]byte, error) {
		buf := bytes.NewBuffer(b)
		if err := enc.MarshalToBuffer(reflect.NewAt(t, p).Interface(), buf); err != nil {
			return b, err
		}
		return buf.Bytes(), nil
	}
}

// errTypedEncode stops the typed encoder where the value needs fxamacker's own error.
var errTypedEncode = errors.New("cbor: typed encoder cannot encode the value")

func encodeBool(b []byte, p unsafe.Pointer) ([]byte, error) {
	if *(*bool)(p) {
		return append(b, 0xf5), nil
	}
	return append(b, 0xf4), nil
}

func encodeString(b []byte, p unsafe.Pointer) ([]byte, error) {
	s := *(*string)(p)
	return append(appendHead(b, majorBytes, uint64(len(s))), s...), nil
}

func encodeInt[T int | int8 | int16 | int32 | int64](b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendInt(b, int64(*(*T)(p))), nil
}

func appendInt(b []byte, n int64) []byte {
	if n >= 0 {
		return appendHead(b, majorUint, uint64(n))
	}
	return appendHead(b, majorNegInt, uint64(-1-n))
}

func encodeUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](b []byte, p unsafe.Pointer) ([]byte, error) {
	return appendHead(b, majorUint, uint64(*(*T)(p))), nil
}

// encodeSchemeTime writes what scheme.Time.MarshalCBOR returns (null when zero, else
// the RFC 3339 text in UTC as a byte string) without its allocation: codec.AppendTime
// writes the JSON string, whose opening quote becomes the head and closing quote goes.
func encodeSchemeTime(b []byte, p unsafe.Pointer) ([]byte, error) {
	t := (*scheme.Time)(p)
	if t.IsZero() {
		return append(b, 0xf6), nil
	}
	start := len(b)
	b = codec.AppendTime(b, t.Time, false)
	n := len(b) - start - 2
	if n >= 24 {
		data, err := t.MarshalCBOR()
		return append(b[:start], data...), err
	}
	b[start] = majorBytes<<5 | byte(n)
	return b[:len(b)-1], nil
}

func newPointerEncoder(t reflect.Type) encodeFunc {
	var elem encodeFunc
	once := sync.OnceFunc(func() { elem = typedEncoderFor(t.Elem()) })
	return func(b []byte, p unsafe.Pointer) ([]byte, error) {
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(b, 0xf6), nil
		}
		once()
		return elem(b, q)
	}
}

func newSliceEncoder(t reflect.Type) encodeFunc {
	size := t.Elem().Size()
	var elem encodeFunc
	once := sync.OnceFunc(func() { elem = typedEncoderFor(t.Elem()) })
	return func(b []byte, p unsafe.Pointer) ([]byte, error) {
		sh := (*sliceHeader)(p)
		if sh.data == nil {
			return append(b, 0xf6), nil
		}
		once()
		b = appendHead(b, majorArray, uint64(sh.len))
		var err error
		for i := 0; i < sh.len; i++ {
			if b, err = elem(b, unsafe.Add(sh.data, uintptr(i)*size)); err != nil {
				return b, err
			}
		}
		return b, nil
	}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// compareKeys orders map keys and field names as their CBOR encodings sort bytewise:
// the head holds the length, so shorter first, then bytewise.
func compareKeys(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// encodeStringMap writes a map[string]string with its keys in encoded order.
func encodeStringMap(b []byte, p unsafe.Pointer) ([]byte, error) {
	m := *(*map[string]string)(p)
	if m == nil {
		return append(b, 0xf6), nil
	}
	var stack [16]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	b = appendHead(b, majorMap, uint64(len(keys)))
	for _, k := range keys {
		b = append(appendHead(b, majorBytes, uint64(len(k))), k...)
		v := m[k]
		b = append(appendHead(b, majorBytes, uint64(len(v))), v...)
	}
	return b, nil
}

// encField is one field of a struct plan, in encoded key order.
type encField struct {
	offset uintptr
	key    []byte    // the encoded name, a byte string
	empty  emptyFunc // nil unless omitempty
	typ    reflect.Type
	enc    encodeFunc // set on first use (recursive types)
}

// newStructEncoder compiles a struct, or returns nil for a struct whose fields it does
// not resolve like fxamacker (then the struct is delegated).
func newStructEncoder(t reflect.Type) encodeFunc {
	wf, ok := resolveFields(t)
	if !ok {
		return nil
	}
	fields := make([]encField, len(wf))
	for i, f := range wf {
		fields[i] = encField{offset: f.offset, typ: f.typ}
		fields[i].key = append(appendHead(nil, majorBytes, uint64(len(f.name))), f.name...)
		var empty, zero emptyFunc
		if f.omitEmpty {
			empty = emptyFuncFor(f.typ)
		}
		if f.omitZero {
			if zero, ok = zeroFuncFor(f.typ); !ok {
				return nil
			}
		}
		fields[i].empty = either(empty, zero)
	}
	slices.SortStableFunc(fields, func(a, b encField) int { return bytes.Compare(a.key, b.key) })
	var once sync.Once
	return func(b []byte, p unsafe.Pointer) ([]byte, error) {
		once.Do(func() {
			for i := range fields {
				fields[i].enc = typedEncoderFor(fields[i].typ)
			}
		})
		n := 0
		for i := range fields {
			if f := &fields[i]; f.empty == nil || !f.empty(unsafe.Add(p, f.offset)) {
				n++
			}
		}
		b = appendHead(b, majorMap, uint64(n))
		var err error
		for i := range fields {
			f := &fields[i]
			fp := unsafe.Add(p, f.offset)
			if f.empty != nil && f.empty(fp) {
				continue
			}
			b = append(b, f.key...)
			if b, err = f.enc(b, fp); err != nil {
				return b, err
			}
		}
		return b, nil
	}
}

// emptyFuncFor returns the omitempty test of t under OmitEmptyGoValue: values of
// types with MarshalCBOR or (transcoded) MarshalJSON, and structs, are never empty.
func emptyFuncFor(t reflect.Type) emptyFunc {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		if pt.Implements(cborMarshalerType) || pt.Implements(jsonMarshalerType) {
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(p unsafe.Pointer) bool { return !*(*bool)(p) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		size := t.Size()
		return func(p unsafe.Pointer) bool {
			for _, c := range unsafe.Slice((*byte)(p), size) {
				if c != 0 {
					return false
				}
			}
			return true
		}
	case reflect.Float32, reflect.Float64:
		// Compared with 0, so that -0.0 is empty too.
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Float() == 0 }
	case reflect.String:
		return func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }
	case reflect.Slice:
		return func(p unsafe.Pointer) bool { return (*sliceHeader)(p).len == 0 }
	case reflect.Pointer:
		return func(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }
	case reflect.Map:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Len() == 0 }
	case reflect.Interface:
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsNil() }
	case reflect.Array:
		if t.Len() == 0 {
			return func(unsafe.Pointer) bool { return true }
		}
	}
	return nil
}

// wireField is a struct field as fxamacker sees it: its name on the wire, where it is
// and its omitempty option.
type wireField struct {
	name      string
	offset    uintptr
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
}

// resolveFields lists the fields of t by encoding/json's visibility rules, as fxamacker
// does. ok is false for what it does not model (and the struct is left to fxamacker):
// cbor tags, a "_" field, keyasint or toarray options, embedded pointers,
// and an embedded struct type met twice.
func resolveFields(t reflect.Type) (fields []wireField, ok bool) {
	type candidate struct {
		wireField
		depth  int
		tagged bool
		count  int
		order  []int
	}
	type level struct {
		t      reflect.Type
		offset uintptr
		depth  int
		index  []int
	}
	best := map[string]*candidate{}
	seen := map[reflect.Type]bool{}
	queue := []level{{t: t}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur.t] {
			return nil, false
		}
		seen[cur.t] = true
		for i := 0; i < cur.t.NumField(); i++ {
			f := cur.t.Field(i)
			if f.Name == "_" {
				return nil, false
			}
			if _, has := f.Tag.Lookup("cbor"); has {
				return nil, false
			}
			if f.Anonymous && f.Type.Kind() == reflect.Pointer {
				return nil, false
			}
			if !f.IsExported() && !(f.Anonymous && f.Type.Kind() == reflect.Struct) {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			omitEmpty, omitZero := false, false
			for opts != "" {
				var o string
				o, opts, _ = strings.Cut(opts, ",")
				switch o {
				case "omitempty":
					omitEmpty = true
				case "omitzero":
					omitZero = true
				case "keyasint", "toarray":
					return nil, false
				}
			}
			index := append(slices.Clip(cur.index), i)
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				queue = append(queue, level{t: f.Type, offset: cur.offset + f.Offset, depth: cur.depth + 1, index: index})
				continue
			}
			if !f.IsExported() {
				continue
			}
			tagged := tag != ""
			if name == "" {
				name = f.Name
			}
			c := &candidate{
				wireField: wireField{name: name, offset: cur.offset + f.Offset, typ: f.Type, omitEmpty: omitEmpty, omitZero: omitZero},
				depth:     cur.depth, tagged: tagged, count: 1, order: index,
			}
			switch old := best[name]; {
			case old == nil || cur.depth < old.depth:
				best[name] = c
			case cur.depth == old.depth && tagged && !old.tagged:
				best[name] = c
			case cur.depth == old.depth && tagged == old.tagged:
				old.count++
			}
		}
	}
	for _, c := range best {
		if c.count == 1 {
			fields = append(fields, c.wireField)
		}
	}
	return fields, true
}

// typedPointee returns the struct v points to when v is a non-nil pointer to a struct,
// the values the typed encoder takes; else nil.
func typedPointee(v any) unsafe.Pointer {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem().Kind() != reflect.Struct {
		return nil
	}
	return rv.UnsafePointer()
}

// appendTyped appends the CBOR of v, a non-nil pointer to a struct, with the typed
// encoder, or with fxamacker (for its error) when the typed encoder fails.
func appendTyped(b []byte, v any) ([]byte, error) {
	start := len(b)
	out, err := typedEncoderFor(reflect.TypeOf(v).Elem())(b, typedPointee(v))
	if err == nil {
		return out, nil
	}
	buf := bytes.NewBuffer(b[:start])
	if err := enc.MarshalToBuffer(v, buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// either combines the tests of omitempty and omitzero: a field is left out when one
// holds.
func either(a, b emptyFunc) emptyFunc {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(p unsafe.Pointer) bool { return a(p) || b(p) }
}

type isZeroer interface{ IsZero() bool }

var isZeroerType = reflect.TypeFor[isZeroer]()

// zeroFuncFor returns the omitzero test of t, as fxamacker's: its IsZero method (of t
// or *t), else reflect's IsZero. ok is false for pointers and interfaces with the
// method, which fxamacker treats specially (the struct is then left to it).
func zeroFuncFor(t reflect.Type) (f emptyFunc, ok bool) {
	switch {
	case t == schemeTimeType:
		return func(p unsafe.Pointer) bool { return (*scheme.Time)(p).IsZero() }, true
	case (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && t.Implements(isZeroerType):
		return nil, false
	case t.Implements(isZeroerType):
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().Interface().(isZeroer).IsZero() }, true
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Interface().(isZeroer).IsZero() }, true
	}
	return func(p unsafe.Pointer) bool { return reflect.NewAt(t, p).Elem().IsZero() }, true
}
