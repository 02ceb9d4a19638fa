package api_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/api/v1alpha1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

func TestAddToScheme_RegistersKindsInEveryVersion(t *testing.T) {
	s := api.NewScheme()
	tests := []struct {
		name string
		gvk  scheme.GroupVersionKind
		want any
	}{
		{"hub Widget", scheme.GroupVersionKind{Group: api.Group, Version: scheme.InternalVersion, Kind: "Widget"}, &hub.Widget{}},
		{"hub WidgetList", scheme.GroupVersionKind{Group: api.Group, Version: scheme.InternalVersion, Kind: "WidgetList"}, &hub.WidgetList{}},
		{"hub Warehouse", scheme.GroupVersionKind{Group: api.Group, Version: scheme.InternalVersion, Kind: "Warehouse"}, &hub.Warehouse{}},
		{"hub WarehouseList", scheme.GroupVersionKind{Group: api.Group, Version: scheme.InternalVersion, Kind: "WarehouseList"}, &hub.WarehouseList{}},
		{"v1 Widget", v1.GroupVersion.WithKind("Widget"), &v1.Widget{}},
		{"v1 WidgetList", v1.GroupVersion.WithKind("WidgetList"), &v1.WidgetList{}},
		{"v1 Warehouse", v1.GroupVersion.WithKind("Warehouse"), &v1.Warehouse{}},
		{"v1 WarehouseList", v1.GroupVersion.WithKind("WarehouseList"), &v1.WarehouseList{}},
		{"v1alpha1 Widget", v1alpha1.GroupVersion.WithKind("Widget"), &v1alpha1.Widget{}},
		{"v1alpha1 WidgetList", v1alpha1.GroupVersion.WithKind("WidgetList"), &v1alpha1.WidgetList{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := s.New(tt.gvk)
			if err != nil {
				t.Fatalf("New(%v): %v", tt.gvk, err)
			}
			if got, want := typeName(obj), typeName(tt.want); got != want {
				t.Errorf("New(%v) is a %s, want %s", tt.gvk, got, want)
			}
		})
	}
}

func TestAddToScheme_WarehouseHasNoV1alpha1(t *testing.T) {
	s := api.NewScheme()
	if s.Recognizes(v1alpha1.GroupVersion.WithKind("Warehouse")) {
		t.Error("Warehouse is registered in v1alpha1, want v1 only")
	}
	got := s.KindVersions(scheme.GroupKind{Group: api.Group, Kind: "Warehouse"})
	if want := []string{"v1", scheme.InternalVersion}; !slices.Equal(got, want) {
		t.Errorf("Warehouse versions = %v, want %v", got, want)
	}
}

func TestAddToScheme_VersionsPreferV1(t *testing.T) {
	s := api.NewScheme()
	if got, want := s.Versions(api.Group), []string{"v1", "v1alpha1"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
	if got := s.PreferredVersion(api.Group); got != "v1" {
		t.Errorf("PreferredVersion = %q, want v1", got)
	}
}

func TestAddToScheme_Resources(t *testing.T) {
	s := api.NewScheme()
	tests := []struct {
		name           string
		resource       string
		kind           string
		listKind       string
		singular       string
		namespaced     bool
		subresources   []string
		served         []string
		storageVersion string
	}{
		{"widgets are namespaced with status and scale, served at v1 and v1alpha1",
			"widgets", "Widget", "WidgetList", "widget", true, []string{"status", "scale"}, []string{"v1", "v1alpha1"}, "v1"},
		{"warehouses are cluster-scoped, served at v1 only",
			"warehouses", "Warehouse", "WarehouseList", "warehouse", false, nil, []string{"v1"}, "v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := s.Resource(scheme.GroupResource{Group: api.Group, Resource: tt.resource})
			if !ok {
				t.Fatalf("resource %s.%s not registered", tt.resource, api.Group)
			}
			if r.Kind != tt.kind || r.ListKind != tt.listKind || r.Singular != tt.singular {
				t.Errorf("kind, list kind, singular = %s, %s, %s; want %s, %s, %s",
					r.Kind, r.ListKind, r.Singular, tt.kind, tt.listKind, tt.singular)
			}
			if r.Namespaced != tt.namespaced {
				t.Errorf("Namespaced = %v, want %v", r.Namespaced, tt.namespaced)
			}
			if !slices.Equal(r.Subresources(), tt.subresources) {
				t.Errorf("Subresources = %v, want %v", r.Subresources(), tt.subresources)
			}
			if got := s.ServedVersions(r); !slices.Equal(got, tt.served) {
				t.Errorf("ServedVersions = %v, want %v", got, tt.served)
			}
			if got := s.StorageVersion(r); got != tt.storageVersion {
				t.Errorf("StorageVersion = %q, want %q", got, tt.storageVersion)
			}
			byKind, ok := s.ResourceFor(scheme.GroupKind{Group: api.Group, Kind: tt.kind})
			if !ok || byKind.Plural != tt.resource {
				t.Errorf("ResourceFor(%s) = %v, %v; want %s", tt.kind, byKind, ok, tt.resource)
			}
		})
	}
}

func TestAddToScheme_WidgetServingDetails(t *testing.T) {
	s := api.NewScheme()
	r, ok := s.Resource(scheme.GroupResource{Group: api.Group, Resource: "widgets"})
	if !ok {
		t.Fatal("widgets not registered")
	}
	if !slices.Equal(r.ShortNames, []string{"wg"}) {
		t.Errorf("ShortNames = %v, want [wg]", r.ShortNames)
	}
	if !slices.Equal(r.Categories, []string{"all"}) {
		t.Errorf("Categories = %v, want [all]", r.Categories)
	}
	if want := []string{"spec.color", "status.phase"}; !slices.Equal(r.SelectableFields, want) {
		t.Errorf("SelectableFields = %v, want %v", r.SelectableFields, want)
	}
	type column struct{ Name, Type, JSONPath string }
	var got []column
	for _, c := range r.PrinterColumns {
		got = append(got, column{c.Name, c.Type, c.JSONPath})
	}
	want := []column{
		{"Color", "string", ".spec.color"},
		{"Replicas", "integer", ".spec.replicas"},
		{"Phase", "string", ".status.phase"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PrinterColumns (-want +got):\n%s", diff)
	}
}

func TestLookupResource_FindsWidgetsByEveryName(t *testing.T) {
	s := api.NewScheme()
	for _, name := range []string{"widgets", "widget", "wg", "Widget", "WG"} {
		t.Run(name, func(t *testing.T) {
			r, ok := s.LookupResource(api.Group, name)
			if !ok || r.Plural != "widgets" {
				t.Errorf("LookupResource(%q) = %v, %v; want widgets", name, r, ok)
			}
		})
	}
	if r, ok := s.LookupResource(api.Group, "wh"); ok {
		t.Errorf("LookupResource(wh) = %v, want no resource (warehouses have no short name)", r.Plural)
	}
}

func TestAddToScheme_TwiceFailsOnDuplicateResource(t *testing.T) {
	s := api.NewScheme()
	if err := api.AddToScheme(s); err == nil {
		t.Error("second AddToScheme succeeded, want an error for the already registered resources")
	}
}

func TestVersionPackagesAgreeOnTheGroup(t *testing.T) {
	for _, gv := range []scheme.GroupVersion{hub.GroupVersion, v1.GroupVersion, v1alpha1.GroupVersion} {
		if gv.Group != api.Group {
			t.Errorf("%v has group %q, want %q", gv, gv.Group, api.Group)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
