package conversion

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apikit-dev/apikit/scheme"
)

// ToUnstructured returns the JSON document of obj (usually a pointer to a typed object) as
// map[string]any: exactly what json.Unmarshal of json.Marshal(obj) into a map would give,
// except that numbers are int64 when integral and float64 otherwise. It honours json tags
// (names, omitempty, omitzero, "-", ",string"), inlines embedded structs like
// encoding/json, and uses MarshalJSON and MarshalText where types have them (scheme.Time
// becomes an RFC 3339 string, or nil when zero). It walks obj by reflection with an
// encoder compiled once per type; only types with their own MarshalJSON go through JSON
// text. The result shares no memory with obj.
func ToUnstructured(obj any) (map[string]any, error) {
	switch o := obj.(type) {
	case *scheme.Unstructured:
		if o == nil || o.Object == nil {
			return nil, fmt.Errorf("conversion: ToUnstructured of an empty Unstructured")
		}
		v, err := normalizeJSON(o.Object)
		if err != nil {
			return nil, err
		}
		return v.(map[string]any), nil
	case map[string]any:
		v, err := normalizeJSON(o)
		if err != nil {
			return nil, err
		}
		return v.(map[string]any), nil
	}
	v := reflect.ValueOf(obj)
	if !v.IsValid() {
		return nil, fmt.Errorf("conversion: ToUnstructured of nil")
	}
	x, err := encoderFor(v.Type())(v)
	if err != nil {
		return nil, fmt.Errorf("conversion: ToUnstructured of %T: %w", obj, err)
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("conversion: ToUnstructured of %T: the JSON form is %s, not an object", obj, jsonKind(x))
	}
	return m, nil
}

// FromUnstructured fills obj, a non-nil pointer, from a JSON document held as a map, as
// json.Unmarshal of the document's JSON text into a zero value would: obj is zeroed first,
// keys match json field names exactly (case-sensitively, as in Kubernetes), unknown keys
// are ignored, and types with UnmarshalJSON or UnmarshalText (scheme.Time from an RFC 3339
// string) decode themselves. Numbers (int64, float64 or other Go numeric types) go into any
// numeric field if they fit: a fraction into an integer field or a value out of the
// field's range is an error naming the field path. m is not retained: obj shares no
// memory with it.
func FromUnstructured(m map[string]any, obj any) error {
	if u, ok := obj.(*scheme.Unstructured); ok && u != nil {
		x, err := normalizeJSON(m)
		if err != nil {
			return err
		}
		u.Object, _ = x.(map[string]any)
		return nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("conversion: FromUnstructured needs a non-nil pointer, got %T", obj)
	}
	e := v.Elem()
	e.SetZero()
	if m == nil {
		return nil
	}
	if err := decoderFor(e.Type())(m, e); err != nil {
		return fmt.Errorf("conversion: FromUnstructured into %T: %w", obj, err)
	}
	return nil
}

type (
	encodeFunc func(v reflect.Value) (any, error)
	decodeFunc func(x any, v reflect.Value) error
)

var (
	encoders    sync.Map // reflect.Type -> encodeFunc
	decoders    sync.Map // reflect.Type -> decodeFunc
	codecMu     sync.Mutex
	encBuilding = map[reflect.Type]*encodeFunc{}
	decBuilding = map[reflect.Type]*decodeFunc{}

	marshalerType     = reflect.TypeFor[json.Marshaler]()
	unmarshalerType   = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
	timeType          = reflect.TypeFor[scheme.Time]()
)

func encoderFor(t reflect.Type) encodeFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encodeFunc)
	}
	codecMu.Lock()
	defer codecMu.Unlock()
	return encoderLocked(t)
}

func encoderLocked(t reflect.Type) encodeFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encodeFunc)
	}
	if p, ok := encBuilding[t]; ok {
		return func(v reflect.Value) (any, error) { return (*p)(v) }
	}
	var f encodeFunc
	encBuilding[t] = &f
	f = compileEncoder(t)
	delete(encBuilding, t)
	encoders.Store(t, f)
	return f
}

func compileEncoder(t reflect.Type) encodeFunc {
	if t == timeType {
		return encodeTime
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(marshalerType) {
		plain := compileEncoderNoAddr(t)
		return func(v reflect.Value) (any, error) {
			if v.CanAddr() {
				return marshalJSONValue(v.Addr().Interface().(json.Marshaler))
			}
			return plain(v)
		}
	}
	return compileEncoderNoAddr(t)
}

// compileEncoderNoAddr is the encoder for values whose pointer-receiver MarshalJSON cannot be used.
func compileEncoderNoAddr(t reflect.Type) encodeFunc {
	if t.Implements(marshalerType) {
		return func(v reflect.Value) (any, error) {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return nil, nil
			}
			return marshalJSONValue(v.Interface().(json.Marshaler))
		}
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshalerType) {
		plain := compileEncoderKind(t)
		return func(v reflect.Value) (any, error) {
			if v.CanAddr() {
				return marshalText(v.Addr().Interface().(encoding.TextMarshaler))
			}
			return plain(v)
		}
	}
	if t.Implements(textMarshalerType) {
		return func(v reflect.Value) (any, error) {
			if v.Kind() == reflect.Pointer && v.IsNil() {
				return nil, nil
			}
			return marshalText(v.Interface().(encoding.TextMarshaler))
		}
	}
	return compileEncoderKind(t)
}

func compileEncoderKind(t reflect.Type) encodeFunc {
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) (any, error) { return v.Bool(), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (any, error) { return v.Int(), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) (any, error) { return uintValue(v.Uint()), nil }
	case reflect.Float32:
		return func(v reflect.Value) (any, error) { return floatValue(v.Float(), 32) }
	case reflect.Float64:
		return func(v reflect.Value) (any, error) { return floatValue(v.Float(), 64) }
	case reflect.String:
		return func(v reflect.Value) (any, error) { return validUTF8(v.String()), nil }
	case reflect.Interface:
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			e := v.Elem()
			switch x := e.Interface().(type) {
			case string, bool, int64, float64, map[string]any, []any:
				return normalizeJSON(x)
			}
			return encoderFor(e.Type())(e)
		}
	case reflect.Pointer:
		elem := encoderLocked(t.Elem())
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return elem(v.Elem())
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p := reflect.PointerTo(t.Elem())
			if !p.Implements(marshalerType) && !p.Implements(textMarshalerType) {
				return func(v reflect.Value) (any, error) {
					if v.IsNil() {
						return nil, nil
					}
					return base64.StdEncoding.EncodeToString(v.Bytes()), nil
				}
			}
		}
		elem := encoderLocked(t.Elem())
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			return encodeArray(v, elem)
		}
	case reflect.Array:
		elem := encoderLocked(t.Elem())
		return func(v reflect.Value) (any, error) { return encodeArray(v, elem) }
	case reflect.Map:
		return compileMapEncoder(t)
	case reflect.Struct:
		return compileStructEncoder(t)
	}
	return func(reflect.Value) (any, error) {
		return nil, fmt.Errorf("json: unsupported type: %v", t)
	}
}

func encodeArray(v reflect.Value, elem encodeFunc) (any, error) {
	n := v.Len()
	out := make([]any, n)
	for i := 0; i < n; i++ {
		x, err := elem(v.Index(i))
		if err != nil {
			return nil, wrapPath(fmt.Sprintf("[%d]", i), err)
		}
		out[i] = x
	}
	return out, nil
}

func compileMapEncoder(t reflect.Type) encodeFunc {
	kt := t.Key()
	var key func(k reflect.Value) (string, error)
	switch {
	case kt.Kind() == reflect.String:
		key = func(k reflect.Value) (string, error) { return validUTF8(k.String()), nil }
	case kt.Implements(textMarshalerType):
		key = func(k reflect.Value) (string, error) {
			if k.Kind() == reflect.Pointer && k.IsNil() {
				return "", nil
			}
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			return validUTF8(string(b)), err
		}
	default:
		switch kt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key = func(k reflect.Value) (string, error) { return strconv.FormatInt(k.Int(), 10), nil }
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			key = func(k reflect.Value) (string, error) { return strconv.FormatUint(k.Uint(), 10), nil }
		default:
			return func(reflect.Value) (any, error) { return nil, fmt.Errorf("json: unsupported type: %v", t) }
		}
	}
	if t == stringMapType {
		return func(v reflect.Value) (any, error) {
			if v.IsNil() {
				return nil, nil
			}
			src := v.Interface().(map[string]string)
			out := make(map[string]any, len(src))
			for k, s := range src {
				out[validUTF8(k)] = validUTF8(s)
			}
			return out, nil
		}
	}
	elem := encoderLocked(t.Elem())
	return func(v reflect.Value) (any, error) {
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			k, err := key(it.Key())
			if err != nil {
				return nil, err
			}
			x, err := elem(it.Value())
			if err != nil {
				return nil, wrapPath("["+k+"]", err)
			}
			out[k] = x
		}
		return out, nil
	}
}

type encField struct {
	name      string
	index     []int
	enc       encodeFunc
	kind      reflect.Kind
	omitEmpty bool
	omitZero  func(v reflect.Value) bool
	quoted    bool
}

func compileStructEncoder(t reflect.Type) encodeFunc {
	jf := scheme.JSONFields(t)
	fields := make([]encField, len(jf))
	for i, f := range jf {
		fields[i] = encField{
			name:      f.Name,
			index:     f.Index,
			enc:       encoderLocked(f.Type),
			kind:      f.Type.Kind(),
			omitEmpty: f.OmitEmpty,
			quoted:    f.Quoted,
		}
		if f.OmitZero {
			fields[i].omitZero = zeroChecker(f.Type)
		}
	}
	hint := min(len(fields), 8) // one map group; most fields of big structs are omitted
	return func(v reflect.Value) (any, error) {
		out := make(map[string]any, hint)
		for i := range fields {
			f := &fields[i]
			fv, ok := fieldByIndex(v, f.index)
			if !ok {
				continue
			}
			if f.omitEmpty && isEmptyValue(fv, f.kind) {
				continue
			}
			if f.omitZero != nil && f.omitZero(fv) {
				continue
			}
			x, err := f.enc(fv)
			if err != nil {
				return nil, wrapPath(f.name, err)
			}
			if f.quoted {
				x = quote(x)
			}
			out[f.name] = x
		}
		return out, nil
	}
}

// fieldByIndex follows an index path through embedded structs; ok is false when an
// embedded pointer on the way is nil.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	if len(index) == 1 {
		return v.Field(index[0]), true
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func isEmptyValue(v reflect.Value, k reflect.Kind) bool {
	switch k {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func zeroChecker(t reflect.Type) func(reflect.Value) bool {
	switch {
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
				return true
			}
			return v.Interface().(interface{ IsZero() bool }).IsZero()
		}
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				return v.IsZero()
			}
			return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
		}
	}
	return reflect.Value.IsZero
}

// quote applies the ",string" option to an encoded scalar.
func quote(x any) any {
	switch v := x.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return x
}

func encodeTime(v reflect.Value) (any, error) {
	var t scheme.Time
	if v.CanAddr() {
		t = *(*scheme.Time)(v.Addr().UnsafePointer())
	} else {
		t = v.Interface().(scheme.Time)
	}
	if t.IsZero() {
		return nil, nil
	}
	return t.UTC().Format(time.RFC3339), nil
}

func marshalJSONValue(m json.Marshaler) (any, error) {
	b, err := m.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return scheme.DecodeJSONValue(b)
}

func marshalText(m encoding.TextMarshaler) (any, error) {
	b, err := m.MarshalText()
	if err != nil {
		return nil, err
	}
	return validUTF8(string(b)), nil
}

// decodeJSON decodes JSON text into the unstructured form: integral numbers as int64.
// uintValue is what an unsigned integer becomes through JSON text.
func uintValue(u uint64) any {
	if u <= math.MaxInt64 {
		return int64(u)
	}
	return float64(u)
}

// floatValue is what a float becomes through JSON text: encoding/json writes it in the
// shortest form ('e' notation only below 1e-6 and from 1e21), and an integral text in
// int64 range reads back as int64.
func floatValue(f float64, bits int) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	if bits == 32 {
		abs = float64(float32(abs))
	}
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) || f != math.Trunc(f) {
		if bits == 32 {
			// JSON text holds float32's shortest form, which reads back as a different float64.
			f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		}
		return f, nil
	}
	if bits == 64 && abs < 1<<53 || bits == 32 && abs < 1<<24 {
		return int64(f), nil
	}
	// Above 2^53 (2^24 for float32) the shortest text of an integral float ends in zeros that int64(f) does
	// not have; read it back as encoding/json's output would be.
	text := strconv.FormatFloat(f, 'f', -1, bits)
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i, nil
	}
	g, _ := strconv.ParseFloat(text, 64)
	return g, nil
}

// validUTF8 replaces each byte of an invalid UTF-8 sequence with U+FFFD, as encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// normalizeJSON copies a JSON-shaped value into the unstructured form: maps and slices
// copied, integral numbers as int64, other numbers as float64, strings valid UTF-8.
func normalizeJSON(x any) (any, error) {
	switch v := x.(type) {
	case nil, bool, int64:
		return v, nil
	case string:
		return validUTF8(v), nil
	case float64:
		return floatValue(v, 64)
	case map[string]any:
		if v == nil {
			return nil, nil
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			n, err := normalizeJSON(e)
			if err != nil {
				return nil, wrapPath(k, err)
			}
			out[validUTF8(k)] = n
		}
		return out, nil
	case []any:
		if v == nil {
			return nil, nil
		}
		out := make([]any, len(v))
		for i, e := range v {
			n, err := normalizeJSON(e)
			if err != nil {
				return nil, wrapPath(fmt.Sprintf("[%d]", i), err)
			}
			out[i] = n
		}
		return out, nil
	}
	rv := reflect.ValueOf(x)
	return encoderFor(rv.Type())(rv)
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case int64, float64, int, int8, int16, int32, uint, uint8, uint16, uint32, uint64, float32, json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}
