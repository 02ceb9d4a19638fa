package v1alpha1

import (
	"encoding/json"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

func TestWidget_JSONFieldNamesAreTheContract(t *testing.T) {
	w := Widget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1alpha1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Name: "w", Namespace: "ns"},
		Spec: WidgetSpec{
			Paint:   "green",
			Scaling: &WidgetScaling{Replicas: int32Ptr(2)},
			Parts:   []WidgetPart{{Name: "bolt", Count: 3}},
		},
		Status: WidgetStatus{Phase: "Ready", Replicas: 2, ObservedGeneration: 5},
	}
	b, err := json.Marshal(&w)
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		t.Fatal(err)
	}
	delete(members, "metadata") // its shape is package scheme's
	got := make(map[string]string, len(members))
	for k, v := range members {
		got[k] = string(v)
	}
	want := map[string]string{
		"kind":       `"Widget"`,
		"apiVersion": `"toys.example.com/v1alpha1"`,
		"spec":       `{"paint":"green","scaling":{"replicas":2},"parts":[{"name":"bolt","count":3}]}`,
		"status":     `{"phase":"Ready","replicas":2,"observedGeneration":5}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON members of %s (-want +got):\n%s", b, diff)
	}
}
