package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
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
//
// The document is decoded once and the schema built from that tree, so the cost is
// linear in its size however deep it nests (decoding each nested schema from its own
// bytes scanned each level again, quadratic in the depth); an error names the path of
// the key it is about from this schema ("properties.spec.type").
func (s *Schema) UnmarshalJSON(b []byte) error {
	v, err := scheme.DecodeJSONValue(b)
	if err != nil {
		return fmt.Errorf("openapi: schema: %w", err)
	}
	if err := s.fromValue(v); err != nil {
		var ke *keyError
		if errors.As(err, &ke) {
			return ke
		}
		return fmt.Errorf("openapi: schema: %w", err)
	}
	return nil
}

// keyError is an error in the value of a schema keyword, with the path of keys down
// to it, innermost first: a nested schema's error gains its parent's key on the way
// up, so that the message is built once whatever the depth.
type keyError struct {
	path []string
	err  error
}

func (e *keyError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		if b.Len() > 0 && !strings.HasPrefix(e.path[i], "[") {
			b.WriteByte('.')
		}
		b.WriteString(e.path[i])
	}
	return fmt.Sprintf("openapi: schema key %q: %v", b.String(), e.err)
}

func (e *keyError) Unwrap() error { return e.err }

// under adds key in front of the path of err, a keyError of a nested schema or the
// error of key's own value.
func under(key string, err error) error {
	var ke *keyError
	if errors.As(err, &ke) {
		ke.path = append(ke.path, key)
		return ke
	}
	return &keyError{path: []string{key}, err: err}
}

// fromValue sets s from a schema decoded by scheme.DecodeJSONValue.
func (s *Schema) fromValue(v any) error {
	*s = Schema{}
	if v == nil {
		return nil // null, as encoding/json reads it into a struct: no change
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return mismatch(v, "map[string]json.RawMessage")
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if err := s.setKey(k, raw[k]); err != nil {
			return under(k, err)
		}
	}
	// allOf: [{$ref: X}] beside siblings is how v3 spells a described reference.
	if s.Ref == "" && len(s.AllOf) == 1 && s.AllOf[0] != nil && s.AllOf[0].Ref != "" && !s.AllOf[0].hasSiblings() {
		s.Ref, s.AllOf = s.AllOf[0].Ref, nil
	}
	return nil
}

// mismatch is encoding/json's error for a value of the wrong JSON type.
func mismatch(v any, goType string) error {
	kind := "number"
	switch v.(type) {
	case string:
		kind = "string"
	case bool:
		kind = "bool"
	case []any:
		kind = "array"
	case map[string]any:
		kind = "object"
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", kind, goType)
}

// schemaFrom returns the schema of a decoded value, nil for null.
func schemaFrom(v any) (*Schema, error) {
	if v == nil {
		return nil, nil
	}
	c := new(Schema)
	if err := c.fromValue(v); err != nil {
		return nil, err
	}
	return c, nil
}

// schemasFrom returns the schemas of a decoded array (allOf, anyOf, oneOf).
func schemasFrom(v any) ([]*Schema, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, mismatch(v, "[]*openapi.Schema")
	}
	out := make([]*Schema, len(list))
	for i, e := range list {
		c, err := schemaFrom(e)
		if err != nil {
			return nil, under("["+strconv.Itoa(i)+"]", err)
		}
		out[i] = c
	}
	return out, nil
}

// leaf decodes a keyword's value of a plain Go type as encoding/json would (with its
// errors): the value, small by the nature of these keywords, is encoded again and
// read into out.
func leaf[T any](v any, out *T) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// value sets out to a keyword's value of any JSON type (default, enum, extensions),
// as decoded: integers exact (int64 where they fit).
func value[T any](v any, out *T) error {
	t, ok := v.(T)
	if !ok && v != nil {
		return fmt.Errorf("expected %T, got %T", *out, v)
	}
	*out = t
	return nil
}

func (s *Schema) setKey(k string, v any) error {
	var err error
	switch k {
	case "$ref":
		var ref string
		if err := leaf(v, &ref); err != nil {
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
		return leaf(v, &s.Type)
	case "format":
		return leaf(v, &s.Format)
	case "description":
		return leaf(v, &s.Description)
	case "default":
		return value(v, &s.Default)
	case "enum":
		return value(v, &s.Enum)
	case "nullable":
		return leaf(v, &s.Nullable)
	case "properties":
		if v == nil {
			return nil
		}
		props, ok := v.(map[string]any)
		if !ok {
			return mismatch(v, "map[string]*openapi.Schema")
		}
		s.Properties = make(map[string]*Schema, len(props))
		for name, p := range props {
			if s.Properties[name], err = schemaFrom(p); err != nil {
				return under(name, err)
			}
		}
		return nil
	case "required":
		return leaf(v, &s.Required)
	case "additionalProperties":
		if _, ok := v.(bool); ok {
			// true is what "no additionalProperties" means; false (no extra keys) has no
			// Kubernetes equivalent beyond a closed set of properties.
			return nil
		}
		s.AdditionalProperties, err = schemaFrom(v)
		return err
	case "items":
		s.Items, err = schemaFrom(v)
		return err
	case "allOf":
		s.AllOf, err = schemasFrom(v)
		return err
	case "anyOf":
		s.AnyOf, err = schemasFrom(v)
		return err
	case "oneOf":
		s.OneOf, err = schemasFrom(v)
		return err
	case "not":
		s.Not, err = schemaFrom(v)
		return err
	case "minimum":
		return leaf(v, &s.Minimum)
	case "maximum":
		return leaf(v, &s.Maximum)
	case "exclusiveMinimum":
		return leaf(v, &s.ExclusiveMinimum)
	case "exclusiveMaximum":
		return leaf(v, &s.ExclusiveMaximum)
	case "multipleOf":
		return leaf(v, &s.MultipleOf)
	case "minLength":
		return leaf(v, &s.MinLength)
	case "maxLength":
		return leaf(v, &s.MaxLength)
	case "pattern":
		return leaf(v, &s.Pattern)
	case "minItems":
		return leaf(v, &s.MinItems)
	case "maxItems":
		return leaf(v, &s.MaxItems)
	case "uniqueItems":
		return leaf(v, &s.UniqueItems)
	case "minProperties":
		return leaf(v, &s.MinProperties)
	case "maxProperties":
		return leaf(v, &s.MaxProperties)
	case ExtPreserveUnknownFields:
		return leaf(v, &s.PreserveUnknownFields)
	case ExtIntOrString:
		return leaf(v, &s.IntOrString)
	case ExtEmbeddedResource:
		return leaf(v, &s.EmbeddedResource)
	case ExtListType:
		return leaf(v, &s.ListType)
	case ExtListMapKeys:
		return leaf(v, &s.ListMapKeys)
	case ExtMapType:
		return leaf(v, &s.MapType)
	case ExtPatchStrategy:
		return leaf(v, &s.PatchStrategy)
	case ExtPatchMergeKey:
		return leaf(v, &s.PatchMergeKey)
	case ExtGroupVersionKind:
		var gvks []struct{ Group, Version, Kind string }
		if err := leaf(v, &gvks); err != nil {
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
		if err := value(v, &val); err != nil {
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
