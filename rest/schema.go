package rest

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// kindSchema is the compiled schema of one version of a schema-only kind: what the
// Handler enforces the way kube-apiserver enforces a CustomResourceDefinition's
// openAPIV3Schema (prune and default on decode and on read, validate on write).
type kindSchema struct {
	schema *structural.Schema
	// status is the schema of the status property alone (under an object root), which
	// writes to /status validate, as kube-apiserver validates only the status of a
	// custom resource there; nil when the kind has no status subresource or the schema
	// no status.
	status *structural.Schema
	// rules evaluates the schema's x-kubernetes-validations; nil when it has none.
	rules structural.RuleValidator
	// scale is where the kind keeps what its scale subresource exposes; nil without one.
	// Writes check the replicas there as kube-apiserver checks a custom resource's.
	scale *scheme.ScaleSubresource
}

// scaleErrors checks the replicas (and the label selector) the scale subresource reads
// from obj, as kube-apiserver's custom resource validator does on every write: an
// integer from 0 to MaxInt32 at specReplicasPath (when spec is set) and
// statusReplicasPath, a string at labelSelectorPath, each where present. Errors point
// at the dotted path as the CRD spells it (".spec.replicas"), with kube's messages.
func (ks *kindSchema) scaleErrors(obj map[string]any, spec bool) validation.ErrorList {
	if ks.scale == nil {
		return nil
	}
	var errs validation.ErrorList
	replicas := func(path string) {
		v, found, err := nestedField(obj, path)
		if err == nil && found {
			if _, ok := v.(int64); !ok {
				err = fmt.Errorf("%s accessor error: %v is of the type %T, expected int64", scaleFieldPath(path), v, v)
			}
		}
		n, _ := v.(int64)
		switch {
		case err != nil:
			errs = append(errs, validation.Invalid(validation.NewPath(path), int64(0), err.Error()))
		case n < 0:
			errs = append(errs, validation.Invalid(validation.NewPath(path), n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, validation.Invalid(validation.NewPath(path), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	if spec {
		replicas(ks.scale.SpecReplicasPath)
	}
	replicas(ks.scale.StatusReplicasPath)
	if p := ks.scale.LabelSelectorPath; p != "" {
		v, found, err := nestedField(obj, p)
		if _, ok := v.(string); err == nil && found && !ok {
			err = fmt.Errorf("%s accessor error: %v is of the type %T, expected string", scaleFieldPath(p), v, v)
		}
		if err != nil {
			errs = append(errs, validation.Invalid(validation.NewPath(p), "", err.Error()))
		}
	}
	return errs
}

// scaleFieldPath is a scale path as accessor errors spell it: with one leading period.
func scaleFieldPath(path string) string { return "." + strings.TrimPrefix(path, ".") }

// nestedField returns the value at a dotted path (".spec.replicas") of obj and whether
// it is there (a null on the way is absence, a null at the end a value); an error when
// a step on the way is not an object.
func nestedField(obj map[string]any, path string) (any, bool, error) {
	fields := strings.Split(strings.TrimPrefix(path, "."), ".")
	var v any = obj
	for i, f := range fields {
		if v == nil {
			return nil, false, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s accessor error: %v is of the type %T, expected map[string]interface{}", scaleFieldPath(strings.Join(fields[:i+1], ".")), v, v)
		}
		if v, ok = m[f]; !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// coerce prunes the fields the schema does not declare and sets its defaults, in
// place, as kube-apiserver's decoding of a custom resource does. It stops with
// structural.ErrDefaultsTooLarge once the defaults add more than budget bytes.
func (ks *kindSchema) coerce(obj map[string]any, budget int64) error {
	ks.schema.PruneDecoded(obj)
	_, err := ks.schema.DefaultWithin(obj, budget)
	return err
}

// compileSchemas compiles the registered schema (openapi.Register) of every served
// version of every schema-only kind of s, with its validation rules compiled by rules.
// A schema that is not structural, or has rules when rules is nil, is an error naming
// the kind.
func compileSchemas(s *scheme.Scheme, rules structural.RuleCompiler) (map[scheme.GroupVersionKind]*kindSchema, error) {
	out := map[scheme.GroupVersionKind]*kindSchema{}
	for _, res := range s.Resources() {
		for _, v := range s.ServedVersions(res) {
			gvk := res.GroupKind().WithVersion(v)
			if !s.IsUnstructured(gvk) {
				continue
			}
			sch, ok := openapi.Registered(s, gvk)
			if !ok {
				continue
			}
			ks, err := compileKindSchema(sch, res.StatusSubresource, rules)
			if err != nil {
				return nil, fmt.Errorf("rest: the schema of %s, version %s: %w", res.GroupKind(), v, err)
			}
			ks.scale = res.Scale
			out[gvk] = ks
		}
	}
	return out, nil
}

// schemaRoot is where compile errors of a registered schema point, as for a CRD's.
var schemaRoot = validation.NewPath("openAPIV3Schema")

func compileKindSchema(sch *openapi.Schema, statusSubresource bool, rules structural.RuleCompiler) (*kindSchema, error) {
	compiled, errs := structural.Compile(sch, schemaRoot)
	if len(errs) > 0 {
		return nil, errs
	}
	ks := &kindSchema{schema: compiled}
	if st := sch.Properties["status"]; statusSubresource && st != nil {
		wrapper := &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{"status": st}}
		if ks.status, errs = structural.Compile(wrapper, schemaRoot); len(errs) > 0 {
			return nil, errs
		}
	}
	if at := rulePaths(sch); len(at) > 0 {
		if rules == nil {
			return nil, fmt.Errorf("it has %s rules (at %s) and Options.Rules is nil: "+
				"CEL rules need a rule compiler, such as cel.New() of the module github.com/apikit-dev/apikit/cel "+
				"(rest.Options{Rules: cel.New()})", openapi.ExtValidations, strings.Join(at, ", "))
		}
		if ks.rules, errs = rules.Compile(compiled, schemaRoot); len(errs) > 0 {
			return nil, errs
		}
	}
	return ks, nil
}

// rulePaths returns the paths of the schemas of sch that hold validation rules, sorted.
func rulePaths(sch *openapi.Schema) []string {
	var out []string
	var walk func(s *openapi.Schema, p *validation.Path)
	walk = func(s *openapi.Schema, p *validation.Path) {
		if s == nil {
			return
		}
		if r, ok := s.Extensions[openapi.ExtValidations]; ok {
			if list, isList := r.([]any); !isList || len(list) > 0 {
				out = append(out, p.String())
			}
		}
		for name, c := range s.Properties {
			walk(c, p.Child("properties").Key(name))
		}
		walk(s.AdditionalProperties, p.Child("additionalProperties"))
		walk(s.Items, p.Child("items"))
		for i, c := range s.AllOf {
			walk(c, p.Child("allOf").Index(i))
		}
		for i, c := range s.AnyOf {
			walk(c, p.Child("anyOf").Index(i))
		}
		for i, c := range s.OneOf {
			walk(c, p.Child("oneOf").Index(i))
		}
		walk(s.Not, p.Child("not"))
	}
	walk(sch, schemaRoot)
	sort.Strings(out)
	return out
}

// schemaFor returns the compiled schema of an unstructured object's kind and version,
// nil when it has none (typed kinds, kinds without a registered schema).
func (h *Handler) schemaFor(obj scheme.Kinded) (*scheme.Unstructured, *kindSchema) {
	u, ok := obj.(*scheme.Unstructured)
	if !ok || len(h.schemas) == 0 {
		return nil, nil
	}
	ks := h.schemas[u.GroupVersionKind()]
	if ks == nil {
		return nil, nil
	}
	return u, ks
}

// coerce makes an object read from storage what kube-apiserver reads a custom
// resource as: for a kind with a compiled schema, pruned and defaulted in place by the
// schema of its version (so that defaults added to a schema after an object was
// written appear); other objects are left as they are. obj must be the caller's own,
// as storage hands out objects from Get, List, GuaranteedUpdate and Delete; watch
// events are shared (see sharedAs). Defaults that would add more than the object size
// limit stop with structural.ErrDefaultsTooLarge (see defaultsBudget).
func (h *Handler) coerce(obj scheme.Object) error {
	if u, ks := h.schemaFor(obj); ks != nil {
		return ks.coerce(u.Object, h.defaultsBudget())
	}
	return nil
}

// defaultsBudget is how many bytes a schema's defaults may add to one object:
// Options.MaxObjectBytes, since an object they grow by more cannot be stored, and
// building it is the memory and time the limit is there to bound.
func (h *Handler) defaultsBudget() int64 {
	if h.limits.maxObjectBytes == 0 {
		return math.MaxInt64
	}
	return h.limits.maxObjectBytes
}

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
	out, err := h.toVersion(obj, gv)
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
	gvk := obj.GetObjectKind().GroupVersionKind()
	return apierrors.NewInternalError(fmt.Errorf("the defaults of the schema of %s %q add more than %d bytes to it", gvk.Kind, obj.GetName(), h.limits.maxObjectBytes))
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
