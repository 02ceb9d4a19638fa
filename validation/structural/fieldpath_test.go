package structural

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// fieldPathSchema is the schema of kube's TestValidateFieldPath
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go).
const fieldPathSchema = `{
  "type": "object",
  "properties": {
    "foo": {"type": "object", "additionalProperties": {
      "type": "object", "properties": {"subAdd": {"type": "number"}}}},
    "white space": {"type": "number"},
    "'foo'bar": {"type": "number"},
    "a": {"type": "object", "properties": {
      "foo's": {"type": "number"},
      "test\u0007": {"type": "number"},
      "bb[b": {"type": "number"},
      "bbb": {"type": "object", "properties": {"c": {"type": "number"}, "34": {"type": "number"}}},
      "bbb.c": {"type": "object", "properties": {"a-b.3'4": {"type": "number"}}}
    }},
    "list": {"type": "array", "items": {"type": "object", "properties": {
      "a": {"type": "number"}, "a-b.3'4": {"type": "number"}}}}
  }
}`

func TestRuleFieldPath_AcceptsWhatKubesValidFieldPathAccepts(t *testing.T) {
	var s openapi.Schema
	if err := json.Unmarshal([]byte(fieldPathSchema), &s); err != nil {
		t.Fatal(err)
	}
	root := (*validation.Path)(nil)
	tests := []struct {
		name, fieldPath string
		want            *validation.Path // nil: only no error is expected
		wantErr         string
	}{
		{"a field", ".a", root.Child("a"), ""},
		{"escaped quotes in a subscript", `['\'foo\'bar']`, root.Child("'foo'bar"), ""},
		{"escaped quotes after a dot", `.\'foo\'bar`, nil, "does not refer to a valid field"},
		{"a space after the dot is part of the name", ". a", nil, "does not refer to a valid field"},
		{"a space inside a name", ".white space", root.Child("white space"), ""},
		{"a space inside a subscript", "['white space']", root.Child("white space"), ""},
		{"a bracket in a dotted name", ".a.bb[b", nil, "does not refer to a valid field"},
		{"a dot inside a subscript", ".a['bbb.c']", root.Child("a", "bbb.c"), ""},
		{"unclosed subscript", ".a['bbb.c'", nil, "unexpected end of JSON path"},
		{"a lone dot", ".", nil, "unexpected end of JSON path"},
		{"a trailing dot", ".a.", nil, "unexpected end of JSON path"},
		{"a map key after a dot", ".foo.subAdd", root.Child("foo").Key("subAdd"), ""},
		{"a map key in a subscript", ".foo['subAdd']", root.Child("foo").Key("subAdd"), ""},
		{"a property through a map value", ".foo.k.subAdd", root.Child("foo").Key("k").Child("subAdd"), ""},
		{"an unknown property of a map value", ".foo.k.other", nil, "does not refer to a valid field"},
		{"a quote inside a dotted name", ".a.foo's", root.Child("a", "foo's"), ""},
		{"an escaped quote in a subscript", `.a['foo\'s']`, root.Child("a", "foo's"), ""},
		{"the \\a escape", `.a['test\a']`, root.Child("a", "test\a"), ""},
		{"an unknown escape", `.a['test\q']`, nil, `invalid string literal: invalid escape char \q`},
		{"an unknown field of an object", ".a.foo", nil, "does not refer to a valid field"},
		{"an index is not a quoted string", ".a.bbb[0]", nil, "expected single quoted string but got 0"},
		{"a subscript not closed by ]", ".a['bbb'x", nil, "expected ] but got x"},
		{"a name that is a number", ".a.bbb.34", root.Child("a", "bbb", "34"), ""},
		{"a number in a subscript", ".a.bbb['34']", root.Child("a", "bbb", "34"), ""},
		{"a name with dashes, dots and a quote", ".a['bbb.c']['a-b.3\\'4']", root.Child("a", "bbb.c", "a-b.3'4"), ""},
		{"a list", ".list", root.Child("list"), ""},
		{"a list index", ".list[0]", nil, "expected single quoted string but got 0"},
		{"a list item's field after a space", ".list. a", nil, "does not refer to a valid field"},
		{"a list has no fields", ".list['a']", nil, "does not refer to a valid field"},
		{"no leading dot", "a", nil, "expected [ or . but got: a"},
		{"a missing field", ".c", nil, "does not refer to a valid field"},
		{"two dots", ".a..b", nil, "does not refer to a valid field"},
		{"fields of a list item", ".list.a-b.34", nil, "does not refer to a valid field"},
		{"a scalar has no fields", ".a.bbb.c.d", nil, "does not refer to a valid field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RuleFieldPath(tt.fieldPath, &s)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("RuleFieldPath(%q) = %v, %v; want an error containing %q", tt.fieldPath, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("RuleFieldPath(%q): %v", tt.fieldPath, err)
			}
			if tt.want != nil && got.String() != tt.want.String() {
				t.Errorf("RuleFieldPath(%q) = %s, want %s", tt.fieldPath, got, tt.want)
			}
		})
	}
}
