package rest

import (
	"fmt"
	"math"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// readAs returns an object read from storage (the caller's own) as a read at version
// gv answers it: coerced, converted to gv, and then coerced by the schema of gv when
// that is another version. An object the schema's defaults would grow past the object
// size limit is a 500 (kube would build and send it; its size is then unbounded).
func (h *Handler) readAs(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	if err := h.coerce(obj); err != nil {
		return nil, h.defaultsTooLargeOnRead(obj)
	}
	if obj.GetObjectKind().GroupVersionKind().GroupVersion() == gv {
		return obj, nil
	}
	out, err := conversion.ObjectToVersion(h.scheme, obj, gv)
	if err != nil {
		return nil, err
	}
	if err := h.coerce(out); err != nil { // a new object: conversion copies
		return nil, h.defaultsTooLargeOnRead(out)
	}
	return out, nil
}

// defaultsTooLargeOnRead is the 500 of a stored object that its schema's defaults
// would make larger than the object size limit.
func (h *Handler) defaultsTooLargeOnRead(obj scheme.Object) *scheme.Status {
	return apierrors.NewDefaultsTooLarge(obj, h.limits.maxObjectBytes)
}

// coerce is the Store's Coerce of an object read from storage (the caller's own).
func (h *Handler) coerce(obj scheme.Object) error { return h.reg.Coerce(obj) }

// schemaFor is the Store's compiled schema of an unstructured object's kind and version.
func (h *Handler) schemaFor(obj scheme.Kinded) (*scheme.Unstructured, *registry.Schema) {
	return h.reg.SchemaFor(obj)
}

// defaultsBudget is how many bytes a schema's defaults may add to one object:
// Options.MaxObjectBytes, since an object they grow by more cannot be stored.
func (h *Handler) defaultsBudget() int64 {
	if h.limits.maxObjectBytes == 0 {
		return math.MaxInt64
	}
	return h.limits.maxObjectBytes
}

// sharedAs is readAs for an object storage shares between readers (a watch event's):
// a kind with a compiled schema is coerced in a copy, so the shared object stays as
// it was stored; the copy is made only for such kinds.
func (h *Handler) sharedAs(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	return h.readAs(h.unshared(obj), gv)
}

// unshared returns a shared object as readAs may take it: a copy for a kind with a
// compiled schema (readAs coerces it in place), the object itself otherwise (readAs
// only reads it; a conversion makes a new object).
func (h *Handler) unshared(obj scheme.Object) scheme.Object {
	if _, ks := h.schemaFor(obj); ks != nil {
		return scheme.DeepCopy(obj)
	}
	return obj
}

// deprecationWarnings returns the Warning of each deprecated served version of each
// resource (scheme.Resource.Deprecations), by resource and version.
func deprecationWarnings(s *scheme.Scheme) map[scheme.GroupResource]map[string]string {
	out := map[scheme.GroupResource]map[string]string{}
	for _, res := range s.Resources() {
		for v, text := range res.Deprecations {
			if text == "" {
				text = defaultDeprecationWarning(s, res, v)
			}
			if out[res.GroupResource()] == nil {
				out[res.GroupResource()] = map[string]string{}
			}
			out[res.GroupResource()][v] = text
		}
	}
	return out
}

// defaultDeprecationWarning is kube-apiserver's text for a deprecated CRD version
// without a deprecationWarning: "example.com/v1beta1 Widget is deprecated; use
// example.com/v1 Widget", naming the highest served version that is not deprecated
// and ranks above the deprecated one, when there is one.
func defaultDeprecationWarning(s *scheme.Scheme, res *scheme.Resource, version string) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", res.Group, version, res.Kind)
	best := ""
	for _, v := range s.ServedVersions(res) {
		if _, deprecated := res.Deprecations[v]; deprecated || scheme.CompareVersions(version, v) >= 0 {
			continue
		}
		if best == "" || scheme.CompareVersions(v, best) > 0 {
			best = v
		}
	}
	if best != "" {
		msg += fmt.Sprintf("; use %s/%s %s", res.Group, best, res.Kind)
	}
	return msg
}
