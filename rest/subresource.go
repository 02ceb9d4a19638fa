package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
)

// serveSubresource serves one of a resource's OtherSubresources: 404 when the
// registry's strategy serves it not, kube's 405 for a verb it does not list, a create
// run by its registry.Action, and get, update and patch by the pipeline of the parent
// with the subresource's strategy (registry.StrategyFor.Subresources).
func (rq *request) serveSubresource(sub *scheme.Subresource) {
	if !rq.h.reg.ServesSubresource(rq.gr, sub.Name) {
		rq.h.writeStatus(rq.w, rq.r, errPathNotFound())
		return
	}
	if sub.ConnectMethods != nil {
		rq.connect(sub) // connect.go
		return
	}
	if !sub.Serves(rq.info.Verb) {
		rq.h.writeStatus(rq.w, rq.r, errMethodNotAllowed())
		return
	}
	switch rq.info.Verb {
	case "create":
		rq.createOnSubresource(sub)
	case "get":
		rq.get()
	case "update", "patch":
		rq.update()
	default:
		rq.h.writeStatus(rq.w, rq.r, errMethodNotAllowed())
	}
}

// serveCollectionAction serves a create-only resource whose creates are an Action
// of its strategy (registry.StrategyFor.Actions[""]), as kube's top-level bindings:
// POST on the collection, the object's name taken from the body.
func (rq *request) serveCollectionAction() {
	switch {
	case len(rq.info.Parts) > 1 || rq.info.Namespace != "" && !rq.res.Namespaced:
		rq.h.writeStatus(rq.w, rq.r, errPathNotFound())
	case rq.info.Verb != "create" || rq.res.Namespaced && rq.info.Namespace == "":
		rq.h.writeStatus(rq.w, rq.r, errMethodNotAllowed())
	default:
		rq.createOnSubresource(nil)
	}
}

// createOnSubresource serves POST on a subresource whose body is of its own kind (a
// Binding, an Eviction): decoded as a create of that kind is, its namespace
// reconciled with the URL's, then handed to the registry's Action (sub is nil for
// the Action of a create-only resource, serveCollectionAction). A Status answer is
// served with its own code, 201 when it has none (Success), as kube-apiserver's create
// handler serves a Status result (kube's 500 Failure of an eviction under two PDBs).
func (rq *request) createOnSubresource(sub *scheme.Subresource) {
	dryRun, fv, err := rq.writeOptions("CreateOptions")
	if err != nil {
		rq.fail(err)
		return
	}
	data, err := rq.readBody()
	if err != nil {
		rq.fail(err)
		return
	}
	body := *rq
	if sub != nil && sub.Kind.Kind != "" {
		body.gvk, body.gv = sub.Kind, sub.Kind.GroupVersion()
	}
	body.subresourceBody = true
	in, err := body.decodeObject(data, fv)
	if err != nil {
		rq.fail(err)
		return
	}
	if err := rq.ensureNamespace(in); err != nil {
		rq.fail(err)
		return
	}
	name := rq.info.Name
	if sub == nil {
		name = in.GetName()
	}
	out, err := rq.h.reg.CreateOnSubresource(rq.ctx, rq.lifecycle(dryRun), name, in)
	if err != nil {
		rq.fail(err)
		return
	}
	if st, ok := out.(*scheme.Status); ok {
		if st.Code == 0 {
			st.Code = http.StatusCreated
		}
		if st.APIVersion == "" {
			st.APIVersion, st.Kind = "v1", "Status"
		}
		rq.respond(int(st.Code), st)
		return
	}
	if out == nil {
		rq.fail(apierrors.NewInternalError(errNoAnswer))
		return
	}
	rq.respond(http.StatusCreated, out)
}

// errNoAnswer is the 500 of an Action that answered neither an object nor an error.
var errNoAnswer = errors.New("the subresource's action answered nothing")

// subresourceKindMismatch is kube's 400 for a subresource body of another registered
// kind: its decoder decodes the body and fails to convert it to the subresource's
// internal type (`Pod in version "v1" cannot be handled as a Binding: converting
// (v1.Pod) to (core.Binding): unknown conversion`).
func subresourceKindMismatch(got, want scheme.GroupVersionKind) error {
	internal := want.Group
	if internal == "" {
		internal = "core"
	} else if i := strings.IndexByte(internal, '.'); i > 0 {
		internal = internal[:i]
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s.%s) to (%s.%s): unknown conversion",
		got.Kind, got.Version, want.Kind, got.Version, got.Kind, internal, want.Kind))
}
