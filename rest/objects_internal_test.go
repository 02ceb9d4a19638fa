package rest

import (
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// TestSpecEqual_TypedAgreesWithTheUnstructuredForm checks specEqual's typed shortcut
// (Go values compared without metadata and status) against the rule it stands for: the
// unstructured forms of the whole objects compared outside metadata, status, apiVersion
// and kind.
func TestSpecEqual_TypedAgreesWithTheUnstructuredForm(t *testing.T) {
	one, two := int32(1), int32(2)
	base := func() *toys.Widget {
		return &toys.Widget{
			TypeMeta:   scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
			ObjectMeta: scheme.ObjectMeta{Name: "w", Labels: map[string]string{"a": "b"}, ResourceVersion: "5"},
			Spec:       toys.WidgetSpec{Color: "red", Replicas: &one, Parts: []toys.WidgetPart{{Name: "p", Count: 1}}},
			Status:     toys.WidgetStatus{Phase: "Ready"},
		}
	}
	tests := []struct {
		name   string
		both   func(*toys.Widget) // applied to both objects first, when set
		change func(*toys.Widget)
		want   bool
	}{
		{"identical objects are equal", nil, func(*toys.Widget) {}, true},
		{"other metadata is equal", nil, func(w *toys.Widget) {
			w.Labels = map[string]string{"c": "d"}
			w.ResourceVersion = "6"
			w.ManagedFields = []scheme.ManagedFieldsEntry{{Manager: "m", Operation: "Update", FieldsType: "FieldsV1", FieldsV1: &scheme.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
		}, true},
		{"other status is equal", nil, func(w *toys.Widget) { w.Status.Phase = "Pending" }, true},
		{"other type information is equal", nil, func(w *toys.Widget) { w.APIVersion = "" }, true},
		{"an equal value behind another pointer is equal", nil, func(w *toys.Widget) { r := int32(1); w.Spec.Replicas = &r }, true},
		{"an empty list that encodes as the absent one is equal", func(w *toys.Widget) { w.Spec.Parts = nil }, func(w *toys.Widget) { w.Spec.Parts = []toys.WidgetPart{} }, true},
		{"another scalar differs", nil, func(w *toys.Widget) { w.Spec.Replicas = &two }, false},
		{"a missing pointer differs", nil, func(w *toys.Widget) { w.Spec.Replicas = nil }, false},
		{"another list item differs", nil, func(w *toys.Widget) { w.Spec.Parts[0].Count = 2 }, false},
		{"an absent list differs", nil, func(w *toys.Widget) { w.Spec.Parts = nil }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := base(), base()
			if tt.both != nil {
				tt.both(a)
				tt.both(b)
			}
			tt.change(b)
			wantA, wantB := scheme.DeepCopy(a), scheme.DeepCopy(b)
			for _, pair := range [][2]*toys.Widget{{a, b}, {b, a}} {
				got, err := specEqual(pair[0], pair[1])
				if err != nil {
					t.Fatal(err)
				}
				am, err := toMap(pair[0])
				if err != nil {
					t.Fatal(err)
				}
				bm, err := toMap(pair[1])
				if err != nil {
					t.Fatal(err)
				}
				if oracle := specMapsEqual(am, bm); got != tt.want || oracle != tt.want {
					t.Errorf("specEqual = %v, on the whole unstructured objects %v; want %v", got, oracle, tt.want)
				}
			}
			if !reflect.DeepEqual(a, wantA) || !reflect.DeepEqual(b, wantB) {
				t.Errorf("specEqual changed its arguments: %+v, %+v", a, b)
			}
		})
	}
}
