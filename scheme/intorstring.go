package scheme

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apikit-dev/apikit/internal/cborwire"
)

// IntOrString holds an int32 or a string, as k8s.io/apimachinery's intstr.IntOrString:
// a Deployment's maxSurge is 1 or "25%", a Service's targetPort 8080 or "http". It
// travels as a JSON number or a JSON string.
type IntOrString struct {
	// Type says which of IntVal and StrVal holds the value.
	Type IntOrStringType `protobuf:"varint,1,opt,name=type,casttype=Type"`
	// IntVal is the value when Type is Int.
	IntVal int32 `protobuf:"varint,2,opt,name=intVal"`
	// StrVal is the value when Type is String.
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// IntOrStringType says which value an IntOrString holds.
type IntOrStringType int64

// The two kinds of IntOrString, numbered as in intstr.
const (
	Int    IntOrStringType = iota // IntVal holds the value.
	String                        // StrVal holds the value.
)

// FromInt32 is an IntOrString holding v.
func FromInt32(v int32) IntOrString { return IntOrString{Type: Int, IntVal: v} }

// FromString is an IntOrString holding s.
func FromString(s string) IntOrString { return IntOrString{Type: String, StrVal: s} }

// ParseIntOrString is an int when s is a decimal int32, else the string s, as
// intstr.Parse.
func ParseIntOrString(s string) IntOrString {
	i, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return FromString(s)
	}
	return FromInt32(int32(i))
}

// String is the string, or the int in decimal.
func (v IntOrString) String() string {
	if v.Type == String {
		return v.StrVal
	}
	return strconv.Itoa(v.IntValue())
}

// IntValue is the int, or the string read as a decimal int (0 when it is not one;
// the nearest int when it is out of range, as strconv.Atoi returns it).
func (v IntOrString) IntValue() int {
	if v.Type == String {
		i, _ := strconv.Atoi(v.StrVal)
		return i
	}
	return int(v.IntVal)
}

// MarshalJSON writes a JSON number or a JSON string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	switch v.Type {
	case Int:
		return strconv.AppendInt(nil, int64(v.IntVal), 10), nil
	case String:
		if plainJSONString(v.StrVal) {
			out := make([]byte, 0, len(v.StrVal)+2)
			out = append(out, '"')
			out = append(out, v.StrVal...)
			return append(out, '"'), nil
		}
		return json.Marshal(v.StrVal)
	}
	return []byte{}, errors.New("impossible IntOrString.Type")
}

// plainJSONString reports whether s needs no escaping in JSON (encoding/json also
// escapes <, > and &).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// UnmarshalJSON reads what intstr reads: a JSON string is a String, anything else is
// read as an int32 (null leaves the int as it was), with encoding/json's errors.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return errors.New("unexpected end of JSON input")
	}
	if b[0] == '"' {
		v.Type = String
		if l := len(b); l >= 2 && b[l-1] == '"' && plainJSONString(string(b[1:l-1])) {
			v.StrVal = string(b[1 : l-1])
			return nil
		}
		return json.Unmarshal(b, &v.StrVal)
	}
	v.Type = Int
	if jsonInteger(b) {
		if i, err := strconv.ParseInt(string(b), 10, 32); err == nil {
			v.IntVal = int32(i)
			return nil
		}
	}
	return json.Unmarshal(b, &v.IntVal)
}

// jsonInteger reports whether b is a JSON integer: an optional minus, then 0 or a
// digit string without a leading zero.
func jsonInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// MarshalCBOR writes a CBOR integer or, for a string, a CBOR byte string, as
// intstr.IntOrString does under Kubernetes' CBOR encode mode.
func (v IntOrString) MarshalCBOR() ([]byte, error) {
	switch v.Type {
	case Int:
		if v.IntVal < 0 {
			return cborwire.AppendHead(nil, cborwire.MajorNegative, uint64(-(int64(v.IntVal) + 1))), nil
		}
		return cborwire.AppendHead(nil, cborwire.MajorUnsigned, uint64(v.IntVal)), nil
	case String:
		out := cborwire.AppendHead(make([]byte, 0, len(v.StrVal)+9), cborwire.MajorBytes, uint64(len(v.StrVal)))
		return append(out, v.StrVal...), nil
	}
	return nil, errors.New("impossible IntOrString.Type")
}

// UnmarshalCBOR reads what intstr reads: a byte or text string (text in UTF-8) is a
// String (so is null, which leaves the string as it was, as kube's decoder does), an
// integer in int32's range is an Int; anything else (undefined included) is an error.
func (v *IntOrString) UnmarshalCBOR(b []byte) error {
	if len(b) == 0 {
		return errors.New("cbor: unexpected EOF")
	}
	if len(b) == 1 && b[0] == cborwire.Null {
		v.Type = String
		return nil
	}
	switch b[0] >> 5 {
	case cborwire.MajorBytes, cborwire.MajorText:
		s, err := cborwire.String(b, "an IntOrString")
		if err != nil {
			return fmt.Errorf("scheme.IntOrString: %w", err)
		}
		if b[0]>>5 == cborwire.MajorText && !utf8.Valid(s) {
			return errors.New("cbor: invalid UTF-8 string")
		}
		v.Type, v.StrVal = String, string(s)
		return nil
	case cborwire.MajorUnsigned, cborwire.MajorNegative:
		n, rest, err := cborUint(b)
		if err != nil {
			return fmt.Errorf("scheme.IntOrString: %w", err)
		}
		if len(rest) != 0 {
			return errors.New("cbor: 1 bytes of extraneous data starting at index 1")
		}
		neg := b[0]>>5 == cborwire.MajorNegative
		if (!neg && n > math.MaxInt32) || (neg && n > math.MaxInt32) {
			kind, shown := "positive integer", strconv.FormatUint(n, 10)
			if neg {
				kind = "negative integer"
				shown = "-" + new(uint128).plusOne(n)
			}
			return fmt.Errorf("cbor: cannot unmarshal %s into Go value of type int32 (%s overflows Go's int32)", kind, shown)
		}
		if neg {
			v.Type, v.IntVal = Int, int32(-int64(n)-1)
		} else {
			v.Type, v.IntVal = Int, int32(n)
		}
		return nil
	}
	return fmt.Errorf("cbor: cannot unmarshal %s into Go value of type int32", cborTypeName(b[0]))
}

// uint128 formats n+1 for a negative integer's magnitude, which can exceed uint64.
type uint128 struct{}

func (uint128) plusOne(n uint64) string {
	if n < math.MaxUint64 {
		return strconv.FormatUint(n+1, 10)
	}
	return "18446744073709551616"
}

// cborUint reads the argument of an integer head.
func cborUint(b []byte) (uint64, []byte, error) {
	info := b[0] & 0x1f
	b = b[1:]
	switch {
	case info < 24:
		return uint64(info), b, nil
	case info <= 27:
		size := 1 << (info - 24)
		if len(b) < size {
			return 0, nil, errors.New("cbor: unexpected EOF")
		}
		var n uint64
		for _, c := range b[:size] {
			n = n<<8 | uint64(c)
		}
		return n, b[size:], nil
	}
	return 0, nil, fmt.Errorf("cbor: invalid additional information %d for type integer", info)
}

// cborTypeName is fxamacker's name for the type of the item starting with head.
func cborTypeName(head byte) string {
	switch head >> 5 {
	case 4:
		return "array"
	case 5:
		return "map"
	case 6:
		return "tag"
	}
	switch head {
	case 0xf4, 0xf5:
		return "primitives"
	case 0xf9, 0xfa, 0xfb:
		return "primitives"
	}
	return "primitives"
}

// ScaledValue is the value for a total: an int as it is, a percentage ("25%") as that
// share of total, rounded up or down; what intstr.GetScaledValueFromIntOrPercent
// computes, with its errors. A Deployment's maxSurge and maxUnavailable use it.
func (v *IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	value, isPercent, err := v.percentValue()
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: %v", err)
	}
	if isPercent {
		if roundUp {
			value = int(math.Ceil(float64(value) * float64(total) / 100))
		} else {
			value = int(math.Floor(float64(value) * float64(total) / 100))
		}
	}
	return value, nil
}

// percentValue is the int, or the number of a string that ends in "%".
func (v *IntOrString) percentValue() (int, bool, error) {
	switch v.Type {
	case Int:
		return v.IntValue(), false, nil
	case String:
		s, ok := strings.CutSuffix(v.StrVal, "%")
		if !ok {
			return 0, false, errors.New("invalid type: string is not a percentage")
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, false, fmt.Errorf("invalid value %q: %v", v.StrVal, err)
		}
		return n, true, nil
	}
	return 0, false, errors.New("invalid type: neither int nor percentage")
}

// OpenAPISchemaType says an IntOrString is a string in OpenAPI v2, as intstr says.
func (IntOrString) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat names the string's format "int-or-string", as intstr does.
func (IntOrString) OpenAPISchemaFormat() string { return "int-or-string" }
