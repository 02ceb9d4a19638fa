package openapi_test

import (
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

var toysV1 = scheme.GroupVersion{Group: "toys.example.com", Version: "v1"}

// Widget is a test kind with the shapes the reflection rules must handle.
type Widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// SwaggerDoc describes Widget the Kubernetes way.
func (Widget) SwaggerDoc() map[string]string {
	return map[string]string{
		"":     "Widget is a toy.",
		"spec": "Spec is the desired state.",
	}
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	Color    string            `json:"color" description:"Color of the widget." enum:"red,green,blue"`
	Replicas *int32            `json:"replicas,omitempty"`
	Parts    []Part            `json:"parts,omitempty" listType:"map" listMapKeys:"name" patchStrategy:"merge" patchMergeKey:"name"`
	Tags     []string          `json:"tags,omitempty" listType:"set"`
	Weight   float64           `json:"weight,omitempty"`
	Ratio    float32           `json:"ratio,omitempty"`
	Paused   bool              `json:"paused,omitempty"`
	Size     int64             `json:"size,omitempty"`
	Count    int               `json:"count,omitempty"`
	Blob     []byte            `json:"blob,omitempty"`
	Labels   map[string]string `json:"labels,omitempty" mapType:"atomic"`
	Extra    map[string]any    `json:"extra,omitempty"`
	Anything any               `json:"anything,omitempty"`
	Started  *scheme.Time      `json:"started,omitempty"`
	Root     *Node             `json:"root,omitempty"`
	Inline   struct {
		Note string `json:"note"`
	} `json:"inline"`
	Quoted   int64  `json:"quoted,string"`
	Skipped  string `json:"-"`
	hidden   string
	Embedded `json:",inline"`
}

// Embedded is flattened into WidgetSpec.
type Embedded struct {
	Owner string `json:"owner,omitempty"`
}

// Part is one part of a Widget.
type Part struct {
	Name  string `json:"name"`
	Count int32  `json:"count"`
}

// Node is a recursive type.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	Conditions []scheme.Condition `json:"conditions,omitempty" listType:"map" listMapKeys:"type" patchStrategy:"merge" patchMergeKey:"type"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func newToyScheme() *scheme.Scheme {
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Widget{}, &WidgetList{})
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Widget", Plural: "widgets", Namespaced: true}); err != nil {
		panic(err)
	}
	return s
}

var _ = openapi.V3
