package patch_test

import (
	"fmt"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
)

// A strategic merge patch merges Widget parts by name, where a JSON merge patch would
// replace the whole list.
func ExampleStrategicMerge() {
	s := testapi.NewScheme()
	gvk := scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}
	schema, err := patch.SchemaFor(s, gvk)
	if err != nil {
		panic(err)
	}
	live := []byte(`{"spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"bolt","count":8}]}}`)
	out, err := patch.StrategicMerge(live, []byte(`{"spec":{"parts":[{"name":"bolt","$patch":"delete"},{"name":"axle","count":2}]}}`), schema)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"spec":{"color":"red","parts":[{"count":2,"name":"axle"},{"count":4,"name":"wheel"}]}}
}

// Server-side apply: two managers set the same field to different values.
func ExampleFieldManager_Apply() {
	s := testapi.NewScheme()
	fm, err := patch.NewFieldManager(s, scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}, patch.Options{})
	if err != nil {
		panic(err)
	}
	cfg := func(color string) map[string]any {
		m, err := patch.DecodeApplyConfig([]byte("apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: " + color + "\n"))
		if err != nil {
			panic(err)
		}
		return m
	}
	live, managed, err := fm.Apply(nil, cfg("red"), "alice", false)
	if err != nil {
		panic(err)
	}
	fmt.Println(managed[0].Manager, managed[0].Operation, string(managed[0].FieldsV1.Raw))

	live["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{
		"manager": "alice", "operation": "Apply", "apiVersion": "toys.example.com/v1",
		"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:color": map[string]any{}}},
	}}
	_, _, err = fm.Apply(live, cfg("blue"), "bob", false)
	fmt.Println(err)
	// Output:
	// alice Apply {"f:spec":{"f:color":{}}}
	// Apply failed with 1 conflict: conflict with "alice": .spec.color
}
