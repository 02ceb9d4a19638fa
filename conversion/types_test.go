package conversion_test

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// A test group "gadgets.test" with an internal hub, v1 (same shape as the hub, different Go
// types) and v2 (spec.color renamed to spec.paint, spec.size moved into spec.sizing.size),
// with conversion functions for v2 only.

var (
	groupGV    = scheme.GroupVersion{Group: "gadgets.test", Version: scheme.InternalVersion}
	v1GV       = scheme.GroupVersion{Group: "gadgets.test", Version: "v1"}
	v2GV       = scheme.GroupVersion{Group: "gadgets.test", Version: "v2"}
	gadgetKind = scheme.GroupKind{Group: "gadgets.test", Kind: "Gadget"}
)

// --- internal

type Color string

type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec   `json:"spec"`
	Status            GadgetStatus `json:"status,omitempty"`
}

type GadgetSpec struct {
	Color      Color             `json:"color"`
	Size       int32             `json:"size,omitempty"`
	Replicas   *int32            `json:"replicas,omitempty"`
	Tags       []string          `json:"tags,omitempty"`
	Settings   map[string]string `json:"settings,omitempty"`
	Parts      []Part            `json:"parts,omitempty"`
	PartsByKey map[string]*Part  `json:"partsByKey,omitempty"`
	Owner      *Owner            `json:"owner,omitempty"`
	Weights    []float64         `json:"weights,omitempty"`
	Blob       []byte            `json:"blob,omitempty"`
}

type Part struct {
	Name  string `json:"name"`
	Count int64  `json:"count,omitempty"`
	Sub   []Part `json:"sub,omitempty"` // recursive
}

type Owner struct {
	Name  string      `json:"name"`
	Since scheme.Time `json:"since"`
}

type GadgetStatus struct {
	Phase      string             `json:"phase,omitempty"`
	Conditions []scheme.Condition `json:"conditions,omitempty"`
}

type GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// --- v1: the hub's shape in its own types

type V1Color string

type V1Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              V1GadgetSpec   `json:"spec"`
	Status            V1GadgetStatus `json:"status,omitempty"`
}

type V1GadgetSpec struct {
	Color      V1Color            `json:"color"`
	Size       int32              `json:"size,omitempty"`
	Replicas   *int32             `json:"replicas,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	Settings   map[string]string  `json:"settings,omitempty"`
	Parts      []V1Part           `json:"parts,omitempty"`
	PartsByKey map[string]*V1Part `json:"partsByKey,omitempty"`
	Owner      *V1Owner           `json:"owner,omitempty"`
	Weights    []float64          `json:"weights,omitempty"`
	Blob       []byte             `json:"blob,omitempty"`
}

type V1Part struct {
	Name  string   `json:"name"`
	Count int64    `json:"count,omitempty"`
	Sub   []V1Part `json:"sub,omitempty"`
}

type V1Owner struct {
	Name  string      `json:"name"`
	Since scheme.Time `json:"since"`
}

type V1GadgetStatus struct {
	Phase      string             `json:"phase,omitempty"`
	Conditions []scheme.Condition `json:"conditions,omitempty"`
}

type V1GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []V1Gadget `json:"items"`
}

// --- v2: renamed and restructured fields

type V2Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              V2GadgetSpec   `json:"spec"`
	Status            V1GadgetStatus `json:"status,omitempty"`
}

type V2GadgetSpec struct {
	Paint      string             `json:"paint"`
	Sizing     *V2Sizing          `json:"sizing,omitempty"`
	Replicas   *int32             `json:"replicas,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	Settings   map[string]string  `json:"settings,omitempty"`
	Parts      []V1Part           `json:"parts,omitempty"`
	PartsByKey map[string]*V1Part `json:"partsByKey,omitempty"`
	Owner      *V1Owner           `json:"owner,omitempty"`
	Weights    []float64          `json:"weights,omitempty"`
	Blob       []byte             `json:"blob,omitempty"`
}

type V2Sizing struct {
	Size int32 `json:"size"`
}

type V2GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []V2Gadget `json:"items"`
}

const defaultReplicas int32 = 3

// newScheme registers the three versions, v2's conversion functions (at the top-level
// pair, relying on AutoConvert for everything shared) and v1's defaulter.
func newScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypeWithName(groupGV.WithKind("Gadget"), &Gadget{})
	s.AddKnownTypeWithName(groupGV.WithKind("GadgetList"), &GadgetList{})
	s.AddKnownTypeWithName(v1GV.WithKind("Gadget"), &V1Gadget{})
	s.AddKnownTypeWithName(v1GV.WithKind("GadgetList"), &V1GadgetList{})
	s.AddKnownTypeWithName(v2GV.WithKind("Gadget"), &V2Gadget{})
	s.AddKnownTypeWithName(v2GV.WithKind("GadgetList"), &V2GadgetList{})

	conversion.Register(s, func(in *V2Gadget, out *Gadget, sc conversion.Scope) error {
		if err := conversion.AutoConvert(s, in, out); err != nil {
			return err
		}
		out.Spec.Color = Color(in.Spec.Paint)
		out.Spec.Size = 0
		if in.Spec.Sizing != nil {
			out.Spec.Size = in.Spec.Sizing.Size
		}
		return nil
	})
	conversion.Register(s, func(in *Gadget, out *V2Gadget, sc conversion.Scope) error {
		if err := conversion.AutoConvert(s, in, out); err != nil {
			return err
		}
		out.Spec.Paint = string(in.Spec.Color)
		out.Spec.Sizing = nil
		if in.Spec.Size != 0 {
			out.Spec.Sizing = &V2Sizing{Size: in.Spec.Size}
		}
		return nil
	})
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
