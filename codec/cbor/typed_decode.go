package cbor

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
	"unicode/utf8"
	"unsafe"

	fx "github.com/fxamacker/cbor/v2"

	"github.com/apikit-dev/apikit/codec/internal/plancache"
	"github.com/apikit-dev/apikit/scheme"
)

// The typed decoder reads a CBOR document into a struct from plans compiled once per
// type, and gives up (returns false) on anything it does not read exactly as
// fxamacker's strict decode would with no error: then the struct is put back as it was
// and the fxamacker path decodes it from the start, so every error, every field issue
// and every value of an unusual input is fxamacker's. Like fxamacker it overwrites
// the fields the document names and leaves the others; where fxamacker would decode
// into what a field already holds (a non-nil pointer, slice or map) it gives up too,
// so it only ever writes into the struct itself and into memory it allocated. It takes only definite lengths,
// strings (text strings valid UTF-8), integers that fit, booleans, null, and the
// self-described tag in front of the document; no other tag, float or simple value,
// no unknown or repeated field or map key, and it never nests deeper than
// maxTypedDepth. Every item takes at least one byte, so a count is checked against
// the bytes left before anything is allocated for it.

// decodeFunc decodes the data item at d.pos into the zero value of its compiled type
// at p; false means it cannot (and p may be partly written).
type decodeFunc func(d *typedDecoder, p unsafe.Pointer) bool

// maxTypedDepth bounds the nesting the typed decoder follows, far below fxamacker's
// limit: a deeper document is decoded, or rejected, by fxamacker.
const maxTypedDepth = 1000

type typedDecoder struct {
	data  []byte
	pos   int
	depth int
}

var typedDecoders sync.Map // reflect.Type -> decodeFunc

var (
	cborUnmarshalerType = reflect.TypeFor[fx.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	schemeMicroTimeType = reflect.TypeFor[scheme.MicroTime]()
)

// unmarshalTyped decodes data into v with the typed decoder when v is a non-nil
// pointer to a struct. It reports false, with *v as it was, when the document needs
// fxamacker.
func unmarshalTyped(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	e := rv.Elem()
	if e.Kind() != reflect.Struct {
		return false
	}
	// The typed decoder writes only into the struct's own memory and into memory it
	// allocates, so a copy of the struct is all it takes to undo it.
	var saved reflect.Value
	if !e.IsZero() {
		saved = reflect.New(e.Type()).Elem()
		saved.Set(e)
	}
	d := typedDecoder{data: data}
	for d.selfDescribed() {
	}
	if typedDecoderFor(e.Type())(&d, rv.UnsafePointer()) && d.pos == len(data) {
		return true
	}
	if saved.IsValid() {
		e.Set(saved)
	} else {
		e.SetZero()
	}
	return false
}

// typedDecoderFor returns the compiled decoder of t, building it once.
func typedDecoderFor(t reflect.Type) decodeFunc {
	return plancache.Get(&typedDecoders, t, newTypedDecoder, func(get func() decodeFunc) decodeFunc {
		return func(d *typedDecoder, p unsafe.Pointer) bool { return get()(d, p) }
	})
}

func newTypedDecoder(t reflect.Type) decodeFunc {
	switch t {
	case schemeTimeType:
		return decodeCBORUnmarshaler[scheme.Time]
	case schemeMicroTimeType:
		return decodeCBORUnmarshaler[scheme.MicroTime]
	}
	if t.Kind() == reflect.Pointer {
		return newPointerDecoder(t)
	}
	if decodesThroughJSON(t) {
		return newJSONUnmarshalerDecoder(t)
	}
	if hasUnmarshalMethod(t) {
		return cannotDecode
	}
	switch t.Kind() {
	case reflect.Bool:
		return decodeBool
	case reflect.String:
		return decodeString
	case reflect.Int:
		return decodeInt[int]
	case reflect.Int8:
		return decodeInt[int8]
	case reflect.Int16:
		return decodeInt[int16]
	case reflect.Int32:
		return decodeInt[int32]
	case reflect.Int64:
		return decodeInt[int64]
	case reflect.Uint:
		return decodeUint[uint]
	case reflect.Uint8:
		return decodeUint[uint8]
	case reflect.Uint16:
		return decodeUint[uint16]
	case reflect.Uint32:
		return decodeUint[uint32]
	case reflect.Uint64:
		return decodeUint[uint64]
	case reflect.Uintptr:
		return decodeUint[uintptr]
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return newSliceDecoder(t)
		}
	case reflect.Map:
		if t.Key() == stringType && t.Elem() == stringType {
			return decodeStringMap
		}
	case reflect.Struct:
		if f := newStructDecoder(t); f != nil {
			return f
		}
	}
	return cannotDecode
}

// hasUnmarshalMethod reports whether fxamacker decodes t other than by its kind.
func hasUnmarshalMethod(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	if pt.Implements(cborUnmarshalerType) || pt.Implements(jsonUnmarsh) || pt.Implements(textUnmarshalerType) {
		return true
	}
	if _, ok := pt.MethodByName("UnmarshalBinary"); ok {
		return true
	}
	return t.PkgPath() == "github.com/fxamacker/cbor/v2" || t.PkgPath() == "math/big" || t.PkgPath() == "time"
}

func cannotDecode(*typedDecoder, unsafe.Pointer) bool { return false }

// decodesThroughJSON reports whether fxamacker decodes t by transcoding to JSON for
// its UnmarshalJSON method (scheme.FieldsV1): *t has UnmarshalJSON and no
// UnmarshalCBOR, and t is none of fxamacker's own types.
func decodesThroughJSON(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Kind() != reflect.Interface && pt.Implements(jsonUnmarsh) && !pt.Implements(cborUnmarshalerType) &&
		t.PkgPath() != "github.com/fxamacker/cbor/v2" && t.PkgPath() != "math/big" && t.PkgPath() != "time"
}

// newJSONUnmarshalerDecoder decodes values of t as fxamacker does: the data item,
// null included, goes through the same transcoder to the type's UnmarshalJSON. The
// item is checked to be well formed with the nesting left below maxTypedDepth, so no
// item the whole document's check would fail gets through.
func newJSONUnmarshalerDecoder(t reflect.Type) decodeFunc {
	return func(d *typedDecoder, p unsafe.Pointer) bool {
		if d.pos >= len(d.data) || d.data[d.pos]>>5 == majorTag {
			return false
		}
		s := scanner{data: d.data, pos: d.pos, depth: maxNestedLevels - maxTypedDepth + d.depth}
		if s.skip() != nil {
			return false
		}
		buf := getBuffer()
		defer putBuffer(buf)
		if transcodeToJSON(buf, bytes.NewReader(d.data[d.pos:s.pos])) != nil {
			return false
		}
		if reflect.NewAt(t, p).Interface().(json.Unmarshaler).UnmarshalJSON(buf.Bytes()) != nil {
			return false
		}
		d.pos = s.pos
		return true
	}
}

// selfDescribed consumes one self-described tag at d.pos.
func (d *typedDecoder) selfDescribed() bool {
	if len(d.data)-d.pos >= 3 && d.data[d.pos] == 0xd9 && d.data[d.pos+1] == 0xd9 && d.data[d.pos+2] == 0xf7 {
		d.pos += 3
		return true
	}
	return false
}

// null consumes a null at d.pos. Decoding null into a zero value leaves it as it is.
func (d *typedDecoder) null() bool {
	if d.pos < len(d.data) && d.data[d.pos] == 0xf6 {
		d.pos++
		return true
	}
	return false
}

// head reads a definite-length data item head; ok is false at the end of the input
// and for indefinite lengths or reserved additional information.
func (d *typedDecoder) head() (major byte, arg uint64, ok bool) {
	if d.pos >= len(d.data) {
		return 0, 0, false
	}
	b := d.data[d.pos]
	major, info := b>>5, b&0x1f
	if info < 24 {
		d.pos++
		return major, uint64(info), true
	}
	if info > 27 {
		return 0, 0, false
	}
	n := 1 << (info - 24)
	if len(d.data)-d.pos-1 < n {
		return 0, 0, false
	}
	for _, c := range d.data[d.pos+1 : d.pos+1+n] {
		arg = arg<<8 | uint64(c)
	}
	d.pos += 1 + n
	return major, arg, true
}

// str reads a definite-length byte or text string; the result aliases the input.
func (d *typedDecoder) str() ([]byte, bool) {
	major, n, ok := d.head()
	if !ok || major != majorBytes && major != majorText || n > uint64(len(d.data)-d.pos) {
		return nil, false
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	if major == majorText && !utf8.Valid(b) {
		return nil, false
	}
	return b, true
}

// count reads the head of an array or map (major) whose items, at least per bytes
// each, fit in the input and within limit.
func (d *typedDecoder) count(major byte, per, limit uint64) (int, bool) {
	m, n, ok := d.head()
	if !ok || m != major || n > limit || n > uint64(len(d.data)-d.pos)/per {
		return 0, false
	}
	return int(n), true
}

func decodeBool(d *typedDecoder, p unsafe.Pointer) bool {
	if d.pos >= len(d.data) {
		return false
	}
	switch d.data[d.pos] {
	case 0xf4:
		*(*bool)(p) = false
	case 0xf5:
		*(*bool)(p) = true
	case 0xf6: // null leaves a bool as it is
	default:
		return false
	}
	d.pos++
	return true
}

func decodeString(d *typedDecoder, p unsafe.Pointer) bool {
	if d.null() {
		return true // null leaves a string as it is
	}
	b, ok := d.str()
	if ok {
		*(*string)(p) = string(b)
	}
	return ok
}

func decodeInt[T int | int8 | int16 | int32 | int64](d *typedDecoder, p unsafe.Pointer) bool {
	if d.null() {
		return true
	}
	major, n, ok := d.head()
	if !ok {
		return false
	}
	limit := uint64(1)<<(unsafe.Sizeof(T(0))*8-1) - 1 // the largest T
	switch major {
	case majorUint:
		if n > limit {
			return false
		}
		*(*T)(p) = T(n)
	case majorNegInt:
		if n > limit { // -1-n below the smallest T
			return false
		}
		*(*T)(p) = T(-1 - int64(n))
	default:
		return false
	}
	return true
}

func decodeUint[T uint | uint8 | uint16 | uint32 | uint64 | uintptr](d *typedDecoder, p unsafe.Pointer) bool {
	if d.null() {
		return true
	}
	major, n, ok := d.head()
	if !ok || major != majorUint || n > uint64(^T(0)) {
		return false
	}
	*(*T)(p) = T(n)
	return true
}

// decodeCBORUnmarshaler hands a string or null to T's UnmarshalCBOR, as fxamacker
// does (scheme.Time and MicroTime parse RFC 3339).
func decodeCBORUnmarshaler[T any, PT interface {
	*T
	fx.Unmarshaler
}](d *typedDecoder, p unsafe.Pointer) bool {
	start := d.pos
	if d.null() {
		return PT(p).UnmarshalCBOR(d.data[start:d.pos]) == nil
	}
	if _, ok := d.str(); !ok {
		return false
	}
	return PT(p).UnmarshalCBOR(d.data[start:d.pos]) == nil
}

func newPointerDecoder(t reflect.Type) decodeFunc {
	elemType := t.Elem()
	var elem decodeFunc
	once := sync.OnceFunc(func() { elem = typedDecoderFor(elemType) })
	return func(d *typedDecoder, p unsafe.Pointer) bool {
		if d.null() {
			*(*unsafe.Pointer)(p) = nil
			return true
		}
		if *(*unsafe.Pointer)(p) != nil {
			return false // fxamacker decodes into what it points to
		}
		once()
		q := reflect.New(elemType).UnsafePointer()
		*(*unsafe.Pointer)(p) = q
		return elem(d, q)
	}
}

func newSliceDecoder(t reflect.Type) decodeFunc {
	elemType := t.Elem()
	size := elemType.Size()
	var elem decodeFunc
	once := sync.OnceFunc(func() { elem = typedDecoderFor(elemType) })
	return func(d *typedDecoder, p unsafe.Pointer) bool {
		if d.null() {
			*(*sliceHeader)(p) = sliceHeader{}
			return true
		}
		if (*sliceHeader)(p).data != nil {
			return false // fxamacker may decode into the elements there
		}
		n, ok := d.count(majorArray, 1, maxArrayElements)
		if !ok || d.depth >= maxTypedDepth {
			return false
		}
		once()
		// fxamacker makes an empty, non-nil slice of an empty array too.
		data := reflect.MakeSlice(t, n, n).UnsafePointer()
		*(*sliceHeader)(p) = sliceHeader{data: data, len: n, cap: n}
		d.depth++
		for i := 0; i < n; i++ {
			if !elem(d, unsafe.Add(data, uintptr(i)*size)) {
				return false
			}
		}
		d.depth--
		return true
	}
}

// decodeStringMap reads a map[string]string; a repeated key or a null value is left
// to fxamacker.
func decodeStringMap(d *typedDecoder, p unsafe.Pointer) bool {
	if d.null() {
		*(*map[string]string)(p) = nil
		return true
	}
	if *(*map[string]string)(p) != nil {
		return false // fxamacker adds to the map there
	}
	n, ok := d.count(majorMap, 2, maxMapPairs)
	if !ok {
		return false
	}
	m := make(map[string]string, n)
	*(*map[string]string)(p) = m
	for i := 0; i < n; i++ {
		k, ok := d.str()
		if !ok {
			return false
		}
		if _, dup := m[string(k)]; dup {
			return false
		}
		v, ok := d.str()
		if !ok {
			return false
		}
		m[string(k)] = string(v)
	}
	return true
}

// decField is one field of a struct plan.
type decField struct {
	name   string
	offset uintptr
	typ    reflect.Type
	dec    decodeFunc // set on first use (recursive types)
}

// maxPlannedFields is the most fields a struct plan tracks (one bit each for
// repeated names); larger structs are left to fxamacker.
const maxPlannedFields = 64

func newStructDecoder(t reflect.Type) decodeFunc {
	wf, ok := resolveFields(t)
	if !ok || len(wf) > maxPlannedFields {
		return nil
	}
	fields := make([]decField, len(wf))
	byName := make(map[string]int, len(wf))
	for i, f := range wf {
		fields[i] = decField{name: f.name, offset: f.offset, typ: f.typ}
		byName[f.name] = i
	}
	var once sync.Once
	return func(d *typedDecoder, p unsafe.Pointer) bool {
		if d.null() {
			return true
		}
		n, ok := d.count(majorMap, 2, maxMapPairs)
		if !ok || d.depth >= maxTypedDepth {
			return false
		}
		once.Do(func() {
			for i := range fields {
				fields[i].dec = typedDecoderFor(fields[i].typ)
			}
		})
		d.depth++
		var seen uint64
		for ; n > 0; n-- {
			k, ok := d.str()
			if !ok {
				return false
			}
			i := -1
			if len(fields) <= 8 {
				for j := range fields {
					if fields[j].name == string(k) {
						i = j
						break
					}
				}
			} else if j, found := byName[string(k)]; found {
				i = j
			}
			if i < 0 || seen&(1<<i) != 0 { // unknown or repeated: fxamacker reports it
				return false
			}
			seen |= 1 << i
			if f := &fields[i]; !f.dec(d, unsafe.Add(p, f.offset)) {
				return false
			}
		}
		d.depth--
		return true
	}
}
