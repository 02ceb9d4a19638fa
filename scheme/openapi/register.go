package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/apikit-dev/apikit/scheme"
)

// registryKey keys this package's per-scheme state in scheme.Scheme.Extension.
type registryKey struct{}

// registry is what callers told this package about a scheme: schemas of schema-only
// kinds, and per-Go-type replacements and adjustments of what reflection derives.
type registry struct {
	mu          sync.RWMutex
	kinds       map[scheme.GroupVersionKind]*Schema
	overrides   map[reflect.Type]*Schema
	customizers map[reflect.Type][]func(*Schema)
}

func registryFor(s *scheme.Scheme) *registry {
	return s.Extension(registryKey{}, func() any {
		return &registry{
			kinds:       map[scheme.GroupVersionKind]*Schema{},
			overrides:   map[reflect.Type]*Schema{},
			customizers: map[reflect.Type][]func(*Schema){},
		}
	}).(*registry)
}

// CloneExtension copies the registered schemas, overrides and customizers for a cloned
// scheme (scheme.Scheme.Clone); registered schemas are never modified, so they are
// shared.
func (r *registry) CloneExtension() any {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := &registry{
		kinds:       maps.Clone(r.kinds),
		overrides:   maps.Clone(r.overrides),
		customizers: make(map[reflect.Type][]func(*Schema), len(r.customizers)),
	}
	for t, fns := range r.customizers {
		c.customizers[t] = slices.Clone(fns)
	}
	return c
}

// Register sets the schema of a kind, the way a CustomResourceDefinition's
// openAPIV3Schema does: the object's own schema, with apiVersion, kind and metadata
// filled in by the documents (metadata always refers to ObjectMeta, or ListMeta for a
// list kind). A kind the scheme does not know yet is added to it as unstructured
// (scheme.AddUnstructuredKind). For a kind backed by a Go type, the registered schema
// replaces the one reflection derives. The schema is copied; later changes to it have no
// effect. Registering an empty version or kind, or a nil schema, panics.
func Register(s *scheme.Scheme, gvk scheme.GroupVersionKind, schema *Schema) {
	if gvk.Version == "" || gvk.Kind == "" || schema == nil {
		panic(fmt.Sprintf("openapi: Register needs a version, a kind and a schema, got %v", gvk))
	}
	if !s.Recognizes(gvk) {
		s.AddUnstructuredKind(gvk)
	}
	r := registryFor(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds[gvk] = schema.Clone()
}

// Registered returns the schema registered for a kind with Register, and whether there
// is one: what package rest compiles to enforce a schema-only kind's schema (pruning,
// defaulting, validation). It is the registry's own copy, shared with every caller and
// with the documents: read it, never modify it (Clone it first).
func Registered(s *scheme.Scheme, gvk scheme.GroupVersionKind) (*Schema, bool) {
	return registryFor(s).kind(gvk)
}

// Override makes every document use schema wherever a value of Go type T appears,
// instead of deriving one by reflection: for types with custom JSON encodings (a
// quantity, an int-or-string) or that should stay opaque. The schema is used inline
// (no definition of its own) and copied.
func Override[T any](s *scheme.Scheme, schema *Schema) {
	r := registryFor(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.overrides[reflect.TypeFor[T]()] = schema.Clone()
}

// Customize registers fn to adjust the schema reflection derives for Go type T: for a
// struct, its definition (set Description, or Properties["color"].Enum, Minimum,
// Default, ...); for any other type, the schema used where it appears. Functions run in
// registration order, after struct tags and SwaggerDoc descriptions are applied.
func Customize[T any](s *scheme.Scheme, fn func(*Schema)) {
	r := registryFor(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	t := reflect.TypeFor[T]()
	r.customizers[t] = append(r.customizers[t], fn)
}

func (r *registry) kind(gvk scheme.GroupVersionKind) (*Schema, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.kinds[gvk]
	return s, ok
}

func (r *registry) registeredKinds() []scheme.GroupVersionKind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]scheme.GroupVersionKind, 0, len(r.kinds))
	for gvk := range r.kinds {
		out = append(out, gvk)
	}
	return out
}

func (r *registry) override(t reflect.Type) (*Schema, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.overrides[t]
	return s, ok
}

func (r *registry) customize(t reflect.Type, s *Schema) {
	r.mu.RLock()
	fns := r.customizers[t]
	r.mu.RUnlock()
	for _, fn := range fns {
		fn(s)
	}
}
