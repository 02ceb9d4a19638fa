// Package cborwire reads and writes the few CBOR items that apikit's value types
// (scheme.Time, scheme.IntOrString, quantity.Quantity) encode by hand, as Kubernetes'
// CBOR serializer writes and reads them: string heads of the shortest form, and strings
// of definite or indefinite length.
package cborwire

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Major types and simple values used by the value types.
const (
	MajorUnsigned = 0
	MajorNegative = 1
	MajorBytes    = 2
	MajorText     = 3
	Null          = 0xf6
	Undefined     = 0xf7
	Break         = 0xff
)

// AppendHead appends the shortest head of major type major with argument n.
func AppendHead(out []byte, major byte, n uint64) []byte {
	switch {
	case n < 24:
		return append(out, major<<5|byte(n))
	case n <= 0xff:
		return append(out, major<<5|24, byte(n))
	case n <= 0xffff:
		return append(out, major<<5|25, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		return append(out, major<<5|26, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(out, major<<5|27, byte(n>>56), byte(n>>48), byte(n>>40), byte(n>>32),
		byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// String returns the content of the single byte or text string that is b, joining the
// chunks of an indefinite-length one; text must be UTF-8, as Kubernetes' decode mode
// requires. what names the Go value in the error for another major type ("a time").
func String(b []byte, what string) ([]byte, error) {
	if len(b) == 0 {
		return nil, errors.New("empty CBOR input")
	}
	major := b[0] >> 5
	if major != MajorBytes && major != MajorText {
		return nil, fmt.Errorf("cannot decode CBOR major type %d into %s string", major, what)
	}
	var out []byte
	if b[0]&0x1f != 31 {
		s, rest, err := definite(b, major)
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
			if rest[0] == Break {
				if len(rest) != 1 {
					return nil, errors.New("trailing data after CBOR string")
				}
				break
			}
			chunk, r, err := definite(rest, major)
			if err != nil {
				return nil, err
			}
			out, rest = append(out, chunk...), r
		}
	}
	if major == MajorText && !utf8.Valid(out) {
		return nil, errors.New("cbor: invalid UTF-8 string")
	}
	return out, nil
}

// definite splits a definite-length string of the given major type off b.
func definite(b []byte, major byte) (s, rest []byte, err error) {
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
