package structural

import (
	"encoding/json"
	"errors"
	"strings"
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

// DefaultWithin counts what each default adds to the object's JSON encoding and stops
// before copying the first default that would pass the budget.
func TestDefaultWithin_StopsBeforeTheDefaultThatPassesTheBudget(t *testing.T) {
	// Each null item becomes "0123456789": 12 bytes where null was 4, 8 more.
	s := mustCompile(t, `{"type": "object", "properties": {"list": {"type": "array", "items": {"type": "string", "default": "0123456789"}}}}`)
	for _, tc := range []struct {
		name      string
		budget    int64
		wantErr   bool
		wantAdded int64
		defaulted int // items set
	}{
		{"a budget of exactly the growth", 40, false, 40, 5},
		{"a byte short", 39, true, 32, 4},
		{"none", 0, true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, `{"list": [null, null, null, null, null]}`)
			added, err := s.DefaultWithin(obj, tc.budget)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrDefaultsTooLarge)) {
				t.Errorf("err = %v, want an error: %v", err, tc.wantErr)
			}
			set := 0
			for _, v := range obj["list"].([]any) {
				if v != nil {
					set++
				}
			}
			if added != tc.wantAdded || set != tc.defaulted {
				t.Errorf("added %d bytes in %d items, want %d in %d", added, set, tc.wantAdded, tc.defaulted)
			}
		})
	}
}

// The count is the growth of the encoding from below: it may miss a comma per field
// set (and escapes in keys), never count more, so that no object within the budget is
// refused.
func TestDefaultWithin_CountsTheEncodingsGrowthFromBelow(t *testing.T) {
	for _, tc := range []struct {
		name, schema, obj string
	}{
		{"absent fields, nested defaults and null items", `{"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
		  "a": {"type": "object", "default": {"x": 1}, "properties": {"x": {"type": "integer"}, "y": {"type": "string", "default": "<b>"}}},
		  "list": {"type": "array", "items": {"type": "object", "default": {"k": [1, 2]}, "properties": {"k": {"type": "array", "items": {"type": "integer"}}, "n": {"type": "number", "default": 1.5}}}}}}}}`,
			`{"spec": {"list": [null, {}, {"k": []}]}}`},
		{"map values", `{"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string", "default": "v"}}}}`,
			`{"m": {"a": null, "b": "x", "c": null}}`},
		{"nothing to set", `{"type": "object", "properties": {"n": {"type": "integer", "default": 1}}}`, `{"n": 2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := mustObject(t, tc.obj)
			before, _ := json.Marshal(obj)
			added, err := mustCompile(t, tc.schema).DefaultWithin(obj, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := json.Marshal(obj)
			growth := int64(len(after) - len(before))
			// At most one comma per field or item set.
			if added > growth || added < growth-int64(strings.Count(string(after), ",")) {
				t.Errorf("counted %d bytes, the encoding grew by %d (%s -> %s)", added, growth, before, after)
			}
		})
	}
}
