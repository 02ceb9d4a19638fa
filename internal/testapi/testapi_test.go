package testapi_test

import (
	"testing"

	"github.com/apikit-dev/apikit/conversion/conversiontest"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// The shared kinds convert through the hub without loss in both directions, so a test
// that creates at one version and reads at another sees what it wrote.
func TestKinds_RoundTripThroughEveryVersion(t *testing.T) {
	// Defaulting fills spec.replicas, so filled objects always have it; an annotation map
	// left empty by removing ConditionsAnnotation comes back as nil, so it starts nil.
	fillSpec := conversiontest.FillFunc(func(spec *toys.WidgetSpec, f *conversiontest.Filler) {
		f.FillDefault(spec)
		if spec.Replicas == nil {
			spec.Replicas = new(int32)
		}
	})
	fillWidget := conversiontest.FillFunc(func(w *toys.Widget, f *conversiontest.Filler) {
		f.FillDefault(w)
		if w.Status.Conditions != nil && w.Annotations != nil && len(w.Annotations) == 0 {
			w.Annotations = nil
		}
	})
	s := testapi.NewScheme()
	for _, kind := range []string{"Widget", "Warehouse"} {
		t.Run(kind, func(t *testing.T) {
			conversiontest.RoundTrip(t, s, scheme.GroupKind{Group: testapi.Group, Kind: kind},
				conversiontest.Iterations(1000), conversiontest.Versioned(), fillSpec, fillWidget)
		})
	}
}

func TestValidateWidget_ReportsEveryRuleInOrder(t *testing.T) {
	replicas := int32(-1)
	w := &toys.Widget{
		ObjectMeta: scheme.ObjectMeta{Name: "w", Namespace: "ns"},
		Spec: toys.WidgetSpec{Color: "pink", Replicas: &replicas, Parts: []toys.WidgetPart{
			{Name: "a"}, {Name: "a", Count: -2}, {},
		}},
	}
	want := []string{
		`spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`,
		"spec.replicas: Invalid value: -1: must be greater than or equal to 0",
		`spec.parts[1].name: Duplicate value: "a"`,
		"spec.parts[1].count: Invalid value: -2: must be greater than or equal to 0",
		"spec.parts[2].name: Required value",
	}
	errs := testapi.ValidateWidget(w)
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, err := range errs {
		if err.Error() != want[i] {
			t.Errorf("error %d = %q, want %q", i, err.Error(), want[i])
		}
	}
}
