package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

// The JSON names of the v1 types are a contract with kubectl, client-go and everything
// derived from them (OpenAPI, strategic merge patch, server-side apply).
func TestWidget_JSONFieldNamesAreTheContract(t *testing.T) {
	w := Widget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Name: "w", Namespace: "ns"},
		Spec: WidgetSpec{
			Color:    "red",
			Replicas: int32Ptr(2),
			Parts:    []WidgetPart{{Name: "bolt", Count: 3}},
		},
		Status: WidgetStatus{
			Phase:              "Ready",
			Replicas:           2,
			ObservedGeneration: 5,
			Conditions: []scheme.Condition{{
				Type: "Ready", Status: scheme.ConditionTrue, Reason: "Done", Message: "ok",
				LastTransitionTime: scheme.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)),
			}},
		},
	}
	assertTopLevelJSON(t, &w, map[string]string{
		"kind":       `"Widget"`,
		"apiVersion": `"toys.example.com/v1"`,
		"spec":       `{"color":"red","replicas":2,"parts":[{"name":"bolt","count":3}]}`,
		"status": `{"phase":"Ready","replicas":2,"observedGeneration":5,"conditions":[{"type":"Ready","status":"True",` +
			`"lastTransitionTime":"2024-01-02T03:04:05Z","reason":"Done","message":"ok"}]}`,
	})
}

func TestWidget_OptionalFieldsAreOmittedAndRequiredOnesKept(t *testing.T) {
	assertTopLevelJSON(t, &Widget{}, map[string]string{
		"spec":   `{"color":""}`,
		"status": `{}`,
	})
}

func TestWarehouse_JSONFieldNamesAreTheContract(t *testing.T) {
	w := Warehouse{
		TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Warehouse"},
		ObjectMeta: scheme.ObjectMeta{Name: "north"},
		Spec:       WarehouseSpec{Location: "Oslo", Capacity: 100},
	}
	assertTopLevelJSON(t, &w, map[string]string{
		"kind":       `"Warehouse"`,
		"apiVersion": `"toys.example.com/v1"`,
		"spec":       `{"location":"Oslo","capacity":100}`,
	})
}

// assertTopLevelJSON marshals obj and checks every top-level member but metadata (whose
// shape package scheme owns) against want, member by member, byte for byte.
func assertTopLevelJSON(t *testing.T, obj any, want map[string]string) {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		t.Fatal(err)
	}
	if _, ok := members["metadata"]; !ok {
		t.Errorf("JSON %s has no metadata member", b)
	}
	delete(members, "metadata")
	got := make(map[string]string, len(members))
	for k, v := range members {
		got[k] = string(v)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON members of %s (-want +got):\n%s", b, diff)
	}
}

// Later packages (strategic merge patch, server-side apply) read list semantics from
// struct tags by reflection.
func TestListMapTagsDescribeMergeKeys(t *testing.T) {
	tests := []struct {
		name  string
		typ   reflect.Type
		field string
		key   string
	}{
		{"spec.parts is a list-map keyed by name", reflect.TypeFor[WidgetSpec](), "Parts", "name"},
		{"status.conditions is a list-map keyed by type", reflect.TypeFor[WidgetStatus](), "Conditions", "type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := tt.typ.FieldByName(tt.field)
			if !ok {
				t.Fatalf("no field %s", tt.field)
			}
			for tag, want := range map[string]string{
				"patchStrategy": "merge", "patchMergeKey": tt.key, "listType": "map", "listMapKeys": tt.key,
			} {
				if got := f.Tag.Get(tag); got != want {
					t.Errorf("tag %s = %q, want %q", tag, got, want)
				}
			}
		})
	}
}
