package structural

import (
	"reflect"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// applyDefaults sets the defaults of s in x as kube-apiserver's structural defaulting
// does, top-down: in an object, first every absent property with a default (or
// present as null when the property is not nullable) gets a deep copy of it, then
// every field is defaulted below, defaults just set included; in an array, null items
// of non-nullable items get the items' default, then every item is defaulted below;
// the values of additionalProperties likewise.
func applyDefaults(s *openapi.Schema, x any) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, found := x[k]; !found || nonNullableNull(v, prop) {
				x[k] = scheme.DeepCopyJSONValue(prop.Default)
			}
		}
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				applyDefaults(prop, v)
				continue
			}
			if ap := s.AdditionalProperties; ap != nil {
				if nonNullableNull(v, ap) && ap.Default != nil {
					v = scheme.DeepCopyJSONValue(ap.Default)
					x[k] = v
				}
				applyDefaults(ap, v)
			}
		}
	case []any:
		for i, v := range x {
			if nonNullableNull(v, s.Items) && s.Items.Default != nil {
				v = scheme.DeepCopyJSONValue(s.Items.Default)
				x[i] = v
			}
			applyDefaults(s.Items, v)
		}
	}
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
		errs = append(errs, validateValue(s, s.Default, dp)...)
	}
	errs = append(errs, defaultsBelow(s.Items, p.Child("items"), false, insideMeta)...)
	for _, k := range sortedKeys(s.Properties) {
		errs = append(errs, defaultsBelow(s.Properties[k], p.Child("properties").Key(k), false, insideMeta || (resource && metaFields[k]))...)
	}
	return errs
}

// defaultField is the field validateValue puts a value under, so that the validator,
// which validates objects, sees any value.
const defaultField = "default"

// validateValue validates one value (a default: any JSON value) against the schema of
// its node, as kube validates a default against the node's schema, with the errors'
// fields under p.
func validateValue(s *openapi.Schema, value any, p *validation.Path) validation.ErrorList {
	wrapper := &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{defaultField: s}}
	v, errs := newValidator(wrapper, nil)
	if len(errs) > 0 {
		return errs
	}
	prefix := p.String()
	var out validation.ErrorList
	for _, e := range v.validate(map[string]any{defaultField: scheme.DeepCopyJSONValue(value)}) {
		rest, ok := strings.CutPrefix(e.Field, defaultField)
		if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
			continue // the wrapper's own fields, not the value's
		}
		c := *e
		c.Field = prefix + rest
		out = append(out, &c)
	}
	return out
}
