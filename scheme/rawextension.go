package scheme

import (
	"encoding/json"
	"errors"
)

// RawExtension is an embedded JSON value kept as its bytes, as
// k8s.io/apimachinery's runtime.RawExtension (a ControllerRevision's data): it decodes
// whatever JSON is there without interpreting it and writes it back as it was.
type RawExtension struct {
	// Raw is the JSON of the value; empty is null.
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes Raw, or null when it is empty.
func (r RawExtension) MarshalJSON() ([]byte, error) {
	if len(r.Raw) == 0 {
		return []byte("null"), nil
	}
	switch r.Raw[0] {
	case '\t', '\r', '\n', ' ', '{', '[', 'n', 't', 'f', '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return r.Raw, nil
	}
	// runtime.RawExtension's message for bytes that are not JSON.
	return nil, errors.New("cannot convert RawExtension with unrecognized content type to unstructured")
}

// UnmarshalJSON keeps a copy of b; null leaves Raw as it was, as in runtime.
func (r *RawExtension) UnmarshalJSON(b []byte) error {
	if r == nil {
		return errors.New("scheme.RawExtension: UnmarshalJSON on nil pointer")
	}
	if string(b) == "null" {
		return nil
	}
	r.Raw = append(r.Raw[:0], b...)
	return nil
}

var _ json.Marshaler = RawExtension{}
