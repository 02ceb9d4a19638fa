package cel

import (
	"github.com/apikit-dev/apikit/scheme/openapi"
	"k8s.io/apiserver/pkg/cel/common"
)

// schemaView shows an *openapi.Schema through the Schema interface of
// k8s.io/apiserver/pkg/cel/common, which builds CEL types (SchemaDeclType), CEL values
// (UnstructuredToVal), list-map lookups (MakeMapList) and old/new correlation
// (NewCorrelatedObject) the way kube-apiserver does for a structural schema.
//
// As in a structural schema, only the schema's own properties, items and
// additionalProperties make the types: those under allOf, anyOf, oneOf and not are
// value validations and never add fields.
type schemaView struct {
	s *openapi.Schema
}

var (
	_ common.Schema       = schemaView{}
	_ common.SchemaOrBool = schemaOrBool{}
)

// view returns the common.Schema of s, or nil (an untyped nil interface) for a nil s.
func view(s *openapi.Schema) common.Schema {
	if s == nil {
		return nil
	}
	return schemaView{s: s}
}

func (v schemaView) Type() string   { return v.s.Type }
func (v schemaView) Format() string { return v.s.Format }
func (v schemaView) Items() common.Schema {
	return view(v.s.Items)
}

func (v schemaView) Properties() map[string]common.Schema {
	if v.s.Properties == nil {
		return nil
	}
	props := make(map[string]common.Schema, len(v.s.Properties))
	for name, p := range v.s.Properties {
		props[name] = schemaView{s: p}
	}
	return props
}

func (v schemaView) AdditionalProperties() common.SchemaOrBool {
	if v.s.AdditionalProperties == nil {
		return nil
	}
	return schemaOrBool{s: v.s.AdditionalProperties}
}

func (v schemaView) Default() any             { return v.s.Default }
func (v schemaView) Pattern() string          { return v.s.Pattern }
func (v schemaView) Minimum() *float64        { return v.s.Minimum }
func (v schemaView) IsExclusiveMinimum() bool { return v.s.ExclusiveMinimum }
func (v schemaView) Maximum() *float64        { return v.s.Maximum }
func (v schemaView) IsExclusiveMaximum() bool { return v.s.ExclusiveMaximum }
func (v schemaView) MultipleOf() *float64     { return v.s.MultipleOf }
func (v schemaView) MinItems() *int64         { return v.s.MinItems }
func (v schemaView) MaxItems() *int64         { return v.s.MaxItems }
func (v schemaView) MinLength() *int64        { return v.s.MinLength }
func (v schemaView) MaxLength() *int64        { return v.s.MaxLength }
func (v schemaView) MinProperties() *int64    { return v.s.MinProperties }
func (v schemaView) MaxProperties() *int64    { return v.s.MaxProperties }
func (v schemaView) Required() []string       { return v.s.Required }
func (v schemaView) Enum() []any              { return v.s.Enum }
func (v schemaView) Nullable() bool           { return v.s.Nullable }

// UniqueItems is false as in kube: structural schemas forbid uniqueItems (list-type
// set says the same thing).
func (v schemaView) UniqueItems() bool { return false }

func (v schemaView) AllOf() []common.Schema { return views(v.s.AllOf) }
func (v schemaView) OneOf() []common.Schema { return views(v.s.OneOf) }
func (v schemaView) AnyOf() []common.Schema { return views(v.s.AnyOf) }
func (v schemaView) Not() common.Schema     { return view(v.s.Not) }

func views(ss []*openapi.Schema) []common.Schema {
	var out []common.Schema
	for _, s := range ss {
		out = append(out, schemaView{s: s})
	}
	return out
}

func (v schemaView) IsXIntOrString() bool           { return v.s.IntOrString }
func (v schemaView) IsXEmbeddedResource() bool      { return v.s.EmbeddedResource }
func (v schemaView) IsXPreserveUnknownFields() bool { return v.s.PreserveUnknownFields }
func (v schemaView) XListType() string              { return v.s.ListType }
func (v schemaView) XListMapKeys() []string         { return v.s.ListMapKeys }
func (v schemaView) XMapType() string               { return v.s.MapType }

func (v schemaView) XValidations() []common.ValidationRule {
	rules, _ := rulesOf(v.s)
	out := make([]common.ValidationRule, len(rules))
	for i := range rules {
		out[i] = ruleView{r: rules[i]}
	}
	return out
}

// WithTypeAndObjectMeta returns the schema of a resource root (a custom resource or
// an embedded resource) as CEL sees it: apiVersion and kind are strings, and metadata
// shows only name and generateName, whatever the schema says of metadata.
func (v schemaView) WithTypeAndObjectMeta() common.Schema {
	return schemaView{s: withTypeAndObjectMeta(v.s)}
}

// nameMaxLength is the longest metadata.name (a DNS-1123 subdomain); CEL's cost
// estimate takes it as the size of metadata.name.
const nameMaxLength = 253

func withTypeAndObjectMeta(s *openapi.Schema) *openapi.Schema {
	if p := s.Properties; p != nil &&
		p["kind"] != nil && p["kind"].Type == "string" &&
		p["apiVersion"] != nil && p["apiVersion"].Type == "string" &&
		p["metadata"] != nil && p["metadata"].Type == "object" && p["metadata"].Properties != nil &&
		p["metadata"].Properties["name"] != nil && p["metadata"].Properties["name"].Type == "string" &&
		p["metadata"].Properties["generateName"] != nil && p["metadata"].Properties["generateName"].Type == "string" {
		return s
	}
	// A shallow copy with the structural fields (not the value validations under
	// allOf & co., which kube keeps but which never shape the type).
	out := *s
	out.Properties = make(map[string]*openapi.Schema, len(s.Properties)+3)
	for name, p := range s.Properties {
		out.Properties[name] = p
	}
	out.Properties["kind"] = &openapi.Schema{Type: "string"}
	out.Properties["apiVersion"] = &openapi.Schema{Type: "string"}
	var metaProps map[string]*openapi.Schema
	if m := s.Properties["metadata"]; m != nil {
		metaProps = m.Properties
	}
	out.Properties["metadata"] = &openapi.Schema{
		Type: "object",
		Properties: map[string]*openapi.Schema{
			"name":         cappedString(metaProps["name"], nameMaxLength),
			"generateName": cappedString(metaProps["generateName"], nameMaxLength-1), // the generated suffix is at least 1 byte
		},
	}
	return &out
}

// cappedString is a string schema no longer than maxLength, or than the existing
// schema's maxLength when that is shorter.
func cappedString(existing *openapi.Schema, maxLength int64) *openapi.Schema {
	if existing != nil && existing.MaxLength != nil && *existing.MaxLength < maxLength {
		maxLength = *existing.MaxLength
	}
	return &openapi.Schema{Type: "string", MaxLength: &maxLength}
}

type schemaOrBool struct {
	s *openapi.Schema
}

func (b schemaOrBool) Schema() common.Schema { return view(b.s) }

// Allows is true: an openapi.Schema's additionalProperties is always a schema, which
// allows the properties it describes.
func (b schemaOrBool) Allows() bool { return true }
