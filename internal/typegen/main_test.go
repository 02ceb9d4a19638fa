package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGenerated_IsUpToDate regenerates the built-in types and fails on any difference from
// the committed files, so that a change of the kinds, of k8s.io/api's version or of the
// generator is committed together with its output.
func TestGenerated_IsUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(outputs)+1 {
		t.Fatalf("generated %d files for %d output packages and builtin's atomic types", len(files), len(outputs))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Errorf("%s: %v (run go run ./internal/typegen from the repository root)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output: run go run ./internal/typegen from the repository root", name)
		}
	}
}

// TestGenerate_KeepsTagsAndMapsApimachineryTypes checks the facts the wire formats rest on:
// k8s.io/api's struct tags are kept verbatim, and apimachinery's types become apikit's.
func TestGenerate_KeepsTagsAndMapsApimachineryTypes(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	// gofmt aligns fields and constants: compare with runs of blanks collapsed.
	squeeze := func(b []byte) []byte { return regexp.MustCompile(`[ \t]+`).ReplaceAll(b, []byte(" ")) }
	apps := squeeze(files[filepath.Join("builtin", "apps", "v1", "zz_generated.types.go")])
	core := squeeze(files[filepath.Join("builtin", "core", "v1", "zz_generated.types.go")])
	for _, want := range []string{
		"Replicas *int32 `json:\"replicas,omitempty\" protobuf:\"varint,1,opt,name=replicas\"`",
		"Selector *metav1.LabelSelector `json:\"selector\" protobuf:\"bytes,2,opt,name=selector\"`",
		"Template corev1.PodTemplateSpec `json:\"template\" protobuf:\"bytes,3,opt,name=template\"`",
		"MaxSurge *scheme.IntOrString",
		"Data scheme.RawExtension",
		"scheme.ObjectMeta `json:\"metadata,omitempty\" protobuf:\"bytes,1,opt,name=metadata\"`",
		"scheme.TypeMeta `json:\",inline\"`",
	} {
		if !bytes.Contains(apps, []byte(want)) {
			t.Errorf("apps/v1 lacks %s", want)
		}
	}
	for _, want := range []string{
		"Containers []Container `json:\"containers\" patchStrategy:\"merge\" patchMergeKey:\"name\" protobuf:\"bytes,2,rep,name=containers\" listType:\"map\" listMapKeys:\"name\"`",
		"Ports []ContainerPort `json:\"ports,omitempty\" patchStrategy:\"merge\" patchMergeKey:\"containerPort\" protobuf:\"bytes,6,rep,name=ports\" listType:\"map\" listMapKeys:\"containerPort,protocol\"`",
		"type ResourceList map[ResourceName]quantity.Quantity",
		"RestartPolicyAlways RestartPolicy = \"Always\"",
	} {
		if !bytes.Contains(core, []byte(want)) {
			t.Errorf("core/v1 lacks %s", want)
		}
	}
	for name, src := range files {
		for _, banned := range []string{"k8s.io/", "+optional", "+listType"} {
			if bytes.Contains(src, []byte("\""+banned)) || bytes.Contains(src, []byte("// "+banned)) {
				t.Errorf("%s still carries %q", name, banned)
			}
		}
	}
}
