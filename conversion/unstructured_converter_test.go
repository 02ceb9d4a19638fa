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
func renameSize(c conversion.UnstructuredConversion) error {
	for _, obj := range c.Objects {
		spec, _ := obj.Object["spec"].(map[string]any)
		switch c.To.Version {
		case "v2":
			spec["count"] = spec["size"]
			delete(spec, "size")
		case "v1":
			spec["size"] = spec["count"]
			delete(spec, "count")
		}
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
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(c conversion.UnstructuredConversion) error {
		obj := c.Objects[0]
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
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(conversion.UnstructuredConversion) error { return boom })
	in := &scheme.Unstructured{Object: map[string]any{"apiVersion": "crd.test/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"}}}
	_, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap %v", err, boom)
	}

	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(c conversion.UnstructuredConversion) error {
		c.Objects[0].SetKind("Other")
		return nil
	})
	if _, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"}); err == nil {
		t.Error("a converter that changes the kind must fail the conversion")
	}
}

// A list's items are converted in one call, as a conversion webhook gets one review
// for a list: the items not at the target yet, with the list's kind; the input items
// are left as they were.
func TestItemsToVersion_ConvertsTheItemsInOneCall(t *testing.T) {
	s := thingScheme()
	var calls []conversion.UnstructuredConversion
	conversion.RegisterUnstructured(s, scheme.GroupKind{Group: "crd.test", Kind: "Thing"}, func(c conversion.UnstructuredConversion) error {
		calls = append(calls, c)
		return renameSize(c)
	})
	thing := func(name, version string, spec map[string]any) scheme.Object {
		return &scheme.Unstructured{Object: map[string]any{"apiVersion": "crd.test/" + version, "kind": "Thing", "metadata": map[string]any{"name": name}, "spec": spec}}
	}
	items := []scheme.Object{thing("a", "v1", map[string]any{"size": int64(1)}), thing("b", "v2", map[string]any{"count": int64(2)}), thing("c", "v1", map[string]any{"size": int64(3)})}
	v2 := scheme.GroupVersion{Group: "crd.test", Version: "v2"}
	out, ok, err := conversion.ItemsToVersion(s, items, v2, "ThingList")
	if err != nil || !ok {
		t.Fatalf("ItemsToVersion = %v, %v", ok, err)
	}
	if len(calls) != 1 || len(calls[0].Objects) != 2 || calls[0].List != v2.WithKind("ThingList") {
		t.Fatalf("calls = %+v, want one call for a and c with the list kind", calls)
	}
	for i, want := range []int64{1, 2, 3} {
		u := out[i].(*scheme.Unstructured)
		if u.GetAPIVersion() != "crd.test/v2" || u.Object["spec"].(map[string]any)["count"] != want {
			t.Errorf("item %d = %v", i, u.Object)
		}
	}
	if items[0].(*scheme.Unstructured).GetAPIVersion() != "crd.test/v1" {
		t.Error("the input items were modified")
	}

	typed := []scheme.Object{&scheme.Unstructured{Object: map[string]any{"apiVersion": "other.test/v1", "kind": "Other"}}}
	if _, ok, _ := conversion.ItemsToVersion(s, typed, v2, "ThingList"); ok {
		t.Error("items of a kind without a converter must be left to ToVersion")
	}
}
