package quantity

import (
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/internal/cborwire"
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

// MarshalCBOR writes the canonical form as a CBOR byte string, as apimachinery's
// Quantity does under Kubernetes' CBOR encode mode (Go strings become byte strings).
func (q Quantity) MarshalCBOR() ([]byte, error) {
	var buf [24]byte
	text, _ := q.AppendText(buf[:0])
	return append(cborwire.AppendHead(make([]byte, 0, len(text)+9), cborwire.MajorBytes, uint64(len(text))), text...), nil
}

// UnmarshalCBOR reads what apimachinery reads into a Quantity: null (zero; undefined
// is an error, as Kubernetes' decode mode recognizes no simple value 23), or a byte or text string (definite or indefinite length; text must be
// UTF-8) holding a quantity.
func (q *Quantity) UnmarshalCBOR(b []byte) error {
	if len(b) == 1 && b[0] == cborwire.Null {
		*q = Quantity{}
		return nil
	}
	s, err := cborwire.String(b, "a quantity")
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
