package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func int32Ptr(v int32) *int32 { return &v }

func TestSetDefaultsWidget(t *testing.T) {
	tests := []struct {
		name string
		in   Widget
		want Widget
	}{
		{
			name: "missing scaling is created with replicas 1",
			in:   Widget{Spec: WidgetSpec{Paint: "red"}},
			want: Widget{Spec: WidgetSpec{Paint: "red", Scaling: &WidgetScaling{Replicas: int32Ptr(1)}}},
		},
		{
			name: "empty scaling gets replicas 1",
			in:   Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{}}},
			want: Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{Replicas: int32Ptr(1)}}},
		},
		{
			name: "explicit zero replicas are kept",
			in:   Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{Replicas: int32Ptr(0)}}},
			want: Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{Replicas: int32Ptr(0)}}},
		},
		{
			name: "explicit replicas are kept",
			in:   Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{Replicas: int32Ptr(4)}}},
			want: Widget{Spec: WidgetSpec{Scaling: &WidgetScaling{Replicas: int32Ptr(4)}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			SetDefaultsWidget(&got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("defaulted widget (-want +got):\n%s", diff)
			}
		})
	}
}
