package scheme

import (
	"reflect"
	"testing"
	"time"
)

type part struct {
	Name  string
	Count int32
}

type node struct {
	Name     string
	Next     *node
	Children []*node
}

type everything struct {
	TypeMeta
	ObjectMeta
	Ptr      *int32
	Parts    []part
	Nested   map[string][]string
	Any      any
	JSON     map[string]any
	Array    [2]*int
	Tree     *node
	When     time.Time
	Kinded   Kinded
	Bytes    []byte
	Iface    map[string]any
	EmptySl  []string
	NilMap   map[string]string
	PtrSlice []*part
}

func sampleEverything() *everything {
	one, two := int32(1), 2
	tree := &node{Name: "root"}
	tree.Children = []*node{{Name: "c1"}, {Name: "c2", Next: tree}}
	return &everything{
		TypeMeta:   TypeMeta{Kind: "K", APIVersion: "v1"},
		ObjectMeta: ObjectMeta{Name: "n", Labels: map[string]string{"a": "b"}, Finalizers: []string{"f"}, DeletionTimestamp: &Time{time.Unix(5, 0)}, OwnerReferences: []OwnerReference{{Name: "o", Controller: new(bool)}}},
		Ptr:        &one,
		Parts:      []part{{"a", 1}, {"b", 2}},
		Nested:     map[string][]string{"x": {"1", "2"}},
		Any:        &part{"p", 3},
		JSON:       map[string]any{"spec": map[string]any{"list": []any{int64(1), "s", map[string]any{"k": true}}}},
		Array:      [2]*int{&two, nil},
		Tree:       &node{Name: "t", Children: []*node{{Name: "leaf"}}},
		When:       time.Unix(100, 0),
		Kinded:     &Unstructured{Object: map[string]any{"kind": "X", "metadata": map[string]any{"name": "u"}}},
		Bytes:      []byte("abc"),
		EmptySl:    []string{},
		PtrSlice:   []*part{{"q", 9}, nil},
	}
}

func TestDeepCopy_IsEqualAndSharesNothing(t *testing.T) {
	orig := sampleEverything()
	cp := DeepCopy(orig)
	if cp == orig {
		t.Fatal("DeepCopy returned the same pointer")
	}
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("copy differs:\n%#v\n%#v", orig, cp)
	}
	if cp.EmptySl == nil || cp.NilMap != nil {
		t.Error("nil and empty are not kept apart")
	}
	// Mutate everything reachable in the copy; the original must not change.
	*cp.Ptr = 99
	cp.Parts[0].Name = "changed"
	cp.Nested["x"][0] = "changed"
	cp.Any.(*part).Name = "changed"
	cp.JSON["spec"].(map[string]any)["list"].([]any)[2].(map[string]any)["k"] = false
	*cp.Array[0] = 99
	cp.Tree.Children[0].Name = "changed"
	cp.Labels["a"] = "changed"
	cp.Finalizers[0] = "changed"
	cp.DeletionTimestamp.Time = time.Unix(9, 0)
	*cp.OwnerReferences[0].Controller = true
	cp.Kinded.(*Unstructured).SetName("changed")
	cp.Bytes[0] = 'z'
	cp.PtrSlice[0].Name = "changed"
	if !reflect.DeepEqual(orig, sampleEverything()) {
		t.Fatalf("mutating the copy changed the original: %#v", orig)
	}
}

func TestDeepCopy_RecursiveTypesAndCycles(t *testing.T) {
	n := &node{Name: "a", Next: &node{Name: "b", Children: []*node{{Name: "c"}}}}
	cp := DeepCopy(n)
	if !reflect.DeepEqual(n, cp) || cp.Next == n.Next || cp.Next.Children[0] == n.Next.Children[0] {
		t.Fatalf("recursive copy wrong: %#v", cp)
	}
}

func TestDeepCopy_InterfaceTypedValuesKeepTheirDynamicType(t *testing.T) {
	var obj Object = &testKind{ObjectMeta: ObjectMeta{Name: "x", Labels: map[string]string{"a": "b"}}}
	cp := DeepCopy(obj)
	tk, ok := cp.(*testKind)
	if !ok || tk == obj.(*testKind) || tk.Name != "x" {
		t.Fatalf("DeepCopy(Object) = %#v", cp)
	}
	tk.Labels["a"] = "c"
	if obj.GetLabels()["a"] != "b" {
		t.Error("copy shares labels")
	}
	var nilObj Object
	if DeepCopy(nilObj) != nil {
		t.Error("nil interface did not copy to nil")
	}
	var nilPtr *testKind
	if DeepCopy(nilPtr) != nil {
		t.Error("nil pointer did not copy to nil")
	}
}

func TestDeepCopy_UnstructuredUsesItsOwnMethod(t *testing.T) {
	u := &Unstructured{Object: map[string]any{"a": []any{map[string]any{"b": int64(1)}}}}
	cp := DeepCopy(u)
	cp.Object["a"].([]any)[0].(map[string]any)["b"] = int64(2)
	if u.Object["a"].([]any)[0].(map[string]any)["b"] != int64(1) {
		t.Error("unstructured copy shares nested maps")
	}
	l := &UnstructuredList{Object: map[string]any{"kind": "L"}, Items: []Unstructured{*u}}
	lc := DeepCopy(l)
	lc.Items[0].Object["a"] = nil
	if u.Object["a"] == nil || !reflect.DeepEqual(lc.Object, l.Object) {
		t.Error("unstructured list copy wrong")
	}
	var nilU *Unstructured
	if DeepCopy(nilU) != nil {
		t.Error("nil *Unstructured did not copy to nil")
	}
}

func BenchmarkDeepCopy(b *testing.B) {
	parts := make([]part, 200)
	for i := range parts {
		parts[i] = part{Name: "part-name", Count: int32(i)}
	}
	obj := &everything{ObjectMeta: ObjectMeta{Name: "w", Labels: map[string]string{"a": "b", "c": "d"}, Annotations: map[string]string{"note": "x"}}, Parts: parts}
	b.Run("typed-200parts", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = DeepCopy(obj)
		}
	})
	items := make([]any, 200)
	for i := range items {
		items[i] = map[string]any{"name": "part-name", "count": int64(i)}
	}
	u := &Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "K", "metadata": map[string]any{"name": "w", "labels": map[string]any{"a": "b"}}, "spec": map[string]any{"parts": items}}}
	b.Run("unstructured-200parts", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = DeepCopy(u)
		}
	})
}
