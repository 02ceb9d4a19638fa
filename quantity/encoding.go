package quantity

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MarshalJSON writes the canonical form as a JSON string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	out := make([]byte, 1, 20)
	out[0] = '"'
	out, _ = q.AppendText(out)
	return append(out, '"'), nil
}

// UnmarshalJSON reads what apimachinery reads: null (zero), a JSON string holding a
// quantity, or a bare JSON number (1.5, 2e3) read as the same text. Surrounding
// spaces inside the string are ignored; escapes are not decoded, as kube does not
// decode them.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*q = Quantity{}
		return nil
	}
	if l := len(b); l >= 2 && b[0] == '"' && b[l-1] == '"' {
		b = b[1 : l-1]
	}
	parsed, err := Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// ToUnstructured is the canonical string: the value a Quantity has in an
// unstructured object, as in apimachinery.
func (q Quantity) ToUnstructured() any { return q.String() }

// The CBOR this package reads and writes by hand (it imports no CBOR library).
const (
	cborMajorBytes = 2
	cborMajorText  = 3
	cborNull       = 0xf6
	cborBreak      = 0xff
)

// MarshalCBOR writes the canonical form as a CBOR byte string, as apimachinery's
// Quantity does under Kubernetes' CBOR encode mode (Go strings become byte strings).
func (q Quantity) MarshalCBOR() ([]byte, error) {
	var buf [24]byte
	text, _ := q.AppendText(buf[:0])
	return appendCBORHead(make([]byte, 0, len(text)+9), cborMajorBytes, uint64(len(text)), text), nil
}

// appendCBORHead appends a string head of the shortest form, then the content.
func appendCBORHead(out []byte, major byte, n uint64, content []byte) []byte {
	switch {
	case n < 24:
		out = append(out, major<<5|byte(n))
	case n <= 0xff:
		out = append(out, major<<5|24, byte(n))
	case n <= 0xffff:
		out = append(out, major<<5|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		out = append(out, major<<5|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	default:
		out = append(out, major<<5|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
			byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(out, content...)
}

// UnmarshalCBOR reads what apimachinery reads into a Quantity: null (zero; undefined
// is an error, as Kubernetes' decode mode recognizes no simple value 23), or a byte or text string (definite or indefinite length; text must be
// UTF-8) holding a quantity.
func (q *Quantity) UnmarshalCBOR(b []byte) error {
	if len(b) == 1 && b[0] == cborNull {
		*q = Quantity{}
		return nil
	}
	s, err := cborString(b)
	if err != nil {
		return fmt.Errorf("quantity: %w", err)
	}
	parsed, err := Parse(strings.TrimSpace(string(s)))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// cborString is the content of the single CBOR byte or text string that is b.
func cborString(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errors.New("empty CBOR input")
	}
	major := b[0] >> 5
	if major != cborMajorBytes && major != cborMajorText {
		return nil, fmt.Errorf("cannot decode CBOR major type %d into a quantity string", major)
	}
	var out []byte
	if b[0]&0x1f != 31 {
		s, rest, err := cborDefiniteString(b, major)
		if err != nil {
			return nil, err
		}
		if len(rest) != 0 {
			return nil, errors.New("trailing data after CBOR string")
		}
		out = s
	} else {
		rest := b[1:]
		for {
			if len(rest) == 0 {
				return nil, errors.New("unexpected end of indefinite-length CBOR string")
			}
			if rest[0] == cborBreak {
				if len(rest) != 1 {
					return nil, errors.New("trailing data after CBOR string")
				}
				break
			}
			chunk, r, err := cborDefiniteString(rest, major)
			if err != nil {
				return nil, err
			}
			out, rest = append(out, chunk...), r
		}
	}
	if major == cborMajorText && !utf8.Valid(out) {
		return nil, errors.New("cbor: invalid UTF-8 string")
	}
	return out, nil
}

// cborDefiniteString splits a definite-length string of the given major type off b.
func cborDefiniteString(b []byte, major byte) (s, rest []byte, err error) {
	if b[0]>>5 != major {
		return nil, nil, errors.New("wrong chunk type in indefinite-length CBOR string")
	}
	info := b[0] & 0x1f
	b = b[1:]
	var n uint64
	switch {
	case info < 24:
		n = uint64(info)
	case info <= 27:
		size := 1 << (info - 24)
		if len(b) < size {
			return nil, nil, errors.New("truncated CBOR string head")
		}
		for _, c := range b[:size] {
			n = n<<8 | uint64(c)
		}
		b = b[size:]
	default:
		return nil, nil, fmt.Errorf("invalid CBOR string head 0x%02x", major<<5|info)
	}
	if n > uint64(len(b)) {
		return nil, nil, errors.New("truncated CBOR string")
	}
	return b[:n], b[n:], nil
}
