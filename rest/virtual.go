package rest

import (
	"context"
	"net/http"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/scheme"
)

// CreateResponder is the optional Strategy method of a create-only resource that is
// answered without storage, like kube-apiserver's SelfSubjectReview, TokenReview and
// SubjectAccessReview: a POST to the collection decodes the body, calls
// RespondToCreate with the authenticated user, and answers 201 Created with the object
// it returns (converted to the request's version); nothing is stored, and a returned
// error is the response (a *scheme.Status keeps its code). As in kube-apiserver, the
// collection answers other methods with 405 MethodNotAllowed and items do not exist
// (404).
type CreateResponder interface {
	RespondToCreate(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error)
}

// serveVirtual serves a resource whose Strategy is a CreateResponder: only POST on
// the collection.
func (rq *request) serveVirtual(respond func(ctx context.Context, user *authn.User, obj scheme.Object) (scheme.Object, error)) {
	switch {
	case len(rq.info.Parts) > 1 || rq.info.Namespace != "" && !rq.res.Namespaced:
		rq.h.writeStatus(rq.w, rq.r, errPathNotFound())
		return
	case rq.info.Verb != "create":
		rq.h.writeStatus(rq.w, rq.r, errMethodNotAllowed())
		return
	}
	_, fv, err := rq.writeOptions("CreateOptions")
	if err != nil {
		rq.fail(err)
		return
	}
	data, err := rq.readBody()
	if err != nil {
		rq.fail(err)
		return
	}
	in, err := rq.decodeObject(data, fv)
	if err != nil {
		rq.fail(err)
		return
	}
	if err := rq.ensureNamespace(in); err != nil {
		rq.fail(err)
		return
	}
	user := rq.user
	if user == nil {
		user = &authn.Anonymous
	}
	answer, err := respond(rq.ctx, user, in)
	if err != nil {
		rq.fail(err)
		return
	}
	out, err := rq.h.toVersion(answer, rq.gv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusCreated, out)
}
