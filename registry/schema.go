package registry

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

// Schema is the compiled schema of one version of a schema-only kind: what the
// Store enforces the way kube-apiserver enforces a CustomResourceDefinition's
// openAPIV3Schema (prune and default on decode and on read, validate on write).
type Schema struct {
	// Structural is the whole schema.
	Structural *structural.Schema
	// Status is the schema of the status property alone (under an object root), which
	// writes to /status validate, as kube-apiserver validates only the status of a
	// custom resource there; nil when the kind has no status subresource or the schema
	// no status.
	Status *structural.Schema
	// Rules evaluates the schema's x-kubernetes-validations; nil when it has none.
	Rules structural.RuleValidator
	// Scale is where the kind keeps what its scale subresource exposes; nil without one.
	// Writes check the replicas there as kube-apiserver checks a custom resource's.
	Scale *scheme.ScaleSubresource
}

// ScaleErrors checks the replicas (and the label selector) the scale subresource reads
// from obj, as kube-apiserver's custom resource validator does on every write: an
// integer from 0 to MaxInt32 at specReplicasPath (when spec is set) and
// statusReplicasPath, a string at labelSelectorPath, each where present. Errors point
// at the dotted path as the CRD spells it (".spec.replicas"), with kube's messages.
func (ks *Schema) ScaleErrors(obj map[string]any, spec bool) validation.ErrorList {
	if ks.Scale == nil {
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
		replicas(ks.Scale.SpecReplicasPath)
	}
	replicas(ks.Scale.StatusReplicasPath)
	if p := ks.Scale.LabelSelectorPath; p != "" {
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
func (ks *Schema) coerce(obj map[string]any, budget int64) error {
	ks.Structural.PruneDecoded(obj)
	_, err := ks.Structural.DefaultWithin(obj, budget)
	return err
}

// compileSchemas compiles the registered schema (openapi.Register) of every served
// version of every schema-only kind of s, with its validation rules compiled by rules.
// A schema that is not structural, or has rules when rules is nil, is an error naming
// the kind.
func compileSchemas(s *scheme.Scheme, rules structural.RuleCompiler) (map[scheme.GroupVersionKind]*Schema, error) {
	out := map[scheme.GroupVersionKind]*Schema{}
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
				return nil, fmt.Errorf("registry: the schema of %s, version %s: %w", res.GroupKind(), v, err)
			}
			ks.Scale = res.Scale
			out[gvk] = ks
		}
	}
	return out, nil
}

// schemaRoot is where compile errors of a registered schema point, as for a CRD's.
var schemaRoot = validation.NewPath("openAPIV3Schema")

func compileKindSchema(sch *openapi.Schema, statusSubresource bool, rules structural.RuleCompiler) (*Schema, error) {
	compiled, errs := structural.Compile(sch, schemaRoot)
	if len(errs) > 0 {
		return nil, errs
	}
	ks := &Schema{Structural: compiled}
	if st := sch.Properties["status"]; statusSubresource && st != nil {
		wrapper := &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{"status": st}}
		if ks.Status, errs = structural.Compile(wrapper, schemaRoot); len(errs) > 0 {
			return nil, errs
		}
	}
	if at := rulePaths(sch); len(at) > 0 {
		if rules == nil {
			return nil, fmt.Errorf("it has %s rules (at %s) and Options.Rules is nil: "+
				"CEL rules need a rule compiler, such as cel.New() of the module github.com/apikit-dev/apikit/cel "+
				"(rest.Options{Rules: cel.New()})", openapi.ExtValidations, strings.Join(at, ", "))
		}
		if ks.Rules, errs = rules.Compile(compiled, schemaRoot); len(errs) > 0 {
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

// SchemaFor returns the compiled schema of an unstructured object's kind and version,
// nil when it has none (typed kinds, kinds without a registered schema).
func (s *Store) SchemaFor(obj scheme.Kinded) (*scheme.Unstructured, *Schema) {
	u, ok := obj.(*scheme.Unstructured)
	if !ok || len(s.schemas) == 0 {
		return nil, nil
	}
	ks := s.schemas[u.GroupVersionKind()]
	if ks == nil {
		return nil, nil
	}
	return u, ks
}

// Coerce makes an object read from storage what kube-apiserver reads a custom
// resource as: for a kind with a compiled schema, pruned and defaulted in place by the
// schema of its version (so that defaults added to a schema after an object was
// written appear); other objects are left as they are. obj must be the caller's own,
// as storage hands out objects from Get, List, GuaranteedUpdate and Delete; watch
// events are shared. Defaults that would add more than Options.MaxObjectBytes stop
// with structural.ErrDefaultsTooLarge.
func (s *Store) Coerce(obj scheme.Object) error {
	if u, ks := s.SchemaFor(obj); ks != nil {
		return ks.coerce(u.Object, s.DefaultsBudget())
	}
	return nil
}

// coerceRead is Coerce with the 500 of a stored object that its schema's defaults
// would make larger than the object size limit.
func (s *Store) coerceRead(obj scheme.Object) error {
	if err := s.Coerce(obj); err != nil {
		return apierrors.NewDefaultsTooLarge(obj, s.opts.MaxObjectBytes)
	}
	return nil
}
