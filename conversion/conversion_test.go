package conversion_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

var timeCmp = cmp.Comparer(func(a, b scheme.Time) bool { return a.Equal(&b) })

func TestToVersion_ConvertsBetweenVersionsThroughTheHub(t *testing.T) {
	s := newScheme()
	hubCalls := 0
	// Count the v2 -> hub step; v2 -> v1 has no direct path (paint vs color), so success
	// means it went through the hub.
	conversion.Register(s, func(in *V2Gadget, out *Gadget, sc conversion.Scope) error {
		hubCalls++
		if err := conversion.AutoConvert(s, in, out); err != nil {
			return err
		}
		out.Spec.Color = Color(in.Spec.Paint)
		if in.Spec.Sizing != nil {
			out.Spec.Size = in.Spec.Sizing.Size
		}
		return nil
	})
	in := &V2Gadget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "gadgets.test/v2", Kind: "Gadget"},
		ObjectMeta: scheme.ObjectMeta{Name: "g"},
		Spec:       V2GadgetSpec{Paint: "blue", Sizing: &V2Sizing{Size: 9}, Tags: []string{"t"}},
	}
	out, err := conversion.ToVersion(s, in, v1GV)
	if err != nil {
		t.Fatal(err)
	}
	want := &V1Gadget{
		TypeMeta:   scheme.TypeMeta{APIVersion: "gadgets.test/v1", Kind: "Gadget"},
		ObjectMeta: scheme.ObjectMeta{Name: "g"},
		Spec:       V1GadgetSpec{Color: "blue", Size: 9, Tags: []string{"t"}},
	}
	if diff := cmp.Diff(want, out, timeCmp); diff != "" {
		t.Errorf("v2 -> v1 (-want +got):\n%s", diff)
	}
	if hubCalls != 1 {
		t.Errorf("v2 -> hub conversion ran %d times, want 1", hubCalls)
	}
}

func TestToVersion_ResultKinds(t *testing.T) {
	s := newScheme()
	tests := []struct {
		name   string
		in     scheme.Kinded
		target scheme.GroupVersion
		want   scheme.GroupVersionKind
	}{
		{"internal to v1 sets apiVersion and kind", sampleGadget(), v1GV, v1GV.WithKind("Gadget")},
		{"internal to v2 sets apiVersion and kind", sampleGadget(), v2GV, v2GV.WithKind("Gadget")},
		{"v1 to internal leaves them empty", &V1Gadget{TypeMeta: scheme.TypeMeta{APIVersion: "gadgets.test/v1", Kind: "Gadget"}}, groupGV, scheme.GroupVersionKind{}},
		{"v1 to v1 keeps them", &V1Gadget{TypeMeta: scheme.TypeMeta{APIVersion: "gadgets.test/v1", Kind: "Gadget"}}, v1GV, v1GV.WithKind("Gadget")},
		{"v1 without TypeMeta to v2 is found by Go type", &V1Gadget{}, v2GV, v2GV.WithKind("Gadget")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := conversion.ToVersion(s, tt.in, tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.GetObjectKind().GroupVersionKind(); got != tt.want {
				t.Errorf("kind = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestToVersion_SameVersionReturnsDeepCopy(t *testing.T) {
	s := newScheme()
	in := sampleGadget()
	out, err := conversion.ToVersion(s, in, groupGV)
	if err != nil {
		t.Fatal(err)
	}
	g := out.(*Gadget)
	if g == in {
		t.Fatal("same-version conversion returned the input object")
	}
	if diff := cmp.Diff(in, g, timeCmp); diff != "" {
		t.Fatalf("copy differs (-in +out):\n%s", diff)
	}
	in.Spec.Tags[0] = "changed"
	in.Spec.Parts[0].Sub[0].Name = "changed"
	in.Labels["a"] = "changed"
	*in.Spec.Replicas = 99
	if g.Spec.Tags[0] == "changed" || g.Spec.Parts[0].Sub[0].Name == "changed" || g.Labels["a"] == "changed" || *g.Spec.Replicas == 99 {
		t.Error("the copy shares memory with the input")
	}
}

func TestToVersion_UnregisteredTargetIsNotRegisteredError(t *testing.T) {
	s := newScheme()
	_, err := conversion.ToVersion(s, sampleGadget(), scheme.GroupVersion{Group: "gadgets.test", Version: "v3"})
	var nr *scheme.NotRegisteredError
	if !errors.As(err, &nr) {
		t.Fatalf("err = %v, want a *scheme.NotRegisteredError", err)
	}
	if nr.GVK.Version != "v3" || nr.GVK.Kind != "Gadget" {
		t.Errorf("NotRegisteredError names %v", nr.GVK)
	}
	if !strings.Contains(err.Error(), `"ns/g1"`) {
		t.Errorf("error %q does not name the object", err)
	}
}

func TestToVersion_ListsConvertItemByItem(t *testing.T) {
	s := newScheme()
	in := &V2GadgetList{
		TypeMeta: scheme.TypeMeta{APIVersion: "gadgets.test/v2", Kind: "GadgetList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "42"},
		Items: []V2Gadget{
			{ObjectMeta: scheme.ObjectMeta{Name: "a"}, Spec: V2GadgetSpec{Paint: "red", Sizing: &V2Sizing{Size: 1}}},
			{ObjectMeta: scheme.ObjectMeta{Name: "b"}, Spec: V2GadgetSpec{Paint: "green"}},
		},
	}
	out, err := conversion.ToVersion(s, in, v1GV)
	if err != nil {
		t.Fatal(err)
	}
	want := &V1GadgetList{
		TypeMeta: scheme.TypeMeta{APIVersion: "gadgets.test/v1", Kind: "GadgetList"},
		ListMeta: scheme.ListMeta{ResourceVersion: "42"},
		Items: []V1Gadget{
			{ObjectMeta: scheme.ObjectMeta{Name: "a"}, Spec: V1GadgetSpec{Color: "red", Size: 1}},
			{ObjectMeta: scheme.ObjectMeta{Name: "b"}, Spec: V1GadgetSpec{Color: "green"}},
		},
	}
	if diff := cmp.Diff(want, out, timeCmp); diff != "" {
		t.Errorf("list v2 -> v1 (-want +got):\n%s", diff)
	}
}

func TestToVersion_UnstructuredOnlyRewritesAPIVersion(t *testing.T) {
	s := scheme.New()
	for _, v := range []string{"v1", "v2"} {
		s.AddUnstructuredKind(scheme.GroupVersionKind{Group: "crd.test", Version: v, Kind: "Thing"})
		s.AddUnstructuredKind(scheme.GroupVersionKind{Group: "crd.test", Version: v, Kind: "ThingList"})
	}
	in := &scheme.Unstructured{Object: map[string]any{
		"apiVersion": "crd.test/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t"},
		"spec":     map[string]any{"size": int64(3), "tags": []any{"a"}},
	}}
	out, err := conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "crd.test/v2", "kind": "Thing",
		"metadata": map[string]any{"name": "t"},
		"spec":     map[string]any{"size": int64(3), "tags": []any{"a"}},
	}
	if diff := cmp.Diff(want, out.(*scheme.Unstructured).Object); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if in.GetAPIVersion() != "crd.test/v1" {
		t.Error("the input was modified")
	}

	list := &scheme.UnstructuredList{
		Object: map[string]any{"apiVersion": "crd.test/v1", "kind": "ThingList"},
		Items:  []scheme.Unstructured{{Object: map[string]any{"apiVersion": "crd.test/v1", "kind": "Thing"}}},
	}
	lout, err := conversion.ToVersion(s, list, scheme.GroupVersion{Group: "crd.test", Version: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	l := lout.(*scheme.UnstructuredList)
	if l.GroupVersionKind().Version != "v2" || l.Items[0].GetAPIVersion() != "crd.test/v2" {
		t.Errorf("list not rewritten: %v, item %v", l.Object, l.Items[0].Object)
	}

	_, err = conversion.ToVersion(s, in, scheme.GroupVersion{Group: "crd.test", Version: "v9"})
	var nr *scheme.NotRegisteredError
	if !errors.As(err, &nr) {
		t.Errorf("unregistered version: err = %v, want NotRegisteredError", err)
	}
}

func TestConvert_SameShapedTypesConvertAutomaticallyBothWays(t *testing.T) {
	s := newScheme()
	in := sampleGadget()
	var v1 V1Gadget
	if err := conversion.Convert(s, in, &v1); err != nil {
		t.Fatal(err)
	}
	if v1.Spec.Color != "red" || v1.Spec.Parts[0].Sub[0].Name != "spoke" || v1.Spec.PartsByKey["w"].Count != 4 ||
		v1.Spec.Owner.Since.Year() != 2020 || string(v1.Spec.Blob) != "hello" {
		t.Fatalf("nested values not converted: %+v", v1.Spec)
	}
	if p, ok := v1.Spec.PartsByKey["nil"]; !ok || p != nil {
		t.Errorf("nil map value not kept: %v, %v", p, ok)
	}
	var back Gadget
	if err := conversion.Convert(s, &v1, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, &back, timeCmp); diff != "" {
		t.Errorf("hub -> v1 -> hub (-want +got):\n%s", diff)
	}
}

func TestConvert_KeepsNilApartFromEmpty(t *testing.T) {
	s := newScheme()
	in := &Gadget{Spec: GadgetSpec{Tags: []string{}, Settings: nil, Parts: []Part{}, PartsByKey: map[string]*Part{}}}
	var out V1Gadget
	if err := conversion.Convert(s, in, &out); err != nil {
		t.Fatal(err)
	}
	if out.Spec.Tags == nil || out.Spec.Parts == nil || out.Spec.PartsByKey == nil {
		t.Error("empty collections became nil")
	}
	if out.Spec.Settings != nil || out.Spec.Weights != nil || out.Spec.Owner != nil {
		t.Error("nil collections or pointers became non-nil")
	}
}

// Types for plan errors.
type oneField struct{ A string }
type twoFields struct {
	A string
	B int
}
type wrapsOne struct{ Inner oneField }
type wrapsTwo struct{ Inner twoFields }
type kindMismatch struct{ A int }

func TestConvert_FieldsWithoutCounterpartFailBeforeWriting(t *testing.T) {
	tests := []struct {
		name      string
		in, out   any
		wantField string
	}{
		{"field only in the input", &twoFields{A: "a", B: 1}, &oneField{A: "untouched"}, "B"},
		{"field only in the output", &oneField{A: "a"}, &twoFields{A: "untouched"}, "B"},
		{"nested field", &wrapsTwo{Inner: twoFields{A: "a"}}, &wrapsOne{Inner: oneField{A: "untouched"}}, "Inner.B"},
		{"different kinds", &kindMismatch{A: 1}, &oneField{A: "untouched"}, "A: cannot convert int to string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scheme.New()
			err := conversion.Convert(s, tt.in, tt.out)
			var pe *conversion.PlanError
			if !errors.As(err, &pe) || !errors.Is(err, conversion.ErrPlan) {
				t.Fatalf("err = %v, want a *PlanError", err)
			}
			if !strings.Contains(err.Error(), tt.wantField) {
				t.Errorf("error %q does not name %q", err, tt.wantField)
			}
			if !strings.Contains(strings.Join(pe.Fields, "\n"), tt.wantField) {
				t.Errorf("Fields %q do not name %q", pe.Fields, tt.wantField)
			}
			if diff := cmp.Diff("untouched", firstString(tt.out)); diff != "" {
				t.Errorf("output was written: %s", diff)
			}
		})
	}
}

func firstString(v any) string {
	switch o := v.(type) {
	case *oneField:
		return o.A
	case *twoFields:
		return o.A
	case *wrapsOne:
		return o.Inner.A
	}
	return ""
}

func TestConvert_RegisteredFunctionHandlesMismatchedPairAtAnyDepth(t *testing.T) {
	s := scheme.New()
	conversion.Register(s, func(in *twoFields, out *oneField, sc conversion.Scope) error {
		out.A = in.A + "+" + string(rune('0'+in.B))
		return nil
	})
	var out wrapsOne
	if err := conversion.Convert(s, &wrapsTwo{Inner: twoFields{A: "a", B: 5}}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Inner.A != "a+5" {
		t.Errorf("nested registered function not used: %q", out.Inner.A)
	}
	var slice []oneField
	if err := conversion.Convert(s, &[]twoFields{{A: "x", B: 1}}, &slice); err != nil {
		t.Fatal(err)
	}
	if len(slice) != 1 || slice[0].A != "x+1" {
		t.Errorf("registered function not used for slice elements: %v", slice)
	}
}

func TestAutoConvert_SkipsMismatchedFieldsForTheCallerToFix(t *testing.T) {
	s := scheme.New()
	var out wrapsOne
	err := conversion.AutoConvert(s, &wrapsTwo{Inner: twoFields{A: "a", B: 2}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.Inner.A != "a" {
		t.Errorf("shared field not converted: %+v", out)
	}
}

func TestScope_ConvertUsesTheSameMachinery(t *testing.T) {
	s := newScheme()
	type holder struct{ G Gadget }
	type v2Holder struct{ G V2Gadget }
	conversion.Register(s, func(in *holder, out *v2Holder, sc conversion.Scope) error {
		return sc.Convert(&in.G, &out.G)
	})
	var out v2Holder
	if err := conversion.Convert(s, &holder{G: *sampleGadget()}, &out); err != nil {
		t.Fatal(err)
	}
	if out.G.Spec.Paint != "red" || out.G.Spec.Sizing == nil || out.G.Spec.Sizing.Size != 7 {
		t.Errorf("scope conversion skipped the registered function: %+v", out.G.Spec)
	}
}

func TestConvert_RejectsNonPointers(t *testing.T) {
	s := scheme.New()
	var out oneField
	if err := conversion.Convert(s, oneField{}, &out); err == nil {
		t.Error("value input accepted")
	}
	if err := conversion.Convert(s, &oneField{}, out); err == nil {
		t.Error("value output accepted")
	}
}

func TestConvert_OutputSharesNoMemoryWithInput(t *testing.T) {
	s := newScheme()
	in := sampleGadget()
	var out V1Gadget
	if err := conversion.Convert(s, in, &out); err != nil {
		t.Fatal(err)
	}
	mutations := []struct {
		name   string
		mutate func()
		check  func() bool
	}{
		{"slice of strings", func() { in.Spec.Tags[0] = "z" }, func() bool { return out.Spec.Tags[0] == "x" }},
		{"string map", func() { in.Spec.Settings["k"] = "z" }, func() bool { return out.Spec.Settings["k"] == "v" }},
		{"pointer", func() { *in.Spec.Replicas = 50 }, func() bool { return *out.Spec.Replicas == 2 }},
		{"nested slice", func() { in.Spec.Parts[0].Sub[0].Count = 1 }, func() bool { return out.Spec.Parts[0].Sub[0].Count == 32 }},
		{"map of pointers", func() { in.Spec.PartsByKey["w"].Count = 1 }, func() bool { return out.Spec.PartsByKey["w"].Count == 4 }},
		{"bytes", func() { in.Spec.Blob[0] = 'j' }, func() bool { return string(out.Spec.Blob) == "hello" }},
		{"labels", func() { in.Labels["a"] = "z" }, func() bool { return out.Labels["a"] == "b" }},
		{"conditions", func() { in.Status.Conditions[0].Reason = "z" }, func() bool { return out.Status.Conditions[0].Reason == "Done" }},
	}
	for _, m := range mutations {
		m.mutate()
		if !m.check() {
			t.Errorf("%s: changing the input changed the output", m.name)
		}
	}
}

func TestConvert_InterfaceValuesAreDeepCopied(t *testing.T) {
	s := scheme.New()
	type withAny struct{ X any }
	in := withAny{X: map[string]any{"a": []any{int64(1)}}}
	var out withAny
	if err := conversion.Convert(s, &in, &out); err != nil {
		t.Fatal(err)
	}
	in.X.(map[string]any)["a"].([]any)[0] = int64(2)
	if out.X.(map[string]any)["a"].([]any)[0] != int64(1) {
		t.Error("interface value shared with the input")
	}
}

func TestDefault_AppliesToObjectsAndListItems(t *testing.T) {
	s := newScheme()
	nested := 0
	conversion.RegisterDefaults(s, func(p *V1Part) {
		nested++
		if p.Count == 0 {
			p.Count = 1
		}
	})
	list := &V1GadgetList{Items: []V1Gadget{
		{Spec: V1GadgetSpec{Parts: []V1Part{{Name: "a"}, {Name: "b", Count: 5}}}},
		{Spec: V1GadgetSpec{Replicas: ptr[int32](7)}},
	}}
	conversion.Default(s, list)
	if got := *list.Items[0].Spec.Replicas; got != defaultReplicas {
		t.Errorf("item 0 replicas = %d, want default %d", got, defaultReplicas)
	}
	if got := *list.Items[1].Spec.Replicas; got != 7 {
		t.Errorf("item 1 replicas = %d, want the set value 7", got)
	}
	if list.Items[0].Spec.Parts[0].Count != 1 || list.Items[0].Spec.Parts[1].Count != 5 {
		t.Errorf("nested defaulter not applied: %+v", list.Items[0].Spec.Parts)
	}
	if nested != 2 {
		t.Errorf("nested defaulter ran %d times, want 2", nested)
	}

	g := &V1Gadget{}
	conversion.Default(s, g)
	if g.Spec.Replicas == nil || *g.Spec.Replicas != defaultReplicas {
		t.Error("top-level object not defaulted")
	}
	conversion.Default(s, (*V1Gadget)(nil)) // must not panic
	hub := &Gadget{}
	conversion.Default(s, hub)
	if hub.Spec.Replicas != nil {
		t.Error("a type without defaulters was changed")
	}
}

func TestConvert_RecursiveTypes(t *testing.T) {
	s := scheme.New()
	type node struct {
		Name     string
		Children []*node
		Next     *node
	}
	in := &node{Name: "root", Children: []*node{{Name: "c", Next: &node{Name: "n"}}}}
	var out node
	if err := conversion.Convert(s, in, &out); err != nil {
		t.Fatal(err)
	}
	if out.Children[0].Next.Name != "n" || out.Children[0] == in.Children[0] {
		t.Errorf("recursive copy wrong: %+v", out)
	}
}

type plainA struct {
	X int64
	Y string
	Z [2]uint8
}
type plainB struct {
	X int64
	Y string
	Z [2]uint8
}
type plainOuterA struct {
	P plainA
	N int32
}
type plainOuterB struct {
	P plainB
	N int32
}

func TestConvert_PlainLookalikeTypesCopyAndStillHonourRegisteredFunctions(t *testing.T) {
	s := scheme.New()
	in := []plainOuterA{{P: plainA{X: 1, Y: "a", Z: [2]uint8{1, 2}}, N: 3}, {N: 4}}
	var out []plainOuterB
	if err := conversion.Convert(s, &in, &out); err != nil {
		t.Fatal(err)
	}
	want := []plainOuterB{{P: plainB{X: 1, Y: "a", Z: [2]uint8{1, 2}}, N: 3}, {N: 4}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	in[0].N = 99
	if out[0].N != 3 {
		t.Error("output shares the input's backing array")
	}

	s2 := scheme.New()
	conversion.Register(s2, func(in *plainA, out *plainB, _ conversion.Scope) error {
		out.X, out.Y = in.X*10, "from func"
		return nil
	})
	var viaFunc []plainOuterB
	if err := conversion.Convert(s2, &in, &viaFunc); err != nil {
		t.Fatal(err)
	}
	if viaFunc[0].P.X != 10 || viaFunc[0].P.Y != "from func" || viaFunc[0].N != 99 {
		t.Errorf("registered nested function bypassed: %+v", viaFunc[0])
	}
}

func TestConvert_ConcurrentFirstUseIsSafe(t *testing.T) {
	s := newScheme()
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			out, err := conversion.ToVersion(s, sampleGadget(), v2GV)
			if err == nil {
				_, err = conversion.ToUnstructured(out)
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestToVersion_BetweenExternalVersionsNeedsTheHub(t *testing.T) {
	s := scheme.New()
	s.AddKnownTypeWithName(v1GV.WithKind("Gadget"), &V1Gadget{})
	s.AddKnownTypeWithName(v2GV.WithKind("Gadget"), &V2Gadget{})
	_, err := conversion.ToVersion(s, &V1Gadget{}, v2GV)
	var nr *scheme.NotRegisteredError
	if !errors.As(err, &nr) || nr.GVK.Version != scheme.InternalVersion {
		t.Errorf("err = %v, want NotRegisteredError for the internal version", err)
	}
}
