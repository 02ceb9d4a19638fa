// Package structural gives an OpenAPI v3 schema the meaning kube-apiserver gives a
// CustomResourceDefinition's openAPIV3Schema: it checks that the schema is structural,
// and validates, prunes and defaults unstructured objects (map[string]any, as
// encoding/json or apikit's codecs decode them) against it, with the field paths and
// messages of k8s.io/apiextensions-apiserver.
//
// A schema is compiled once (Compile) and then used by many requests concurrently; a
// *Schema is read-only.
package structural

import (
	"context"
	"math"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// Schema is a compiled structural schema: the root schema of one version of a kind.
type Schema struct {
	root *openapi.Schema
	v    *validator
	// defaultSizes is the JSON size of each node's default, for DefaultWithin.
	defaultSizes map[*openapi.Schema]int64
}

// Compile checks that s is a structural schema, as kube-apiserver requires of a CRD's
// openAPIV3Schema, and compiles it for Validate, Prune and Default. The errors are
// kube-apiserver's, with field paths under fldPath (for a CRD,
// spec.versions[i].schema.openAPIV3Schema). s is copied.
func Compile(s *openapi.Schema, fldPath *validation.Path) (*Schema, validation.ErrorList) {
	root := s.Clone()
	errs := checkStructural(root, fldPath)
	v, verrs := newValidator(root, fldPath)
	errs = append(errs, verrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	return &Schema{root: root, v: v, defaultSizes: defaultSizes(root)}, nil
}

// OpenAPI returns the schema as compiled. It is shared: do not modify it.
func (s *Schema) OpenAPI() *openapi.Schema { return s.root }

// Validate checks a whole object of the kind (apiVersion, kind, metadata and the rest)
// against the schema, as kube-apiserver's schema validation does on create and update:
// one error per failing field, with kube's field paths and messages.
func (s *Schema) Validate(obj map[string]any) validation.ErrorList {
	return s.v.validate(obj)
}

// Prune removes from a whole object the fields the schema does not declare (except
// where x-kubernetes-preserve-unknown-fields keeps them, and apiVersion, kind and
// metadata at the root and in embedded resources), as kube-apiserver prunes custom
// resources, and returns the paths of what it removed in the form kube-apiserver's
// fieldValidation=Strict|Warn reports them ("spec.foo", "spec.items[0].bar").
func (s *Schema) Prune(obj map[string]any) []string {
	return prune(s.root, obj)
}

// PruneDecoded is Prune plus what kube-apiserver's decoding of a custom resource adds
// by decoding metadata into ObjectMeta: the fields of metadata that ObjectMeta does not
// have, at the root and in embedded resources, are removed and reported too, the
// root's first, then Prune's, then the embedded resources' (kube's order).
func (s *Schema) PruneDecoded(obj map[string]any) []string {
	unknown := pruneRootMeta(obj)
	unknown = append(unknown, prune(s.root, obj)...)
	return append(unknown, pruneEmbeddedMeta(obj, s.v.root)...)
}

// Default sets the schema's defaults in a whole object, in nested objects and in the
// items of arrays, as kube-apiserver defaults custom resources on write and on read
// from storage.
func (s *Schema) Default(obj map[string]any) {
	_, _ = s.DefaultWithin(obj, math.MaxInt64)
}

// DefaultWithin is Default bounded by the size of what the defaults add: it returns
// ErrDefaultsTooLarge, leaving obj partly defaulted, as soon as the next default would
// make the defaults add more than budget bytes to obj's JSON encoding, before that
// default is copied; otherwise it returns what they added. The count is from below
// (each key as if it needed no escaping, no commas), so an object it lets through may
// still be a little over a limit it was given; the count never refuses an object
// whose defaulted encoding is within budget bytes of the original's.
func (s *Schema) DefaultWithin(obj map[string]any, budget int64) (int64, error) {
	d := defaulter{sizes: s.defaultSizes, budget: budget}
	if !d.apply(s.root, obj) {
		return d.added, ErrDefaultsTooLarge
	}
	return d.added, nil
}

// RuleCompiler compiles the validation rules of a schema (x-kubernetes-validations:
// CEL expressions). Package github.com/apikit-dev/apikit/cel, a module of its own
// because cel-go is heavy, implements it; a server without one refuses schemas that
// have rules rather than ignore them.
type RuleCompiler interface {
	// Compile checks every rule of s (syntax, types, estimated cost against the
	// limits) and returns their validator; the errors are kube-apiserver's, with
	// field paths under fldPath.
	Compile(s *Schema, fldPath *validation.Path) (RuleValidator, validation.ErrorList)
}

// RuleValidator evaluates the compiled rules of a schema.
type RuleValidator interface {
	// Validate evaluates every rule on obj; old is the stored object of an update
	// (nil on create), which transition rules (oldSelf) compare against.
	Validate(ctx context.Context, obj, old map[string]any) validation.ErrorList
}
