package structural

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// checkStructural reports what kube-apiserver reports about a v1
// CustomResourceDefinition's openAPIV3Schema, in its order:
//
//  1. nullable at the root;
//  2. the structural-schema invariants and completeness (apiextensions'
//     ValidateStructural), sorted by message as kube sorts them, or, when the schema is
//     structural, the checks of default values (ValidateDefaults: they validate and are
//     pruned);
//  3. the OpenAPI checks of every node (ValidateCustomResourceDefinitionOpenAPISchema:
//     forbidden keywords, list and map types, static x-kubernetes-validations checks).
//
// A schema with a $ref anywhere skips step 2, as kube does: it cannot even build the
// structural form of such a schema, and reports the $ref in step 3.
//
// The CEL compilation of x-kubernetes-validations rules belongs to the RuleCompiler.
func checkStructural(root *openapi.Schema, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if root == nil {
		return nil
	}
	if root.Nullable {
		errs = append(errs, validation.Forbidden(fldPath.Child("nullable"), "nullable cannot be true at the root"))
	}
	if !hasRef(root) {
		structErrs := structuralInvariants(root, rootLevel, fldPath)
		structErrs = append(structErrs, completeness(root, root, fldPath, fldPath)...)
		sort.SliceStable(structErrs, func(i, j int) bool { return structErrs[i].Error() < structErrs[j].Error() })
		if len(structErrs) > 0 {
			errs = append(errs, structErrs...)
		} else {
			errs = append(errs, checkDefaults(root, fldPath)...)
		}
	}
	errs = append(errs, openAPIChecks(root, fldPath, openAPIContext{allowDefaults: true}, true)...)
	return errs
}

func hasRef(s *openapi.Schema) bool {
	if s == nil {
		return false
	}
	if s.Ref != "" || hasRef(s.Items) || hasRef(s.AdditionalProperties) || hasRef(s.Not) {
		return true
	}
	for _, p := range s.Properties {
		if hasRef(p) {
			return true
		}
	}
	for _, group := range [][]*openapi.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		if slices.ContainsFunc(group, hasRef) {
			return true
		}
	}
	return false
}

// level is where a node sits in the structural part of a schema; the message of a
// missing type names it.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// metaFields are the fields of a resource (the root, or an embedded resource) that
// pruning and the schema checks leave to TypeMeta and ObjectMeta.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// structuralInvariants checks one node of the structural part (properties, items,
// additionalProperties) and what its junctors (allOf, anyOf, oneOf, not) may say.
func structuralInvariants(s *openapi.Schema, lvl level, p *validation.Path) validation.ErrorList {
	if s == nil {
		return nil
	}
	var errs validation.ErrorList
	if s.Type == "array" && s.Items == nil {
		errs = append(errs, validation.Required(p.Child("items"), "must be specified"))
	}
	errs = append(errs, structuralInvariants(s.Items, itemLevel, p.Child("items"))...)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		errs = append(errs, structuralInvariants(s.Properties[k], fieldLevel, p.Child("properties").Key(k))...)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, validation.Forbidden(p.Child("additionalProperties"), "must not be used at the root"))
		}
		errs = append(errs, structuralInvariants(s.AdditionalProperties, fieldLevel, p.Child("additionalProperties"))...)
	}
	if s.IntOrString && s.PreserveUnknownFields {
		errs = append(errs, validation.Invalid(p.Child(openapi.ExtPreserveUnknownFields), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.IntOrString && s.EmbeddedResource {
		errs = append(errs, validation.Invalid(p.Child(openapi.ExtEmbeddedResource), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	errs = append(errs, junctors(s, isIntOrStringAnyOf(s.AnyOf), len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf), p)...)

	resource := lvl == rootLevel || s.EmbeddedResource
	switch {
	case s.EmbeddedResource && s.Type != "object":
		if s.Type == "" {
			errs = append(errs, validation.Required(p.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			errs = append(errs, validation.Invalid(p.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	case s.Type == "" && !s.IntOrString && !s.PreserveUnknownFields:
		detail := map[level]string{
			rootLevel:  "must not be empty at the root",
			itemLevel:  "must not be empty for specified array items",
			fieldLevel: "must not be empty for specified object fields",
		}[lvl]
		errs = append(errs, validation.Required(p.Child("type"), detail))
	}
	if s.EmbeddedResource && s.AdditionalProperties != nil {
		errs = append(errs, validation.Forbidden(p.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		errs = append(errs, validation.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
	for _, name := range []string{"kind", "apiVersion"} {
		if f, ok := s.Properties[name]; ok && resource && f.Type != "string" {
			errs = append(errs, validation.Invalid(p.Child("properties").Key(name).Child("type"), f.Type, "must be string"))
		}
	}
	if meta, ok := s.Properties["metadata"]; ok {
		mp := p.Child("properties").Key("metadata")
		if resource && meta.Type != "object" {
			errs = append(errs, validation.Invalid(mp.Child("type"), meta.Type, "must be object"))
		}
		if lvl == rootLevel && !onlyNamesInMetadata(meta) {
			errs = append(errs, validation.Forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	if s.EmbeddedResource && !s.PreserveUnknownFields && len(s.Properties) == 0 {
		errs = append(errs, validation.Required(p.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

// onlyNamesInMetadata reports whether the schema of the root's metadata restricts
// nothing but name and generateName (its type and default are checked elsewhere).
func onlyNamesInMetadata(meta *openapi.Schema) bool {
	c := *meta
	_, name := c.Properties["name"]
	_, generateName := c.Properties["generateName"]
	if (name && generateName && len(c.Properties) == 2) || ((name || generateName) && len(c.Properties) == 1) {
		c.Properties = nil
	}
	c.Type, c.Default = "", nil
	// Documentation-only and server-side-apply-only fields kube has no place for in a
	// structural schema do not count.
	c.PatchStrategy, c.PatchMergeKey, c.GroupVersionKinds = "", "", nil
	c.Extensions = withoutUnknownExtensions(c.Extensions)
	return isEmptySchema(&c)
}

// withoutUnknownExtensions keeps the one extension of Schema.Extensions that kube's
// structural schema holds, x-kubernetes-validations.
func withoutUnknownExtensions(ext map[string]any) map[string]any {
	if v, ok := ext[openapi.ExtValidations]; ok {
		return map[string]any{openapi.ExtValidations: v}
	}
	return nil
}

func isEmptySchema(s *openapi.Schema) bool {
	b, err := s.MarshalJSON()
	return err == nil && string(b) == "{}" && s.Required == nil
}

// isIntOrStringAnyOf reports whether a junctor list is exactly the pattern
// x-kubernetes-int-or-string allows: anyOf: [{type: integer}, {type: string}].
func isIntOrStringAnyOf(anyOf []*openapi.Schema) bool {
	return len(anyOf) == 2 && onlyType(anyOf[0], "integer") && onlyType(anyOf[1], "string")
}

func onlyType(s *openapi.Schema, typ string) bool {
	if s == nil || s.Type != typ {
		return false
	}
	c := *s
	c.Type = ""
	c.Extensions = withoutUnknownExtensions(c.Extensions)
	c.PatchStrategy, c.PatchMergeKey, c.GroupVersionKinds = "", "", nil
	return isEmptySchema(&c)
}

// junctors checks the allOf, anyOf, oneOf and not of a node; skipAnyOf and
// skipFirstAllOfAnyOf exempt the int-or-string patterns.
func junctors(s *openapi.Schema, skipAnyOf, skipFirstAllOfAnyOf bool, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if !skipAnyOf {
		for i, c := range s.AnyOf {
			errs = append(errs, nestedInvariants(c, false, p.Child("anyOf").Index(i))...)
		}
	}
	for i, c := range s.AllOf {
		errs = append(errs, nestedInvariants(c, skipFirstAllOfAnyOf && i == 0, p.Child("allOf").Index(i))...)
	}
	for i, c := range s.OneOf {
		errs = append(errs, nestedInvariants(c, false, p.Child("oneOf").Index(i))...)
	}
	errs = append(errs, nestedInvariants(s.Not, false, p.Child("not"))...)
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, validation.Invalid(p.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

// nestedInvariants checks a schema under a junctor: it may only validate values,
// never say what the structure is.
func nestedInvariants(s *openapi.Schema, skipAnyOf bool, p *validation.Path) validation.ErrorList {
	if s == nil {
		return nil
	}
	errs := junctors(s, skipAnyOf, false, p)
	errs = append(errs, nestedInvariants(s.Items, false, p.Child("items"))...)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		errs = append(errs, nestedInvariants(s.Properties[k], false, p.Child("properties").Key(k))...)
	}
	forbid := func(field, detail string) {
		errs = append(errs, validation.Forbidden(p.Child(field), detail))
	}
	if s.Type != "" {
		forbid("type", "must be empty to be structural")
	}
	if s.AdditionalProperties != nil {
		forbid("additionalProperties", "must be undefined to be structural")
	}
	if s.Default != nil {
		forbid("default", "must be undefined to be structural")
	}
	if s.Description != "" {
		forbid("description", "must be empty to be structural")
	}
	if s.Nullable {
		forbid("nullable", "must be false to be structural")
	}
	if s.PreserveUnknownFields {
		forbid(openapi.ExtPreserveUnknownFields, "must be false to be structural")
	}
	if s.EmbeddedResource {
		forbid(openapi.ExtEmbeddedResource, "must be false to be structural")
	}
	if s.IntOrString {
		forbid(openapi.ExtIntOrString, "must be false to be structural")
	}
	if len(s.ListMapKeys) > 0 {
		forbid(openapi.ExtListMapKeys, "must be empty to be structural")
	}
	if s.ListType != "" {
		forbid(openapi.ExtListType, "must be undefined to be structural")
	}
	if s.MapType != "" {
		forbid(openapi.ExtMapType, "must be undefined to be structural")
	}
	if rules, _ := s.Extensions[openapi.ExtValidations].([]any); len(rules) > 0 {
		forbid(openapi.ExtValidations, "must be empty to be structural")
	}
	if _, ok := s.Properties["metadata"]; ok {
		errs = append(errs, validation.Forbidden(p.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// completeness checks that every property and items a junctor (v, at vPath) speaks of
// is also specified in the structural part (s, at sPath).
func completeness(v, s *openapi.Schema, sPath, vPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	errs = append(errs, nestedCompleteness(v.Not, s, sPath, vPath.Child("not"))...)
	for i, c := range v.AllOf {
		errs = append(errs, nestedCompleteness(c, s, sPath, vPath.Child("allOf").Index(i))...)
	}
	for i, c := range v.AnyOf {
		errs = append(errs, nestedCompleteness(c, s, sPath, vPath.Child("anyOf").Index(i))...)
	}
	for i, c := range v.OneOf {
		errs = append(errs, nestedCompleteness(c, s, sPath, vPath.Child("oneOf").Index(i))...)
	}
	return errs
}

func nestedCompleteness(v, s *openapi.Schema, sPath, vPath *validation.Path) validation.ErrorList {
	if v == nil {
		return nil
	}
	if s == nil {
		return validation.ErrorList{validation.Required(sPath, "because it is defined in "+vPath.String())}
	}
	errs := completeness(v, s, sPath, vPath)
	errs = append(errs, nestedCompleteness(v.Items, s.Items, sPath.Child("items"), vPath.Child("items"))...)
	for _, k := range slices.Sorted(maps.Keys(v.Properties)) {
		sk, vk := sPath.Child("properties").Key(k), vPath.Child("properties").Key(k)
		if sf, ok := s.Properties[k]; ok {
			errs = append(errs, nestedCompleteness(v.Properties[k], sf, sk, vk)...)
		} else {
			errs = append(errs, validation.Required(sk, "because it is defined in "+vk.String()))
		}
	}
	return errs
}

// openAPIContext is what the OpenAPI checks carry down the tree: whether defaults are
// allowed here (not in the root's metadata, apiVersion and kind, nor in
// additionalProperties under them) and whether the node is inside resource metadata.
type openAPIContext struct {
	allowDefaults          bool
	disallowDefaultsReason string
	insideResourceMeta     bool
}

var openAPIV3Types = []string{"array", "boolean", "integer", "number", "object", "string"}

// openAPIChecks is apiextensions' ValidateCustomResourceDefinitionOpenAPISchema for
// what an openapi.Schema can hold, minus CEL compilation.
func openAPIChecks(s *openapi.Schema, p *validation.Path, ctx openAPIContext, isRoot bool) validation.ErrorList {
	if s == nil {
		return nil
	}
	errs := ctx.check(s, p)
	if s.UniqueItems {
		errs = append(errs, validation.Forbidden(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.AdditionalProperties != nil {
		if len(s.Properties) != 0 {
			errs = append(errs, validation.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ctx
		if ctx.insideResourceMeta {
			sub.forbidDefaults("inside additionalProperties applying to object metadata")
		}
		errs = append(errs, openAPIChecks(s.AdditionalProperties, p.Child("additionalProperties"), sub, false)...)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		sub := ctx
		if (isRoot || s.EmbeddedResource) && metaFields[k] {
			sub.insideResourceMeta = true
			if isRoot {
				sub.forbidDefaults("in top-level " + k)
			}
		}
		errs = append(errs, openAPIChecks(s.Properties[k], p.Child("properties").Key(k), sub, false)...)
	}
	errs = append(errs, openAPIChecks(s.Not, p.Child("not"), ctx, false)...)
	for _, group := range []struct {
		name    string
		schemas []*openapi.Schema
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i, c := range group.schemas {
			errs = append(errs, openAPIChecks(c, p.Child(group.name).Index(i), ctx, false)...)
		}
	}
	errs = append(errs, openAPIChecks(s.Items, p.Child("items"), ctx, false)...)
	errs = append(errs, mapAndListTypes(s, p)...)
	errs = append(errs, ruleChecks(s, p)...)
	return errs
}

func (c *openAPIContext) forbidDefaults(reason string) {
	c.allowDefaults, c.disallowDefaultsReason = false, reason
}

// check is apiextensions' per-node standard validator.
func (c openAPIContext) check(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.Type != "" && !slices.Contains(openAPIV3Types, s.Type) {
		errs = append(errs, validation.NotSupported(p.Child("type"), s.Type, openAPIV3Types))
	}
	if s.Default != nil && !c.allowDefaults {
		detail := "must not be set"
		if c.disallowDefaultsReason != "" {
			detail += " " + c.disallowDefaultsReason
		}
		errs = append(errs, validation.Forbidden(p.Child("default"), detail))
	}
	if s.Ref != "" {
		errs = append(errs, validation.Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		errs = append(errs, validation.Forbidden(p.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if c.insideResourceMeta && s.EmbeddedResource {
		errs = append(errs, validation.Forbidden(p.Child(openapi.ExtEmbeddedResource), "must not be used inside of resource meta"))
	}
	return errs
}

// mapAndListTypes checks x-kubernetes-map-type, -list-type and -list-map-keys.
func mapAndListTypes(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	mustBe := func(typ, ext string) {
		detail := "must be " + typ + " if " + ext + " is specified"
		if s.Type == "" {
			errs = append(errs, validation.Required(p.Child("type"), detail))
		} else {
			errs = append(errs, validation.Invalid(p.Child("type"), s.Type, detail))
		}
	}
	if s.MapType != "" && s.Type != "object" {
		mustBe("object", openapi.ExtMapType)
	}
	if s.MapType != "" && s.MapType != "atomic" && s.MapType != "granular" {
		errs = append(errs, validation.NotSupported(p.Child(openapi.ExtMapType), s.MapType, []string{"atomic", "granular"}))
	}
	items := s.Items
	if s.ListType != "" && s.Type != "array" {
		mustBe("array", openapi.ExtListType)
	} else if s.ListType == "set" && items != nil {
		const detail = "must be atomic as item of a list with x-kubernetes-list-type=set"
		switch items.Type {
		case "array":
			if items.ListType != "" && items.ListType != "atomic" {
				errs = append(errs, validation.Invalid(p.Child("items", openapi.ExtListType), items.ListType, detail))
			}
		case "object":
			if items.MapType != "atomic" {
				// kube reports the items' list type here, which is null for an object.
				errs = append(errs, validation.Invalid(p.Child("items", openapi.ExtMapType), nullIfEmpty(items.ListType), detail))
			}
		}
	}
	if s.ListType != "" && s.ListType != "atomic" && s.ListType != "set" && s.ListType != "map" {
		errs = append(errs, validation.NotSupported(p.Child(openapi.ExtListType), s.ListType, []string{"atomic", "set", "map"}))
	}
	if len(s.ListMapKeys) > 0 {
		const detail = "must be map if x-kubernetes-list-map-keys is non-empty"
		if s.ListType == "" {
			errs = append(errs, validation.Required(p.Child(openapi.ExtListType), detail))
		} else if s.ListType != "map" {
			errs = append(errs, validation.Invalid(p.Child(openapi.ExtListType), s.ListType, detail))
		}
	}
	if s.ListType == "map" {
		errs = append(errs, listMapKeys(s, p)...)
	}
	if items != nil && (s.ListType == "set" || s.ListType == "map") {
		errs = append(errs, setAndMapItems(s, p)...)
	}
	return errs
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// listMapKeys checks a list of type map: keys given, items objects, keys scalar item
// properties without duplicates.
func listMapKeys(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(s.ListMapKeys) == 0 {
		errs = append(errs, validation.Required(p.Child(openapi.ExtListMapKeys), "must not be empty if x-kubernetes-list-type is map"))
	}
	items := s.Items
	if items == nil {
		return append(errs, validation.Required(p.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
	}
	if items.Type != "object" {
		return append(errs, validation.Invalid(p.Child("items", "type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
	}
	seen := map[string]bool{}
	for _, k := range s.ListMapKeys {
		if prop, ok := items.Properties[k]; !ok {
			errs = append(errs, validation.Invalid(p.Child(openapi.ExtListMapKeys), s.ListMapKeys, "entries must all be names of item properties"))
		} else if prop.Type == "array" || prop.Type == "object" {
			// kube reports the items' type here, not the key's.
			errs = append(errs, validation.Invalid(p.Child("items", "properties").Key(k).Child("type"), items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
		}
		if seen[k] {
			errs = append(errs, validation.Invalid(p.Child(openapi.ExtListMapKeys), s.ListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
	return errs
}

// setAndMapItems checks that the items of a set or map list, and the keys of a map
// list, cannot be null, and that every key is required or defaulted.
func setAndMapItems(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	items := s.Items
	if items.Nullable {
		errs = append(errs, validation.Forbidden(p.Child("items", "nullable"), "cannot be nullable when x-kubernetes-list-type is "+s.ListType))
	}
	if s.ListType != "map" {
		return errs
	}
	for _, k := range s.ListMapKeys {
		prop, ok := items.Properties[k]
		if !ok {
			continue
		}
		kp := p.Child("items", "properties").Key(k)
		if !slices.Contains(items.Required, k) && prop.Default == nil {
			errs = append(errs, validation.Required(kp.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if prop.Nullable {
			errs = append(errs, validation.Forbidden(kp.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return errs
}

// supportedRuleReasons are the reasons an x-kubernetes-validations rule may give.
var supportedRuleReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// ruleChecks are the checks of x-kubernetes-validations that need no CEL: a rule, a
// one-line message, a known reason, a one-line fieldPath that names a field of the
// schema. (The rules themselves are the RuleCompiler's.)
func ruleChecks(s *openapi.Schema, p *validation.Path) validation.ErrorList {
	rules, _ := s.Extensions[openapi.ExtValidations].([]any)
	var errs validation.ErrorList
	for i, r := range rules {
		rule, _ := r.(map[string]any)
		str := func(k string) string { v, _ := rule[k].(string); return v }
		rp := p.Child(openapi.ExtValidations).Index(i)
		text, msg, msgExpr, fieldPath := str("rule"), str("message"), str("messageExpression"), str("fieldPath")
		trimmedRule, trimmedMsg := strings.TrimSpace(text), strings.TrimSpace(msg)
		switch {
		case trimmedRule == "":
			errs = append(errs, validation.Required(rp.Child("rule"), "rule is not specified"))
		case msg != "" && trimmedMsg == "":
			errs = append(errs, validation.Invalid(rp.Child("message"), msg, "must be non-empty if specified"))
		case hasNewlines(trimmedMsg):
			errs = append(errs, validation.Invalid(rp.Child("message"), msg, "must not contain line breaks"))
		case hasNewlines(trimmedRule) && trimmedMsg == "":
			errs = append(errs, validation.Required(rp.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if msgExpr != "" && strings.TrimSpace(msgExpr) == "" {
			errs = append(errs, validation.Required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if reason, ok := rule["reason"].(string); ok && !slices.Contains(supportedRuleReasons, reason) {
			errs = append(errs, validation.NotSupported(rp.Child("reason"), reason, supportedRuleReasons))
		}
		if fieldPath != "" && strings.TrimSpace(fieldPath) == "" {
			errs = append(errs, validation.Invalid(rp.Child("fieldPath"), fieldPath, "must be non-empty if specified"))
		}
		if hasNewlines(fieldPath) {
			errs = append(errs, validation.Invalid(rp.Child("fieldPath"), fieldPath, "must not contain line breaks"))
		}
		if fieldPath != "" {
			if _, err := RuleFieldPath(fieldPath, s); err != nil {
				errs = append(errs, validation.Invalid(rp.Child("fieldPath"), fieldPath, "must be a valid path"))
			}
		}
	}
	return errs
}

func hasNewlines(s string) bool { return strings.ContainsAny(s, "\n\r") }
