package protobuf

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// Unstructured objects (map[string]any in their JSON shape) are encoded by walking
// the message with the map: the same bytes as the Go struct of the same JSON. Decoding
// builds the JSON shape back; zero scalars are left out, as omitempty would.

// appendMap appends the fields of message m from obj. Keys that the message does not
// know fail the encode (apiVersion and kind excepted at the top), so nothing is lost.
func appendMap(b []byte, m *message, obj map[string]any, top bool) ([]byte, error) {
	for k := range obj {
		if !m.knows(k) && !((top || m.typeMeta) && (k == "apiVersion" || k == "kind")) {
			return b, fmt.Errorf("%s: field %q has no protobuf field number", m.name, k)
		}
	}
	return appendFields(b, m, obj)
}

// appendFields appends the fields of message m from obj, whose keys appendMap checked.
func appendFields(b []byte, m *message, obj map[string]any) ([]byte, error) {
	for _, f := range m.fields {
		val, present := obj[f.name]
		var err error
		switch {
		case f.inline:
			// The inline message's fields are obj's own.
			var start int
			b, start = beginMessage(b, f.num)
			b, err = appendFields(b, f.msg, obj)
			b = endMessage(b, start)
		case f.repeated:
			if val == nil {
				continue
			}
			list, ok := val.([]any)
			if !ok {
				return b, fmt.Errorf("%s.%s: want a list, got %T", m.name, f.name, val)
			}
			for _, e := range list {
				if b, err = appendAny(b, f, e); err != nil {
					return b, err
				}
			}
		case !present || val == nil:
			if f.optional {
				continue
			}
			b, err = appendZero(b, f)
		default:
			b, err = appendAny(b, f, val)
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// appendZero writes what a Go struct's zero field would be written as.
func appendZero(b []byte, f *field) ([]byte, error) {
	switch f.typ {
	case TypeBytes, TypeStringMap, TypeStringList, TypeMap:
		return b, nil
	case TypeMessage:
		b, start := beginMessage(b, f.num)
		b, err := appendMap(b, f.msg, nil, false)
		return endMessage(b, start), err
	case TypeObjectMeta, TypeListMeta, TypeCondition, TypeTime, TypeMicroTime:
		return appendAny(b, f, map[string]any{})
	case TypeQuantity, TypeIntOrString, TypeRawExtension:
		return appendValueTypeAny(b, f, zeroValue{})
	}
	return appendAny(b, f, zeroOf(f.typ))
}

func zeroOf(t Type) any {
	switch t {
	case TypeString:
		return ""
	case TypeBool:
		return false
	case TypeDouble:
		return 0.0
	}
	return int64(0)
}

func typeError(f *field, v any) error {
	return fmt.Errorf("field %q: value of type %T cannot be protobuf type %d", f.name, v, f.typ)
}

// appendAny appends one JSON-shaped value of a field.
func appendAny(b []byte, f *field, v any) ([]byte, error) {
	num := f.num
	switch f.typ {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return b, typeError(f, v)
		}
		return appendString(b, num, s), nil
	case TypeBytes:
		s, ok := v.(string)
		if !ok {
			return b, typeError(f, v)
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return b, fmt.Errorf("field %q: %w", f.name, err)
		}
		return appendBytesField(b, num, raw), nil
	case TypeBool:
		x, ok := v.(bool)
		if !ok {
			return b, typeError(f, v)
		}
		return appendBoolField(b, num, x), nil
	case TypeInt32, TypeInt64:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case int:
			n = int64(x)
		case int32:
			n = int64(x)
		case float64:
			if x != math.Trunc(x) {
				return b, typeError(f, v)
			}
			n = int64(x)
		default:
			return b, typeError(f, v)
		}
		return appendVarintField(b, num, uint64(n)), nil
	case TypeDouble:
		var x float64
		switch n := v.(type) {
		case float64:
			x = n
		case int64:
			x = float64(n)
		case int:
			x = float64(n)
		default:
			return b, typeError(f, v)
		}
		b = appendTag(b, num, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(x)), nil
	case TypeMessage:
		obj, ok := v.(map[string]any)
		if !ok {
			return b, typeError(f, v)
		}
		b, start := beginMessage(b, num)
		b, err := appendMap(b, f.msg, obj, false)
		return endMessage(b, start), err
	case TypeStringMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return b, typeError(f, v)
		}
		m := make(map[string]string, len(obj))
		for k, x := range obj {
			s, ok := x.(string)
			if !ok {
				return b, typeError(f, x)
			}
			m[k] = s
		}
		return appendStringMap(b, num, m), nil
	case TypeStringList:
		list, ok := v.([]any)
		if !ok {
			return b, typeError(f, v)
		}
		b, start := beginMessage(b, num)
		for _, x := range list {
			s, ok := x.(string)
			if !ok {
				return b, typeError(f, x)
			}
			b = appendString(b, 1, s)
		}
		return endMessage(b, start), nil
	case TypeTime:
		var t scheme.Time
		switch x := v.(type) {
		case string:
			if err := t.UnmarshalText([]byte(x)); err != nil {
				return b, fmt.Errorf("field %q: %w", f.name, err)
			}
		case map[string]any: // the zero time
		default:
			return b, typeError(f, v)
		}
		return appendTime(b, num, t.Time), nil
	case TypeMicroTime:
		var t scheme.MicroTime
		switch x := v.(type) {
		case string:
			if err := t.UnmarshalText([]byte(x)); err != nil {
				return b, fmt.Errorf("field %q: %w", f.name, err)
			}
		case map[string]any: // the zero time
		default:
			return b, typeError(f, v)
		}
		return appendTimeValue(b, num, reflect.ValueOf(t)), nil
	case TypeMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return b, typeError(f, v)
		}
		return appendMapAny(b, f, obj)
	case TypeQuantity, TypeIntOrString, TypeRawExtension:
		return appendValueTypeAny(b, f, v)
	case TypeObjectMeta:
		var m scheme.ObjectMeta
		if err := viaJSON(v, &m); err != nil {
			return b, fmt.Errorf("field %q: %w", f.name, err)
		}
		b, start := beginMessage(b, num)
		return endMessage(appendObjectMeta(b, &m), start), nil
	case TypeListMeta:
		var m scheme.ListMeta
		if err := viaJSON(v, &m); err != nil {
			return b, fmt.Errorf("field %q: %w", f.name, err)
		}
		b, start := beginMessage(b, num)
		return endMessage(appendListMeta(b, &m), start), nil
	case TypeCondition:
		var c scheme.Condition
		if err := viaJSON(v, &c); err != nil {
			return b, fmt.Errorf("field %q: %w", f.name, err)
		}
		b, start := beginMessage(b, num)
		return endMessage(appendCondition(b, &c), start), nil
	}
	return b, typeError(f, v)
}

// appendMapAny appends the entries of a JSON object as a TypeMap field, as
// appendMapField writes the Go map of the same JSON.
func appendMapAny(b []byte, f *field, obj map[string]any) ([]byte, error) {
	keys := slices.Sorted(maps.Keys(obj))
	for _, k := range keys {
		var start int
		var err error
		b, start = beginMessage(b, f.num)
		b = appendString(b, 1, k)
		switch x := obj[k]; {
		case x != nil:
			b, err = appendAny(b, f.val, x)
		case f.val.typ == TypeStringList:
			b = append(appendTag(b, 2, protowire.BytesType), 0)
		default:
			b, err = appendZero(b, f.val)
		}
		if err != nil {
			return b, fmt.Errorf("%s[%q]: %w", f.name, k, err)
		}
		b = endMessage(b, start)
	}
	return b, nil
}

// viaJSON converts between a JSON-shaped value and a Go value through JSON.
func viaJSON(in any, out any) error {
	j, err := codec.Marshal(in)
	if err != nil {
		return err
	}
	_, err = codec.Unmarshal(j, out)
	return err
}

// decodeMap reads a message body into its JSON shape.
func decodeMap(data []byte, m *message) (map[string]any, error) {
	return decodeMapAt(data, m, 0)
}

// decodeMapAt is decodeMap of a message nested depth deep.
func decodeMapAt(data []byte, m *message, depth int) (map[string]any, error) {
	out := map[string]any{}
	if err := decodeMapInto(data, m, out, depth); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeMapInto reads a message body into out, the JSON object of the message or, for
// an inline message, of its parent.
func decodeMapInto(data []byte, m *message, out map[string]any, depth int) error {
	r, err := nested(data, m.name, depth)
	if err != nil {
		return err
	}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		f := m.byNum[r.num]
		if f == nil {
			if err := r.skip(); err != nil {
				return err
			}
			continue
		}
		if f.inline {
			body, err := r.bytes()
			if err != nil {
				return err
			}
			if err := decodeMapInto(body, f.msg, out, depth+1); err != nil {
				return err
			}
			continue
		}
		if f.repeated && isPackable(f.typ) && r.typ == protowire.BytesType {
			if err := decodePackedAny(&r, f, out); err != nil {
				return err
			}
			continue
		}
		v, err := decodeAny(&r, f)
		if err != nil {
			return err
		}
		switch {
		case f.repeated:
			list, _ := out[f.name].([]any)
			out[f.name] = append(list, v)
		case f.typ == TypeStringMap || f.typ == TypeMap:
			dst, _ := out[f.name].(map[string]any)
			if dst == nil {
				dst = map[string]any{}
				out[f.name] = dst
			}
			for k, x := range v.(map[string]any) {
				dst[k] = x
			}
		case v == nil || isZeroScalar(v) && f.typ <= TypeDouble && !f.optional && !f.keepZero:
			// What omitempty leaves out; a pointer that is set keeps its zero.
			delete(out, f.name)
		default:
			out[f.name] = v
		}
	}
}

func isZeroScalar(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case int64:
		return x == 0
	case bool:
		return !x
	case float64:
		return x == 0
	case nil:
		return true
	}
	return false
}

func decodePackedAny(r *reader, f *field, out map[string]any) error {
	data, err := r.bytes()
	if err != nil {
		return err
	}
	list, _ := out[f.name].([]any)
	for len(data) > 0 {
		x, n := protowire.ConsumeVarint(data)
		if f.typ == TypeDouble {
			x, n = protowire.ConsumeFixed64(data)
		}
		if n < 0 {
			return wireError(r.msg, r.num, "packed: %v", protowire.ParseError(n))
		}
		data = data[n:]
		switch f.typ {
		case TypeDouble:
			list = append(list, math.Float64frombits(x))
		case TypeBool:
			list = append(list, x != 0)
		case TypeInt32:
			list = append(list, int64(int32(x)))
		default:
			list = append(list, int64(x))
		}
	}
	out[f.name] = list
	return nil
}

// decodeAny reads one value of a field in its JSON shape.
func decodeAny(r *reader, f *field) (any, error) {
	switch f.typ {
	case TypeString:
		return r.string()
	case TypeBool:
		return r.bool()
	case TypeInt32:
		n, err := r.int32()
		return int64(n), err
	case TypeInt64:
		return r.int64()
	case TypeDouble:
		return r.double()
	}
	data, err := r.bytes()
	if err != nil {
		return nil, err
	}
	switch f.typ {
	case TypeBytes:
		return base64.StdEncoding.EncodeToString(data), nil
	case TypeMessage:
		return decodeMapAt(data, f.msg, r.depth+1)
	case TypeStringMap:
		m := map[string]string{}
		if err := decodeMapEntry(data, m); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out, nil
	case TypeStringList:
		items, err := decodeStringList(data)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, s := range items {
			out[i] = s
		}
		return out, nil
	case TypeTime:
		t, err := decodeTime(data)
		if err != nil || t.IsZero() {
			return nil, err
		}
		s, _ := t.MarshalText()
		return string(s), nil
	case TypeMicroTime:
		var t scheme.MicroTime
		if err := decodeTimeValue(data, reflect.ValueOf(&t).Elem()); err != nil || t.IsZero() {
			return nil, err
		}
		s, _ := t.MarshalText()
		return string(s), nil
	case TypeMap:
		return decodeMapEntryAny(data, f, r.depth+1)
	case TypeQuantity, TypeIntOrString, TypeRawExtension:
		return decodeValueTypeAny(data, f)
	case TypeObjectMeta:
		var m scheme.ObjectMeta
		if err := decodeObjectMeta(data, &m); err != nil {
			return nil, err
		}
		return toJSONShape(&m)
	case TypeListMeta:
		var m scheme.ListMeta
		if err := decodeListMeta(data, &m); err != nil {
			return nil, err
		}
		return toJSONShape(&m)
	case TypeCondition:
		var c scheme.Condition
		if err := decodeCondition(data, &c); err != nil {
			return nil, err
		}
		return toJSONShape(&c)
	}
	return nil, fmt.Errorf("field %q: unknown type %d", f.name, f.typ)
}

// decodeMapEntryAny reads one TypeMap entry as a JSON object of one key; an entry
// without a value has the JSON of the value type's zero.
func decodeMapEntryAny(data []byte, f *field, depth int) (map[string]any, error) {
	r, err := nested(data, f.name+" entry", depth)
	if err != nil {
		return nil, err
	}
	key := ""
	var val any
	set := false
	for {
		ok, err := r.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch r.num {
		case 1:
			key, err = r.string()
		case 2:
			val, err = decodeAny(&r, f.val)
			set = true
		default:
			err = r.skip()
		}
		if err != nil {
			return nil, err
		}
	}
	if !set {
		val = zeroAny(f.val)
	}
	return map[string]any{key: val}, nil
}

// zeroAny is the JSON value of a map entry's absent value, as the Go value
// decodeMapField sets encodes: a type's zero, empty bytes and string lists.
func zeroAny(f *field) any {
	switch f.typ {
	case TypeBytes:
		return ""
	case TypeStringList:
		return []any{}
	case TypeString, TypeBool, TypeInt32, TypeInt64, TypeDouble:
		return zeroOf(f.typ)
	case TypeMessage, TypeObjectMeta, TypeListMeta, TypeCondition:
		return map[string]any{}
	case TypeQuantity:
		return "0"
	case TypeIntOrString:
		return int64(0)
	}
	return nil
}

func toJSONShape(v any) (map[string]any, error) {
	var out map[string]any
	err := viaJSON(v, &out)
	return out, err
}
