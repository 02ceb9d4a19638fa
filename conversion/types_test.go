package conversion_test

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/conversion/internal/gadgets"
	"github.com/apikit-dev/apikit/scheme"
)

// The tests convert the kinds of the test group gadgets.test (conversion/internal/gadgets)
// under the short names below.

var (
	groupGV    = gadgets.Internal
	v1GV       = gadgets.V1
	v2GV       = gadgets.V2
	gadgetKind = gadgets.Kind
)

type (
	Color        = gadgets.Color
	Gadget       = gadgets.Gadget
	GadgetSpec   = gadgets.GadgetSpec
	Part         = gadgets.Part
	Owner        = gadgets.Owner
	GadgetStatus = gadgets.GadgetStatus
	GadgetList   = gadgets.GadgetList
	V1Color      = gadgets.V1Color
	V1Gadget     = gadgets.V1Gadget
	V1GadgetSpec = gadgets.V1GadgetSpec
	V1Part       = gadgets.V1Part
	V1Owner      = gadgets.V1Owner
	V1GadgetList = gadgets.V1GadgetList
	V2Gadget     = gadgets.V2Gadget
	V2GadgetSpec = gadgets.V2GadgetSpec
	V2Sizing     = gadgets.V2Sizing
	V2GadgetList = gadgets.V2GadgetList
)

const defaultReplicas int32 = 3

// newScheme registers the three versions, v2's conversion functions and v1's defaulter.
func newScheme() *scheme.Scheme {
	s := scheme.New()
	gadgets.AddToScheme(s)
	conversion.RegisterDefaults(s, func(g *V1Gadget) {
		if g.Spec.Replicas == nil {
			r := defaultReplicas
			g.Spec.Replicas = &r
		}
	})
	return s
}

func ptr[T any](v T) *T { return &v }

// sampleGadget is an internal Gadget with every kind of field set.
func sampleGadget() *Gadget {
	return &Gadget{
		ObjectMeta: scheme.ObjectMeta{
			Name: "g1", Namespace: "ns", Labels: map[string]string{"a": "b"},
			CreationTimestamp: scheme.NewTime(mustTime("2024-05-06T07:08:09Z")),
			Finalizers:        []string{"f1"},
		},
		Spec: GadgetSpec{
			Color:    "red",
			Size:     7,
			Replicas: ptr[int32](2),
			Tags:     []string{"x", "y"},
			Settings: map[string]string{"k": "v"},
			Parts: []Part{
				{Name: "wheel", Count: 4, Sub: []Part{{Name: "spoke", Count: 32}}},
				{Name: "seat", Count: 1},
			},
			PartsByKey: map[string]*Part{"w": {Name: "wheel", Count: 4}, "nil": nil},
			Owner:      &Owner{Name: "ann", Since: scheme.NewTime(mustTime("2020-01-02T03:04:05Z"))},
			Weights:    []float64{1.5, 2},
			Blob:       []byte("hello"),
		},
		Status: GadgetStatus{
			Phase: "Ready",
			Conditions: []scheme.Condition{{
				Type: "Ready", Status: scheme.ConditionTrue, Reason: "Done",
				LastTransitionTime: scheme.NewTime(mustTime("2024-05-06T07:08:10Z")),
			}},
		},
	}
}
