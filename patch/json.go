package patch

import (
	"fmt"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

// Limits kube-apiserver puts on a JSON patch, so that a small body cannot make the
// server build a huge document: each "copy" doubles what it copies.
const (
	// MaxJSONPatchOperations is the most operations a JSON patch may hold (kube's
	// maxJSONPatchOperations).
	MaxJSONPatchOperations = 10000
	// MaxJSONPatchCopyBytes caps how much the copy operations of one patch may add to
	// the document, in bytes of JSON (kube's JSONPatchMaxCopyBytes default: twice the
	// largest object etcd stores).
	MaxJSONPatchCopyBytes = 3 * 1024 * 1024
)

// JSON is a decoded RFC 6902 JSON patch, ready to apply to many documents.
type JSON struct {
	ops jsonpatch.Patch
}

// DecodeJSONPatch reads an RFC 6902 JSON patch: a JSON array of operations. A body
// that is not one is ErrMalformed, as kube answers 400 for it; one of more than
// MaxJSONPatchOperations operations is ErrTooLarge (kube's 413).
func DecodeJSONPatch(data []byte) (*JSON, error) {
	ops, err := jsonpatch.DecodePatch(data)
	if err != nil {
		return nil, malformed("%s", err.Error())
	}
	if len(ops) > MaxJSONPatchOperations {
		return nil, &Error{Kind: ErrTooLarge, Message: fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, len(ops))}
	}
	return &JSON{ops: ops}, nil
}

// Apply applies the operations in order to doc and returns the new document. An
// operation on a path that does not exist, or a test operation that fails, is
// ErrRejected (kube's 422), and so are copies that together add more than
// MaxJSONPatchCopyBytes; doc is never modified.
func (p *JSON) Apply(doc []byte) ([]byte, error) {
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = MaxJSONPatchCopyBytes
	out, err := p.ops.ApplyWithOptions(doc, opts)
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
