package scheme

import (
	"fmt"
	"time"

	"github.com/apikit-dev/apikit/internal/cborwire"
)

// RFC3339Micro is the layout of a MicroTime on the wire: RFC 3339 with exactly six
// fractional digits, as meta/v1 MicroTime writes it.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MicroTime is a timestamp that travels as an RFC 3339 string at microsecond precision,
// and as null when zero, exactly like meta/v1 MicroTime. Events and Leases use it where
// second precision would order records wrongly.
type MicroTime struct {
	time.Time `json:"-"`
}

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t} }

// NowMicro returns the current time truncated to what the wire keeps (microseconds).
func NowMicro() MicroTime { return MicroTime{time.Now().Truncate(time.Microsecond)} }

// MarshalJSON writes RFC3339Micro in UTC, or null when zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	buf := make([]byte, 0, len(RFC3339Micro)+2)
	buf = append(buf, '"')
	buf = t.UTC().AppendFormat(buf, RFC3339Micro)
	return append(buf, '"'), nil
}

// UnmarshalJSON accepts null (zero time) or an RFC 3339 string of any precision.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	return unmarshalTimeJSON(b, &t.Time, t.UnmarshalText)
}

// MarshalText writes RFC3339Micro in UTC, or nothing when zero; it lets MicroTime
// serve as a string in YAML and unstructured maps.
func (t MicroTime) MarshalText() ([]byte, error) {
	if t.IsZero() {
		return nil, nil
	}
	return t.UTC().AppendFormat(nil, RFC3339Micro), nil
}

// UnmarshalText parses RFC 3339 (meta/v1 MicroTime accepts RFC3339Micro and, for
// older writers, second precision); an empty string is the zero time.
func (t *MicroTime) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return err
	}
	t.Time = pt.Truncate(time.Microsecond).Local()
	return nil
}

// MarshalCBOR writes the RFC3339Micro text in UTC as a CBOR byte string, as meta/v1
// MicroTime does under Kubernetes' CBOR encode mode, or null when zero.
func (t MicroTime) MarshalCBOR() ([]byte, error) {
	if t.IsZero() {
		return []byte{cborwire.Null}, nil
	}
	text := t.UTC().AppendFormat(nil, RFC3339Micro)
	if len(text) > 255 {
		return nil, fmt.Errorf("scheme.MicroTime: %d-byte time text", len(text))
	}
	// The text is always 24 bytes or more: a two-byte head.
	return append([]byte{cborwire.MajorBytes<<5 | 24, byte(len(text))}, text...), nil
}

// UnmarshalCBOR reads null, undefined, or a byte or text string holding RFC 3339.
func (t *MicroTime) UnmarshalCBOR(b []byte) error {
	if len(b) == 1 && (b[0] == cborwire.Null || b[0] == cborwire.Undefined) {
		t.Time = time.Time{}
		return nil
	}
	s, err := cborwire.String(b, "a time")
	if err != nil {
		return fmt.Errorf("scheme.MicroTime: %w", err)
	}
	return t.UnmarshalText(s)
}

// Equal reports whether two times are the same instant; nil pointers are equal to each other.
func (t *MicroTime) Equal(u *MicroTime) bool {
	if t == nil || u == nil {
		return t == u
	}
	return t.Time.Equal(u.Time)
}

// OpenAPISchemaType says MicroTime is a string in OpenAPI, as meta/v1 MicroTime does.
func (MicroTime) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat says MicroTime's string is a date-time, as meta/v1 MicroTime does.
func (MicroTime) OpenAPISchemaFormat() string { return "date-time" }
