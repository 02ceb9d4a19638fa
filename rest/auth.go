package rest

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// User is who sent a request, as an Authenticator established it.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Anonymous is the user of requests when no Authenticator is configured.
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

// WithUser returns a context carrying user.
func WithUser(ctx context.Context, user *User) context.Context {
	return context.WithValue(ctx, userKey, user)
}

// UserFrom returns the authenticated user the Handler put in a request's context.
func UserFrom(ctx context.Context) (*User, bool) {
	u, ok := ctx.Value(userKey).(*User)
	return u, ok
}

func (h *Handler) authenticate(r *http.Request) (*User, *scheme.Status) {
	if h.opts.Authenticator == nil {
		u := Anonymous
		return &u, nil
	}
	user, ok, err := h.opts.Authenticator.Authenticate(r)
	if err != nil {
		h.log.Warn("rest: authentication failed", "path", r.URL.Path, "err", err)
	}
	if err != nil || !ok || user == nil {
		return nil, NewUnauthorized()
	}
	return user, nil
}

// Attributes describe a request to an Authorizer, like kube's authorizer.Attributes.
type Attributes struct {
	User *User
	// Verb is the API verb (get, list, watch, create, update, patch, delete,
	// deletecollection) for resource requests, the lowercased HTTP method otherwise.
	Verb        string
	Namespace   string
	APIGroup    string
	APIVersion  string
	Resource    string
	Subresource string
	Name        string
	// Path is the URL path.
	Path string
	// ResourceRequest is false for non-resource paths (/healthz, /version, /apis, ...).
	ResourceRequest bool
}

// Authorizer decides whether a request may proceed. Deny answers 403 Forbidden with
// kube's message, reason appended; an error answers 500... unless allowed is true.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (allowed bool, reason string, err error)
}

func (h *Handler) authorize(ctx context.Context, info *RequestInfo, user *User) *scheme.Status {
	if h.opts.Authorizer == nil {
		return nil
	}
	a := attributesOf(info, user)
	allowed, reason, err := h.opts.Authorizer.Authorize(ctx, a)
	if allowed {
		return nil
	}
	if err != nil {
		h.log.Warn("rest: authorization failed", "path", a.Path, "err", err)
		if reason == "" {
			reason = err.Error()
		}
	}
	msg := forbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	gr := scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	if !a.ResourceRequest {
		gr = scheme.GroupResource{}
	}
	return NewForbidden(gr, a.Name, errors.New(msg))
}

func attributesOf(info *RequestInfo, user *User) Attributes {
	return Attributes{
		User:            user,
		Verb:            info.Verb,
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		Path:            info.Path,
		ResourceRequest: info.IsResourceRequest,
	}
}

// forbiddenMessage words a denial like kube-apiserver.
func forbiddenMessage(a Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, res, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, res, a.APIGroup)
}
