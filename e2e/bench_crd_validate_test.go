package e2e

import (
	"encoding/json"
	"testing"
)

// Validation of one typical custom resource (kubebuilderCRDSchema, about 30 fields)
// with apikit's structural.Schema and with what apiextensions-apiserver runs:
//
//	go test ./e2e -run '^$' -bench CRDValidate -count 10 > out.txt; benchstat -col /impl out.txt

// typicalCustomResource is a valid object of kubebuilderCRDSchema.
func typicalCustomResource() map[string]any {
	return map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata": map[string]any{"name": "frontend", "namespace": "default",
			"labels": map[string]any{"app": "frontend"}},
		"spec": map[string]any{
			"image":           "registry.example.com/frontend:v1.2.3",
			"replicas":        int64(3),
			"paused":          false,
			"logLevel":        "info",
			"serviceAccount":  "frontend",
			"port":            "http",
			"cpuLimit":        1.5,
			"timeout":         "30s",
			"owner":           "team@example.com",
			"id":              "123e4567-e89b-12d3-a456-426614174000",
			"nodeSelector":    map[string]any{"kubernetes.io/os": "linux", "zone": "a"},
			"tolerationCount": int64(2),
			"env": []any{
				map[string]any{"name": "MODE", "value": "prod"},
				map[string]any{"name": "REGION", "value": "eu"},
			},
			"args": []any{"--verbose", "--port=8080"},
			"storage": map[string]any{"size": "10Gi", "storageClass": nil,
				"accessModes": []any{"ReadWriteOnce"}},
			"endpoints": []any{map[string]any{"host": "frontend.example.com", "ip": "10.0.0.1", "scheme": "https"}},
		},
		"status": map[string]any{
			"phase":              "Running",
			"readyReplicas":      int64(3),
			"observedGeneration": int64(4),
			"conditions": []any{map[string]any{
				"type": "Ready", "status": "True", "observedGeneration": int64(4),
				"lastTransitionTime": "2024-01-01T10:00:00Z", "reason": "AllReplicasReady", "message": "3/3 ready",
			}},
		},
	}
}

func BenchmarkCRDValidate(b *testing.B) {
	schemaJSON, err := json.Marshal(kubebuilderCRDSchema())
	if err != nil {
		b.Fatal(err)
	}
	obj := typicalCustomResource()
	ours := compileOurs(b, schemaJSON)
	kube := newKubeCRDValidator(b, schemaJSON)
	if errs := ours.Validate(obj); len(errs) > 0 {
		b.Fatalf("apikit rejects the fixture: %v", errs)
	}
	if errs := kube.validate(obj); len(errs) > 0 {
		b.Fatalf("apiextensions-apiserver rejects the fixture: %v", errs)
	}
	b.Run("impl=apikit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs := ours.Validate(obj); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("impl=apiextensions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if errs := kube.validate(obj); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}
