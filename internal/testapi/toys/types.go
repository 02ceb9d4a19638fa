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

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetV1 is the v1 form of a Widget: the hub's fields under its own Go type, as the
// scheme needs one Go type per version of a kind.
type WidgetV1 Widget

// WidgetStatus is the observed state of a Widget in the hub and in v1. Conditions is a
// list-map keyed by type.
type WidgetStatus struct {
	Phase              string             `json:"phase,omitempty"`
	Replicas           int32              `json:"replicas,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []scheme.Condition `json:"conditions,omitempty" listType:"map" listMapKeys:"type" patchStrategy:"merge" patchMergeKey:"type"`
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

// WidgetStatusV1alpha1 is the observed state of a v1alpha1 Widget: the hub's without
// conditions.
type WidgetStatusV1alpha1 struct {
	Phase              string `json:"phase,omitempty"`
	Replicas           int32  `json:"replicas,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// WidgetSpec is the desired state of a Widget in the hub and in v1. Parts is a list-map
// keyed by name, merged by strategic merge patch.
type WidgetSpec struct {
	Color    string       `json:"color"`
	Replicas *int32       `json:"replicas,omitempty"`
	Parts    []WidgetPart `json:"parts,omitempty" listType:"map" listMapKeys:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

// WidgetSpecV1alpha1 is the desired state of a v1alpha1 Widget.
type WidgetSpecV1alpha1 struct {
	Paint   string         `json:"paint"`
	Scaling *WidgetScaling `json:"scaling,omitempty"`
	Parts   []WidgetPart   `json:"parts,omitempty" listType:"map" listMapKeys:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

// WidgetScaling says how many copies of a v1alpha1 Widget are wanted.
type WidgetScaling struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

// WidgetPart is one named component of a Widget, in every version.
type WidgetPart struct {
	Name  string `json:"name"`
	Count int32  `json:"count,omitempty"`
}

// Warehouse is the hub (internal) form of the cluster-scoped place where widgets are kept.
type Warehouse struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec WarehouseSpec `json:"spec"`
}

// WarehouseV1 is the v1 form of a Warehouse, field for field the hub's.
type WarehouseV1 Warehouse

// WarehouseSpec is the desired state of a Warehouse in the hub and in v1.
type WarehouseSpec struct {
	Location string `json:"location"`
	Capacity int64  `json:"capacity,omitempty"`
}

// List is the list kind of items of type T. Each version's list kind is a List of that
// version's type, so the five list kinds share one declaration.
type List[T any] struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []T `json:"items"`
}

// The list kinds of every version of each kind.
type (
	WidgetList         = List[Widget]
	WidgetListV1       = List[WidgetV1]
	WidgetListV1alpha1 = List[WidgetV1alpha1]
	WarehouseList      = List[Warehouse]
	WarehouseListV1    = List[WarehouseV1]
)
