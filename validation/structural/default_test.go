package structural

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name, schema, obj, want string
	}{{
		name: "AbsentFieldsGetTheirDefaults",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
		  "cronSpec": {"type": "string", "default": "5 0 * * *"}, "image": {"type": "string"},
		  "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}}}}}`,
		obj:  `{"spec": {"image": "my-awesome-cron-image"}}`,
		want: `{"spec": {"cronSpec": "5 0 * * *", "image": "my-awesome-cron-image", "replicas": 1}}`,
	}, {
		name: "NullOfANonNullableFieldIsDefaultedANullableOneIsNot",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
		  "foo": {"type": "string", "default": "default"}, "bar": {"type": "string", "nullable": true, "default": "b"}}}}}`,
		obj:  `{"spec": {"foo": null, "bar": null}}`,
		want: `{"spec": {"foo": "default", "bar": null}}`,
	}, {
		name: "DefaultsApplyTopDownIntoDefaultedObjects",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
		  "a": {"type": "object", "default": {"x": 1}, "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 2}}}}}}}`,
		obj:  `{}`,
		want: `{"spec": {"a": {"x": 1, "y": 2}}}`,
	}, {
		name: "ArrayItemsAndMapValuesAreDefaulted",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
		  "list": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "policy": {"type": "string", "default": "IfNotPresent"}}}},
		  "nulls": {"type": "array", "items": {"type": "string", "default": "n"}},
		  "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "integer", "default": 7}}}}}}}}`,
		obj:  `{"spec": {"list": [{"name": "a"}, {"name": "b", "policy": "Always"}], "nulls": [null, "x"], "map": {"k": {}, "l": {"v": 1}}}}`,
		want: `{"spec": {"list": [{"name": "a", "policy": "IfNotPresent"}, {"name": "b", "policy": "Always"}], "nulls": ["n", "x"], "map": {"k": {"v": 7}, "l": {"v": 1}}}}`,
	}, {
		name:   "PresentValuesAreLeftAlone",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}}}`,
		obj:    `{"spec": {"n": 0}}`,
		want:   `{"spec": {"n": 0}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObject(t, tt.obj)
			mustCompile(t, tt.schema).Default(obj)
			if diff := cmp.Diff(mustObject(t, tt.want), obj); diff != "" {
				t.Errorf("defaulted object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefault_DefaultsAreDeepCopied(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {"spec": {"type": "object", "default": {"list": [1]}, "properties": {"list": {"type": "array", "items": {"type": "integer"}}}}}}`)
	first, second := map[string]any{}, map[string]any{}
	s.Default(first)
	first["spec"].(map[string]any)["list"].([]any)[0] = int64(99)
	s.Default(second)
	if got := second["spec"].(map[string]any)["list"].([]any)[0]; got != int64(1) {
		t.Fatalf("second object's default = %v, want 1: the schema's default was shared", got)
	}
}
