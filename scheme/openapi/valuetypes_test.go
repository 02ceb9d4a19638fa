package openapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// TestForGroupVersion_ValueTypesAreKubesDefinitions checks that Quantity,
// IntOrString and RawExtension fields refer to definitions under the names
// kube-apiserver publishes, with kube's types and formats.
func TestForGroupVersion_ValueTypesAreKubesDefinitions(t *testing.T) {
	type Holder struct {
		scheme.TypeMeta   `json:",inline"`
		scheme.ObjectMeta `json:"metadata,omitempty"`
		Q                 quantity.Quantity            `json:"q"`
		QM                map[string]quantity.Quantity `json:"qm,omitempty"`
		I                 *scheme.IntOrString          `json:"i,omitempty"`
		R                 scheme.RawExtension          `json:"r"`
	}
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Holder{})
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Holder", Plural: "holders"}); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"com.example.toys.v1.Holder", "properties", "q"}, `{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}`},
		{[]string{"com.example.toys.v1.Holder", "properties", "qm"}, `{"type":"object","additionalProperties":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}}`},
		{[]string{"com.example.toys.v1.Holder", "properties", "i"}, `{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}`},
		{[]string{"com.example.toys.v1.Holder", "properties", "r"}, `{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension"}`},
		{[]string{openapi.QuantityName}, `{"type":"string","format":"quantity"}`},
		{[]string{openapi.IntOrStringName}, `{"type":"string","format":"int-or-string"}`},
		{[]string{openapi.RawExtensionName}, `{"type":"object"}`},
	}
	for _, tt := range tests {
		got := at(t, schemas, tt.path...)
		if m, ok := got.(map[string]any); ok {
			delete(m, "description")
		}
		if diff := cmp.Diff(golden(t, tt.want), got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.path, diff)
		}
	}
}
