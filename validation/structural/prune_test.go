package structural

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// mustSchema reads a schema written as a CRD author writes it.
func mustSchema(t testing.TB, s string) *openapi.Schema {
	t.Helper()
	var out openapi.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &out
}

func mustObject(t testing.TB, s string) map[string]any {
	t.Helper()
	v, err := scheme.DecodeJSONValue([]byte(s))
	if err != nil {
		t.Fatalf("object: %v", err)
	}
	return v.(map[string]any)
}

func mustCompile(t testing.TB, s string) *Schema {
	t.Helper()
	c, errs := Compile(mustSchema(t, s), validation.NewPath("openAPIV3Schema"))
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	return c
}

// cronTabPruneSchema is the CronTab of the Kubernetes documentation's CRD examples.
const cronTabPruneSchema = `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
  "cronSpec": {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"}}}}}`

func TestPrune(t *testing.T) {
	tests := []struct {
		name, schema, obj, want string
		unknown                 []string
	}{{
		name:    "UnknownSpecFieldIsPrunedAndReported",
		schema:  cronTabPruneSchema,
		obj:     `{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "x", "bogus": 1}, "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "someRandomField": 42}}`,
		want:    `{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "x", "bogus": 1}, "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image"}}`,
		unknown: []string{"spec.someRandomField"},
	}, {
		name:    "UnknownRootFieldsAreSortedPaths",
		schema:  cronTabPruneSchema,
		obj:     `{"zeta": 1, "alpha": {"x": 1}, "spec": {"b": [1], "a": null}}`,
		want:    `{"spec": {}}`,
		unknown: []string{"alpha", "spec.a", "spec.b", "zeta"},
	}, {
		name:   "PreserveUnknownFieldsKeepsEverythingBelow",
		schema: `{"type": "object", "properties": {"json": {"x-kubernetes-preserve-unknown-fields": true}}}`,
		obj:    `{"json": {"foo": 1, "bar": {"x": [1, {"y": 2}]}}}`,
		want:   `{"json": {"foo": 1, "bar": {"x": [1, {"y": 2}]}}}`,
	}, {
		name: "PreserveUnknownFieldsStillPrunesSpecifiedProperties",
		schema: `{"type": "object", "properties": {"json": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
		  "properties": {"spec": {"type": "object", "properties": {"foo": {"type": "string"}, "bar": {"type": "string"}}}}}}}`,
		obj:     `{"json": {"spec": {"foo": "abc", "bar": "def", "something": "x"}, "status": {"something": "x"}}}`,
		want:    `{"json": {"spec": {"foo": "abc", "bar": "def"}, "status": {"something": "x"}}}`,
		unknown: []string{"json.spec.something"},
	}, {
		name: "EmbeddedResourceKeepsTypeMetaAndMetadata",
		schema: `{"type": "object", "properties": {"foo": {"type": "object", "x-kubernetes-embedded-resource": true,
		  "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}`,
		obj:     `{"foo": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "x": 1}, "spec": {"a": "b", "c": "d"}, "status": {}}}`,
		want:    `{"foo": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "x": 1}, "spec": {"a": "b"}}}`,
		unknown: []string{"foo.spec.c", "foo.status"},
	}, {
		name:    "MetaFieldsOfANestedObjectArePruned",
		schema:  `{"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}`,
		obj:     `{"spec": {"kind": "X", "metadata": {}}}`,
		want:    `{"spec": {}}`,
		unknown: []string{"spec.kind", "spec.metadata"},
	}, {
		name:    "ArrayItemsAndAdditionalPropertiesArePrunedWithIndexedPaths",
		schema:  `{"type": "object", "properties": {"spec": {"type": "object", "properties": {"list": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}, "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "integer"}}}}}}}}`,
		obj:     `{"spec": {"list": [{"name": "a", "x": 1}, {"y": 2}], "map": {"k": {"v": 1, "w": 2}}}}`,
		want:    `{"spec": {"list": [{"name": "a"}, {}], "map": {"k": {"v": 1}}}}`,
		unknown: []string{"spec.list[0].x", "spec.list[1].y", "spec.map.k.w"},
	}, {
		name: "NullsOfNonNullableFieldsWithoutDefaultsAreDroppedUnreported",
		schema: `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
		  "foo": {"type": "string", "default": "default"}, "bar": {"type": "string", "nullable": true}, "baz": {"type": "string"}}}}}`,
		obj:  `{"spec": {"foo": null, "bar": null, "baz": null}}`,
		want: `{"spec": {"foo": null, "bar": null}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObject(t, tt.obj)
			unknown := mustCompile(t, tt.schema).Prune(obj)
			if diff := cmp.Diff(mustObject(t, tt.want), obj); diff != "" {
				t.Errorf("pruned object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unknown, unknown); diff != "" {
				t.Errorf("unknown fields (-want +got):\n%s", diff)
			}
		})
	}
}
