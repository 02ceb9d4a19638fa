package rest

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/registry"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// serveNonResource answers health checks and hands discovery paths to Options.Discovery.
func (h *Handler) serveNonResource(w http.ResponseWriter, r *http.Request) {
	if h.serveHealth(w, r) { // health.go
		return
	}
	if h.opts.Discovery != nil {
		h.opts.Discovery.ServeHTTP(w, r)
		return
	}
	h.writeStatus(w, r, errPathNotFound())
}

// serveResource routes a resource request to its verb after checking that the resource,
// version, scope and subresource exist.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, info *RequestInfo) {
	gr := scheme.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	res, ok := h.scheme.Resource(gr)
	if !ok && gr == namespacesGR && info.APIPrefix == "api" && info.APIVersion == "v1" {
		h.serveImplicitNamespace(w, r, info)
		return
	}
	if ok && gr == namespacesGR && !res.Namespaced && info.Namespace == info.Name {
		// Like kube's, RequestInfo names a namespace its own namespace
		// (/api/v1/namespaces/NAME); the resource itself is cluster-scoped.
		cluster := *info
		cluster.Namespace = ""
		info = &cluster
	}
	gv := scheme.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
	if !ok || info.APIVersion == scheme.InternalVersion || !h.scheme.Recognizes(gv.WithKind(res.Kind)) ||
		(info.APIPrefix == "api") != (info.APIGroup == "") || len(info.Parts) > 3 && !takesConnectPath(res, info.Subresource) {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	if res.Namespaced && info.Namespace == "" && info.Name != "" && info.Verb != "list" && info.Verb != "watch" ||
		res.Namespaced && info.Namespace == "" && len(info.Parts) > 1 ||
		!res.Namespaced && info.Namespace != "" && gr != namespacesGR {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	if info.Subresource != "" && !res.HasSubresource(info.Subresource) && !(gr == namespacesGR && info.Subresource == "finalize") {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	if info.Subresource == "" && !res.Serves(info.Verb) {
		// As kube-apiserver's routes: a path with no verb of the resource does not
		// exist, one with other verbs does not allow this one.
		if servesAny(res, pathVerbs(len(info.Parts) > 1, res.Namespaced && info.Namespace == "")) {
			h.writeStatus(w, r, errMethodNotAllowed())
		} else {
			h.writeStatus(w, r, errPathNotFound())
		}
		return
	}
	user, _ := authn.UserFrom(r.Context())
	rq := &request{
		h: h, w: w, r: r, ctx: r.Context(), info: info, user: user,
		res: res, gr: gr, stored: h.scheme.StorageResource(res).GroupResource(), gv: gv, gvk: gv.WithKind(res.Kind),
		query: info.query,
	}
	defer func() {
		if rq.largeSeat {
			h.limits.releaseLargeSeat()
		}
	}()
	if text, ok := h.deprecations[gr][gv.Version]; ok {
		// Like kube-apiserver for a deprecated CRD version: on every verb, before anything else.
		rq.warnings = append(rq.warnings, text)
	}
	if h.reg.RespondsToCreate(gr) {
		rq.serveVirtual()
		return
	}
	if h.reg.ServesSubresource(gr, "") {
		rq.serveCollectionAction() // subresource.go
		return
	}
	if sub := res.Subresource(info.Subresource); sub != nil {
		rq.serveSubresource(sub) // subresource.go
		return
	}
	item := len(info.Parts) > 1
	if info.Subresource == "finalize" && info.Verb != "update" && !res.HasSubresource("finalize") {
		// kube-apiserver serves namespaces/finalize for PUT alone.
		h.writeStatus(w, r, errMethodNotAllowed())
		return
	}
	allNamespaces := res.Namespaced && info.Namespace == ""
	switch info.Verb {
	case "get":
		switch info.Subresource {
		case "scale":
			rq.getScale()
		default:
			rq.get()
		}
	case "list":
		rq.list()
	case "watch":
		rq.watch()
	case "create":
		if item || allNamespaces {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.create()
	case "update", "patch":
		if !item {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		if info.Subresource == "scale" {
			rq.writeScale()
			return
		}
		rq.update()
	case "delete":
		if info.Subresource != "" {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.delete()
	case "deletecollection":
		if allNamespaces {
			h.writeStatus(w, r, errMethodNotAllowed())
			return
		}
		rq.deleteCollection()
	default:
		h.writeStatus(w, r, errMethodNotAllowed())
	}
}

// request is one resource request on its way through the pipeline.
type request struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	ctx  context.Context
	info *RequestInfo
	user *authn.User
	res  *scheme.Resource
	gr   scheme.GroupResource
	// stored is the resource whose storage keys the objects have: gr's own, or those of
	// the resource it shares storage with.
	stored   scheme.GroupResource
	gv       scheme.GroupVersion
	gvk      scheme.GroupVersionKind
	query    url.Values
	warnings []string
	// applied is set for server-side apply, which records managedFields itself.
	applied bool
	// subresourceBody is set while decoding the body of a subresource's create, whose
	// kind is its own (a Binding, an Eviction): a body of another registered kind is
	// kube's failed conversion then (subresourceKindMismatch).
	subresourceBody bool
	// largeSeat is set while the request, whose body is large, holds a seat
	// (limits.takeLargeSeat); serveResource gives it back.
	largeSeat bool
}

// key is the storage key of the object the request names.
func (rq *request) key(name string) string {
	if !rq.res.Namespaced {
		// A request on a Namespace names it as its namespace too, as in kube-apiserver.
		return storage.Key(rq.stored, "", name)
	}
	return storage.Key(rq.stored, rq.info.Namespace, name)
}

// lifecycle is the registry's view of the request: its resource, namespace, version
// and subresource, the attributes authorization saw, whether it is a server-side
// apply, and where warnings go (the response's Warning headers).
func (rq *request) lifecycle(dryRun bool) registry.Request {
	a := attributesOf(rq.info, rq.user)
	return registry.Request{
		Resource: rq.res, Namespace: rq.info.Namespace, Version: rq.gv.Version, Subresource: rq.info.Subresource,
		DryRun: dryRun, Attributes: &a, Warnings: &rq.warnings, FieldManager: rq.fieldManager(), ServerSideApply: rq.applied,
	}
}

// takesConnectPath says the subresource of res is a connection that takes the rest of
// the URL's path (scheme.Subresource.ConnectPath: pods/proxy/...).
func takesConnectPath(res *scheme.Resource, sub string) bool {
	s := res.Subresource(sub)
	return s != nil && s.ConnectPath
}

// pathVerbs are the verbs kube-apiserver routes on a resource's item path (/NAME), on
// the collection path of a namespaced resource across all namespaces, or on a
// collection path.
func pathVerbs(item, allNamespaces bool) []string {
	switch {
	case item:
		return []string{"get", "watch", "update", "patch", "delete"}
	case allNamespaces:
		return []string{"list", "watch"}
	}
	return []string{"list", "watch", "create", "deletecollection"}
}

// servesAny reports whether res serves one of verbs.
func servesAny(res *scheme.Resource, verbs []string) bool {
	return slices.ContainsFunc(verbs, res.Serves)
}
