package authz

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/authn"
)

// Attributes describe a request to an Authorizer, like kube's authorizer.Attributes.
type Attributes struct {
	User *authn.User
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
// kube's message, reason appended; an error with allowed false answers 500
// InternalError, as kube-apiserver answers an authorizer that could not decide.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (allowed bool, reason string, err error)
}

// AlwaysAllow is the Authorizer that allows every request: kube-apiserver's
// --authorization-mode=AlwaysAllow, for tests and servers whose every client is
// trusted. It must be chosen explicitly; rest.Options.Authorizer has no default.
type AlwaysAllow struct{}

// Authorize implements Authorizer.
func (AlwaysAllow) Authorize(context.Context, Attributes) (bool, string, error) {
	return true, "", nil
}

// authorizerKey is the context key of the Authorizer of the server serving a request.
type authorizerKey struct{}

// WithAuthorizer returns a context carrying a, the Authorizer of the server serving a
// request, for Authorize.
func WithAuthorizer(ctx context.Context, a Authorizer) context.Context {
	return context.WithValue(ctx, authorizerKey{}, a)
}

// Authorize asks the Authorizer WithAuthorizer put in ctx about a, so that the access
// reviews (SelfSubjectAccessReview, which kubectl auth can-i creates;
// SubjectAccessReview; LocalSubjectAccessReview) and RBAC's escalation check answer
// with the decision the server itself would make, as kube-apiserver's do. Without one
// it fails closed: (false, "", error).
func Authorize(ctx context.Context, a Attributes) (allowed bool, reason string, err error) {
	az, ok := ctx.Value(authorizerKey{}).(Authorizer)
	if !ok || az == nil {
		return false, "", errors.New("authz: no Authorizer in the context: Authorize answers only within a request a server serves")
	}
	return az.Authorize(ctx, a)
}
