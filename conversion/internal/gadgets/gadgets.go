// Package gadgets is the test group gadgets.test that the tests of package conversion and
// of package conversion/conversiontest share: an internal hub whose spec holds every kind
// of field the automatic conversion handles (named basic types, pointers, slices, maps of
// pointers, a recursive type, scheme.Time, floats, bytes), v1 with the hub's shape in
// types of its own, and v2 with renamed and restructured fields (spec.color is
// spec.paint, spec.size is spec.sizing.size) and hand-written conversion functions.
//
// It is apart from internal/testapi, the API the other packages' tests share, because
// its kinds are shaped to exercise the conversion machinery rather than to be served.
package gadgets

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// The group's versions and its one kind.
var (
	Internal = scheme.GroupVersion{Group: "gadgets.test", Version: scheme.InternalVersion}
	V1       = scheme.GroupVersion{Group: "gadgets.test", Version: "v1"}
	V2       = scheme.GroupVersion{Group: "gadgets.test", Version: "v2"}
	Kind     = scheme.GroupKind{Group: "gadgets.test", Kind: "Gadget"}
)

// AddToScheme registers the Gadget and GadgetList kinds of every version and v2's
// conversion to and from the hub, at the top-level pair: AutoConvert converts everything
// the two share, the functions what differs. It registers no defaults.
func AddToScheme(s *scheme.Scheme) {
	for gv, objs := range map[scheme.GroupVersion][2]scheme.Kinded{
		Internal: {&Gadget{}, &GadgetList{}},
		V1:       {&V1Gadget{}, &V1GadgetList{}},
		V2:       {&V2Gadget{}, &V2GadgetList{}},
	} {
		s.AddKnownTypeWithName(gv.WithKind("Gadget"), objs[0])
		s.AddKnownTypeWithName(gv.WithKind("GadgetList"), objs[1])
	}
	conversion.Register(s, func(in *V2Gadget, out *Gadget, sc conversion.Scope) error {
		if err := sc.AutoConvert(in, out); err != nil {
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
		if err := sc.AutoConvert(in, out); err != nil {
			return err
		}
		out.Spec.Paint = string(in.Spec.Color)
		out.Spec.Sizing = nil
		if in.Spec.Size != 0 {
			out.Spec.Sizing = &V2Sizing{Size: in.Spec.Size}
		}
		return nil
	})
}

// Color is the hub's named string type for spec.color.
type Color string

// Gadget is the hub form of the kind.
type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec   `json:"spec"`
	Status            GadgetStatus `json:"status,omitempty"`
}

// GadgetSpec holds one field of each kind the automatic conversion handles.
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

// Part is a recursive part of a Gadget.
type Part struct {
	Name  string `json:"name"`
	Count int64  `json:"count,omitempty"`
	Sub   []Part `json:"sub,omitempty"` // recursive
}

// Owner is a struct behind a pointer, with a scheme.Time.
type Owner struct {
	Name  string      `json:"name"`
	Since scheme.Time `json:"since"`
}

// GadgetStatus is the observed state of a Gadget.
type GadgetStatus struct {
	Phase      string             `json:"phase,omitempty"`
	Conditions []scheme.Condition `json:"conditions,omitempty"`
}

// GadgetList is a list of hub Gadgets.
type GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// V1Color is v1's named string type for spec.color, converting from Color by kind.
type V1Color string

// V1Gadget is the v1 form: the hub's shape in types of its own.
type V1Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              V1GadgetSpec   `json:"spec"`
	Status            V1GadgetStatus `json:"status,omitempty"`
}

// V1GadgetSpec is GadgetSpec in v1.
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

// V1Part is Part in v1.
type V1Part struct {
	Name  string   `json:"name"`
	Count int64    `json:"count,omitempty"`
	Sub   []V1Part `json:"sub,omitempty"`
}

// V1Owner is Owner in v1.
type V1Owner struct {
	Name  string      `json:"name"`
	Since scheme.Time `json:"since"`
}

// V1GadgetStatus is GadgetStatus in v1 and v2.
type V1GadgetStatus struct {
	Phase      string             `json:"phase,omitempty"`
	Conditions []scheme.Condition `json:"conditions,omitempty"`
}

// V1GadgetList is a list of v1 Gadgets.
type V1GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []V1Gadget `json:"items"`
}

// V2Gadget is the v2 form, with renamed and restructured spec fields.
type V2Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              V2GadgetSpec   `json:"spec"`
	Status            V1GadgetStatus `json:"status,omitempty"`
}

// V2GadgetSpec is GadgetSpec with color renamed to paint and size moved into sizing.
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

// V2Sizing holds v2's spec.sizing.size, the hub's spec.size.
type V2Sizing struct {
	Size int32 `json:"size"`
}

// V2GadgetList is a list of v2 Gadgets.
type V2GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []V2Gadget `json:"items"`
}
