package hub

import "github.com/apikit-dev/apikit/scheme"

// GroupVersion is the internal version of the toys.example.com group.
var GroupVersion = scheme.GroupVersion{Group: "toys.example.com", Version: scheme.InternalVersion}

// AddToScheme registers the hub kinds under scheme.InternalVersion.
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{}, &Warehouse{}, &WarehouseList{})
	return nil
}
