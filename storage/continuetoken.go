package storage

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// continueTokenVersion is the version of the token's JSON shape: kube-apiserver's, whose
// start key is relative to the listed prefix.
const continueTokenVersion = "meta.k8s.io/v1"

// absoluteTokenVersion is the shape of the tokens apikit made before, whose start was the
// absolute storage key of the last item returned. They are still read (see
// DecodeContinue), so that a client paging through an upgrade goes on.
const absoluteTokenVersion = "apikit.storage/v1"

// continueToken is the JSON inside a continue token. Clients treat it as opaque.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion uint64 `json:"rv"`
	Start           string `json:"start"`
}

// EncodeContinue makes the continue token of a list of prefix read at rv whose last
// returned key was lastKey, in kube-apiserver's shape: base64 (URL alphabet, unpadded)
// of {"v":"meta.k8s.io/v1","rv":rv,"start":S}, where S is the key to continue from
// relative to prefix (lastKey without prefix, followed by a zero byte). The token names
// no storage key: only what the client listed already tells. lastKey must be under
// prefix.
func EncodeContinue(rv uint64, prefix, lastKey string) (string, error) {
	rel, ok := strings.CutPrefix(lastKey, prefix)
	if !ok || rel == "" {
		return "", fmt.Errorf("continue token of %s: the last key %s is not under it", prefix, lastKey)
	}
	b, err := json.Marshal(continueToken{APIVersion: continueTokenVersion, ResourceVersion: rv, Start: rel + "\x00"})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// DecodeContinue parses a continue token for a list of prefix into the list's
// resourceVersion and the key to continue from, which is always under prefix: prefix
// followed by the token's relative start, which must not climb out of it ("..", "./",
// a leading or doubled slash: anything path.Clean would change is refused, as
// kube-apiserver refuses it). A token of the older absolute shape (apikit.storage/v1) is
// read when its key is under prefix. Anything else fails with ErrInvalidContinue, whose
// detail names no key.
func DecodeContinue(token, prefix string) (rv uint64, from string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "%v", err)
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "%v", err)
	}
	if t.APIVersion != continueTokenVersion && t.APIVersion != absoluteTokenVersion {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "server does not recognize this encoded version %q", t.APIVersion)
	}
	if t.ResourceVersion == 0 {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "incorrect encoded start resourceVersion")
	}
	if t.Start == "" {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "encoded start key empty")
	}
	rel := t.Start
	if t.APIVersion == absoluteTokenVersion {
		// The last key returned, absolute: the list continues after it.
		var ok bool
		if rel, ok = strings.CutPrefix(t.Start, prefix); !ok || rel == "" {
			return 0, "", NewErrorf(ErrInvalidContinue, "", "continue token is for another collection")
		}
		rel += "\x00"
	}
	// kube-apiserver's guard against path traversal: the start key, rooted, must be
	// clean, so that no reader of keys as paths can take it above prefix.
	if rooted := "/" + rel; path.Clean(rooted) != rooted {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "continue token is for another collection")
	}
	return t.ResourceVersion, prefix + rel, nil
}
