package authn

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// errInvalidBearerToken is kube's answer to a bearer token no one recognises: an error,
// so that the request is 401 even when anonymous access is on.
var errInvalidBearerToken = errors.New("invalid bearer token")

// tokenLookup tells who a bearer token belongs to; ok=false with a nil error means
// nobody.
type tokenLookup func(ctx context.Context, token string) (user *User, ok bool, err error)

// authenticateBearer is kube-apiserver's bearertoken authenticator around lookup. The
// Authorization header, trimmed, must be "<scheme> <token>[ ...]" with the scheme
// "bearer" in any case; anything after the token is ignored and an empty token (two
// spaces after the scheme) is no credential at all (ok=false, nil error). A token
// lookup does not recognise is errInvalidBearerToken. A recognised token is removed
// from the request, so nothing behind the authenticator is tempted to use it.
func authenticateBearer(r *http.Request, lookup tokenLookup) (*User, bool, error) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if auth == "" {
		return nil, false, nil
	}
	parts := strings.SplitN(auth, " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") {
		return nil, false, nil
	}
	token := parts[1]
	if token == "" {
		return nil, false, nil
	}
	user, ok, err := lookup(r.Context(), token)
	if err != nil {
		return nil, false, err
	}
	if !ok || user == nil {
		return nil, false, errInvalidBearerToken
	}
	r.Header.Del("Authorization")
	return withAuthenticatedGroup(user), true, nil
}
