package codec

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/codec/internal/plancache"
	"github.com/apikit-dev/apikit/scheme"
)

// decoderFunc decodes the JSON value at d.pos into v, which is addressable and settable.
type decoderFunc func(d *decodeState, v reflect.Value) error

var decoderCache sync.Map // reflect.Type -> decoderFunc

var (
	unmarshalerType      = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType  = reflect.TypeFor[encoding.TextUnmarshaler]()
	unstructuredType     = reflect.TypeFor[scheme.Unstructured]()
	unstructuredListType = reflect.TypeFor[scheme.UnstructuredList]()
	timeType             = reflect.TypeFor[scheme.Time]()
	microTimeType        = reflect.TypeFor[scheme.MicroTime]()
	mapStringAnyType     = reflect.TypeFor[map[string]any]()
	mapStringStringType  = reflect.TypeFor[map[string]string]()
	stringType           = reflect.TypeFor[string]()
)

// decoderFor returns the compiled decoder of a type, building it once. A recursive type
// meets a placeholder that forwards to the finished decoder.
func decoderFor(t reflect.Type) decoderFunc {
	return plancache.Get(&decoderCache, t, newDecoder, func(get func() decoderFunc) decoderFunc {
		return func(d *decodeState, v reflect.Value) error { return get()(d, v) }
	})
}

func newDecoder(t reflect.Type) decoderFunc {
	switch t {
	case unstructuredType:
		return decodeUnstructured
	case unstructuredListType:
		return decodeUnstructuredList
	case timeType:
		return decodeTime
	case mapStringAnyType:
		return decodeMapStringAny
	case mapStringStringType:
		return decodeMapStringString
	}
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		if pt.Implements(unmarshalerType) {
			return decodeUnmarshaler
		}
		if pt.Implements(textUnmarshalerType) {
			return decodeTextUnmarshaler
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return decodeBool
	case reflect.String:
		return decodeString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float32, reflect.Float64:
		return decodeFloat
	case reflect.Interface:
		return decodeInterface
	case reflect.Pointer:
		return newPointerDecoder(t)
	case reflect.Slice:
		return newSliceDecoder(t)
	case reflect.Array:
		return newArrayDecoder(t)
	case reflect.Map:
		return newMapDecoder(t)
	case reflect.Struct:
		return newStructDecoder(t)
	}
	return func(d *decodeState, v reflect.Value) error {
		if err := d.skipValue(); err != nil {
			return err
		}
		return fmt.Errorf("codec: cannot decode JSON into Go type %v", t)
	}
}

// mismatch reports the value at d.pos as unfit for type t, unless it is malformed.
func (d *decodeState) mismatch(t reflect.Type) error {
	start := d.pos
	var what string
	switch d.peek() {
	case '{':
		what = "object"
	case '[':
		what = "array"
	case '"':
		what = "string"
	case 't', 'f':
		what = "bool"
	case 'n':
		what = "null"
	default:
		what = "number"
	}
	start = d.pos
	if err := d.skipValue(); err != nil {
		return err
	}
	if what == "number" {
		what += " " + string(d.data[start:d.pos])
	}
	return d.typeError(what, t, start)
}

// wrapErr puts the current path in front of an error returned by an unmarshaler.
func (d *decodeState) wrapErr(err error) error {
	if p := d.pathString(); p != "" {
		return &UnmarshalerError{Path: p, Err: err}
	}
	return err
}

func decodeBool(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case 't':
		v.SetBool(true)
		return d.readLiteral("true")
	case 'f':
		v.SetBool(false)
		return d.readLiteral("false")
	case 'n':
		return d.readLiteral("null")
	}
	return d.mismatch(v.Type())
}

func decodeString(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case '"':
		s, _, err := d.readString()
		if err != nil {
			return err
		}
		v.SetString(string(s))
		return nil
	case 'n':
		return d.readLiteral("null")
	}
	return d.mismatch(v.Type())
}

// number reads a number literal for a numeric field; lit is nil after a null.
func (d *decodeState) number(t reflect.Type) (lit []byte, integral bool, start int, err error) {
	c := d.peek()
	if c == 'n' {
		return nil, false, d.pos, d.readLiteral("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		return nil, false, d.pos, d.mismatch(t)
	}
	start = d.pos
	lit, integral, err = d.readNumber()
	return lit, integral, start, err
}

func decodeInt(d *decodeState, v reflect.Value) error {
	lit, integral, start, err := d.number(v.Type())
	if err != nil || lit == nil {
		return err
	}
	var n int64
	ok := false
	if integral {
		n, ok = parseInt(lit)
	}
	if !ok || v.OverflowInt(n) {
		return d.typeError("number "+string(lit), v.Type(), start)
	}
	v.SetInt(n)
	return nil
}

func decodeUint(d *decodeState, v reflect.Value) error {
	lit, integral, start, err := d.number(v.Type())
	if err != nil || lit == nil {
		return err
	}
	var n uint64
	ok := false
	if integral && lit[0] != '-' {
		n, err = strconv.ParseUint(string(lit), 10, 64)
		ok = err == nil
	}
	if !ok || v.OverflowUint(n) {
		return d.typeError("number "+string(lit), v.Type(), start)
	}
	v.SetUint(n)
	return nil
}

func decodeFloat(d *decodeState, v reflect.Value) error {
	lit, _, start, err := d.number(v.Type())
	if err != nil || lit == nil {
		return err
	}
	f, err := strconv.ParseFloat(string(lit), v.Type().Bits())
	if err != nil || v.OverflowFloat(f) {
		return d.typeError("number "+string(lit), v.Type(), start)
	}
	v.SetFloat(f)
	return nil
}

func decodeInterface(d *decodeState, v reflect.Value) error {
	if d.peek() == 'n' {
		v.SetZero()
		return d.readLiteral("null")
	}
	if v.NumMethod() != 0 {
		return d.mismatch(v.Type())
	}
	x, err := d.anyValue()
	if err != nil {
		return err
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return nil
}

func decodeUnmarshaler(d *decodeState, v reflect.Value) error {
	raw, err := d.rawValue()
	if err != nil {
		return err
	}
	if !v.CanAddr() {
		return fmt.Errorf("codec: cannot decode into unaddressable %v", v.Type())
	}
	if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw); err != nil {
		return d.wrapErr(err)
	}
	return nil
}

func decodeTextUnmarshaler(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case 'n':
		return d.readLiteral("null")
	case '"':
	default:
		return d.mismatch(v.Type())
	}
	s, scratch, err := d.readString()
	if err != nil {
		return err
	}
	if scratch {
		s = bytes.Clone(s)
	}
	if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(s); err != nil {
		return d.wrapErr(err)
	}
	return nil
}

// decodeTime is scheme.Time's UnmarshalJSON without the second decode of the string.
func decodeTime(d *decodeState, v reflect.Value) error {
	t := v.Addr().Interface().(*scheme.Time)
	switch d.peek() {
	case 'n':
		t.Time = time.Time{}
		return d.readLiteral("null")
	case '"':
		s, _, err := d.readString()
		if err != nil {
			return err
		}
		if err := t.UnmarshalText(s); err != nil {
			return d.wrapErr(err)
		}
		return nil
	}
	return d.mismatch(v.Type())
}

func decodeUnstructured(d *decodeState, v reflect.Value) error {
	u := v.Addr().Interface().(*scheme.Unstructured)
	return decodeObjectMap(d, v, func(m map[string]any) error {
		u.Object = m
		return nil
	})
}

func decodeUnstructuredList(d *decodeState, v reflect.Value) error {
	return decodeObjectMap(d, v, v.Addr().Interface().(*scheme.UnstructuredList).SetFromMap)
}

// decodeObjectMap reads a JSON object into a new map and hands it to set; null leaves
// the value as it is.
func decodeObjectMap(d *decodeState, v reflect.Value, set func(map[string]any) error) error {
	switch d.peek() {
	case 'n':
		return d.readLiteral("null")
	case '{':
		m := make(map[string]any)
		if err := d.anyObjectInto(m); err != nil {
			return err
		}
		if err := set(m); err != nil {
			return d.wrapErr(err)
		}
		return nil
	}
	return d.mismatch(v.Type())
}

func newPointerDecoder(t reflect.Type) decoderFunc {
	et := t.Elem()
	elem := decoderFor(et)
	return func(d *decodeState, v reflect.Value) error {
		if d.peek() == 'n' {
			v.SetZero()
			return d.readLiteral("null")
		}
		if v.IsNil() {
			v.Set(reflect.New(et))
		}
		return elem(d, v.Elem())
	}
}

func newSliceDecoder(t reflect.Type) decoderFunc {
	et := t.Elem()
	elem := decoderFor(et)
	bytesOK := et.Kind() == reflect.Uint8 &&
		!reflect.PointerTo(et).Implements(unmarshalerType) && !reflect.PointerTo(et).Implements(textUnmarshalerType)
	return func(d *decodeState, v reflect.Value) error {
		switch d.peek() {
		case 'n':
			v.SetZero()
			return d.readLiteral("null")
		case '[':
		case '"':
			if bytesOK {
				return decodeBase64(d, v)
			}
			return d.mismatch(t)
		default:
			return d.mismatch(t)
		}
		empty, err := d.arrayStart()
		if err != nil {
			return err
		}
		i := 0
		for !empty {
			if i >= v.Len() {
				if i >= v.Cap() {
					v.Grow(1)
				}
				v.SetLen(i + 1)
			}
			ev := v.Index(i)
			ev.SetZero()
			d.pushIndex(i)
			err := elem(d, ev)
			d.pop()
			if err != nil {
				return err
			}
			i++
			if empty, err = d.arrayNext(); err != nil {
				return err
			}
		}
		if i < v.Len() {
			v.SetLen(i)
		}
		if v.IsNil() {
			v.Set(reflect.MakeSlice(t, 0, 0))
		}
		return nil
	}
}

func decodeBase64(d *decodeState, v reflect.Value) error {
	start := d.pos
	s, _, err := d.readString()
	if err != nil {
		return err
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return d.typeError("string (invalid base64: "+err.Error()+")", v.Type(), start)
	}
	v.SetBytes(b[:n])
	return nil
}

func newArrayDecoder(t reflect.Type) decoderFunc {
	elem := decoderFor(t.Elem())
	return func(d *decodeState, v reflect.Value) error {
		switch d.peek() {
		case 'n':
			return d.readLiteral("null")
		case '[':
		default:
			return d.mismatch(t)
		}
		empty, err := d.arrayStart()
		if err != nil {
			return err
		}
		i := 0
		for !empty {
			if i < v.Len() {
				ev := v.Index(i)
				ev.SetZero()
				d.pushIndex(i)
				err = elem(d, ev)
				d.pop()
			} else {
				err = d.skipValue()
			}
			if err != nil {
				return err
			}
			i++
			if empty, err = d.arrayNext(); err != nil {
				return err
			}
		}
		for ; i < v.Len(); i++ {
			v.Index(i).SetZero()
		}
		return nil
	}
}

func decodeMapStringAny(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case 'n':
		v.SetZero()
		return d.readLiteral("null")
	case '{':
	default:
		return d.mismatch(v.Type())
	}
	p := v.Addr().Interface().(*map[string]any)
	if *p == nil {
		*p = make(map[string]any)
	}
	return d.anyObjectInto(*p)
}

func decodeMapStringString(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case 'n':
		v.SetZero()
		return d.readLiteral("null")
	case '{':
	default:
		return d.mismatch(v.Type())
	}
	p := v.Addr().Interface().(*map[string]string)
	var keys map[string]struct{}
	if *p == nil {
		*p = make(map[string]string)
	} else if len(*p) > 0 {
		keys = map[string]struct{}{}
	}
	m := *p
	empty, err := d.objectStart()
	for err == nil && !empty {
		var kb []byte
		if kb, err = d.objectKey(); err != nil {
			return err
		}
		key := string(kb)
		var val string
		switch d.peek() {
		case '"':
			s, _, err := d.readString()
			if err != nil {
				return err
			}
			val = string(s)
		case 'n':
			if err := d.readLiteral("null"); err != nil {
				return err
			}
		default:
			d.pushKey(key)
			err := d.mismatch(stringType)
			d.pop()
			return err
		}
		if keys != nil {
			if _, dup := keys[key]; dup {
				d.issue(DuplicateField, key)
			}
			keys[key] = struct{}{}
			m[key] = val
		} else {
			n := len(m)
			if m[key] = val; len(m) == n {
				d.issue(DuplicateField, key)
			}
		}
		empty, err = d.objectNext()
	}
	return err
}

func newMapDecoder(t reflect.Type) decoderFunc {
	kt, et := t.Key(), t.Elem()
	if kt.Kind() != reflect.String {
		return func(d *decodeState, v reflect.Value) error {
			if err := d.skipValue(); err != nil {
				return err
			}
			return fmt.Errorf("codec: cannot decode JSON object into %v: only string-kinded map keys are supported", t)
		}
	}
	elem := decoderFor(et)
	return func(d *decodeState, v reflect.Value) error {
		switch d.peek() {
		case 'n':
			v.SetZero()
			return d.readLiteral("null")
		case '{':
		default:
			return d.mismatch(t)
		}
		var keys map[string]struct{}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		} else if v.Len() > 0 {
			keys = map[string]struct{}{}
		}
		ev := reflect.New(et).Elem()
		empty, err := d.objectStart()
		for err == nil && !empty {
			var kb []byte
			if kb, err = d.objectKey(); err != nil {
				return err
			}
			key := string(kb)
			ev.SetZero()
			d.pushKey(key)
			err = elem(d, ev)
			d.pop()
			if err != nil {
				return err
			}
			kv := reflect.ValueOf(key)
			if kt != stringType {
				kv = kv.Convert(kt)
			}
			if keys != nil {
				if _, dup := keys[key]; dup {
					d.issue(DuplicateField, key)
				}
				keys[key] = struct{}{}
				v.SetMapIndex(kv, ev)
			} else {
				n := v.Len()
				if v.SetMapIndex(kv, ev); v.Len() == n {
					d.issue(DuplicateField, key)
				}
			}
			empty, err = d.objectNext()
		}
		return err
	}
}

// structField is one JSON member of a struct: its name and where it lives (through
// embedded structs).
type structField struct {
	name   string
	tagged bool
	index  []int
	typ    reflect.Type
	dec    decoderFunc

	// Options of the json tag that only the encoder uses.
	omitEmpty bool // ",omitempty"
	omitZero  bool // ",omitzero"
	quoted    bool // ",string" on a bool, number or string field (or a pointer to one)
}

type structDecoder struct {
	t      reflect.Type
	fields []structField
	byName map[string]int
}

func newStructDecoder(t reflect.Type) decoderFunc {
	sd := &structDecoder{t: t, fields: typeFields(t), byName: map[string]int{}}
	for i := range sd.fields {
		sd.byName[sd.fields[i].name] = i
	}
	for i := range sd.fields {
		sd.fields[i].dec = decoderFor(sd.fields[i].typ)
	}
	return sd.decode
}

func (sd *structDecoder) decode(d *decodeState, v reflect.Value) error {
	switch d.peek() {
	case 'n':
		return d.readLiteral("null")
	case '{':
	default:
		return d.mismatch(sd.t)
	}
	var seen uint64
	var seenMany []bool
	empty, err := d.objectStart()
	for err == nil && !empty {
		var kb []byte
		if kb, err = d.objectKey(); err != nil {
			return err
		}
		i, ok := sd.byName[string(kb)]
		if !ok {
			d.issue(UnknownField, string(kb))
			if err = d.skipValue(); err != nil {
				return err
			}
		} else {
			f := &sd.fields[i]
			if i < 64 {
				if seen&(1<<i) != 0 {
					d.issue(DuplicateField, f.name)
				}
				seen |= 1 << i
			} else {
				if seenMany == nil {
					seenMany = make([]bool, len(sd.fields))
				}
				if seenMany[i] {
					d.issue(DuplicateField, f.name)
				}
				seenMany[i] = true
			}
			var fv reflect.Value
			if len(f.index) == 1 {
				fv = v.Field(f.index[0])
			} else if fv, err = embeddedField(v, f.index); err != nil {
				return d.wrapErr(err)
			}
			d.pushKey(f.name)
			err = f.dec(d, fv)
			d.pop()
			if err != nil {
				return err
			}
		}
		empty, err = d.objectNext()
	}
	return err
}

// embeddedField walks an index path through embedded structs, allocating nil embedded
// pointers on the way.
func embeddedField(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, fmt.Errorf("%w: %v", errNilPointer, v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// typeFields lists the JSON members of a struct type by encoding/json's rules
// (scheme.JSONFields), as the decoder's and encoder's fields.
func typeFields(t reflect.Type) []structField {
	fs := scheme.JSONFields(t)
	out := make([]structField, len(fs))
	for i, f := range fs {
		out[i] = structField{name: f.Name, tagged: f.Tagged, index: f.Index, typ: f.Type,
			omitEmpty: f.OmitEmpty, omitZero: f.OmitZero, quoted: f.Quoted}
	}
	return out
}
