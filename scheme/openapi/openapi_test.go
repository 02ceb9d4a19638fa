package openapi_test

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

// render marshals v and decodes it back into generic JSON values.
func render(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// at walks a decoded JSON document by keys.
func at(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for i, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("at %s: not an object", strings.Join(keys[:i], "."))
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("at %s: no key %q", strings.Join(keys[:i], "."), k)
		}
	}
	return v
}

// golden decodes an expected JSON snippet.
func golden(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad golden %s: %v", s, err)
	}
	return v
}

const (
	widget     = "com.example.toys.v1.Widget"
	widgetSpec = "com.example.toys.v1.WidgetSpec"
	widgetList = "com.example.toys.v1.WidgetList"
)

func TestForGroupVersion_RendersPropertiesAsOpenAPIV3(t *testing.T) {
	doc, err := openapi.ForGroupVersion(newToyScheme(), toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"required string with description, enum and zero default", []string{widgetSpec, "properties", "color"},
			`{"type":"string","default":"","description":"Color of the widget.","enum":["red","green","blue"]}`},
		{"pointer to int32 is an optional int32", []string{widgetSpec, "properties", "replicas"},
			`{"type":"integer","format":"int32"}`},
		{"list map of structs carries list and patch extensions", []string{widgetSpec, "properties", "parts"},
			`{"type":"array","items":{"allOf":[{"$ref":"#/components/schemas/com.example.toys.v1.Part"}],"default":{}},
			  "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
			  "x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"name"}`},
		{"set of strings", []string{widgetSpec, "properties", "tags"},
			`{"type":"array","items":{"type":"string","default":""},"x-kubernetes-list-type":"set"}`},
		{"float64 is number/double", []string{widgetSpec, "properties", "weight"}, `{"type":"number","format":"double"}`},
		{"float32 is number/float", []string{widgetSpec, "properties", "ratio"}, `{"type":"number","format":"float"}`},
		{"bool is boolean", []string{widgetSpec, "properties", "paused"}, `{"type":"boolean"}`},
		{"int64 is integer/int64", []string{widgetSpec, "properties", "size"}, `{"type":"integer","format":"int64"}`},
		{"int is integer/int32 like openapi-gen", []string{widgetSpec, "properties", "count"}, `{"type":"integer","format":"int32"}`},
		{"bytes are string/byte", []string{widgetSpec, "properties", "blob"}, `{"type":"string","format":"byte"}`},
		{"map of strings with map type", []string{widgetSpec, "properties", "labels"},
			`{"type":"object","additionalProperties":{"type":"string","default":""},"x-kubernetes-map-type":"atomic"}`},
		{"map of any preserves unknown fields", []string{widgetSpec, "properties", "extra"},
			`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`},
		{"any preserves unknown fields untyped", []string{widgetSpec, "properties", "anything"},
			`{"x-kubernetes-preserve-unknown-fields":true}`},
		{"time refers to meta Time", []string{widgetSpec, "properties", "started"},
			`{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}`},
		{"anonymous struct is inline", []string{widgetSpec, "properties", "inline"},
			`{"type":"object","properties":{"note":{"type":"string","default":""}},"required":["note"]}`},
		{"string option makes a string", []string{widgetSpec, "properties", "quoted"}, `{"type":"string"}`},
		{"embedded inline struct is flattened", []string{widgetSpec, "properties", "owner"}, `{"type":"string"}`},
		{"conditions keyed by type", []string{"com.example.toys.v1.WidgetStatus", "properties", "conditions"},
			`{"type":"array","items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Condition"}],"default":{}},
			  "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],
			  "x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"type"}`},
		{"struct field refers via allOf with default and SwaggerDoc description", []string{widget, "properties", "spec"},
			`{"allOf":[{"$ref":"#/components/schemas/com.example.toys.v1.WidgetSpec"}],"default":{},"description":"Spec is the desired state."}`},
		{"metadata refers to ObjectMeta", []string{widget, "properties", "metadata"},
			`{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"default":{},"description":"Standard object's metadata."}`},
		{"list metadata refers to ListMeta", []string{widgetList, "properties", "metadata"},
			`{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}],"default":{},"description":"Standard list metadata."}`},
		{"list items refer to the kind", []string{widgetList, "properties", "items"},
			`{"type":"array","items":{"allOf":[{"$ref":"#/components/schemas/com.example.toys.v1.Widget"}],"default":{}}}`},
		{"kind carries its group version kind", []string{widget, "x-kubernetes-group-version-kind"},
			`[{"group":"toys.example.com","version":"v1","kind":"Widget"}]`},
		{"list kind carries its group version kind", []string{widgetList, "x-kubernetes-group-version-kind"},
			`[{"group":"toys.example.com","version":"v1","kind":"WidgetList"}]`},
		{"kind description comes from SwaggerDoc", []string{widget, "description"}, `"Widget is a toy."`},
		{"required follows omitempty and pointers", []string{widgetSpec, "required"}, `["color","inline","quoted"]`},
		{"list requires items", []string{widgetList, "required"}, `["items"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := at(t, schemas, tt.path...)
			if m, ok := got.(map[string]any); ok && !strings.Contains(tt.want, `"description"`) {
				delete(m, "description") // only some expectations spell descriptions out
			}
			if diff := cmp.Diff(golden(t, tt.want), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, absent := range []string{"Skipped", "hidden", "Embedded"} {
		if _, ok := at(t, schemas, widgetSpec, "properties").(map[string]any)[absent]; ok {
			t.Errorf("property %q should not exist", absent)
		}
	}
}

func TestForGroupVersion_DocumentShape(t *testing.T) {
	doc, err := openapi.ForGroupVersion(newToyScheme(), toysV1)
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, doc)
	if got["openapi"] != "3.0.0" {
		t.Errorf("openapi = %v, want 3.0.0", got["openapi"])
	}
	if diff := cmp.Diff(golden(t, `{"title":"Kubernetes","version":"unversioned"}`), got["info"]); diff != "" {
		t.Errorf("info (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, got["paths"]); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	var names []string
	for name := range at(t, got, "components", "schemas").(map[string]any) {
		names = append(names, name)
	}
	want := []string{
		"com.example.toys.v1.Node", "com.example.toys.v1.Part", widget, widgetList, widgetSpec,
		"com.example.toys.v1.WidgetStatus",
		openapi.ConditionName, openapi.FieldsV1Name, openapi.ListMetaName, openapi.ManagedFieldsEntryName,
		openapi.ObjectMetaName, openapi.OwnerReferenceName, openapi.StatusName, openapi.StatusCauseName,
		openapi.StatusDetailsName, openapi.TimeName,
	}
	slices.Sort(names)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
}

func TestForGroupVersion_MetaDefinitionsMatchKubernetes(t *testing.T) {
	doc, err := openapi.ForGroupVersion(newToyScheme(), toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"Time is a date-time string", []string{openapi.TimeName, "format"}, `"date-time"`},
		{"Time type", []string{openapi.TimeName, "type"}, `"string"`},
		{"FieldsV1 is an object", []string{openapi.FieldsV1Name, "type"}, `"object"`},
		{"ownerReferences is a map keyed by uid", []string{openapi.ObjectMetaName, "properties", "ownerReferences", "x-kubernetes-list-map-keys"}, `["uid"]`},
		{"ownerReferences list type", []string{openapi.ObjectMetaName, "properties", "ownerReferences", "x-kubernetes-list-type"}, `"map"`},
		{"ownerReferences patch strategy", []string{openapi.ObjectMetaName, "properties", "ownerReferences", "x-kubernetes-patch-strategy"}, `"merge"`},
		{"ownerReferences patch key", []string{openapi.ObjectMetaName, "properties", "ownerReferences", "x-kubernetes-patch-merge-key"}, `"uid"`},
		{"finalizers is a set", []string{openapi.ObjectMetaName, "properties", "finalizers", "x-kubernetes-list-type"}, `"set"`},
		{"managedFields is atomic", []string{openapi.ObjectMetaName, "properties", "managedFields", "x-kubernetes-list-type"}, `"atomic"`},
		{"creationTimestamp refers to Time", []string{openapi.ObjectMetaName, "properties", "creationTimestamp", "allOf"},
			`[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]`},
		{"labels are strings", []string{openapi.ObjectMetaName, "properties", "labels", "additionalProperties"}, `{"type":"string","default":""}`},
		{"OwnerReference is atomic", []string{openapi.OwnerReferenceName, "x-kubernetes-map-type"}, `"atomic"`},
		{"OwnerReference requires its identity", []string{openapi.OwnerReferenceName, "required"}, `["apiVersion","kind","name","uid"]`},
		{"Condition requires all but observedGeneration", []string{openapi.ConditionName, "required"},
			`["type","status","lastTransitionTime","reason","message"]`},
		{"ManagedFieldsEntry fieldsV1 refers to FieldsV1", []string{openapi.ManagedFieldsEntryName, "properties", "fieldsV1", "allOf"},
			`[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"}]`},
		{"Status is the core v1 Status kind", []string{openapi.StatusName, "x-kubernetes-group-version-kind"},
			`[{"group":"","version":"v1","kind":"Status"}]`},
		{"StatusDetails causes are atomic", []string{openapi.StatusDetailsName, "properties", "causes", "x-kubernetes-list-type"}, `"atomic"`},
		{"StatusCause type is called reason", []string{openapi.StatusCauseName, "properties", "reason", "type"}, `"string"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, schemas, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := at(t, schemas, openapi.ObjectMetaName).(map[string]any)["required"]; ok {
		t.Error("ObjectMeta should require nothing")
	}
}

func TestBuild_RendersSwagger2(t *testing.T) {
	doc, err := openapi.Build(newToyScheme())
	if err != nil {
		t.Fatal(err)
	}
	got := render(t, doc)
	if got["swagger"] != "2.0" {
		t.Errorf("swagger = %v, want 2.0", got["swagger"])
	}
	if _, ok := got["components"]; ok {
		t.Error("a Swagger 2.0 document has no components")
	}
	defs := at(t, got, "definitions")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"reference with siblings stays a $ref", []string{widget, "properties", "spec"},
			`{"$ref":"#/definitions/com.example.toys.v1.WidgetSpec","default":{},"description":"Spec is the desired state."}`},
		{"list items refer into definitions", []string{widgetSpec, "properties", "parts", "items"},
			`{"$ref":"#/definitions/com.example.toys.v1.Part","default":{}}`},
		{"plain reference", []string{widgetSpec, "properties", "root"}, `{"$ref":"#/definitions/com.example.toys.v1.Node"}`},
		{"preserve unknown object loses its type", []string{widgetSpec, "properties", "extra"}, `{"x-kubernetes-preserve-unknown-fields":true}`},
		{"extensions survive", []string{widgetSpec, "properties", "parts", "x-kubernetes-list-map-keys"}, `["name"]`},
		{"group version kind survives", []string{widget, "x-kubernetes-group-version-kind"},
			`[{"group":"toys.example.com","version":"v1","kind":"Widget"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, defs, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := defs.(map[string]any)[openapi.ObjectMetaName]; !ok {
		t.Error("ObjectMeta definition missing")
	}
}

func TestBuild_CoversEveryGroupVersion(t *testing.T) {
	s := newToyScheme()
	v2 := scheme.GroupVersion{Group: "toys.example.com", Version: "v2"}
	s.AddKnownTypes(v2, &Widget{}, &WidgetList{})
	s.AddKnownTypeWithName(scheme.GroupVersionKind{Group: "", Version: "v1", Kind: "Gizmo"}, &Widget{})
	if err := s.AddResource(scheme.Resource{Kind: "Gizmo", Plural: "gizmos"}); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	defs := at(t, render(t, doc), "definitions")
	// One Go type, one definition (named where it is first reached: groups in order, the
	// core group first), every kind it serves listed.
	want := golden(t, `[{"group":"","version":"v1","kind":"Gizmo"},
		{"group":"toys.example.com","version":"v2","kind":"Widget"},
		{"group":"toys.example.com","version":"v1","kind":"Widget"}]`)
	got := at(t, defs, "v1.Gizmo", "x-kubernetes-group-version-kind")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := defs.(map[string]any)["v1.GizmoList"]; !ok {
		t.Error("the core group's list kind should be named v1.GizmoList")
	}

	v3, err := openapi.ForGroupVersion(s, scheme.GroupVersion{Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v3.Schemas["v1.Gizmo"]; !ok {
		t.Errorf("core group kind should be named v1.Gizmo, got %v", keys(v3.Schemas))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestForKind_ExpandsReferencesAndStopsAtRecursion(t *testing.T) {
	s := newToyScheme()
	got, err := openapi.ForKind(s, toysV1.WithKind("Widget"))
	if err != nil {
		t.Fatal(err)
	}
	spec := got.Properties["spec"]
	if spec == nil || spec.Ref != "" || spec.Description != "Spec is the desired state." {
		t.Fatalf("spec not expanded with its description: %+v", spec)
	}
	if spec.Properties["color"] == nil {
		t.Fatal("spec.color missing after expansion")
	}
	if got := spec.Properties["parts"].Items.Properties["name"]; got == nil || got.Type != "string" {
		t.Errorf("parts items not expanded: %+v", spec.Properties["parts"].Items)
	}
	root := spec.Properties["root"]
	if root.Properties["name"] == nil {
		t.Fatalf("root not expanded: %+v", root)
	}
	if ref := root.Properties["children"].Items.Ref; ref != "com.example.toys.v1.Node" {
		t.Errorf("recursive reference = %q, want it kept as com.example.toys.v1.Node", ref)
	}
	if got.Properties["metadata"].Properties["ownerReferences"].Items.Properties["uid"] == nil {
		t.Error("metadata.ownerReferences items not expanded")
	}

	// Expansion copies: changing the result leaves the next one intact.
	spec.Properties["color"].Description = "changed"
	again, err := openapi.ForKind(s, toysV1.WithKind("Widget"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Properties["spec"].Properties["color"].Description != "Color of the widget." {
		t.Error("ForKind results share memory")
	}
}

func TestForKind_UnknownKindIsNotRegistered(t *testing.T) {
	_, err := openapi.ForKind(newToyScheme(), toysV1.WithKind("Nope"))
	var nr *scheme.NotRegisteredError
	if !errors.As(err, &nr) {
		t.Fatalf("err = %v, want a NotRegisteredError", err)
	}
	_, err = openapi.ForGroupVersion(newToyScheme(), scheme.GroupVersion{Group: "none", Version: "v1"})
	if !errors.As(err, &nr) {
		t.Fatalf("err = %v, want a NotRegisteredError", err)
	}
}

const gadgetSchema = `{
  "type": "object",
  "description": "Gadget is defined by schema only.",
  "properties": {
    "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}},
    "spec": {
      "type": "object",
      "required": ["size", "maybe"],
      "properties": {
        "size": {"type": "integer", "minimum": 1},
        "port": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true},
        "maybe": {"type": "string", "nullable": true},
        "conditions": {"type": "array", "items": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Condition"},
          "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"a": {"type": "string"}}}
      }
    }
  }
}`

func newGadgetScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := newToyScheme()
	var sch openapi.Schema
	if err := json.Unmarshal([]byte(gadgetSchema), &sch); err != nil {
		t.Fatal(err)
	}
	openapi.Register(s, toysV1.WithKind("Gadget"), &sch)
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Gadget", Plural: "gadgets"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRegister_SchemaOnlyKindIsServedLikeACRD(t *testing.T) {
	s := newGadgetScheme(t)
	if !s.IsUnstructured(toysV1.WithKind("Gadget")) {
		t.Fatal("Register should add an unknown kind to the scheme as unstructured")
	}
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"metadata is replaced by ObjectMeta", []string{"com.example.toys.v1.Gadget", "properties", "metadata"},
			`{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"description":"Standard object's metadata."}`},
		{"apiVersion is added", []string{"com.example.toys.v1.Gadget", "properties", "apiVersion", "type"}, `"string"`},
		{"group version kind is added", []string{"com.example.toys.v1.Gadget", "x-kubernetes-group-version-kind"},
			`[{"group":"toys.example.com","version":"v1","kind":"Gadget"}]`},
		{"int-or-string kept", []string{"com.example.toys.v1.Gadget", "properties", "spec", "properties", "port"},
			`{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`},
		{"constraints kept", []string{"com.example.toys.v1.Gadget", "properties", "spec", "properties", "size"},
			`{"type":"integer","minimum":1}`},
		{"nullable kept", []string{"com.example.toys.v1.Gadget", "properties", "spec", "properties", "maybe"},
			`{"type":"string","nullable":true}`},
		{"list kind is synthesized", []string{"com.example.toys.v1.GadgetList", "properties", "items", "items"},
			`{"$ref":"#/components/schemas/com.example.toys.v1.Gadget"}`},
		{"synthesized list has its kind", []string{"com.example.toys.v1.GadgetList", "x-kubernetes-group-version-kind"},
			`[{"group":"toys.example.com","version":"v1","kind":"GadgetList"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, schemas, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := schemas.(map[string]any)[openapi.ConditionName]; !ok {
		t.Error("a meta definition a registered schema refers to should be added")
	}
}

func TestBuild_SchemaOnlyKindFollowsSwagger2Rules(t *testing.T) {
	doc, err := openapi.Build(newGadgetScheme(t))
	if err != nil {
		t.Fatal(err)
	}
	spec := at(t, render(t, doc), "definitions", "com.example.toys.v1.Gadget", "properties", "spec")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"junctors are dropped", []string{"properties", "port"}, `{"x-kubernetes-int-or-string":true}`},
		{"nullable loses type and nullable", []string{"properties", "maybe"}, `{}`},
		{"nullable fields are not required", []string{"required"}, `["size"]`},
		{"preserve unknown fields object loses type and properties", []string{"properties", "free"}, `{"x-kubernetes-preserve-unknown-fields":true}`},
		{"refs point into definitions", []string{"properties", "conditions", "items"}, `{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Condition"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, spec, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegister_KindWithoutSchemaAcceptsAnything(t *testing.T) {
	s := newToyScheme()
	s.AddUnstructuredKind(toysV1.WithKind("Blob"))
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Blob", Plural: "blobs"}); err != nil {
		t.Fatal(err)
	}
	got, err := openapi.ForKind(s, toysV1.WithKind("Blob"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.PreserveUnknownFields || got.Type != "object" || got.Properties["metadata"] == nil {
		t.Errorf("schema-less kind = %+v, want an object that preserves unknown fields and has metadata", got)
	}
}

func TestSchema_UnmarshalJSONReadsBothDialects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *openapi.Schema
	}{
		{"v3 reference", `{"$ref":"#/components/schemas/a.B"}`, &openapi.Schema{Ref: "a.B"}},
		{"v2 reference", `{"$ref":"#/definitions/a.B"}`, &openapi.Schema{Ref: "a.B"}},
		{"allOf with siblings folds into Ref", `{"allOf":[{"$ref":"#/components/schemas/a.B"}],"description":"d","default":{}}`,
			&openapi.Schema{Ref: "a.B", Description: "d", Default: map[string]any{}}},
		{"extensions become fields", `{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set","x-custom":1}`,
			&openapi.Schema{Type: "array", Items: &openapi.Schema{Type: "string"}, ListType: "set", Extensions: map[string]any{"x-custom": int64(1)}}},
		{"group version kinds", `{"x-kubernetes-group-version-kind":[{"group":"g","version":"v","kind":"K"}]}`,
			&openapi.Schema{GroupVersionKinds: []scheme.GroupVersionKind{{Group: "g", Version: "v", Kind: "K"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got openapi.Schema
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, &got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// And back: rendering then reading again is stable.
			b, err := json.Marshal(&got)
			if err != nil {
				t.Fatal(err)
			}
			var again openapi.Schema
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&got, &again); diff != "" {
				t.Errorf("round trip (-first +second):\n%s", diff)
			}
		})
	}
}

func TestSchema_UnmarshalJSONRejectsUnknownKeywordsAndForeignRefs(t *testing.T) {
	for _, in := range []string{`{"tpye":"string"}`, `{"$ref":"http://example.com/x.json"}`} {
		var s openapi.Schema
		if err := json.Unmarshal([]byte(in), &s); err == nil {
			t.Errorf("%s: want an error", in)
		}
	}
}

type badListMap struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Items             []Part `json:"things" listType:"map" listMapKeys:"nope"`
}

type listTypeOnString struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Name              string `json:"name" listType:"set"`
}

func TestForGroupVersion_RejectsBadTags(t *testing.T) {
	tests := []struct {
		name string
		obj  scheme.Kinded
		want string
	}{
		{"list map key that items lack", &badListMap{}, `list map key "nope"`},
		{"list type on a non-list", &listTypeOnString{}, `listType "set" on a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scheme.New()
			s.AddKnownTypeWithName(toysV1.WithKind("Bad"), tt.obj)
			if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Bad", Plural: "bads"}); err != nil {
				t.Fatal(err)
			}
			_, err := openapi.ForGroupVersion(s, toysV1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestForGroupVersion_UnknownReferenceIsAnError(t *testing.T) {
	s := newToyScheme()
	openapi.Register(s, toysV1.WithKind("Dangling"), &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{
		"spec": {Ref: "com.example.toys.v1.Missing"},
	}})
	_, err := openapi.ForGroupVersion(s, toysV1)
	if err == nil || !strings.Contains(err.Error(), "com.example.toys.v1.Missing") {
		t.Fatalf("err = %v, want one naming the missing definition", err)
	}
}

type Color string

func TestCustomizeAndOverride_AdjustReflection(t *testing.T) {
	type Paint struct {
		scheme.TypeMeta   `json:",inline"`
		scheme.ObjectMeta `json:"metadata,omitempty"`
		Spec              WidgetSpec `json:"spec"`
		Color             Color      `json:"color"`
		Amount            Quantity   `json:"amount"`
	}
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Paint{})
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Paint", Plural: "paints"}); err != nil {
		t.Fatal(err)
	}
	openapi.Customize[WidgetSpec](s, func(sc *openapi.Schema) {
		sc.Description = "Customized."
		sc.Properties["size"].Minimum = new(float64)
	})
	openapi.Customize[Color](s, func(sc *openapi.Schema) { sc.Enum = []any{"red", "blue"} })
	openapi.Override[Quantity](s, &openapi.Schema{Type: "string", Format: "quantity"})

	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"definition description", []string{widgetSpec, "description"}, `"Customized."`},
		{"property constraint", []string{widgetSpec, "properties", "size", "minimum"}, `0`},
		{"named string type", []string{"com.example.toys.v1.Paint", "properties", "color"}, `{"type":"string","default":"","enum":["red","blue"]}`},
		{"override replaces reflection", []string{"com.example.toys.v1.Paint", "properties", "amount"}, `{"type":"string","format":"quantity"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, schemas, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Quantity has a custom JSON encoding, like resource.Quantity.
type Quantity struct{ v string }

// MarshalJSON writes the quantity as a string.
func (q Quantity) MarshalJSON() ([]byte, error) { return json.Marshal(q.v) }

// IntOrString describes itself the apimachinery way.
type IntOrString struct{ s string }

// OpenAPISchemaType says the type on the wire.
func (IntOrString) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat says the format on the wire.
func (IntOrString) OpenAPISchemaFormat() string { return "int-or-string" }

// MarshalJSON writes the value.
func (v IntOrString) MarshalJSON() ([]byte, error) { return json.Marshal(v.s) }

func TestReflection_CustomEncodingsAndNameClashes(t *testing.T) {
	type Spec struct {
		A string `json:"a"`
	}
	other := func() scheme.Kinded {
		type Spec struct {
			B string `json:"b"`
		}
		type Other struct {
			scheme.TypeMeta   `json:",inline"`
			scheme.ObjectMeta `json:"metadata,omitempty"`
			S                 Spec `json:"s"`
		}
		return &Other{}
	}()
	type Thing struct {
		scheme.TypeMeta   `json:",inline"`
		scheme.ObjectMeta `json:"metadata,omitempty"`
		Port              IntOrString `json:"port"`
		Raw               Quantity    `json:"raw"`
		When              scheme.Time `json:"when"`
		One               Spec        `json:"one"`
		Two               any         `json:"two,omitempty"`
	}
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Thing{})
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Thing", Plural: "things"}); err != nil {
		t.Fatal(err)
	}
	// A second Go type named Spec in the same group version.
	s.AddKnownTypes(toysV1, other)
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Other", Plural: "others"}); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	schemas := at(t, render(t, doc), "components", "schemas")
	tests := []struct {
		name string
		path []string
		want string
	}{
		{"OpenAPISchemaType methods", []string{"com.example.toys.v1.Thing", "properties", "port"}, `{"type":"string","format":"int-or-string"}`},
		{"custom JSON encoding preserves unknown fields", []string{"com.example.toys.v1.Thing", "properties", "raw"}, `{"x-kubernetes-preserve-unknown-fields":true}`},
		{"required Time has no default", []string{"com.example.toys.v1.Thing", "properties", "when"},
			`{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}`},
		{"struct type named in the group version", []string{"com.example.toys.v1.Spec", "properties", "b"}, `{"type":"string","default":""}`},
		{"clashing name gets the package", []string{"com.example.toys.v1.openapi_test.Spec", "properties", "a"}, `{"type":"string","default":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(golden(t, tt.want), at(t, schemas, tt.path...)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscovery_PointsAtHashedDocuments(t *testing.T) {
	s := newToyScheme()
	docs, err := openapi.ForAllGroupVersions(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs["apis/toys.example.com/v1"] == nil {
		t.Fatalf("documents = %v, want one at apis/toys.example.com/v1", keys(docs))
	}
	data, err := json.Marshal(docs["apis/toys.example.com/v1"])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(data)
	hash := strings.ToUpper(hex.EncodeToString(sum[:]))
	if got := openapi.Hash(data); got != hash {
		t.Errorf("Hash = %s, want upper-case hex SHA-512 %s", got, hash)
	}
	got := render(t, openapi.NewDiscovery(map[string][]byte{"apis/toys.example.com/v1": data}))
	want := map[string]any{"paths": map[string]any{"apis/toys.example.com/v1": map[string]any{
		"serverRelativeURL": "/openapi/v3/apis/toys.example.com/v1?hash=" + hash,
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p := openapi.DiscoveryPath(scheme.GroupVersion{Version: "v1"}); p != "api/v1" {
		t.Errorf("core DiscoveryPath = %q, want api/v1", p)
	}

	// Same scheme, same bytes: the hash is stable across builds.
	again, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	data2, _ := json.Marshal(again)
	if openapi.Hash(data2) != hash {
		t.Error("rebuilding the same scheme changed the document bytes")
	}
}

func TestDefinitionName_ReversesTheGroup(t *testing.T) {
	tests := []struct {
		gv   scheme.GroupVersion
		kind string
		want string
	}{
		{toysV1, "Widget", "com.example.toys.v1.Widget"},
		{scheme.GroupVersion{Group: "apps", Version: "v1beta2"}, "Deployment", "apps.v1beta2.Deployment"},
		{scheme.GroupVersion{Version: "v1"}, "Pod", "v1.Pod"},
		{toysV1, "List[x.Y]", "com.example.toys.v1.List_x.Y_"},
	}
	for _, tt := range tests {
		if got := openapi.DefinitionName(tt.gv, tt.kind); got != tt.want {
			t.Errorf("DefinitionName(%v, %q) = %q, want %q", tt.gv, tt.kind, got, tt.want)
		}
	}
}

// Types whose JSON members only encoding/json's full rules get right: an invalid tag name,
// a quoted uintptr, a name two embedded structs annihilate, one promoted through a pointer.
type agreeInner struct {
	A string `json:"a"`
	C string `json:"c,omitempty"`
}

type agreeOther struct {
	A string  `json:"a"`
	D int     `json:"d,string"`
	U uintptr `json:"u,string"`
}

type Agree struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	agreeInner
	*agreeOther
	Bad int `json:"a b\u0001"`
}

func TestStructSchema_PropertiesAreTheMembersEncodingJSONWrites(t *testing.T) {
	s := scheme.New()
	s.AddKnownTypes(toysV1, &Agree{})
	if err := s.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Agree", Plural: "agrees"}); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	def := at(t, render(t, doc), "components", "schemas", "com.example.toys.v1.Agree").(map[string]any)

	wire := render(t, &Agree{TypeMeta: scheme.TypeMeta{APIVersion: "toys.example.com/v1", Kind: "Agree"},
		agreeInner: agreeInner{C: "c"}, agreeOther: &agreeOther{}})
	members, properties := keys(wire), keys(def["properties"].(map[string]any))
	slices.Sort(members)
	slices.Sort(properties)
	if diff := cmp.Diff(members, properties); diff != "" {
		t.Errorf("schema properties differ from the encoded members (-wire +schema):\n%s", diff)
	}
	props := def["properties"].(map[string]any)
	for name, want := range map[string]any{"u": "string", "d": "string", "Bad": "integer"} {
		if got := props[name].(map[string]any)["type"]; got != want {
			t.Errorf("property %s has type %v, want %v (as encoding/json writes it)", name, got, want)
		}
	}
	if diff := cmp.Diff([]any{"Bad"}, def["required"]); diff != "" {
		t.Errorf("required (-want +got); members promoted through a pointer are optional:\n%s", diff)
	}
}
