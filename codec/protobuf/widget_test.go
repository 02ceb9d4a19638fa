package protobuf

import (
	"github.com/apikit-dev/apikit/scheme"
)

// The example Widget (examples/widgets/api/v1) as a test copy, and the registration
// that examples/widgets/api/v1's AddToScheme should call (RegisterWidgetFields below,
// moved there as is) to serve it as protobuf.

var widgetGV = scheme.GroupVersion{Group: "toys.example.com", Version: "v1"}

type Widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Color    string       `json:"color"`
	Replicas *int32       `json:"replicas,omitempty"`
	Parts    []WidgetPart `json:"parts,omitempty"`
}

type WidgetPart struct {
	Name  string `json:"name"`
	Count int32  `json:"count,omitempty"`
}

type WidgetStatus struct {
	Phase              string             `json:"phase,omitempty"`
	Replicas           int32              `json:"replicas,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []scheme.Condition `json:"conditions,omitempty"`
}

type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// RegisterWidgetFields gives Widget (and WidgetList) of gv a protobuf encoding,
// numbered like a generated.proto would: metadata=1, spec=2, status=3.
func RegisterWidgetFields(s *scheme.Scheme, gv scheme.GroupVersion) error {
	return RegisterFields(s, gv.WithKind("Widget"),
		Field{Path: "metadata", Number: 1, Type: TypeObjectMeta},
		Field{Path: "spec", Number: 2, Type: TypeMessage},
		Field{Path: "spec.color", Number: 1, Type: TypeString},
		Field{Path: "spec.replicas", Number: 2, Type: TypeInt32, Optional: true},
		Field{Path: "spec.parts", Number: 3, Type: TypeMessage, Repeated: true},
		Field{Path: "spec.parts.name", Number: 1, Type: TypeString},
		Field{Path: "spec.parts.count", Number: 2, Type: TypeInt32},
		Field{Path: "status", Number: 3, Type: TypeMessage},
		Field{Path: "status.phase", Number: 1, Type: TypeString},
		Field{Path: "status.replicas", Number: 2, Type: TypeInt32},
		Field{Path: "status.observedGeneration", Number: 3, Type: TypeInt64},
		Field{Path: "status.conditions", Number: 4, Type: TypeCondition, Repeated: true},
	)
}

// RegisterWarehouseFields does the same for the example's Warehouse (and
// WarehouseList): metadata=1, spec=2 {location=1, capacity=2}.
func RegisterWarehouseFields(s *scheme.Scheme, gv scheme.GroupVersion) error {
	return RegisterFields(s, gv.WithKind("Warehouse"),
		Field{Path: "metadata", Number: 1, Type: TypeObjectMeta},
		Field{Path: "spec", Number: 2, Type: TypeMessage},
		Field{Path: "spec.location", Number: 1, Type: TypeString},
		Field{Path: "spec.capacity", Number: 2, Type: TypeInt64},
	)
}

func testScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypes(widgetGV, &Widget{}, &WidgetList{})
	if err := RegisterWidgetFields(s, widgetGV); err != nil {
		panic(err)
	}
	if err := RegisterWarehouseFields(s, widgetGV); err != nil {
		panic(err)
	}
	return s
}
