package rest

import (
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// hooksOf returns the hooks of a resource, never nil.
func (h *Handler) hooksOf(gr scheme.GroupResource) *registry.Hooks { return h.reg.Hooks(gr) }
