package api_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/api/v1alpha1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

var readyTime = scheme.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))

// timeEqual compares scheme.Time by instant: the annotation's JSON round trip keeps the
// instant, not the *time.Location.
var timeEqual = cmp.Comparer(func(a, b scheme.Time) bool { return a.Equal(&b) })

func TestDefault_AppliesInEveryVersion(t *testing.T) {
	s := api.NewScheme()
	tests := []struct {
		name string
		obj  any
		want any
	}{
		{"v1 widget without replicas gets 1",
			&v1.Widget{Spec: v1.WidgetSpec{Color: "red"}},
			&v1.Widget{Spec: v1.WidgetSpec{Color: "red", Replicas: int32Ptr(1)}}},
		{"v1 widget keeps explicit zero replicas",
			&v1.Widget{Spec: v1.WidgetSpec{Replicas: int32Ptr(0)}},
			&v1.Widget{Spec: v1.WidgetSpec{Replicas: int32Ptr(0)}}},
		{"v1 list defaults every item",
			&v1.WidgetList{Items: []v1.Widget{{}, {Spec: v1.WidgetSpec{Replicas: int32Ptr(4)}}}},
			&v1.WidgetList{Items: []v1.Widget{{Spec: v1.WidgetSpec{Replicas: int32Ptr(1)}}, {Spec: v1.WidgetSpec{Replicas: int32Ptr(4)}}}}},
		{"v1alpha1 widget without scaling gets replicas 1",
			&v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Paint: "red"}},
			&v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Paint: "red", Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(1)}}}},
		{"v1alpha1 widget keeps explicit zero replicas",
			&v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(0)}}},
			&v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(0)}}}},
		{"v1alpha1 list defaults every item",
			&v1alpha1.WidgetList{Items: []v1alpha1.Widget{{}}},
			&v1alpha1.WidgetList{Items: []v1alpha1.Widget{{Spec: v1alpha1.WidgetSpec{Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(1)}}}}}},
		{"v1 warehouse has no defaults",
			&v1.Warehouse{Spec: v1.WarehouseSpec{Location: "Oslo"}},
			&v1.Warehouse{Spec: v1.WarehouseSpec{Location: "Oslo"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conversion.Default(s, tt.obj)
			if diff := cmp.Diff(tt.want, tt.obj); diff != "" {
				t.Errorf("defaulted object (-want +got):\n%s", diff)
			}
		})
	}
}

func alphaWidget() *v1alpha1.Widget {
	return &v1alpha1.Widget{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1alpha1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{
			Name: "w1", Namespace: "default", Generation: 2,
			Labels: map[string]string{"app": "toys"},
			Annotations: map[string]string{
				"note":                        "keep me",
				v1alpha1.ConditionsAnnotation: `[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-06T07:08:09Z","reason":"Done","message":"ok"}]`,
			},
		},
		Spec: v1alpha1.WidgetSpec{
			Paint:   "green",
			Scaling: &v1alpha1.WidgetScaling{Replicas: int32Ptr(3)},
			Parts:   []v1alpha1.WidgetPart{{Name: "bolt", Count: 2}, {Name: "nut", Count: 4}},
		},
		Status: v1alpha1.WidgetStatus{Phase: "Ready", Replicas: 3, ObservedGeneration: 2},
	}
}

func v1Widget() *v1.Widget {
	return &v1.Widget{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{
			Name: "w1", Namespace: "default", Generation: 2,
			Labels:      map[string]string{"app": "toys"},
			Annotations: map[string]string{"note": "keep me"},
		},
		Spec: v1.WidgetSpec{
			Color:    "green",
			Replicas: int32Ptr(3),
			Parts:    []v1.WidgetPart{{Name: "bolt", Count: 2}, {Name: "nut", Count: 4}},
		},
		Status: v1.WidgetStatus{
			Phase: "Ready", Replicas: 3, ObservedGeneration: 2,
			Conditions: []scheme.Condition{{
				Type: "Ready", Status: scheme.ConditionTrue, LastTransitionTime: readyTime, Reason: "Done", Message: "ok",
			}},
		},
	}
}

func TestToVersion_V1alpha1ToV1RenamesRestructuresAndRestoresConditions(t *testing.T) {
	s := api.NewScheme()
	in := alphaWidget()
	got, err := conversion.ToVersion(s, in, v1.GroupVersion)
	if err != nil {
		t.Fatalf("ToVersion: %v", err)
	}
	if diff := cmp.Diff(v1Widget(), got, timeEqual); diff != "" {
		t.Errorf("v1 widget (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(alphaWidget(), in); diff != "" {
		t.Errorf("the input was modified (-want +got):\n%s", diff)
	}
}

func TestToVersion_V1ToV1alpha1CarriesConditionsInAnnotation(t *testing.T) {
	s := api.NewScheme()
	in := v1Widget()
	got, err := conversion.ToVersion(s, in, v1alpha1.GroupVersion)
	if err != nil {
		t.Fatalf("ToVersion: %v", err)
	}
	if diff := cmp.Diff(alphaWidget(), got); diff != "" {
		t.Errorf("v1alpha1 widget (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(v1Widget(), in, timeEqual); diff != "" {
		t.Errorf("the input was modified (-want +got):\n%s", diff)
	}
}

func TestConvert_HubToV1alpha1(t *testing.T) {
	s := api.NewScheme()
	tests := []struct {
		name string
		in   hub.Widget
		want v1alpha1.Widget
	}{
		{
			name: "no conditions means no annotation and nil replicas means no scaling",
			in:   hub.Widget{Spec: hub.WidgetSpec{Color: "red"}},
			want: v1alpha1.Widget{Spec: v1alpha1.WidgetSpec{Paint: "red"}},
		},
		{
			name: "a stale conditions annotation is dropped",
			in: hub.Widget{ObjectMeta: scheme.ObjectMeta{Annotations: map[string]string{
				v1alpha1.ConditionsAnnotation: "[]", "other": "x",
			}}},
			want: v1alpha1.Widget{ObjectMeta: scheme.ObjectMeta{Annotations: map[string]string{"other": "x"}}},
		},
		{
			name: "conditions become the annotation",
			in: hub.Widget{Status: hub.WidgetStatus{Conditions: []scheme.Condition{
				{Type: "Ready", Status: scheme.ConditionFalse, Reason: "Waiting", Message: "parts missing"},
			}}},
			want: v1alpha1.Widget{ObjectMeta: scheme.ObjectMeta{Annotations: map[string]string{
				v1alpha1.ConditionsAnnotation: `[{"type":"Ready","status":"False","lastTransitionTime":null,"reason":"Waiting","message":"parts missing"}]`,
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got v1alpha1.Widget
			if err := conversion.Convert(s, &tt.in, &got); err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("v1alpha1 widget (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConvert_V1alpha1WithBrokenConditionsAnnotationFails(t *testing.T) {
	s := api.NewScheme()
	in := alphaWidget()
	in.Annotations[v1alpha1.ConditionsAnnotation] = "{not json"
	var out hub.Widget
	err := conversion.Convert(s, in, &out)
	if err == nil {
		t.Fatal("Convert succeeded, want an error naming the annotation")
	}
	if !strings.Contains(err.Error(), v1alpha1.ConditionsAnnotation) || !strings.Contains(err.Error(), `"w1"`) {
		t.Errorf("error %q does not name the annotation and the widget", err)
	}
	var syntaxErr *json.SyntaxError
	if !errors.As(err, &syntaxErr) {
		t.Errorf("error %v does not wrap the JSON error", err)
	}
}

func TestToVersion_V1alpha1ListConvertsEveryItem(t *testing.T) {
	s := api.NewScheme()
	in := &v1alpha1.WidgetList{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1alpha1", Kind: "WidgetList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "42"},
		Items:    []v1alpha1.Widget{*alphaWidget(), *alphaWidget()},
	}
	in.Items[1].Name = "w2"
	got, err := conversion.ToVersion(s, in, v1.GroupVersion)
	if err != nil {
		t.Fatalf("ToVersion: %v", err)
	}
	item := func(name string) v1.Widget {
		w := *v1Widget()
		w.TypeMeta = scheme.TypeMeta{}
		w.Name = name
		return w
	}
	want := &v1.WidgetList{
		TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "WidgetList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "42"},
		Items:    []v1.Widget{item("w1"), item("w2")},
	}
	if diff := cmp.Diff(want, got, timeEqual); diff != "" {
		t.Errorf("v1 list (-want +got):\n%s", diff)
	}
}
