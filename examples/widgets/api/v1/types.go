package v1

import "github.com/apikit-dev/apikit/scheme"

// Widget is a namespaced toy with a color, a replica count and a list of parts.
type Widget struct {
	scheme.TypeMeta `json:",inline"`
	// Standard object metadata.
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the widget.
	Spec WidgetSpec `json:"spec" description:"Spec is the desired state of the widget."`
	// Status is the most recently observed state of the widget; read-only.
	// +optional
	Status WidgetStatus `json:"status,omitempty" description:"Status is the most recently observed state of the widget; read-only."`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Color of the widget: "red", "green" or "blue".
	Color string `json:"color" description:"Color of the widget: red, green or blue."`
	// Replicas is the desired number of copies. Defaults to 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty" description:"Replicas is the desired number of copies. Defaults to 1."`
	// Parts are the widget's components, a list-map keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	Parts []WidgetPart `json:"parts,omitempty" description:"Parts are the components of the widget, a list keyed by name." patchStrategy:"merge" patchMergeKey:"name" listType:"map" listMapKeys:"name"`
}

// WidgetPart is one named component of a Widget.
type WidgetPart struct {
	// Name identifies the part within its widget; required and unique.
	Name string `json:"name" description:"Name identifies the part within its widget; required and unique."`
	// Count is how many of the part the widget has; at least 0.
	// +optional
	Count int32 `json:"count,omitempty" description:"Count is how many of the part the widget has; at least 0."`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// Phase is a one-word summary of the widget's state.
	// +optional
	Phase string `json:"phase,omitempty" description:"Phase is a one-word summary of the state of the widget."`
	// Replicas is the number of copies observed.
	// +optional
	Replicas int32 `json:"replicas,omitempty" description:"Replicas is the number of copies observed."`
	// ObservedGeneration is the metadata.generation the status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty" description:"ObservedGeneration is the metadata.generation the status was computed from."`
	// Conditions are the latest observations of the widget's state, keyed by type.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []scheme.Condition `json:"conditions,omitempty" description:"Conditions are the latest observations of the state of the widget, keyed by type." patchStrategy:"merge" patchMergeKey:"type" listType:"map" listMapKeys:"type"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	// Standard list metadata.
	scheme.ListMeta `json:"metadata,omitempty"`

	// Items are the widgets.
	Items []Widget `json:"items"`
}

// Warehouse is a cluster-scoped place where widgets are kept.
type Warehouse struct {
	scheme.TypeMeta `json:",inline"`
	// Standard object metadata.
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the warehouse.
	Spec WarehouseSpec `json:"spec" description:"Spec is the desired state of the widget."`
}

// WarehouseSpec is the desired state of a Warehouse.
type WarehouseSpec struct {
	// Location says where the warehouse is; required.
	Location string `json:"location" description:"Location says where the warehouse is."`
	// Capacity is how many widgets the warehouse holds; at least 0.
	// +optional
	Capacity int64 `json:"capacity,omitempty" description:"Capacity is how many widgets the warehouse holds; at least 0."`
}

// WarehouseList is a list of Warehouses.
type WarehouseList struct {
	scheme.TypeMeta `json:",inline"`
	// Standard list metadata.
	scheme.ListMeta `json:"metadata,omitempty"`

	// Items are the warehouses.
	Items []Warehouse `json:"items"`
}
