package protobuf

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// The wire value types of k8s.io/apimachinery that built-in kinds carry, with the
// layout of their (partly hand-written) gogo marshallers: resource.Quantity
// (quantity_proto.go: the canonical string, always), intstr.IntOrString (every field,
// always) and runtime.RawExtension (the bytes when not nil).

var (
	quantityType     = reflect.TypeFor[quantity.Quantity]()
	intOrStringType  = reflect.TypeFor[scheme.IntOrString]()
	rawExtensionType = reflect.TypeFor[scheme.RawExtension]()
)

// appendQuantity appends a Quantity message: its canonical form as field 1.
func appendQuantity(b []byte, num protowire.Number, q *quantity.Quantity) []byte {
	var text [48]byte
	t, _ := q.AppendText(text[:0])
	b, start := beginMessage(b, num)
	b = appendBytesField(b, 1, t)
	return endMessage(b, start)
}

// decodeQuantity reads a Quantity body; a string that is no quantity fails, as in
// apimachinery.
func decodeQuantity(data []byte) (quantity.Quantity, error) {
	var q quantity.Quantity
	r := reader{b: data, msg: "Quantity"}
	for r.field() {
		if r.num != 1 {
			r.skip()
			continue
		}
		s := r.str()
		if r.err != nil {
			break
		}
		p, err := quantity.Parse(s)
		if err != nil {
			return quantity.Quantity{}, fmt.Errorf("%w: Quantity: %w", ErrMalformed, err)
		}
		q = p
	}
	return q, r.err
}

// appendIntOrString appends an IntOrString message.
func appendIntOrString(b []byte, num protowire.Number, v *scheme.IntOrString) []byte {
	b, start := beginMessage(b, num)
	b = appendVarintField(b, 1, uint64(v.Type))
	b = appendVarintField(b, 2, uint64(v.IntVal))
	b = appendString(b, 3, v.StrVal)
	return endMessage(b, start)
}

// decodeIntOrString reads an IntOrString body.
func decodeIntOrString(data []byte) (scheme.IntOrString, error) {
	var v scheme.IntOrString
	r := reader{b: data, msg: "IntOrString"}
	for r.field() {
		switch r.num {
		case 1:
			v.Type = scheme.IntOrStringType(r.uvarint())
		case 2:
			v.IntVal = int32(r.uvarint())
		case 3:
			v.StrVal = r.str()
		default:
			r.skip()
		}
	}
	return v, r.err
}

// appendRawExtension appends a RawExtension message: Raw as field 1 when not nil.
func appendRawExtension(b []byte, num protowire.Number, raw []byte) []byte {
	b, start := beginMessage(b, num)
	if raw != nil {
		b = appendBytesField(b, 1, raw)
	}
	return endMessage(b, start)
}

// decodeRawExtension reads a RawExtension body: the bytes of field 1, copied.
func decodeRawExtension(data []byte) (scheme.RawExtension, error) {
	var v scheme.RawExtension
	r := reader{b: data, msg: "RawExtension"}
	for r.field() {
		if r.num != 1 {
			r.skip()
			continue
		}
		if raw := r.raw(); r.err == nil {
			v.Raw = append([]byte{}, raw...)
		}
	}
	return v, r.err
}

// appendValueType appends a typed Quantity, IntOrString or RawExtension (v is
// addressable).
func appendValueType(b []byte, typ Type, num protowire.Number, v reflect.Value) []byte {
	switch typ {
	case TypeQuantity:
		return appendQuantity(b, num, (*quantity.Quantity)(v.Addr().UnsafePointer()))
	case TypeIntOrString:
		return appendIntOrString(b, num, (*scheme.IntOrString)(v.Addr().UnsafePointer()))
	}
	return appendRawExtension(b, num, (*scheme.RawExtension)(v.Addr().UnsafePointer()).Raw)
}

// decodeValueType reads a Quantity, IntOrString or RawExtension body into v.
func decodeValueType(data []byte, typ Type, v reflect.Value) error {
	var x any
	var err error
	switch typ {
	case TypeQuantity:
		x, err = decodeQuantity(data)
	case TypeIntOrString:
		x, err = decodeIntOrString(data)
	default:
		x, err = decodeRawExtension(data)
	}
	if err == nil {
		v.Set(reflect.ValueOf(x))
	}
	return err
}

// zeroValue stands for an absent non-optional field: its Go zero is written.
type zeroValue struct{}

// appendValueTypeAny appends the unstructured value of a Quantity (a string or a JSON
// number), an IntOrString (an integer or a string) or a RawExtension (any JSON value),
// with the bytes of the typed value of the same JSON.
func appendValueTypeAny(b []byte, f *field, v any) ([]byte, error) {
	switch f.typ {
	case TypeQuantity:
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case int64:
			text = strconv.FormatInt(x, 10)
		case float64:
			text = strconv.FormatFloat(x, 'g', -1, 64)
		case zeroValue:
		default:
			return b, typeError(f, v)
		}
		var q quantity.Quantity
		if text != "" {
			var err error
			if q, err = quantity.Parse(text); err != nil {
				return b, fmt.Errorf("field %q: %w", f.name, err)
			}
		}
		return appendQuantity(b, f.num, &q), nil
	case TypeIntOrString:
		var x scheme.IntOrString
		switch n := v.(type) {
		case string:
			x = scheme.FromString(n)
		case int64:
			if n < math.MinInt32 || n > math.MaxInt32 {
				return b, typeError(f, v)
			}
			x = scheme.FromInt32(int32(n))
		case float64:
			if n != math.Trunc(n) || n < math.MinInt32 || n > math.MaxInt32 {
				return b, typeError(f, v)
			}
			x = scheme.FromInt32(int32(n))
		case zeroValue:
		default:
			return b, typeError(f, v)
		}
		return appendIntOrString(b, f.num, &x), nil
	}
	var raw []byte
	if _, zero := v.(zeroValue); !zero {
		var err error
		if raw, err = codec.MarshalUnstructured(v); err != nil {
			return b, fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	return appendRawExtension(b, f.num, raw), nil
}

// decodeValueTypeAny reads a Quantity, IntOrString or RawExtension body as its JSON
// value.
func decodeValueTypeAny(data []byte, f *field) (any, error) {
	switch f.typ {
	case TypeQuantity:
		q, err := decodeQuantity(data)
		if err != nil {
			return nil, err
		}
		return q.String(), nil
	case TypeIntOrString:
		x, err := decodeIntOrString(data)
		if err != nil {
			return nil, err
		}
		if x.Type == scheme.String {
			return x.StrVal, nil
		}
		return int64(x.IntVal), nil
	}
	x, err := decodeRawExtension(data)
	if err != nil || len(x.Raw) == 0 {
		return nil, err
	}
	var out any
	if _, err := codec.Unmarshal(x.Raw, &out); err != nil {
		return nil, fmt.Errorf("%w: RawExtension: %w", ErrMalformed, err)
	}
	return out, nil
}
