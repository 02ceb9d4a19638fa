package api

import (
	"fmt"

	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/api/v1alpha1"
	"github.com/apikit-dev/apikit/scheme"
)

// Group is the API group of the widget kinds.
const Group = "toys.example.com"

// WidgetResource returns how Widgets are served: namespaced, short name "wg", in
// category "all", with status and scale subresources, selectable by spec.color and
// status.phase, printed with Color, Replicas and Phase columns, stored at v1. Each call
// returns a fresh value.
func WidgetResource() scheme.Resource {
	return scheme.Resource{
		Group:             Group,
		Kind:              "Widget",
		ListKind:          "WidgetList",
		Plural:            "widgets",
		Singular:          "widget",
		ShortNames:        []string{"wg"},
		Categories:        []string{"all"},
		Namespaced:        true,
		StatusSubresource: true,
		Scale:             &scheme.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
		SelectableFields:  []string{"spec.color", "status.phase"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Color", Type: "string", Description: "The color of the widget.", JSONPath: ".spec.color"},
			{Name: "Replicas", Type: "integer", Description: "The desired number of copies.", JSONPath: ".spec.replicas"},
			{Name: "Phase", Type: "string", Description: "A one-word summary of the widget's state.", JSONPath: ".status.phase"},
		},
		StorageVersion: "v1",
	}
}

// WarehouseResource returns how Warehouses are served: cluster-scoped, stored at v1.
func WarehouseResource() scheme.Resource {
	return scheme.Resource{
		Group:          Group,
		Kind:           "Warehouse",
		ListKind:       "WarehouseList",
		Plural:         "warehouses",
		Singular:       "warehouse",
		Namespaced:     false,
		StorageVersion: "v1",
	}
}

// AddToScheme registers the toys.example.com group with s: the hub kinds under
// scheme.InternalVersion, the v1 and v1alpha1 kinds with their defaults and conversions,
// the version priority (v1, then v1alpha1) and the widgets and warehouses resources.
func AddToScheme(s *scheme.Scheme) error {
	for _, add := range []func(*scheme.Scheme) error{hub.AddToScheme, v1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return fmt.Errorf("registering %s: %w", Group, err)
		}
	}
	s.SetVersionPriority(Group, v1.GroupVersion.Version, v1alpha1.GroupVersion.Version)
	for _, r := range []scheme.Resource{WidgetResource(), WarehouseResource()} {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("registering %s: %w", Group, err)
		}
	}
	return nil
}

// NewScheme returns a new scheme holding only the toys.example.com group. It panics if
// registration fails, which is a programming error.
func NewScheme() *scheme.Scheme {
	s := scheme.New()
	if err := AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}
