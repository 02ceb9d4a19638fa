// Package toys holds the Go types of toys.example.com, the API group that apikit's own
// tests share: a namespaced Widget served at v1 and v1alpha1 and a cluster-scoped
// Warehouse served at v1, each with its internal (hub) form. Package testapi registers
// them (conversions, defaults, validation, protobuf field numbers, resources).
//
// The types live apart from their registration because the tests inside package codec
// and package codec/protobuf use them, and the registration imports the protobuf codec.
// They import nothing but package scheme.
//
// The JSON and protobuf shapes are those of examples/widgets/api, which users copy;
// the Go shapes are not: the hub and v1 share one struct (WidgetV1 is a defined type
// over Widget), which is what "v1 converts to and from the hub field by field" means.
package toys

import "github.com/apikit-dev/apikit/scheme"

// Widget is the hub (internal) form of the namespaced toy with a color, a replica count
// and parts. Its field tags are v1's, so field paths (selectors, printer columns) read
// the same on every form.
type Widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec" description:"Spec is the desired state of the widget."`
	Status WidgetStatus `json:"status,omitempty" description:"Status is the most recently observed state of the widget; read-only."`
}

// WidgetV1 is the v1 form of a Widget: the hub's fields under its own Go type, as the
// scheme needs one Go type per version of a kind.
type WidgetV1 Widget

// WidgetSpec is the desired state of a Widget in the hub and in v1. Parts is a list-map
// keyed by name, merged by strategic merge patch.
type WidgetSpec struct {
	Color    string       `json:"color" description:"Color of the widget: red, green or blue."`
	Replicas *int32       `json:"replicas,omitempty" description:"Replicas is the desired number of copies. Defaults to 1."`
	Parts    []WidgetPart `json:"parts,omitempty" description:"Parts are the components of the widget, a list keyed by name." patchStrategy:"merge" patchMergeKey:"name" listType:"map" listMapKeys:"name"`
}

// WidgetPart is one named component of a Widget, in every version.
type WidgetPart struct {
	Name  string `json:"name" description:"Name identifies the part within its widget; required and unique."`
	Count int32  `json:"count,omitempty" description:"Count is how many of the part the widget has; at least 0."`
}

// WidgetStatus is the observed state of a Widget in the hub and in v1. Conditions is a
// list-map keyed by type.
type WidgetStatus struct {
	Phase              string             `json:"phase,omitempty" description:"Phase is a one-word summary of the state of the widget."`
	Replicas           int32              `json:"replicas,omitempty" description:"Replicas is the number of copies observed."`
	ObservedGeneration int64              `json:"observedGeneration,omitempty" description:"ObservedGeneration is the metadata.generation the status was computed from."`
	Conditions         []scheme.Condition `json:"conditions,omitempty" description:"Conditions are the latest observations of the state of the widget, keyed by type." patchStrategy:"merge" patchMergeKey:"type" listType:"map" listMapKeys:"type"`
}

// WidgetV1alpha1 is the v1alpha1 form of a Widget. It differs from the hub in three
// ways that exercise hand-written conversion: spec.paint is the hub's spec.color,
// spec.scaling.replicas is the hub's spec.replicas, and status has no conditions (they
// travel in an annotation).
type WidgetV1alpha1 struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpecV1alpha1   `json:"spec"`
	Status WidgetStatusV1alpha1 `json:"status,omitempty"`
}

// WidgetSpecV1alpha1 is the desired state of a v1alpha1 Widget.
type WidgetSpecV1alpha1 struct {
	Paint   string         `json:"paint"`
	Scaling *WidgetScaling `json:"scaling,omitempty"`
	Parts   []WidgetPart   `json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"name" listType:"map" listMapKeys:"name"`
}

// WidgetScaling says how many copies of a v1alpha1 Widget are wanted.
type WidgetScaling struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

// WidgetStatusV1alpha1 is the observed state of a v1alpha1 Widget: the hub's without
// conditions.
type WidgetStatusV1alpha1 struct {
	Phase              string `json:"phase,omitempty"`
	Replicas           int32  `json:"replicas,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// Warehouse is the hub (internal) form of the cluster-scoped place where widgets are kept.
type Warehouse struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec WarehouseSpec `json:"spec" description:"Spec is the desired state of the widget."`
}

// WarehouseV1 is the v1 form of a Warehouse, field for field the hub's.
type WarehouseV1 Warehouse

// WarehouseSpec is the desired state of a Warehouse in the hub and in v1.
type WarehouseSpec struct {
	Location string `json:"location" description:"Location says where the warehouse is."`
	Capacity int64  `json:"capacity,omitempty" description:"Capacity is how many widgets the warehouse holds; at least 0."`
}

// The list kinds, one per version of each kind: a list's items are of its version's type.
type (
	// WidgetList is a list of hub Widgets.
	WidgetList struct {
		scheme.TypeMeta `json:",inline"`
		scheme.ListMeta `json:"metadata,omitempty"`
		Items           []Widget `json:"items"`
	}
	// WidgetListV1 is a list of v1 Widgets.
	WidgetListV1 struct {
		scheme.TypeMeta `json:",inline"`
		scheme.ListMeta `json:"metadata,omitempty"`
		Items           []WidgetV1 `json:"items"`
	}
	// WidgetListV1alpha1 is a list of v1alpha1 Widgets.
	WidgetListV1alpha1 struct {
		scheme.TypeMeta `json:",inline"`
		scheme.ListMeta `json:"metadata,omitempty"`
		Items           []WidgetV1alpha1 `json:"items"`
	}
	// WarehouseList is a list of hub Warehouses.
	WarehouseList struct {
		scheme.TypeMeta `json:",inline"`
		scheme.ListMeta `json:"metadata,omitempty"`
		Items           []Warehouse `json:"items"`
	}
	// WarehouseListV1 is a list of v1 Warehouses.
	WarehouseListV1 struct {
		scheme.TypeMeta `json:",inline"`
		scheme.ListMeta `json:"metadata,omitempty"`
		Items           []WarehouseV1 `json:"items"`
	}
)
