package structural

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/validation"
)

// crdSchemaPath is where kube-apiserver reports a CRD's first schema.
var crdSchemaPath = validation.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

// TestCompile_StructuralChecks holds the structural-schema examples of the Kubernetes
// documentation and one case per family of kube's checks; every expectation is what
// k8s.io/apiextensions-apiserver v0.37 reports for the same schema in a v1 CRD
// (checked against it with e2e's crd_prune_default_diff_test.go helpers), as
// "type|field below the schema|detail". One exception: kube also reports the blank
// fieldPath of StaticRuleChecks as "must be a valid path", which needs the CEL field
// path resolver.
func TestCompile_StructuralChecks(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{
			name:   "DocsStructuralExampleIsAccepted",
			schema: `{"type": "object", "description": "Foo CRD for demo purpose", "required": ["spec"], "properties": {"spec": {"description": "Spec of Foo", "type": "object", "properties": {"bar": {"description": "Bar of foo", "type": "integer", "format": "int32", "minimum": 42}, "foo": {"description": "The foo", "type": "string", "pattern": "abc"}}, "required": ["bar"]}, "metadata": {"type": "object", "properties": {"name": {"type": "string", "pattern": "^a"}}}}, "anyOf": [{"properties": {"spec": {"properties": {"bar": {"minimum": 43}}}}}]}`,
		}, {
			name:   "DocsNonStructuralExampleIsRefusedForEveryRule",
			schema: `{"properties": {"foo": {"pattern": "abc"}, "metadata": {"type": "object", "properties": {"name": {"type": "string", "pattern": "^a"}, "finalizers": {"type": "array", "items": {"type": "string", "pattern": "my-finalizer"}}}}}, "anyOf": [{"properties": {"bar": {"type": "integer", "minimum": 42}}, "required": ["bar"], "description": "foo bar object"}]}`,
			want: []string{
				"Forbidden|.anyOf[0].description|must be empty to be structural",
				"Forbidden|.anyOf[0].properties[bar].type|must be empty to be structural",
				"Forbidden|.properties[metadata]|must not specify anything other than name and generateName, but metadata is implicitly specified",
				"Required value|.properties[bar]|because it is defined in spec.versions[0].schema.openAPIV3Schema.anyOf[0].properties[bar]",
				"Required value|.properties[foo].type|must not be empty for specified object fields",
				"Required value|.type|must not be empty at the root",
			},
		}, {
			name:   "UniqueItemsAndRefAreForbiddenAndRefSkipsStructuralChecks",
			schema: `{"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true, "items": {"type": "string"}}, "b": {"$ref": "#/definitions/x"}, "c": {}}}`,
			want: []string{
				"Forbidden|.properties[a].uniqueItems|uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
				"Forbidden|.properties[b].$ref|$ref is not supported",
			},
		}, {
			name:   "ListMapKeysMustBeScalarRequiredNonNullableItemProperties",
			schema: `{"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "obj", "missing"], "items": {"type": "object", "properties": {"name": {"type": "string", "nullable": true}, "obj": {"type": "object"}}}}, "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}}}`,
			want: []string{
				"Forbidden|.properties[l].items.properties[name].nullable|this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
				"Invalid value|.properties[l].items.properties[obj].type|must be a scalar type if parent array's x-kubernetes-list-type is map",
				"Invalid value|.properties[l].x-kubernetes-list-map-keys|entries must all be names of item properties",
				"Invalid value|.properties[s].items.x-kubernetes-map-type|must be atomic as item of a list with x-kubernetes-list-type=set",
				"Required value|.properties[l].items.properties[name].default|this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
				"Required value|.properties[l].items.properties[obj].default|this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
			},
		}, {
			name:   "DefaultsMustBePrunedAndNotInTopLevelMetadata",
			schema: `{"type": "object", "properties": {"metadata": {"type": "object", "default": {"name": "x"}}, "spec": {"type": "object", "default": {"a": 1, "b": 2}, "properties": {"a": {"type": "integer"}, "e": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true, "default": {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "UPPER"}}}}}}}`,
			want: []string{
				"Forbidden|.properties[metadata].default|must not be set in top-level metadata",
				"Invalid value|.properties[spec].default|must not have unknown fields",
			},
		}, {
			name:   "IntOrStringEmbeddedResourceAndMapTypeRules",
			schema: `{"type": "object", "nullable": true, "properties": {"port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}, "both": {"x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true}, "e": {"x-kubernetes-embedded-resource": true, "additionalProperties": {"type": "string"}}, "m": {"type": "string", "x-kubernetes-map-type": "granular"}}}`,
			want: []string{
				"Forbidden|.nullable|nullable cannot be true at the root",
				"Forbidden|.properties[e].additionalProperties|must not be used if x-kubernetes-embedded-resource is set",
				"Invalid value|.properties[both].x-kubernetes-preserve-unknown-fields|must be false if x-kubernetes-int-or-string is true",
				"Invalid value|.properties[m].type|must be object if x-kubernetes-map-type is specified",
				"Required value|.properties[e].properties|must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
				"Required value|.properties[e].type|must be object if x-kubernetes-embedded-resource is true",
			},
		}, {
			name:   "StaticRuleChecks",
			schema: `{"type": "object", "x-kubernetes-validations": [{"rule": " "}, {"rule": "self.a", "message": "two\nlines"}, {"rule": "self.a ||\n self.b"}, {"rule": "true", "reason": "Nope", "fieldPath": " ", "messageExpression": " "}], "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}}`,
			want: []string{
				"Invalid value|.x-kubernetes-validations[1].message|must not contain line breaks",
				"Invalid value|.x-kubernetes-validations[3].fieldPath|must be a valid path",
				"Invalid value|.x-kubernetes-validations[3].fieldPath|must be non-empty if specified",
				"Required value|.x-kubernetes-validations[0].rule|rule is not specified",
				"Required value|.x-kubernetes-validations[2].message|message must be specified if rule contains line breaks",
				"Required value|.x-kubernetes-validations[3].messageExpression|messageExpression must be non-empty if specified",
				"Unsupported value|.x-kubernetes-validations[3].reason|supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Compile(mustSchema(t, tt.schema), crdSchemaPath)
			var got []string
			for _, e := range errs {
				field, ok := strings.CutPrefix(e.Field, crdSchemaPath.String())
				if !ok {
					t.Errorf("error outside the schema: %v", e)
				}
				got = append(got, fmt.Sprintf("%s|%s|%s", e.Type, field, e.Detail))
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompile_StructuralErrorsAreSortedByMessage checks kube's order: the structural
// errors sorted by their message, the OpenAPI checks after them.
func TestCompile_StructuralErrorsAreSortedByMessage(t *testing.T) {
	_, errs := Compile(mustSchema(t, `{"type": "object", "properties": {"b": {}, "a": {}, "c": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}`), validation.NewPath("s"))
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"s.properties[a].type: Required value: must not be empty for specified object fields",
		"s.properties[b].type: Required value: must not be empty for specified object fields",
		"s.properties[c].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
