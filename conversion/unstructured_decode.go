package conversion

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/apikit-dev/apikit/scheme"
)

func decoderFor(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	codecMu.Lock()
	defer codecMu.Unlock()
	return decoderLocked(t)
}

func decoderLocked(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	if p, ok := decBuilding[t]; ok {
		return func(x any, v reflect.Value) error { return (*p)(x, v) }
	}
	var f decodeFunc
	decBuilding[t] = &f
	f = compileDecoder(t)
	delete(decBuilding, t)
	decoders.Store(t, f)
	return f
}

// typeError says a JSON value cannot go into a Go type.
func typeError(x any, t reflect.Type) error {
	return fmt.Errorf("cannot unmarshal %s into Go value of type %v", jsonKind(x), t)
}

// compileDecoder builds the decoder of t. Decoders receive settable, addressable values.
func compileDecoder(t reflect.Type) decodeFunc {
	if t == timeType {
		return decodeTime
	}
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		if pt.Implements(unmarshalerType) {
			return func(x any, v reflect.Value) error {
				b, err := json.Marshal(x)
				if err != nil {
					return err
				}
				return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b)
			}
		}
		if pt.Implements(textUnmarshalType) {
			return func(x any, v reflect.Value) error {
				switch s := x.(type) {
				case nil:
					return nil
				case string:
					return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
				}
				return typeError(x, t)
			}
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(x any, v reflect.Value) error {
			switch b := x.(type) {
			case bool:
				v.SetBool(b)
				return nil
			case nil:
				return nil
			}
			return typeError(x, t)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(x any, v reflect.Value) error {
			if x == nil {
				return nil
			}
			n, err := toInt(x, t)
			if err != nil {
				return err
			}
			if v.OverflowInt(n) {
				return fmt.Errorf("value %d overflows %v", n, t)
			}
			v.SetInt(n)
			return nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(x any, v reflect.Value) error {
			if x == nil {
				return nil
			}
			n, err := toUint(x, t)
			if err != nil {
				return err
			}
			if v.OverflowUint(n) {
				return fmt.Errorf("value %d overflows %v", n, t)
			}
			v.SetUint(n)
			return nil
		}
	case reflect.Float32, reflect.Float64:
		return func(x any, v reflect.Value) error {
			if x == nil {
				return nil
			}
			f, ok := toFloat(x)
			if !ok {
				return typeError(x, t)
			}
			if v.OverflowFloat(f) {
				return fmt.Errorf("value %v overflows %v", f, t)
			}
			v.SetFloat(f)
			return nil
		}
	case reflect.String:
		return func(x any, v reflect.Value) error {
			switch s := x.(type) {
			case string:
				v.SetString(s)
				return nil
			case nil:
				return nil
			}
			return typeError(x, t)
		}
	case reflect.Interface:
		return func(x any, v reflect.Value) error {
			if x == nil {
				v.SetZero()
				return nil
			}
			if t.NumMethod() != 0 {
				return typeError(x, t)
			}
			n, err := normalizeJSON(x)
			if err != nil {
				return err
			}
			if n == nil {
				v.SetZero()
				return nil
			}
			v.Set(reflect.ValueOf(n))
			return nil
		}
	case reflect.Pointer:
		et := t.Elem()
		elem := decoderLocked(et)
		return func(x any, v reflect.Value) error {
			if x == nil {
				v.SetZero()
				return nil
			}
			if v.IsNil() {
				v.Set(reflect.New(et))
			}
			return elem(x, v.Elem())
		}
	case reflect.Slice:
		return compileSliceDecoder(t)
	case reflect.Array:
		elem := decoderLocked(t.Elem())
		return func(x any, v reflect.Value) error {
			if x == nil {
				return nil
			}
			a, ok := x.([]any)
			if !ok {
				return typeError(x, t)
			}
			for i := 0; i < v.Len(); i++ {
				if i >= len(a) {
					v.Index(i).SetZero()
					continue
				}
				if err := elem(a[i], v.Index(i)); err != nil {
					return wrapPath(fmt.Sprintf("[%d]", i), err)
				}
			}
			return nil
		}
	case reflect.Map:
		return compileMapDecoder(t)
	case reflect.Struct:
		return compileStructDecoder(t)
	}
	return func(x any, v reflect.Value) error { return fmt.Errorf("json: unsupported type: %v", t) }
}

func decodeTime(x any, v reflect.Value) error {
	t := (*scheme.Time)(v.Addr().UnsafePointer())
	switch s := x.(type) {
	case nil:
		*t = scheme.Time{}
		return nil
	case string:
		return t.UnmarshalText([]byte(s))
	}
	return typeError(x, timeType)
}

func compileSliceDecoder(t reflect.Type) decodeFunc {
	if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(unmarshalerType) &&
		!reflect.PointerTo(t.Elem()).Implements(textUnmarshalType) {
		return func(x any, v reflect.Value) error {
			switch s := x.(type) {
			case nil:
				v.SetZero()
				return nil
			case string:
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return err
				}
				v.SetBytes(b)
				return nil
			}
			return typeError(x, t)
		}
	}
	elem := decoderLocked(t.Elem())
	return func(x any, v reflect.Value) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		a, ok := x.([]any)
		if !ok {
			return decodeOther(x, v, t)
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			if err := elem(e, s.Index(i)); err != nil {
				return wrapPath(fmt.Sprintf("[%d]", i), err)
			}
		}
		v.Set(s)
		return nil
	}
}

func compileMapDecoder(t reflect.Type) decodeFunc {
	kt, et := t.Key(), t.Elem()
	var key func(k string) (reflect.Value, error)
	switch {
	case reflect.PointerTo(kt).Implements(textUnmarshalType):
		key = func(k string) (reflect.Value, error) {
			p := reflect.New(kt)
			err := p.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(k))
			return p.Elem(), err
		}
	case kt.Kind() == reflect.String:
		key = func(k string) (reflect.Value, error) { return reflect.ValueOf(k).Convert(kt), nil }
	default:
		switch kt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key = func(k string) (reflect.Value, error) {
				n, err := strconv.ParseInt(k, 10, 64)
				kv := reflect.New(kt).Elem()
				if err != nil || kv.OverflowInt(n) {
					return kv, fmt.Errorf("cannot unmarshal number %s into map key of type %v", k, kt)
				}
				kv.SetInt(n)
				return kv, nil
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			key = func(k string) (reflect.Value, error) {
				n, err := strconv.ParseUint(k, 10, 64)
				kv := reflect.New(kt).Elem()
				if err != nil || kv.OverflowUint(n) {
					return kv, fmt.Errorf("cannot unmarshal number %s into map key of type %v", k, kt)
				}
				kv.SetUint(n)
				return kv, nil
			}
		default:
			return func(x any, v reflect.Value) error { return fmt.Errorf("json: unsupported type: %v", t) }
		}
	}
	if t == stringMapType {
		return func(x any, v reflect.Value) error {
			if x == nil {
				v.SetZero()
				return nil
			}
			m, ok := x.(map[string]any)
			if !ok {
				return decodeOther(x, v, t)
			}
			out := make(map[string]string, len(m))
			for k, e := range m {
				switch s := e.(type) {
				case string:
					out[k] = s
				case nil:
					out[k] = ""
				default:
					return wrapPath("["+k+"]", typeError(e, et))
				}
			}
			v.Set(reflect.ValueOf(out))
			return nil
		}
	}
	elem := decoderLocked(et)
	return func(x any, v reflect.Value) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		m, ok := x.(map[string]any)
		if !ok {
			return decodeOther(x, v, t)
		}
		out := reflect.MakeMapWithSize(t, len(m))
		ev := reflect.New(et).Elem()
		for k, e := range m {
			kv, err := key(k)
			if err != nil {
				return err
			}
			ev.SetZero()
			if err := elem(e, ev); err != nil {
				return wrapPath("["+k+"]", err)
			}
			out.SetMapIndex(kv, ev)
		}
		v.Set(out)
		return nil
	}
}

type decField struct {
	name  string
	index []int
	dec   decodeFunc
}

func compileStructDecoder(t reflect.Type) decodeFunc {
	jf := scheme.JSONFields(t)
	fields := make([]decField, 0, len(jf))
	for _, f := range jf {
		dec := decoderLocked(f.Type)
		if f.Quoted {
			dec = quotedDecoder(dec)
		}
		fields = append(fields, decField{name: f.Name, index: f.Index, dec: dec})
	}
	return func(x any, v reflect.Value) error {
		m, ok := x.(map[string]any)
		if !ok {
			if x == nil {
				return nil
			}
			return decodeOther(x, v, t)
		}
		for i := range fields {
			f := &fields[i]
			e, ok := m[f.name]
			if !ok {
				continue
			}
			fv, err := fieldForWrite(v, f.index)
			if err != nil {
				return wrapPath(f.name, err)
			}
			if err := f.dec(e, fv); err != nil {
				return wrapPath(f.name, err)
			}
		}
		return nil
	}
}

// fieldForWrite follows an index path, allocating nil embedded pointers on the way.
func fieldForWrite(v reflect.Value, index []int) (reflect.Value, error) {
	if len(index) == 1 {
		return v.Field(index[0]), nil
	}
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, fmt.Errorf("cannot set embedded pointer to unexported struct %v", v.Type().Elem())
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// quotedDecoder reads a scalar written with the ",string" option.
func quotedDecoder(dec decodeFunc) decodeFunc {
	return func(x any, v reflect.Value) error {
		s, ok := x.(string)
		if !ok {
			if x == nil {
				return nil
			}
			return fmt.Errorf("json: invalid use of ,string struct tag, trying to unmarshal %s into %v", jsonKind(x), v.Type())
		}
		inner, err := scheme.DecodeJSONValue([]byte(s))
		if err != nil {
			return fmt.Errorf("json: invalid use of ,string struct tag, trying to unmarshal %q into %v", s, v.Type())
		}
		return dec(inner, v)
	}
}

// decodeOther handles values that are not of the JSON shape the type expects: Go values
// put into a map by hand ([]string, map[string]string, structs) go through their JSON form.
func decodeOther(x any, v reflect.Value, t reflect.Type) error {
	switch x.(type) {
	case bool, string, int64, float64, []any, map[string]any, int, int32, float32:
		return typeError(x, t)
	}
	n, err := normalizeJSON(x)
	if err != nil {
		return err
	}
	switch n.(type) {
	case []any, map[string]any:
		return decoderFor(t)(n, v)
	}
	return typeError(x, t)
}

func toInt(x any, t reflect.Type) (int64, error) {
	switch n := x.(type) {
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case int16:
		return int64(n), nil
	case int8:
		return int64(n), nil
	case uint, uint8, uint16, uint32, uint64:
		u := reflect.ValueOf(n).Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("value %d overflows %v", u, t)
		}
		return int64(u), nil
	case float64, float32:
		f := reflect.ValueOf(n).Float()
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("cannot unmarshal number %v into Go value of type %v", f, t)
		}
		if f < -(1<<63) || f >= 1<<63 {
			return 0, fmt.Errorf("value %v overflows %v", f, t)
		}
		return int64(f), nil
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, fmt.Errorf("cannot unmarshal number %s into Go value of type %v", n, t)
		}
		return i, nil
	}
	return 0, typeError(x, t)
}

func toUint(x any, t reflect.Type) (uint64, error) {
	switch n := x.(type) {
	case uint64:
		return n, nil
	case uint, uint8, uint16, uint32:
		return reflect.ValueOf(n).Uint(), nil
	case float64, float32:
		f := reflect.ValueOf(n).Float()
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("cannot unmarshal number %v into Go value of type %v", f, t)
		}
		if f < 0 || f >= 1<<64 {
			return 0, fmt.Errorf("value %v overflows %v", f, t)
		}
		return uint64(f), nil
	case json.Number:
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cannot unmarshal number %s into Go value of type %v", n, t)
		}
		return u, nil
	}
	i, err := toInt(x, t)
	if err != nil {
		return 0, err
	}
	if i < 0 {
		return 0, fmt.Errorf("value %d overflows %v", i, t)
	}
	return uint64(i), nil
}

func toFloat(x any) (float64, bool) {
	switch n := x.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int, int8, int16, int32:
		return float64(reflect.ValueOf(n).Int()), true
	case uint, uint8, uint16, uint32, uint64:
		return float64(reflect.ValueOf(n).Uint()), true
	case float32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
