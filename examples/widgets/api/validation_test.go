package api_test

import (
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
	"github.com/google/go-cmp/cmp"
)

func int32Ptr(v int32) *int32 { return &v }

func validWidget() *hub.Widget {
	return &hub.Widget{
		ObjectMeta: scheme.ObjectMeta{Name: "w1", Namespace: "default"},
		Spec: hub.WidgetSpec{
			Color:    "red",
			Replicas: int32Ptr(1),
			Parts:    []hub.WidgetPart{{Name: "bolt", Count: 2}, {Name: "nut"}},
		},
	}
}

func validWarehouse() *hub.Warehouse {
	return &hub.Warehouse{
		ObjectMeta: scheme.ObjectMeta{Name: "north"},
		Spec:       hub.WarehouseSpec{Location: "Oslo", Capacity: 10},
	}
}

func messages(list validation.ErrorList) []string {
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

func TestValidateWidget(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*hub.Widget)
		want   []string
	}{
		{"a valid widget has no errors", func(*hub.Widget) {}, nil},
		{"every supported color is valid", func(w *hub.Widget) { w.Spec.Color = "blue" }, nil},
		{"zero replicas are valid", func(w *hub.Widget) { w.Spec.Replicas = int32Ptr(0) }, nil},
		{"unset replicas are valid", func(w *hub.Widget) { w.Spec.Replicas = nil }, nil},
		{"color is required", func(w *hub.Widget) { w.Spec.Color = "" },
			[]string{"spec.color: Required value"}},
		{"other colors are not supported", func(w *hub.Widget) { w.Spec.Color = "pink" },
			[]string{`spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`}},
		{"colors are case-sensitive", func(w *hub.Widget) { w.Spec.Color = "Red" },
			[]string{`spec.color: Unsupported value: "Red": supported values: "blue", "green", "red"`}},
		{"negative replicas are invalid", func(w *hub.Widget) { w.Spec.Replicas = int32Ptr(-1) },
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"a part needs a name", func(w *hub.Widget) { w.Spec.Parts[1].Name = "" },
			[]string{"spec.parts[1].name: Required value"}},
		{"part names are unique", func(w *hub.Widget) { w.Spec.Parts[1].Name = "bolt" },
			[]string{`spec.parts[1].name: Duplicate value: "bolt"`}},
		{"a part count is not negative", func(w *hub.Widget) { w.Spec.Parts[0].Count = -3 },
			[]string{"spec.parts[0].count: Invalid value: -3: must be greater than or equal to 0"}},
		{"a widget is namespaced", func(w *hub.Widget) { w.Namespace = "" },
			[]string{"metadata.namespace: Required value"}},
		{"a widget name is a DNS subdomain", func(w *hub.Widget) { w.Name = "Bad_Name" },
			[]string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"all errors are reported together", func(w *hub.Widget) {
			w.Spec.Color = ""
			w.Spec.Replicas = int32Ptr(-2)
			w.Spec.Parts = []hub.WidgetPart{{Name: "a", Count: -1}, {Name: "a"}, {}}
		}, []string{
			"spec.color: Required value",
			"spec.replicas: Invalid value: -2: must be greater than or equal to 0",
			"spec.parts[0].count: Invalid value: -1: must be greater than or equal to 0",
			`spec.parts[1].name: Duplicate value: "a"`,
			"spec.parts[2].name: Required value",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := validWidget()
			tt.mutate(w)
			if diff := cmp.Diff(tt.want, messages(api.ValidateWidget(w))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateWidgetUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*hub.Widget)
		want   []string
	}{
		{"changing the spec is allowed", func(w *hub.Widget) { w.Spec.Color = "green"; w.Spec.Replicas = int32Ptr(5) }, nil},
		{"the new spec is validated", func(w *hub.Widget) { w.Spec.Color = "pink" },
			[]string{`spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`}},
		{"the name is immutable", func(w *hub.Widget) { w.Name = "w2" },
			[]string{`metadata.name: Invalid value: "w2": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validWidget()
			old.ResourceVersion = "1"
			w := validWidget()
			w.ResourceVersion = "1"
			tt.mutate(w)
			if diff := cmp.Diff(tt.want, messages(api.ValidateWidgetUpdate(w, old))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateWarehouse(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*hub.Warehouse)
		want   []string
	}{
		{"a valid warehouse has no errors", func(*hub.Warehouse) {}, nil},
		{"zero capacity is valid", func(w *hub.Warehouse) { w.Spec.Capacity = 0 }, nil},
		{"location is required", func(w *hub.Warehouse) { w.Spec.Location = "" },
			[]string{"spec.location: Required value"}},
		{"negative capacity is invalid", func(w *hub.Warehouse) { w.Spec.Capacity = -5 },
			[]string{"spec.capacity: Invalid value: -5: must be greater than or equal to 0"}},
		{"a warehouse is cluster-scoped", func(w *hub.Warehouse) { w.Namespace = "default" },
			[]string{"metadata.namespace: Forbidden: not allowed on this type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := validWarehouse()
			tt.mutate(w)
			if diff := cmp.Diff(tt.want, messages(api.ValidateWarehouse(w))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateWarehouseUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*hub.Warehouse)
		want   []string
	}{
		{"changing the spec is allowed", func(w *hub.Warehouse) { w.Spec.Location = "Bergen"; w.Spec.Capacity = 99 }, nil},
		{"the new spec is validated", func(w *hub.Warehouse) { w.Spec.Location = "" },
			[]string{"spec.location: Required value"}},
		{"the name is immutable", func(w *hub.Warehouse) { w.Name = "south" },
			[]string{`metadata.name: Invalid value: "south": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validWarehouse()
			old.ResourceVersion = "1"
			w := validWarehouse()
			w.ResourceVersion = "1"
			tt.mutate(w)
			if diff := cmp.Diff(tt.want, messages(api.ValidateWarehouseUpdate(w, old))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
