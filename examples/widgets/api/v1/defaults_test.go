package v1

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
			name: "unset replicas default to 1",
			in:   Widget{Spec: WidgetSpec{Color: "red"}},
			want: Widget{Spec: WidgetSpec{Color: "red", Replicas: int32Ptr(1)}},
		},
		{
			name: "explicit zero replicas are kept",
			in:   Widget{Spec: WidgetSpec{Replicas: int32Ptr(0)}},
			want: Widget{Spec: WidgetSpec{Replicas: int32Ptr(0)}},
		},
		{
			name: "explicit replicas are kept",
			in:   Widget{Spec: WidgetSpec{Replicas: int32Ptr(7)}},
			want: Widget{Spec: WidgetSpec{Replicas: int32Ptr(7)}},
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
