package storagetest

import (
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// GroupVersion is the group and version of the suite's test kinds.
var GroupVersion = scheme.GroupVersion{Group: "storagetest.apikit.dev", Version: "v1"}

// The suite's resources: widgets are typed (*Widget), gadgets are unstructured.
var (
	Widgets = scheme.GroupResource{Group: GroupVersion.Group, Resource: "widgets"}
	Gadgets = scheme.GroupResource{Group: GroupVersion.Group, Resource: "gadgets"}
)

// Widget is the suite's typed kind.
type Widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	Size  int64    `json:"size"`
	Color string   `json:"color,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// NewWidget returns a Widget with apiVersion and kind set.
func NewWidget(namespace, name string, labels map[string]string, size int64) *Widget {
	return &Widget{
		TypeMeta:   scheme.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Widget"},
		ObjectMeta: scheme.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, UID: scheme.UID("uid-" + namespace + "-" + name)},
		Spec:       WidgetSpec{Size: size, Color: "blue", Tags: []string{"a", "b"}},
	}
}

// NewGadget returns an unstructured Gadget with spec.size set.
func NewGadget(namespace, name string, labels map[string]string, size int64) *scheme.Unstructured {
	u := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": GroupVersion.String(),
		"kind":       "Gadget",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"size": size, "parts": []any{"x", map[string]any{"y": int64(1)}}},
	}}
	if namespace != "" {
		u.SetNamespace(namespace)
	}
	u.SetLabels(labels)
	u.SetUID(scheme.UID("uid-" + namespace + "-" + name))
	return u
}

// AddToScheme registers Widget (typed) and Gadget (unstructured) and their resources.
func AddToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	s.AddUnstructuredKind(GroupVersion.WithKind("Gadget"))
	s.AddUnstructuredKind(GroupVersion.WithKind("GadgetList"))
	if err := s.AddResource(scheme.Resource{Group: GroupVersion.Group, Kind: "Widget", Plural: "widgets", Namespaced: true}); err != nil {
		return err
	}
	return s.AddResource(scheme.Resource{Group: GroupVersion.Group, Kind: "Gadget", Plural: "gadgets", Namespaced: true})
}

// kind abstracts over the typed and the unstructured test kind.
type kind struct {
	name     string
	resource scheme.GroupResource
	new      func(namespace, name string, labels map[string]string, size int64) scheme.Object
	size     func(scheme.Object) int64
	setSize  func(scheme.Object, int64)
}

func (k kind) key(namespace, name string) string { return storage.Key(k.resource, namespace, name) }
func (k kind) prefix(namespace string) string    { return storage.Prefix(k.resource, namespace) }

var kinds = []kind{
	{
		name:     "Typed",
		resource: Widgets,
		new: func(ns, name string, labels map[string]string, size int64) scheme.Object {
			return NewWidget(ns, name, labels, size)
		},
		size:    func(o scheme.Object) int64 { return o.(*Widget).Spec.Size },
		setSize: func(o scheme.Object, n int64) { o.(*Widget).Spec.Size = n },
	},
	{
		name:     "Unstructured",
		resource: Gadgets,
		new: func(ns, name string, labels map[string]string, size int64) scheme.Object {
			return NewGadget(ns, name, labels, size)
		},
		size: func(o scheme.Object) int64 {
			n, _ := scheme.NestedInt64(o.(*scheme.Unstructured).Object, "spec", "size")
			return n
		},
		setSize: func(o scheme.Object, n int64) {
			_ = scheme.SetNestedField(o.(*scheme.Unstructured).Object, n, "spec", "size")
		},
	},
}
