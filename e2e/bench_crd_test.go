package e2e

import (
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation/structural"
)

// benchCRDSchema is a kubebuilder-style schema: nested objects, a list-map, enums,
// int-or-string, a free-form map and defaults at several levels.
const benchCRDSchema = `{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "properties": {
        "replicas": {"type": "integer", "format": "int32", "default": 1},
        "image": {"type": "string"},
        "mode": {"type": "string", "enum": ["Fast", "Safe"], "default": "Safe"},
        "port": {"x-kubernetes-int-or-string": true, "default": 8080},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "containers": {
          "type": "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "items": {
            "type": "object",
            "required": ["name"],
            "properties": {
              "name": {"type": "string"},
              "image": {"type": "string"},
              "pullPolicy": {"type": "string", "default": "IfNotPresent"},
              "resources": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }
          }
        }
      }
    },
    "status": {
      "type": "object",
      "properties": {
        "readyReplicas": {"type": "integer"},
        "conditions": {"type": "array", "items": {"type": "object", "properties": {
          "type": {"type": "string"}, "status": {"type": "string"}, "message": {"type": "string"}}}}
      }
    }
  }
}`

func benchCRDObject() map[string]any {
	return map[string]any{
		"apiVersion": "toys.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w", "namespace": "default", "labels": map[string]any{"app": "w"}},
		"spec": map[string]any{
			"image":   "nginx:1.27",
			"labels":  map[string]any{"tier": "web", "team": "a"},
			"unknown": "pruned",
			"containers": []any{
				map[string]any{"name": "main", "image": "nginx", "resources": map[string]any{"limits": map[string]any{"cpu": "1"}}, "extra": true},
				map[string]any{"name": "sidecar", "image": "envoy"},
			},
		},
		"status": map[string]any{"readyReplicas": int64(1), "conditions": []any{map[string]any{"type": "Ready", "status": "True", "bogus": 1}}},
	}
}

// BenchmarkCRDPruneDefault prunes and defaults one typical custom resource, as
// kube-apiserver's decoder and defaulter do on every write, with apikit's
// validation/structural and with apiextensions-apiserver's own code.
func BenchmarkCRDPruneDefault(b *testing.B) {
	compiled, errs := structural.Compile(apikitSchema(b, []byte(benchCRDSchema)), crdSchemaPath)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	kube := kubeStructural(b, []byte(benchCRDSchema))
	obj := benchCRDObject()
	b.Run("impl=apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o := scheme.DeepCopyJSONValue(obj).(map[string]any)
			if len(compiled.Prune(o)) != 3 {
				b.Fatal("unexpected pruning")
			}
			compiled.Default(o)
		}
	})
	b.Run("impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			o := scheme.DeepCopyJSONValue(obj).(map[string]any)
			paths := pruning.PruneWithOptions(o, kube, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
			if len(paths) != 3 {
				b.Fatal("unexpected pruning")
			}
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, kube)
			structuraldefaulting.Default(o, kube)
		}
	})
}
