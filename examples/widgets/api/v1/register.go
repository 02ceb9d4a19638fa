package v1

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// GroupVersion is toys.example.com/v1.
var GroupVersion = scheme.GroupVersion{Group: "toys.example.com", Version: "v1"}

// AddToScheme registers the v1 kinds, their defaults and their protobuf field numbers.
// v1 converts to and from the hub automatically, so it registers no conversion functions.
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{}, &Warehouse{}, &WarehouseList{})
	conversion.RegisterDefaults(s, SetDefaultsWidget)
	return registerProtobuf(s)
}
