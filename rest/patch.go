package rest

import (
	"encoding/json"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
)

// patchTypes are the patch media types this package applies; strategic merge and
// server-side apply answer 415 until package patch serves them.
var patchTypes = []string{codec.MediaTypeJSONPatch, codec.MediaTypeMergePatch}

// patcher returns the function that applies the request's patch to a JSON document,
// chosen by Content-Type: application/merge-patch+json (RFC 7386) or
// application/json-patch+json (RFC 6902).
func (rq *request) patcher(patch []byte) (func([]byte) ([]byte, error), error) {
	ct := rq.r.Header.Get("Content-Type")
	mt, err := codec.ParseMediaType(ct)
	if err != nil {
		return nil, NewUnsupportedMediaType(ct, patchTypes)
	}
	switch mt.Essence() {
	case codec.MediaTypeMergePatch:
		if !json.Valid(patch) {
			return nil, NewBadRequest("error decoding patch: invalid JSON document")
		}
		return func(doc []byte) ([]byte, error) {
			out, err := jsonpatch.MergePatch(doc, patch)
			if err != nil {
				return nil, patchRejected(err)
			}
			return out, nil
		}, nil
	case codec.MediaTypeJSONPatch:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, NewBadRequest(err.Error())
		}
		return func(doc []byte) ([]byte, error) {
			out, err := p.Apply(doc)
			if err != nil {
				return nil, patchRejected(err)
			}
			return out, nil
		}, nil
	}
	return nil, NewUnsupportedMediaType(ct, patchTypes)
}

// patchRejected is kube's 422 for a patch that does not apply.
func patchRejected(err error) *scheme.Status {
	st := newStatus(422, scheme.StatusReasonInvalid, "the server rejected our request due to an error in our request",
		&scheme.StatusDetails{Causes: []scheme.StatusCause{{Type: scheme.CauseTypeUnexpectedServerResponse, Message: err.Error()}}})
	if strings.TrimSpace(err.Error()) == "" {
		st.Details = nil
	}
	return st
}
