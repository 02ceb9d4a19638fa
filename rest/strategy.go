package rest

import (
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// noHooks are the hooks of a resource without a Strategy.
var noHooks registry.Hooks

// hooksOf returns the hooks of a resource, never nil.
func (h *Handler) hooksOf(gr scheme.GroupResource) *registry.Hooks {
	if hooks, ok := h.hooks[gr]; ok {
		return hooks
	}
	return &noHooks
}
