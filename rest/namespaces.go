package rest

import (
	"net/http"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// namespacesGR is core/v1 namespaces, whose lifecycle rules are the registry's.
var namespacesGR = registry.NamespacesGroupResource()

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
