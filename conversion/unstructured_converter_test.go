package conversion_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

func thingScheme() *scheme.Scheme {
	s := scheme.New()
	for _, v := range []string{"v1", "v2"} {
		s.AddUnstructuredKind(scheme.GroupVersionKind{Group: "crd.test", Version: v, Kind: "Thing"})
		s.AddUnstructuredKind(scheme.GroupVersionKind{Group: "crd.test", Version: v, Kind: "ThingList"})
	}
	return s
}

// renameSize is a webhook stand-in: v1 spec.size is v2 spec.count.
func renameSize(obj *scheme.Unstructured, to scheme.GroupVersion) error {
	spec, _ := obj.Object["spec"].(map[string]any)
	switch to.Version {
	case "v2":
		spec["count"] = spec["size"]
		delete(spec, "size")
	case "v1":
		spec["size"] = spec["count"]
		delete(spec, "count")
	}
	return nil
}

func TestToVersion_UnstructuredConverterRunsBetweenVersions(t *testing.T) {
	s := thingScheme()
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, renameSize)
	in := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "crd.test/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "uid": "u1"},
		"spec":     map[string]any{"size": int64(3)},
	}}
	out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "crd.test/v2", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "uid": "u1"},
		"spec":     map[string]any{"count": int64(3)},
	}
	if diff := cmp.Diff(want, out.(*scheme.Unstructured).Object); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, ok := in.Object["spec"].(map[string]any)["size"]; !ok {
		t.Error("the input was modified")
	}

	same, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Object, same.(*scheme.Unstructured).Object); diff != "" {
		t.Errorf("same version must not call the converter (-want +got):\n%s", diff)
	}
}

func TestToVersion_UnstructuredConverterConvertsListItems(t *testing.T) {
	s := thingScheme()
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, renameSize)
	list := &scheme.UnstructuredList{
		Object: map[string]any{"apiVersion": "crd.test/v1", "kind": "ThingList"},
		Items: []scheme.Unstructured{{Object: map[string]any{
			"apiVersion": "crd.test/v1", "kind": "Thing", "spec": map[string]any{"size": int64(1)},
		}}},
	}
	out, err := conversion.ToVersion(s, list, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	item := out.(*scheme.UnstructuredList).Items[0].Object
	want := map[string]any{"apiVersion": "crd.test/v2", "kind": "Thing", "spec": map[string]any{"count": int64(1)}}
	if diff := cmp.Diff(want, item); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestToVersion_UnstructuredConverterKeepsMetadataButLabelsAndAnnotations(t *testing.T) {
	s := thingScheme()
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(obj *scheme.Unstructured, to scheme.GroupVersion) error {
		obj.SetName("renamed")
		obj.SetLabels(map[string]string{"converted": "yes"})
		obj.SetAPIVersion("crd.test/v9") // overridden by the target
		return nil
	})
	in := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "crd.test/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "labels": map[string]any{"a": "b"}},
	}}
	out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "crd.test/v2", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "labels": map[string]any{"converted": "yes"}},
	}
	if diff := cmp.Diff(want, out.(*scheme.Unstructured).Object); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestToVersion_UnstructuredConverterErrorsAreReturned(t *testing.T) {
	s := thingScheme()
	boom := errors.New("webhook unavailable")
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(*scheme.Unstructured, scheme.GroupVersion) error { return boom })
	in := &scheme.Unstructured{Object: map[string]any{"apiVersion": "crd.test/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"}}}
	_, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap %v", err, boom)
	}

	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(obj *scheme.Unstructured, _ scheme.GroupVersion) error {
		obj.SetKind("Other")
		return nil
	})
	if _, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"}); err == nil {
		t.Error("a converter that changes the kind must fail the conversion")
	}
}
