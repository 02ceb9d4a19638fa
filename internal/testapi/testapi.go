// Package testapi is the API that apikit's own tests share: the group toys.example.com
// with a namespaced Widget served at v1 (the storage version) and v1alpha1, and a
// cluster-scoped Warehouse served at v1. NewScheme registers everything a server needs:
// the Go types of package toys for the hub and both versions, v1alpha1's hand-written
// conversion, defaulting, the protobuf field numbers and the two resources, so that the
// tests of codec, patch and rest run on one realistic group instead of a copy each.
// ValidateWidget is what their strategies validate with.
//
// It is internal because it is a fixture, shaped for tests. Its wire form (group, kinds,
// resources, JSON and protobuf fields) is that of examples/widgets, the example users
// copy, so that a test here and an end-to-end test there see the same bytes; the
// example keeps its own code, and nothing outside examples/ and e2e/ imports it.
package testapi

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Group is the API group of the test kinds.
const Group = "toys.example.com"

// The group's versions: the hub and the two served versions, v1 preferred.
var (
	Internal = scheme.GroupVersion{Group: Group, Version: scheme.InternalVersion}
	V1       = scheme.GroupVersion{Group: Group, Version: "v1"}
	V1alpha1 = scheme.GroupVersion{Group: Group, Version: "v1alpha1"}
)

// DefaultReplicas is the replica count a Widget that sets none gets, in either version.
const DefaultReplicas int32 = 1

// ConditionsAnnotation carries a Widget's status.conditions (their JSON) in v1alpha1,
// which has no field for them: converting to v1alpha1 sets it, converting back to the
// hub restores the conditions and removes it.
const ConditionsAnnotation = "toys.example.com/v1-conditions"

// WidgetResource returns how widgets are served: namespaced, short name "wg", category
// "all", status and scale subresources, selectable by spec.color and status.phase,
// printed with Color, Replicas and Phase columns, stored at v1.
func WidgetResource() scheme.Resource {
	return scheme.Resource{
		Group: Group, Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Color", Type: "string", Description: "The color of the widget.", JSONPath: ".spec.color"},
			{Name: "Replicas", Type: "integer", Description: "The desired number of copies.", JSONPath: ".spec.replicas"},
			{Name: "Phase", Type: "string", Description: "A one-word summary of the widget's state.", JSONPath: ".status.phase"},
		},
		ShortNames: []string{"wg"}, Categories: []string{"all"}, Namespaced: true, StorageVersion: "v1",
		SelectableFields:  []string{"spec.color", "status.phase"},
		StatusSubresource: true,
		Scale:             &scheme.ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
	}
}

// WarehouseResource returns how warehouses are served: cluster-scoped, stored at v1.
func WarehouseResource() scheme.Resource {
	return scheme.Resource{Group: Group, Kind: "Warehouse", ListKind: "WarehouseList", Plural: "warehouses", Singular: "warehouse", StorageVersion: "v1"}
}

// NewScheme returns a new scheme holding only toys.example.com. It panics if
// registration fails, a programming error.
func NewScheme() *scheme.Scheme {
	s := scheme.New()
	if err := AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// AddToScheme registers toys.example.com with s: the kinds of every version, v1alpha1's
// conversion to and from the hub (v1 converts automatically), both versions' defaults,
// v1's protobuf field numbers, the version priority and the two resources.
func AddToScheme(s *scheme.Scheme) error {
	kinds := []struct {
		gv   scheme.GroupVersion
		kind string
		obj  scheme.Kinded
	}{
		{Internal, "Widget", &toys.Widget{}}, {Internal, "WidgetList", &toys.WidgetList{}},
		{Internal, "Warehouse", &toys.Warehouse{}}, {Internal, "WarehouseList", &toys.WarehouseList{}},
		{V1, "Widget", &toys.WidgetV1{}}, {V1, "WidgetList", &toys.WidgetListV1{}},
		{V1, "Warehouse", &toys.WarehouseV1{}}, {V1, "WarehouseList", &toys.WarehouseListV1{}},
		{V1alpha1, "Widget", &toys.WidgetV1alpha1{}}, {V1alpha1, "WidgetList", &toys.WidgetListV1alpha1{}},
	}
	for _, k := range kinds {
		s.AddKnownTypeWithName(k.gv.WithKind(k.kind), k.obj)
	}
	conversion.Register(s, widgetFromV1alpha1)
	conversion.Register(s, widgetToV1alpha1)
	conversion.RegisterDefaults(s, func(w *toys.WidgetV1) { defaultReplicas(&w.Spec.Replicas) })
	conversion.RegisterDefaults(s, func(w *toys.WidgetV1alpha1) {
		if w.Spec.Scaling == nil {
			w.Spec.Scaling = &toys.WidgetScaling{}
		}
		defaultReplicas(&w.Spec.Scaling.Replicas)
	})
	if err := addProtobufFields(s); err != nil {
		return fmt.Errorf("registering %s: %w", Group, err)
	}
	s.SetVersionPriority(Group, V1.Version, V1alpha1.Version)
	for _, r := range []scheme.Resource{WidgetResource(), WarehouseResource()} {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("registering %s: %w", Group, err)
		}
	}
	return nil
}

func defaultReplicas(replicas **int32) {
	if *replicas == nil {
		r := DefaultReplicas
		*replicas = &r
	}
}

// addProtobufFields numbers v1's fields the way a generated.proto would. The numbers are
// the example's and part of the wire that e2e compares with client-go.
//
//	Widget:    metadata=1, spec=2 {color=1, replicas=2, parts=3 {name=1, count=2}},
//	           status=3 {phase=1, replicas=2, observedGeneration=3, conditions=4}
//	Warehouse: metadata=1, spec=2 {location=1, capacity=2}
func addProtobufFields(s *scheme.Scheme) error {
	type f = protobuf.Field
	widget := []f{
		{Path: "metadata", Number: 1, Type: protobuf.TypeObjectMeta},
		{Path: "spec", Number: 2, Type: protobuf.TypeMessage},
		{Path: "spec.color", Number: 1, Type: protobuf.TypeString},
		{Path: "spec.replicas", Number: 2, Type: protobuf.TypeInt32, Optional: true},
		{Path: "spec.parts", Number: 3, Type: protobuf.TypeMessage, Repeated: true},
		{Path: "spec.parts.name", Number: 1, Type: protobuf.TypeString},
		{Path: "spec.parts.count", Number: 2, Type: protobuf.TypeInt32},
		{Path: "status", Number: 3, Type: protobuf.TypeMessage},
		{Path: "status.phase", Number: 1, Type: protobuf.TypeString},
		{Path: "status.replicas", Number: 2, Type: protobuf.TypeInt32},
		{Path: "status.observedGeneration", Number: 3, Type: protobuf.TypeInt64},
		{Path: "status.conditions", Number: 4, Type: protobuf.TypeCondition, Repeated: true},
	}
	warehouse := []f{
		{Path: "metadata", Number: 1, Type: protobuf.TypeObjectMeta},
		{Path: "spec", Number: 2, Type: protobuf.TypeMessage},
		{Path: "spec.location", Number: 1, Type: protobuf.TypeString},
		{Path: "spec.capacity", Number: 2, Type: protobuf.TypeInt64},
	}
	if err := protobuf.RegisterFields(s, V1.WithKind("Widget"), widget...); err != nil {
		return err
	}
	return protobuf.RegisterFields(s, V1.WithKind("Warehouse"), warehouse...)
}

// widgetFromV1alpha1 converts a v1alpha1 Widget to the hub: paint to color,
// scaling.replicas to replicas, the conditions out of ConditionsAnnotation (which is
// dropped), everything else automatically.
func widgetFromV1alpha1(in *toys.WidgetV1alpha1, out *toys.Widget, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Spec.Color = in.Spec.Paint
	out.Spec.Replicas = nil
	if in.Spec.Scaling != nil && in.Spec.Scaling.Replicas != nil {
		r := *in.Spec.Scaling.Replicas
		out.Spec.Replicas = &r
	}
	out.Status.Conditions = nil
	raw, ok := in.Annotations[ConditionsAnnotation]
	if !ok {
		return nil
	}
	if err := json.Unmarshal([]byte(raw), &out.Status.Conditions); err != nil {
		return fmt.Errorf("widget %q: annotation %s: %w", in.Name, ConditionsAnnotation, err)
	}
	dropConditionsAnnotation(&out.ObjectMeta)
	return nil
}

// widgetToV1alpha1 converts a hub Widget to v1alpha1: color to paint, replicas to
// scaling.replicas (no scaling without replicas), the conditions into
// ConditionsAnnotation (absent when nil, "[]" when empty, so both come back as they were).
func widgetToV1alpha1(in *toys.Widget, out *toys.WidgetV1alpha1, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Spec.Paint = in.Spec.Color
	out.Spec.Scaling = nil
	if in.Spec.Replicas != nil {
		r := *in.Spec.Replicas
		out.Spec.Scaling = &toys.WidgetScaling{Replicas: &r}
	}
	dropConditionsAnnotation(&out.ObjectMeta) // a stale copy must not survive
	if in.Status.Conditions == nil {
		return nil
	}
	raw, err := json.Marshal(in.Status.Conditions)
	if err != nil {
		return fmt.Errorf("widget %q: annotation %s: %w", in.Name, ConditionsAnnotation, err)
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[ConditionsAnnotation] = string(raw)
	return nil
}

// dropConditionsAnnotation removes ConditionsAnnotation from the output of a conversion
// (whose annotations are its own copy), leaving no empty map behind the last one.
func dropConditionsAnnotation(m *scheme.ObjectMeta) {
	if _, ok := m.Annotations[ConditionsAnnotation]; !ok {
		return
	}
	delete(m.Annotations, ConditionsAnnotation)
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
}

// supportedColors are the values spec.color accepts, in the order messages list them.
var supportedColors = []string{"blue", "green", "red"}

// mustNotBeNegative is Kubernetes' message for a number below 0.
const mustNotBeNegative = "must be greater than or equal to 0"

// ValidateWidget checks a new hub Widget: namespaced metadata with a DNS-subdomain name;
// spec.color required and one of blue, green, red; spec.replicas and every part's count
// not negative; every part's name present and unique.
func ValidateWidget(w *toys.Widget) validation.ErrorList {
	errs := validation.ValidateObjectMeta(&w.ObjectMeta, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	spec := validation.NewPath("spec")
	if w.Spec.Color == "" {
		errs = append(errs, validation.Required(spec.Child("color"), ""))
	} else if !slices.Contains(supportedColors, w.Spec.Color) {
		errs = append(errs, validation.NotSupported(spec.Child("color"), w.Spec.Color, supportedColors))
	}
	if r := w.Spec.Replicas; r != nil && *r < 0 {
		errs = append(errs, validation.Invalid(spec.Child("replicas"), *r, mustNotBeNegative))
	}
	names := map[string]bool{}
	for i, part := range w.Spec.Parts {
		p := spec.Child("parts").Index(i)
		if part.Name == "" {
			errs = append(errs, validation.Required(p.Child("name"), ""))
		} else if names[part.Name] {
			errs = append(errs, validation.Duplicate(p.Child("name"), part.Name))
		}
		names[part.Name] = true
		if part.Count < 0 {
			errs = append(errs, validation.Invalid(p.Child("count"), part.Count, mustNotBeNegative))
		}
	}
	return errs
}

// ValidateWidgetUpdate checks an update of old to w: the metadata update rules, then
// ValidateWidget on w.
func ValidateWidgetUpdate(w, old *toys.Widget) validation.ErrorList {
	return append(validation.ValidateObjectMetaUpdate(&w.ObjectMeta, &old.ObjectMeta, validation.NewPath("metadata")), ValidateWidget(w)...)
}
