package rest

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// TokenAuthenticator is the simplest Authenticator: a request carrying
// "Authorization: Bearer <Token>" is User, every other request is unauthenticated (401).
type TokenAuthenticator struct {
	// Token is the one accepted bearer token; an empty Token accepts nothing.
	Token string
	// User is who a request with the token is; nil means "admin" in group system:masters.
	User *User
}

// Authenticate implements Authenticator, comparing tokens in constant time.
func (a TokenAuthenticator) Authenticate(r *http.Request) (*User, bool, error) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || a.Token == "" || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(a.Token)) != 1 {
		return nil, false, nil
	}
	if a.User != nil {
		return a.User, true, nil
	}
	return &User{Name: "admin", Groups: []string{"system:masters", "system:authenticated"}}, true, nil
}
