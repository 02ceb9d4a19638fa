package protobuf

import (
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
)

// The tests encode the v1 Widget of toys.example.com, the API apikit's tests share
// (internal/testapi), under the short names below. Its field numbers are registered here,
// with RegisterWidgetFields and RegisterWarehouseFields, rather than by package testapi,
// which imports this package.

var widgetGV = scheme.GroupVersion{Group: "toys.example.com", Version: "v1"}

type Widget = toys.WidgetV1
type WidgetSpec = toys.WidgetSpec
type WidgetPart = toys.WidgetPart
type WidgetStatus = toys.WidgetStatus
type WidgetList = toys.WidgetListV1

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
	s.AddKnownTypeWithName(widgetGV.WithKind("Widget"), &Widget{})
	s.AddKnownTypeWithName(widgetGV.WithKind("WidgetList"), &WidgetList{})
	if err := RegisterWidgetFields(s, widgetGV); err != nil {
		panic(err)
	}
	if err := RegisterWarehouseFields(s, widgetGV); err != nil {
		panic(err)
	}
	return s
}
