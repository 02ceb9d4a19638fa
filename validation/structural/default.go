package structural

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// ErrDefaultsTooLarge is the error of DefaultWithin when the defaults of a schema would
// make an object larger than the bound it was given.
var ErrDefaultsTooLarge = errors.New("structural: the defaults would make the object larger than the limit")

// defaulter sets the defaults of a schema in one object, counting the bytes they add
// to the object's JSON encoding so that it stops before they pass its budget: a body
// of a few kilobytes may name thousands of items whose default is tens of kilobytes,
// and building that object (let alone encoding it) is what a size limit is for.
type defaulter struct {
	// sizes holds the length of the JSON encoding of each schema node's default.
	sizes map[*openapi.Schema]int64
	// added is what the defaults set so far add to the encoding, counted from below:
	// a field's key as if it needed no escaping, no comma before it.
	added, budget int64
}

// defaultSizes measures the JSON encoding of every default that apply sets
// (those of properties, additionalProperties and items), once per compiled schema.
func defaultSizes(root *openapi.Schema) map[*openapi.Schema]int64 {
	sizes := map[*openapi.Schema]int64{}
	var walk func(s *openapi.Schema)
	walk = func(s *openapi.Schema) {
		if s == nil {
			return
		}
		if _, seen := sizes[s]; seen {
			return
		}
		sizes[s] = 0
		if s.Default != nil {
			if b, err := json.Marshal(s.Default); err == nil {
				sizes[s] = int64(len(b))
			}
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.AdditionalProperties)
		walk(s.Items)
	}
	walk(root)
	return sizes
}

// grow counts n more bytes of defaults, and tells whether they stay within the budget.
func (d *defaulter) grow(n int64) bool {
	if d.added+n > d.budget {
		return false
	}
	d.added += n
	return true
}

// setField is the cost of setting field k to the default of prop: replacing a null,
// or adding `"k":` and the value.
func (d *defaulter) setField(k string, present bool, prop *openapi.Schema) bool {
	if present {
		return d.grow(d.sizes[prop] - int64(len("null")))
	}
	return d.grow(int64(len(k)+len(`"":`)) + d.sizes[prop])
}

// apply sets the defaults of s in x as kube-apiserver's structural defaulting does,
// top-down: in an object, first every absent property with a default (or present as
// null when the property is not nullable) gets a deep copy of it, then every field is
// defaulted below, defaults just set included; in an array, null items of
// non-nullable items get the items' default, then every item is defaulted below; the
// values of additionalProperties likewise. It stops, reporting false, before a
// default that would pass the budget is copied.
func (d *defaulter) apply(s *openapi.Schema, x any) bool {
	if s == nil {
		return true
	}
	switch x := x.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, found := x[k]; !found || nonNullableNull(v, prop) {
				if !d.setField(k, found, prop) {
					return false
				}
				x[k] = scheme.DeepCopyJSONValue(prop.Default)
			}
		}
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				if !d.apply(prop, v) {
					return false
				}
				continue
			}
			if ap := s.AdditionalProperties; ap != nil {
				if nonNullableNull(v, ap) && ap.Default != nil {
					if !d.setField(k, true, ap) {
						return false
					}
					v = scheme.DeepCopyJSONValue(ap.Default)
					x[k] = v
				}
				if !d.apply(ap, v) {
					return false
				}
			}
		}
	case []any:
		for i, v := range x {
			if nonNullableNull(v, s.Items) && s.Items.Default != nil {
				if !d.setField("", true, s.Items) {
					return false
				}
				v = scheme.DeepCopyJSONValue(s.Items.Default)
				x[i] = v
			}
			if !d.apply(s.Items, v) {
				return false
			}
		}
	}
	return true
}

func nonNullableNull(v any, s *openapi.Schema) bool {
	return v == nil && s != nil && !s.Nullable
}

// checkDefaults reports the default values kube-apiserver refuses in a CRD
// (apiextensions' ValidateDefaults with pruned defaults required): a default with
// fields its schema would prune ("must not have unknown fields"), and a default that
// does not validate against its schema, with the errors of Validate under the
// default's path. Defaults in additionalProperties are not looked at (the OpenAPI
// checks forbid them where they would matter).
//
// Not checked, unlike kube: that defaults of an embedded resource's apiVersion, kind
// and metadata make valid metadata, and the CEL rules of a defaulted value (those are
// the RuleCompiler's).
func checkDefaults(root *openapi.Schema, fldPath *validation.Path) validation.ErrorList {
	return defaultsBelow(root, fldPath, true, false)
}

func defaultsBelow(s *openapi.Schema, p *validation.Path, resource, insideMeta bool) validation.ErrorList {
	if s == nil {
		return nil
	}
	if s.EmbeddedResource {
		resource, insideMeta = true, false
	}
	var errs validation.ErrorList
	if s.Default != nil {
		dp := p.Child("default")
		if !insideMeta {
			pruned := scheme.DeepCopyJSONValue(s.Default)
			pruneValue(pruned, s, resource)
			if !reflect.DeepEqual(pruned, s.Default) {
				errs = append(errs, validation.Invalid(dp, s.Default, "must not have unknown fields"))
			}
		}
		switch {
		case insideMeta:
			// kube checks the metadata such a default makes; see checkDefaults.
			errs = append(errs, validateValue(s, s.Default, dp)...)
		default:
			if err := embeddedTypeMeta(dp, s.Default, s, resource); err != nil {
				errs = append(errs, err)
			} else if merrs := embeddedResources(dp, s.Default, s, resource); len(merrs) > 0 {
				errs = append(errs, merrs...)
			} else {
				errs = append(errs, validateValue(s, s.Default, dp)...)
			}
		}
	}
	errs = append(errs, defaultsBelow(s.Items, p.Child("items"), false, insideMeta)...)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		errs = append(errs, defaultsBelow(s.Properties[k], p.Child("properties").Key(k), false, insideMeta || (resource && metaFields[k]))...)
	}
	return errs
}

// validateValue validates one value (a default: any JSON value) against the schema of
// its node, as kube validates a default against the node's schema, with the errors'
// fields under p.
func validateValue(s *openapi.Schema, value any, p *validation.Path) validation.ErrorList {
	v := &validator{root: compileNode(s, nil, compileOptions{untypedIntOrString: true})}
	return v.validateValue(scheme.DeepCopyJSONValue(value), p)
}

// embeddedTypeMeta finds the first apiVersion or kind of an embedded resource in x (a
// value of s) that is not a string, as kube's metadata coercion does before anything
// else.
func embeddedTypeMeta(p *validation.Path, x any, s *openapi.Schema, resource bool) *validation.Error {
	if s == nil {
		return nil
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			v := x[k]
			if resource && (k == "apiVersion" || k == "kind") {
				if _, ok := v.(string); !ok {
					return validation.Invalid(p.Child(k), v, "must be a string")
				}
			}
			if prop, ok := s.Properties[k]; ok {
				if err := embeddedTypeMeta(p.Child(k), v, prop, prop.EmbeddedResource); err != nil {
					return err
				}
			} else if ap := s.AdditionalProperties; ap != nil {
				if err := embeddedTypeMeta(p.Key(k), v, ap, ap.EmbeddedResource); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, v := range x {
			if err := embeddedTypeMeta(p.Index(i), v, s.Items, s.Items != nil && s.Items.EmbeddedResource); err != nil {
				return err
			}
		}
	}
	return nil
}

// embeddedResources checks the apiVersion, kind and metadata of every embedded
// resource in x (a value of s; x itself when resource), as kube's objectmeta.Validate
// does: apiVersion and kind are required, non-empty, a group version and a DNS-1035
// label (of any case); metadata is valid ObjectMeta whose name, if set, is a path
// segment.
func embeddedResources(p *validation.Path, x any, s *openapi.Schema, resource bool) validation.ErrorList {
	if s == nil {
		return nil
	}
	var errs validation.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if resource {
			errs = append(errs, embeddedResource(p, x)...)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, embeddedResources(p.Child(k), x[k], prop, prop.EmbeddedResource)...)
			} else if ap := s.AdditionalProperties; ap != nil {
				errs = append(errs, embeddedResources(p.Key(k), x[k], ap, ap.EmbeddedResource)...)
			}
		}
	case []any:
		for i, v := range x {
			errs = append(errs, embeddedResources(p.Index(i), v, s.Items, s.Items != nil && s.Items.EmbeddedResource)...)
		}
	}
	return errs
}

func embeddedResource(p *validation.Path, x map[string]any) validation.ErrorList {
	var errs validation.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, validation.Required(p.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, validation.Required(p.Child("kind"), ""))
	}
	if v, ok := x["apiVersion"].(string); ok {
		switch {
		case v == "":
			errs = append(errs, validation.Invalid(p.Child("apiVersion"), v, "must not be empty"))
		case strings.Count(v, "/") > 1:
			errs = append(errs, validation.Invalid(p.Child("apiVersion"), v, "unexpected GroupVersion string: "+v))
		}
	}
	if v, ok := x["kind"].(string); ok {
		if v == "" {
			errs = append(errs, validation.Invalid(p.Child("kind"), v, "must not be empty"))
		} else if msgs := validation.IsDNS1035Label(strings.ToLower(v)); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(p.Child("kind"), v, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
		}
	}
	if m, ok := x["metadata"]; ok {
		mp := p.Child("metadata")
		var meta scheme.ObjectMeta
		b, err := json.Marshal(m)
		if err == nil {
			err = json.Unmarshal(b, &meta)
		}
		if err != nil {
			return append(errs, validation.Invalid(mp, m, err.Error()))
		}
		if meta.Name == "" {
			meta.Name = "fakename" // as kube does, so that a missing name is no error
		}
		errs = append(errs, validation.ValidateObjectMeta(&meta, meta.Namespace != "", validation.NameIsPathSegment, mp)...)
	}
	return errs
}
