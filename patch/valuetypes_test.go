package patch_test

import (
	"testing"

	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// valueHolder holds the value types the built-in kinds use.
type valueHolder struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Q                 quantity.Quantity            `json:"q"`
	QM                map[string]quantity.Quantity `json:"qm,omitempty"`
	I                 scheme.IntOrString           `json:"i"`
	R                 scheme.RawExtension          `json:"r"`
}

// TestFieldManager_ValueTypesAreTypedAsKubeOpenAPISchemaconvTypesThem applies a
// Quantity as a number, an IntOrString both ways and a RawExtension as a list, a map
// and a scalar: kube's schema accepts all of them, owns a map of quantities per key,
// and owns a RawExtension as one field (its insides are never listed).
func TestFieldManager_ValueTypesAreTypedAsKubeOpenAPISchemaconvTypesThem(t *testing.T) {
	gvk := scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ValueHolder"}
	s := scheme.New()
	s.AddKnownTypeWithName(gvk, &valueHolder{})
	if err := s.AddResource(scheme.Resource{Group: gvk.Group, Kind: gvk.Kind, Plural: "valueholders"}); err != nil {
		t.Fatal(err)
	}
	fm, err := patch.NewFieldManager(s, gvk, patch.Options{Now: func() scheme.Time { return scheme.Time{Time: t0} }})
	if err != nil {
		t.Fatal(err)
	}
	head := `{"apiVersion":"example.com/v1","kind":"ValueHolder","metadata":{"name":"h"},`
	tests := []struct{ config, fields string }{
		{`"q":1,"qm":{"cpu":2,"memory":"1Gi"},"i":"25%","r":[1,{"a":2}]}`, `{"f:i":{},"f:q":{},"f:qm":{"f:cpu":{},"f:memory":{}},"f:r":{}}`},
		{`"q":"500m","i":8080,"r":{"a":{"b":1}}}`, `{"f:i":{},"f:q":{},"f:r":{}}`},
		{`"r":"scalar"}`, `{"f:r":{}}`},
	}
	for _, tt := range tests {
		_, entries, err := fm.Apply(nil, obj(t, head+tt.config), "test", false)
		if err != nil {
			t.Errorf("%s: %v", tt.config, err)
			continue
		}
		if len(entries) != 1 || entries[0].FieldsV1 == nil || string(entries[0].FieldsV1.Raw) != tt.fields {
			t.Errorf("%s: managed fields %s, want %s", tt.config, summary(entries), tt.fields)
		}
	}
}
