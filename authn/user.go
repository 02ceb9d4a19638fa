package authn

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
)

// User is who sent a request, as an Authenticator established it.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Anonymous is the user of requests that carry no accepted credentials, when the
// server lets them in (rest.Options.AllowAnonymous), and of public paths.
var Anonymous = User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}

// Authenticator establishes who sent a request. It returns ok=false when the request
// carries no acceptable credentials (401 Unauthorized) and an error when it cannot tell
// (also 401, the error is logged).
type Authenticator interface {
	Authenticate(r *http.Request) (user *User, ok bool, err error)
}

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

// userKey is the context key of the request's User.
type userKey struct{}

// WithUser returns a context carrying user: the server puts the authenticated (or
// impersonated) user of a request there, and code that acts for a user without a
// request (a controller, a test calling the registry) does too.
func WithUser(ctx context.Context, user *User) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

// UserFrom returns the user WithUser put in ctx.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey{}).(*User)
	return u, ok
}
