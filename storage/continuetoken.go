package storage

import (
	"encoding/base64"
	"encoding/json"
)

// continueTokenVersion is the version of the token's JSON shape.
const continueTokenVersion = "apikit.storage/v1"

// continueToken is the JSON inside a continue token. Clients treat it as opaque.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion uint64 `json:"rv"`
	StartAfter      string `json:"start"`
}

// EncodeContinue makes the continue token for a list read at rv whose last returned key
// was lastKey: base64 (URL alphabet, unpadded) of a versioned JSON document.
func EncodeContinue(rv uint64, lastKey string) string {
	b, _ := json.Marshal(continueToken{APIVersion: continueTokenVersion, ResourceVersion: rv, StartAfter: lastKey})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeContinue parses a token made by EncodeContinue into the list's resourceVersion
// and the key to continue after. A malformed token fails with ErrInvalidContinue.
func DecodeContinue(token string) (rv uint64, startAfter string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "%v", err)
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "%v", err)
	}
	if t.APIVersion != continueTokenVersion {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "unsupported token version %q", t.APIVersion)
	}
	if t.ResourceVersion == 0 || t.StartAfter == "" {
		return 0, "", NewErrorf(ErrInvalidContinue, "", "incomplete token")
	}
	return t.ResourceVersion, t.StartAfter, nil
}
