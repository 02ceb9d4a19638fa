package patch

import (
	"encoding/json"
	"errors"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// JSON is a decoded RFC 6902 JSON patch, ready to apply to many documents.
type JSON struct {
	ops jsonpatch.Patch
}

// DecodeJSONPatch reads an RFC 6902 JSON patch: a JSON array of operations. A body
// that is not one is ErrMalformed, as kube answers 400 for it.
func DecodeJSONPatch(data []byte) (*JSON, error) {
	ops, err := jsonpatch.DecodePatch(data)
	if err != nil {
		return nil, malformed("%s", err.Error())
	}
	return &JSON{ops: ops}, nil
}

// Apply applies the operations in order to doc and returns the new document. An
// operation on a path that does not exist, or a test operation that fails, is
// ErrRejected (kube's 422); doc is never modified.
func (p *JSON) Apply(doc []byte) ([]byte, error) {
	out, err := p.ops.Apply(doc)
	if err != nil {
		return nil, rejected("%s", err.Error())
	}
	return out, nil
}

// JSONPatch applies the RFC 6902 JSON patch p to the JSON document doc.
func JSONPatch(doc, p []byte) ([]byte, error) {
	jp, err := DecodeJSONPatch(p)
	if err != nil {
		return nil, err
	}
	return jp.Apply(doc)
}

// CheckMergePatch reports whether p can be a merge patch: a JSON document
// (ErrMalformed otherwise).
func CheckMergePatch(p []byte) error {
	if !json.Valid(p) {
		return malformed("error decoding patch: invalid JSON document")
	}
	return nil
}

// MergePatch applies the RFC 7386 JSON merge patch p to the JSON document doc: objects
// merge key by key, null removes a key, anything else (lists included) replaces.
func MergePatch(doc, p []byte) ([]byte, error) {
	if err := CheckMergePatch(p); err != nil {
		return nil, err
	}
	out, err := jsonpatch.MergePatch(doc, p)
	if err != nil {
		if errors.Is(err, jsonpatch.ErrBadJSONPatch) {
			return nil, malformed("%s", err.Error())
		}
		return nil, rejected("%s", err.Error())
	}
	return out, nil
}
