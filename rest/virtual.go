package rest

import (
	"net/http"

	"github.com/apikit-dev/apikit/authn"
)

// serveVirtual serves a resource whose registry.Strategy is a registry.CreateResponder: only POST on
// the collection.
func (rq *request) serveVirtual() {
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
	out, err := rq.h.reg.RespondToCreate(rq.ctx, rq.lifecycle(false), user, in)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusCreated, out)
}
