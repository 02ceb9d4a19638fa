package authn

import (
	"errors"
	"net/http"
	"slices"
)

// Union tries each in order; the first that authenticates wins. When none does, it
// returns ok=false, and the errors of those that failed joined (kube's union): so a bad
// credential is 401 even with anonymous access on (rest.Options.AllowAnonymous).
//
// An authenticator that fails with an error does not stop the others: a client
// certificate from the wrong CA does not hide a good bearer token, as in
// kube-apiserver. Nil entries are skipped; a union of one is that one.
func Union(as ...Authenticator) Authenticator {
	as = slices.DeleteFunc(slices.Clone(as), func(a Authenticator) bool { return a == nil })
	if len(as) == 1 {
		return as[0]
	}
	return union(as)
}

// union is the Authenticator Union returns.
type union []Authenticator

// Authenticate implements Authenticator.
func (u union) Authenticate(r *http.Request) (*User, bool, error) {
	var errs []error
	for _, a := range u {
		user, ok, err := a.Authenticate(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return user, true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}

// The groups and user kube-apiserver's AuthenticatedGroupAdder looks at.
const (
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
)

// withAuthenticatedGroup adds system:authenticated to an authenticated user's groups as
// kube-apiserver's AuthenticatedGroupAdder does around its authenticators: not for
// system:anonymous, and not when the user already is in system:authenticated or
// system:unauthenticated. kube wraps the whole chain; apikit's Handler has no such
// wrapper, so every authenticator of this package applies it to what it returns. u
// is the caller's own copy and is changed in place.
func withAuthenticatedGroup(u *User) *User {
	if u.Name == Anonymous.Name {
		return u
	}
	for _, g := range u.Groups {
		if g == groupAuthenticated || g == groupUnauthenticated {
			return u
		}
	}
	groups := make([]string, 0, len(u.Groups)+1)
	u.Groups = append(append(groups, u.Groups...), groupAuthenticated)
	return u
}

// cloneUser returns a deep copy of u, so that a caller (an admission plugin, say) may
// change what it gets without changing what an authenticator keeps.
func cloneUser(u *User) *User {
	c := *u
	c.Groups = slices.Clone(u.Groups)
	if u.Extra != nil {
		c.Extra = make(map[string][]string, len(u.Extra))
		for k, v := range u.Extra {
			c.Extra[k] = slices.Clone(v)
		}
	}
	return &c
}
