package rest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// namespacesGR is core/v1 namespaces.
var namespacesGR = scheme.GroupResource{Resource: "namespaces"}

// serveImplicitNamespace answers GET /api/v1/namespaces/NAME on a server whose scheme
// has no namespaces resource. Such a server has no Namespace objects: every namespace
// exists implicitly (a list in any namespace works and may be empty), so a valid name is
// an Active Namespace. kubectl asks this when a get in a namespace other than default
// finds nothing, and reports the namespace as missing if the answer is NotFound (see
// cli-runtime's resource.Info.Get). The resource is not advertised in discovery, and
// every other request under it is NotFound as before.
func (h *Handler) serveImplicitNamespace(w http.ResponseWriter, r *http.Request, info *RequestInfo) {
	if info.Verb != "get" || info.Subresource != "" || len(info.Parts) != 2 {
		h.writeStatus(w, r, errPathNotFound())
		return
	}
	name := info.Name
	if len(validation.IsDNS1123Label(name)) > 0 {
		h.writeStatus(w, r, apierrors.NewNotFound(namespacesGR, name))
		return
	}
	out, st := h.negotiate(r, codec.ResponseOptions{})
	if st != nil {
		h.writeStatus(w, r, st)
		return
	}
	ns := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{},
		"status":     map[string]any{"phase": "Active"},
	}}
	h.writeEncoded(w, r, http.StatusOK, out, ns)
}

// servesNamespaces reports whether namespaces are objects of their own (the scheme has
// the namespaces resource) rather than implicit.
func (h *Handler) servesNamespaces() bool {
	_, ok := h.scheme.Resource(namespacesGR)
	return ok
}

// isNamespaces reports whether the request is on the namespaces resource.
func (rq *request) isNamespaces() bool { return rq.gr == namespacesGR }

// admitNamespacedCreate refuses a create in a namespace that does not exist (404
// namespaces "x" not found) or is being terminated (403, with kube's cause), like
// NamespaceLifecycle admission. Without a namespaces resource every namespace exists.
func (rq *request) admitNamespacedCreate(obj scheme.Object) error {
	ns := obj.GetNamespace()
	if !rq.res.Namespaced || ns == "" || !rq.h.servesNamespaces() {
		return nil
	}
	cur, err := rq.h.store.Get(rq.ctx, storage.Key(namespacesGR, "", ns), storage.GetOptions{})
	if errors.Is(err, storage.ErrNotFound) {
		return apierrors.NewNotFound(namespacesGR, ns)
	}
	if err != nil {
		return rq.h.toStatus(err, namespacesGR, ns)
	}
	fields, err := registry.NamespaceFields(cur)
	if err != nil {
		return err
	}
	if fields.Phase != registry.NamespacePhaseTerminating {
		return nil
	}
	st := apierrors.NewForbidden(rq.gr, obj.GetName(), fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
	st.Details.Causes = append(st.Details.Causes, scheme.StatusCause{
		Type:    registry.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", ns),
		Field:   "metadata.namespace",
	})
	return st
}

// still has spec.finalizers.
const errNamespaceFinalizing = "The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system."
