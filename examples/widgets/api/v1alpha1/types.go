package v1alpha1

import "github.com/apikit-dev/apikit/scheme"

// Widget is a namespaced toy with a paint, a scaling block and a list of parts.
type Widget struct {
	scheme.TypeMeta `json:",inline"`
	// Standard object metadata.
	scheme.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the widget.
	Spec WidgetSpec `json:"spec"`
	// Status is the most recently observed state of the widget; read-only.
	// +optional
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Paint is the widget's color: "red", "green" or "blue".
	Paint string `json:"paint"`
	// Scaling says how many copies of the widget are wanted.
	// +optional
	Scaling *WidgetScaling `json:"scaling,omitempty"`
	// Parts are the widget's components, a list-map keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	Parts []WidgetPart `json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"name" listType:"map" listMapKeys:"name"`
}

// WidgetScaling groups the settings of how many copies of a Widget run.
type WidgetScaling struct {
	// Replicas is the desired number of copies. Defaults to 1.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// WidgetPart is one named component of a Widget.
type WidgetPart struct {
	// Name identifies the part within its widget; required and unique.
	Name string `json:"name"`
	// Count is how many of the part the widget has; at least 0.
	// +optional
	Count int32 `json:"count,omitempty"`
}

// WidgetStatus is the observed state of a Widget. Unlike v1 it has no conditions.
type WidgetStatus struct {
	// Phase is a one-word summary of the widget's state.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Replicas is the number of copies observed.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// ObservedGeneration is the metadata.generation the status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	// Standard list metadata.
	scheme.ListMeta `json:"metadata,omitempty"`

	// Items are the widgets.
	Items []Widget `json:"items"`
}
