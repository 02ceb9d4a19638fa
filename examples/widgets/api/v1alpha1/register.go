package v1alpha1

import (
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// GroupVersion is toys.example.com/v1alpha1.
var GroupVersion = scheme.GroupVersion{Group: "toys.example.com", Version: "v1alpha1"}

// AddToScheme registers the v1alpha1 kinds, their defaults and the conversion functions
// for the pairs that differ from the hub (Widget, WidgetSpec, WidgetStatus, both ways).
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	conversion.RegisterDefaults(s, SetDefaultsWidget)
	conversion.Register(s, ConvertWidgetToHub)
	conversion.Register(s, ConvertHubToWidget)
	conversion.Register(s, ConvertWidgetSpecToHub)
	conversion.Register(s, ConvertHubToWidgetSpec)
	conversion.Register(s, ConvertWidgetStatusToHub)
	conversion.Register(s, ConvertHubToWidgetStatus)
	return nil
}
