package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// The Kubernetes vendor extensions a Schema has typed fields for. Any other extension goes
// in Schema.Extensions under its full name.
const (
	ExtGroupVersionKind      = "x-kubernetes-group-version-kind"
	ExtListType              = "x-kubernetes-list-type"
	ExtListMapKeys           = "x-kubernetes-list-map-keys"
	ExtMapType               = "x-kubernetes-map-type"
	ExtPatchStrategy         = "x-kubernetes-patch-strategy"
	ExtPatchMergeKey         = "x-kubernetes-patch-merge-key"
	ExtPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
	ExtIntOrString           = "x-kubernetes-int-or-string"
	ExtEmbeddedResource      = "x-kubernetes-embedded-resource"
	// ExtValidations holds CEL validation rules; they stay in Schema.Extensions, since
	// only a rule compiler (package github.com/apikit-dev/apikit/cel) reads them.
	ExtValidations = "x-kubernetes-validations"
)

// Schema is one OpenAPI schema object: the subset of JSON Schema that OpenAPI v3 and
// Swagger 2.0 share, plus the Kubernetes vendor extensions as typed fields. The same value
// renders as OpenAPI v3 (MarshalJSON, refs to #/components/schemas/NAME) or, inside a
// Swagger 2.0 Document, as Swagger 2.0 (refs to #/definitions/NAME).
type Schema struct {
	// Ref names a definition of the same document: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
	// not "#/components/schemas/...". Siblings of a Ref (description, default, extensions)
	// are kept: v3 renders them beside allOf: [{$ref}], Swagger 2.0 beside $ref, as
	// kube-apiserver does.
	Ref string

	Type        string
	Format      string
	Description string
	// Default is the JSON value a missing field defaults to; nil means none.
	Default  any
	Enum     []any
	Nullable bool

	Properties           map[string]*Schema
	Required             []string
	AdditionalProperties *Schema
	Items                *Schema

	AllOf []*Schema
	AnyOf []*Schema
	OneOf []*Schema
	Not   *Schema

	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum bool
	ExclusiveMaximum bool
	MultipleOf       *float64
	MinLength        *int64
	MaxLength        *int64
	Pattern          string
	MinItems         *int64
	MaxItems         *int64
	UniqueItems      bool
	MinProperties    *int64
	MaxProperties    *int64

	// PreserveUnknownFields is x-kubernetes-preserve-unknown-fields: the value may hold
	// fields the schema does not name (free-form JSON).
	PreserveUnknownFields bool
	// IntOrString is x-kubernetes-int-or-string: an integer or a string.
	IntOrString bool
	// EmbeddedResource is x-kubernetes-embedded-resource: a nested object with apiVersion,
	// kind and metadata.
	EmbeddedResource bool
	// ListType is x-kubernetes-list-type: "atomic", "set" or "map".
	ListType string
	// ListMapKeys is x-kubernetes-list-map-keys: the item fields that identify an item of
	// a list of type map.
	ListMapKeys []string
	// MapType is x-kubernetes-map-type: "atomic" or "granular".
	MapType string
	// PatchStrategy is x-kubernetes-patch-strategy for strategic merge patch: "merge",
	// "replace", "retainKeys" or a comma-separated combination.
	PatchStrategy string
	// PatchMergeKey is x-kubernetes-patch-merge-key: the item field strategic merge patch
	// matches list items by.
	PatchMergeKey string
	// GroupVersionKinds is x-kubernetes-group-version-kind: the kinds a top-level
	// definition serves. Clients (kubectl explain, apply) find a kind's schema by it.
	GroupVersionKinds []scheme.GroupVersionKind

	// Extensions holds any other vendor extension, keyed by its full "x-..." name.
	Extensions map[string]any
}

// spec selects the dialect a schema renders in.
type spec int

const (
	specV3 spec = iota
	specV2
)

func refPrefix(sp spec) string {
	if sp == specV2 {
		return "#/definitions/"
	}
	return "#/components/schemas/"
}

// MarshalJSON renders the schema as OpenAPI v3, with keys sorted as kube-apiserver does.
func (s *Schema) MarshalJSON() ([]byte, error) {
	return json.Marshal(s.render(specV3))
}

// render returns the schema as a JSON-ready map in the given dialect.
func (s *Schema) render(sp spec) map[string]any {
	if s == nil {
		return nil
	}
	if sp == specV2 {
		s = s.forV2()
	}
	m := map[string]any{}
	if s.Ref != "" {
		ref := map[string]any{"$ref": refPrefix(sp) + s.Ref}
		if sp == specV3 && s.hasSiblings() {
			allOf := []any{ref}
			for _, c := range s.AllOf {
				allOf = append(allOf, c.render(sp))
			}
			m["allOf"] = allOf
		} else {
			m["$ref"] = ref["$ref"]
		}
	}
	putString(m, "type", s.Type)
	putString(m, "format", s.Format)
	putString(m, "description", s.Description)
	if s.Default != nil {
		m["default"] = s.Default
	}
	if len(s.Enum) > 0 {
		m["enum"] = s.Enum
	}
	if s.Nullable && sp == specV3 {
		m["nullable"] = true
	}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for name, p := range s.Properties {
			props[name] = p.render(sp)
		}
		m["properties"] = props
	}
	if len(s.Required) > 0 {
		m["required"] = s.Required
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = s.AdditionalProperties.render(sp)
	}
	if s.Items != nil {
		m["items"] = s.Items.render(sp)
	}
	if _, done := m["allOf"]; !done {
		putSchemas(m, "allOf", s.AllOf, sp)
	}
	putSchemas(m, "anyOf", s.AnyOf, sp)
	putSchemas(m, "oneOf", s.OneOf, sp)
	if s.Not != nil {
		m["not"] = s.Not.render(sp)
	}
	putFloat(m, "minimum", s.Minimum)
	putFloat(m, "maximum", s.Maximum)
	putBool(m, "exclusiveMinimum", s.ExclusiveMinimum)
	putBool(m, "exclusiveMaximum", s.ExclusiveMaximum)
	putFloat(m, "multipleOf", s.MultipleOf)
	putInt(m, "minLength", s.MinLength)
	putInt(m, "maxLength", s.MaxLength)
	putString(m, "pattern", s.Pattern)
	putInt(m, "minItems", s.MinItems)
	putInt(m, "maxItems", s.MaxItems)
	putBool(m, "uniqueItems", s.UniqueItems)
	putInt(m, "minProperties", s.MinProperties)
	putInt(m, "maxProperties", s.MaxProperties)
	for k, v := range s.Extensions {
		m[k] = v
	}
	putBool(m, ExtPreserveUnknownFields, s.PreserveUnknownFields)
	putBool(m, ExtIntOrString, s.IntOrString)
	putBool(m, ExtEmbeddedResource, s.EmbeddedResource)
	putString(m, ExtListType, s.ListType)
	if len(s.ListMapKeys) > 0 {
		m[ExtListMapKeys] = s.ListMapKeys
	}
	putString(m, ExtMapType, s.MapType)
	putString(m, ExtPatchStrategy, s.PatchStrategy)
	putString(m, ExtPatchMergeKey, s.PatchMergeKey)
	if len(s.GroupVersionKinds) > 0 {
		gvks := make([]any, len(s.GroupVersionKinds))
		for i, gvk := range s.GroupVersionKinds {
			gvks[i] = map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
		}
		m[ExtGroupVersionKind] = gvks
	}
	return m
}

// hasSiblings reports whether a Ref schema carries anything besides the Ref.
func (s *Schema) hasSiblings() bool {
	c := *s
	c.Ref = ""
	return !c.isEmpty()
}

func (s *Schema) isEmpty() bool {
	return s.Ref == "" && s.Type == "" && s.Format == "" && s.Description == "" && s.Default == nil &&
		len(s.Enum) == 0 && !s.Nullable && len(s.Properties) == 0 && len(s.Required) == 0 &&
		s.AdditionalProperties == nil && s.Items == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 &&
		len(s.OneOf) == 0 && s.Not == nil && s.Minimum == nil && s.Maximum == nil &&
		!s.ExclusiveMinimum && !s.ExclusiveMaximum && s.MultipleOf == nil && s.MinLength == nil &&
		s.MaxLength == nil && s.Pattern == "" && s.MinItems == nil && s.MaxItems == nil &&
		!s.UniqueItems && s.MinProperties == nil && s.MaxProperties == nil &&
		!s.PreserveUnknownFields && !s.IntOrString && !s.EmbeddedResource && s.ListType == "" &&
		len(s.ListMapKeys) == 0 && s.MapType == "" && s.PatchStrategy == "" && s.PatchMergeKey == "" &&
		len(s.GroupVersionKinds) == 0 && len(s.Extensions) == 0
}

// forV2 returns the schema as kube-apiserver publishes it in Swagger 2.0, which cannot
// say what v3 says: junctors (allOf, anyOf, oneOf, not) are dropped; a nullable value
// loses its type, items and properties and is no longer required by its parent; a value
// that preserves unknown fields loses its items and properties (and an object its type);
// an array left without items loses its type. kubectl's Swagger 2.0 parser needs these.
// Children are converted when rendered; only this level is rewritten here.
func (s *Schema) forV2() *Schema {
	if len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil &&
		!s.Nullable && !s.PreserveUnknownFields && !(s.Type == "array" && s.Items == nil) &&
		!hasNullableChild(s) {
		return s
	}
	c := *s
	c.AllOf, c.AnyOf, c.OneOf, c.Not = nil, nil, nil, nil
	if c.Nullable {
		c.Type, c.Nullable = "", false
		c.Items, c.Properties = nil, nil
	}
	if c.PreserveUnknownFields {
		c.Items, c.Properties = nil, nil
	}
	if c.Items == nil && c.Type == "array" {
		c.Type = ""
	}
	if c.PreserveUnknownFields && c.Type == "object" {
		c.Type = ""
	}
	if len(c.Required) > 0 {
		if c.AdditionalProperties != nil && c.AdditionalProperties.Nullable {
			c.Required = nil
		} else {
			c.Required = slices.DeleteFunc(slices.Clone(c.Required), func(name string) bool {
				p := c.Properties[name]
				return p != nil && p.Nullable
			})
		}
	}
	return &c
}

func hasNullableChild(s *Schema) bool {
	if s.AdditionalProperties != nil && s.AdditionalProperties.Nullable && len(s.Required) > 0 {
		return true
	}
	for _, name := range s.Required {
		if p := s.Properties[name]; p != nil && p.Nullable {
			return true
		}
	}
	return false
}

func putString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

func putBool(m map[string]any, key string, v bool) {
	if v {
		m[key] = true
	}
}

func putFloat(m map[string]any, key string, v *float64) {
	if v != nil {
		m[key] = *v
	}
}

func putInt(m map[string]any, key string, v *int64) {
	if v != nil {
		m[key] = *v
	}
}

func putSchemas(m map[string]any, key string, ss []*Schema, sp spec) {
	if len(ss) == 0 {
		return
	}
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s.render(sp)
	}
	m[key] = out
}

// UnmarshalJSON reads a schema in either dialect: $ref may point into
// #/components/schemas/ or #/definitions/, and allOf: [{$ref}] with siblings is folded
// back into Ref. Unknown keys starting with "x-" land in Extensions; other unknown keys
// are an error, so that a typo does not silently drop a constraint.
func (s *Schema) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("openapi: schema: %w", err)
	}
	*s = Schema{}
	keys := slices.Sorted(maps.Keys(raw))
	for _, k := range keys {
		if err := s.setKey(k, raw[k]); err != nil {
			return fmt.Errorf("openapi: schema key %q: %w", k, err)
		}
	}
	// allOf: [{$ref: X}] beside siblings is how v3 spells a described reference.
	if s.Ref == "" && len(s.AllOf) == 1 && s.AllOf[0].Ref != "" && !s.AllOf[0].hasSiblings() {
		s.Ref, s.AllOf = s.AllOf[0].Ref, nil
	}
	return nil
}

func (s *Schema) setKey(k string, v json.RawMessage) error {
	switch k {
	case "$ref":
		var ref string
		if err := json.Unmarshal(v, &ref); err != nil {
			return err
		}
		for _, p := range []string{"#/components/schemas/", "#/definitions/"} {
			if name, ok := strings.CutPrefix(ref, p); ok {
				s.Ref = name
				return nil
			}
		}
		return fmt.Errorf("only references into the same document are supported, got %q", ref)
	case "type":
		return json.Unmarshal(v, &s.Type)
	case "format":
		return json.Unmarshal(v, &s.Format)
	case "description":
		return json.Unmarshal(v, &s.Description)
	case "default":
		return unmarshalValue(v, &s.Default)
	case "enum":
		return unmarshalValue(v, &s.Enum)
	case "nullable":
		return json.Unmarshal(v, &s.Nullable)
	case "properties":
		return json.Unmarshal(v, &s.Properties)
	case "required":
		return json.Unmarshal(v, &s.Required)
	case "additionalProperties":
		if string(v) == "true" || string(v) == "false" {
			// true is what "no additionalProperties" means; false (no extra keys) has no
			// Kubernetes equivalent beyond a closed set of properties.
			return nil
		}
		return json.Unmarshal(v, &s.AdditionalProperties)
	case "items":
		return json.Unmarshal(v, &s.Items)
	case "allOf":
		return json.Unmarshal(v, &s.AllOf)
	case "anyOf":
		return json.Unmarshal(v, &s.AnyOf)
	case "oneOf":
		return json.Unmarshal(v, &s.OneOf)
	case "not":
		return json.Unmarshal(v, &s.Not)
	case "minimum":
		return json.Unmarshal(v, &s.Minimum)
	case "maximum":
		return json.Unmarshal(v, &s.Maximum)
	case "exclusiveMinimum":
		return json.Unmarshal(v, &s.ExclusiveMinimum)
	case "exclusiveMaximum":
		return json.Unmarshal(v, &s.ExclusiveMaximum)
	case "multipleOf":
		return json.Unmarshal(v, &s.MultipleOf)
	case "minLength":
		return json.Unmarshal(v, &s.MinLength)
	case "maxLength":
		return json.Unmarshal(v, &s.MaxLength)
	case "pattern":
		return json.Unmarshal(v, &s.Pattern)
	case "minItems":
		return json.Unmarshal(v, &s.MinItems)
	case "maxItems":
		return json.Unmarshal(v, &s.MaxItems)
	case "uniqueItems":
		return json.Unmarshal(v, &s.UniqueItems)
	case "minProperties":
		return json.Unmarshal(v, &s.MinProperties)
	case "maxProperties":
		return json.Unmarshal(v, &s.MaxProperties)
	case ExtPreserveUnknownFields:
		return json.Unmarshal(v, &s.PreserveUnknownFields)
	case ExtIntOrString:
		return json.Unmarshal(v, &s.IntOrString)
	case ExtEmbeddedResource:
		return json.Unmarshal(v, &s.EmbeddedResource)
	case ExtListType:
		return json.Unmarshal(v, &s.ListType)
	case ExtListMapKeys:
		return json.Unmarshal(v, &s.ListMapKeys)
	case ExtMapType:
		return json.Unmarshal(v, &s.MapType)
	case ExtPatchStrategy:
		return json.Unmarshal(v, &s.PatchStrategy)
	case ExtPatchMergeKey:
		return json.Unmarshal(v, &s.PatchMergeKey)
	case ExtGroupVersionKind:
		var gvks []struct{ Group, Version, Kind string }
		if err := json.Unmarshal(v, &gvks); err != nil {
			return err
		}
		for _, g := range gvks {
			s.GroupVersionKinds = append(s.GroupVersionKinds, scheme.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
		}
		return nil
	case "title", "example", "externalDocs", "readOnly", "writeOnly", "xml", "discriminator", "deprecated":
		// Documentation-only keywords Kubernetes does not use; accepted and dropped.
		return nil
	}
	if strings.HasPrefix(k, "x-") {
		var val any
		if err := unmarshalValue(v, &val); err != nil {
			return err
		}
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		s.Extensions[k] = val
		return nil
	}
	return fmt.Errorf("unsupported schema keyword")
}

// unmarshalValue decodes a JSON value keeping integers exact (int64 where they fit).
func unmarshalValue[T any](b []byte, out *T) error {
	v, err := scheme.DecodeJSONValue(b)
	if err != nil {
		return err
	}
	t, ok := v.(T)
	if !ok && v != nil {
		return fmt.Errorf("expected %T, got %T", *out, v)
	}
	*out = t
	return nil
}

// Clone returns a deep copy of the schema.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := *s
	if s.Properties != nil {
		c.Properties = make(map[string]*Schema, len(s.Properties))
		for k, p := range s.Properties {
			c.Properties[k] = p.Clone()
		}
	}
	c.Required = slices.Clone(s.Required)
	c.AdditionalProperties = s.AdditionalProperties.Clone()
	c.Items = s.Items.Clone()
	c.AllOf = cloneSchemas(s.AllOf)
	c.AnyOf = cloneSchemas(s.AnyOf)
	c.OneOf = cloneSchemas(s.OneOf)
	c.Not = s.Not.Clone()
	c.Default = scheme.DeepCopyJSONValue(s.Default)
	if s.Enum != nil {
		c.Enum = make([]any, len(s.Enum))
		for i, e := range s.Enum {
			c.Enum[i] = scheme.DeepCopyJSONValue(e)
		}
	}
	c.Minimum = clonePtr(s.Minimum)
	c.Maximum = clonePtr(s.Maximum)
	c.MultipleOf = clonePtr(s.MultipleOf)
	c.MinLength = clonePtr(s.MinLength)
	c.MaxLength = clonePtr(s.MaxLength)
	c.MinItems = clonePtr(s.MinItems)
	c.MaxItems = clonePtr(s.MaxItems)
	c.MinProperties = clonePtr(s.MinProperties)
	c.MaxProperties = clonePtr(s.MaxProperties)
	c.ListMapKeys = slices.Clone(s.ListMapKeys)
	c.GroupVersionKinds = slices.Clone(s.GroupVersionKinds)
	if s.Extensions != nil {
		c.Extensions = make(map[string]any, len(s.Extensions))
		for k, v := range s.Extensions {
			c.Extensions[k] = scheme.DeepCopyJSONValue(v)
		}
	}
	return &c
}

func cloneSchemas(ss []*Schema) []*Schema {
	if ss == nil {
		return nil
	}
	out := make([]*Schema, len(ss))
	for i, s := range ss {
		out[i] = s.Clone()
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// walk calls fn for s and every schema nested in it, depth first, in a stable order.
// HasRules reports whether s or a schema below it has CEL validation rules
// (ExtValidations).
func (s *Schema) HasRules() bool {
	found := false
	s.walk(func(n *Schema) {
		_, ok := n.Extensions[ExtValidations]
		found = found || ok
	})
	return found
}

func (s *Schema) walk(fn func(*Schema)) {
	if s == nil {
		return
	}
	fn(s)
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s.Properties[name].walk(fn)
	}
	s.AdditionalProperties.walk(fn)
	s.Items.walk(fn)
	for _, group := range [][]*Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range group {
			c.walk(fn)
		}
	}
	s.Not.walk(fn)
}
