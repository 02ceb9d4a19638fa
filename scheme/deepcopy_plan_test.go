package scheme

import (
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Types shaped to reach every branch of the copy plans: the untyped and typed slice
// paths, word-by-word and typed-move struct copies, flattened nested structs, and fields
// the fix pass must replace inside slice elements.

type small struct { // few word operations: copied word by word
	Name string
	Ptr  *int
}

type wide struct { // many word operations: copied by one typed move, then fixed
	A, B, C, D, E, F, G string
	N1, N2              int64
	When                Time
	Inner               small
	Ptrs                []*small
	Tags                map[string]int
	Labels              map[string]string
	Kids                []small
	Grid                [3][]int
	Names               []UID
	Raw                 []byte
	Ints                []int64
	Empty               []struct{}
	Fn                  func() int
}

type withUnexported struct {
	Items  []int
	hidden []int
}

type holder struct {
	V   withUnexported
	Any any
	Val any
	Obj Object
}

type tree struct {
	Name     string
	Kids     []tree
	ByName   map[string]*tree
	Parent   *tree
	Siblings [2]*tree
}

func sampleWide() *wide {
	one, two := 1, 2
	return &wide{
		A: "a", B: "b", C: "c", D: "d", E: "e", F: "f", G: "g", N1: 1, N2: 2,
		When:   NewTime(time.Unix(7, 0)),
		Inner:  small{"in", &one},
		Ptrs:   []*small{{"p", &two}, nil},
		Tags:   map[string]int{"x": 1},
		Labels: map[string]string{"k": "v"},
		Kids:   []small{{"k1", &one}, {"k2", nil}},
		Grid:   [3][]int{{1, 2}, nil, {}},
		Names:  []UID{"u1", "u2"},
		Raw:    []byte("raw"),
		Ints:   []int64{1, 2, 3},
		Empty:  make([]struct{}, 3),
		Fn:     func() int { return 42 },
	}
}

func TestDeepCopy_PlansCopyEveryShapeWithoutSharing(t *testing.T) {
	orig := sampleWide()
	cp := DeepCopy(orig)
	if cp.Fn == nil || cp.Fn() != 42 {
		t.Fatal("function field not carried over")
	}
	cp.Fn, orig.Fn = nil, nil // DeepEqual cannot compare functions
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("copy differs:\n%#v\n%#v", orig, cp)
	}
	if len(cp.Empty) != 3 || cp.Grid[1] != nil || cp.Grid[2] == nil || len(cp.Grid[2]) != 0 {
		t.Fatalf("nil, empty or zero-size slices not kept: %#v", cp)
	}
	mutations := []struct {
		name   string
		mutate func(*wide)
	}{
		{"nested struct pointer", func(w *wide) { *w.Inner.Ptr = 100 }},
		{"slice of pointers", func(w *wide) { w.Ptrs[0].Name = "changed"; *w.Ptrs[0].Ptr = 100 }},
		{"generic map", func(w *wide) { w.Tags["x"] = 100 }},
		{"string map", func(w *wide) { w.Labels["k"] = "changed" }},
		{"pointer inside slice element", func(w *wide) { *w.Kids[0].Ptr = 100; w.Kids[1].Name = "changed" }},
		{"slice inside array", func(w *wide) { w.Grid[0][0] = 100 }},
		{"named string slice", func(w *wide) { w.Names[0] = "changed" }},
		{"byte slice", func(w *wide) { w.Raw[0] = 'z' }},
		{"int slice", func(w *wide) { w.Ints[0] = 100 }},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			o := withoutFn(sampleWide())
			cp := DeepCopy(o)
			m.mutate(cp)
			if reflect.DeepEqual(cp, o) {
				t.Fatal("the mutation did not change the copy")
			}
			if !reflect.DeepEqual(o, withoutFn(sampleWide())) {
				t.Errorf("mutating the copy changed the original: %#v", o)
			}
		})
	}
}

func withoutFn(w *wide) *wide { w.Fn = nil; return w }

func TestDeepCopy_NilAndEmptyStayApart(t *testing.T) {
	type lists struct {
		Bytes   []byte
		Strings []string
		Parts   []part
		Ptrs    []*part
		Nested  [][]int
		Map     map[string]string
		Any     any
		Labels  map[string][]string
	}
	tests := []struct {
		name string
		in   lists
	}{
		{"all nil", lists{}},
		{"all empty", lists{Bytes: []byte{}, Strings: []string{}, Parts: []part{}, Ptrs: []*part{}, Nested: [][]int{}, Map: map[string]string{}, Labels: map[string][]string{}}},
		{"empty inside", lists{Nested: [][]int{nil, {}}, Labels: map[string][]string{"nil": nil, "empty": {}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := DeepCopy(tt.in)
			ov, cv := reflect.ValueOf(tt.in), reflect.ValueOf(cp)
			for i := 0; i < ov.NumField(); i++ {
				o, c := ov.Field(i), cv.Field(i)
				if o.Kind() == reflect.Interface {
					continue
				}
				if o.IsNil() != c.IsNil() || o.Len() != c.Len() {
					t.Errorf("%s: nil %v, len %d copied as nil %v, len %d", ov.Type().Field(i).Name, o.IsNil(), o.Len(), c.IsNil(), c.Len())
				}
			}
			if !reflect.DeepEqual(tt.in, cp) {
				t.Errorf("copy differs: %#v", cp)
			}
		})
	}
}

func TestDeepCopy_EmptySliceWithCapacitySharesNoBacking(t *testing.T) {
	backing := make([]part, 0, 4)
	ints := make([]int, 0, 4)
	strs := make([]string, 0, 4)
	type s struct {
		P []part
		I []int
		S []string
	}
	cp := DeepCopy(s{backing, ints, strs})
	if cp.P == nil || cp.I == nil || cp.S == nil {
		t.Fatal("empty slices copied as nil")
	}
	_ = append(cp.P, part{Name: "x"})
	_ = append(cp.I, 1)
	_ = append(cp.S, "x")
	if backing[:1][0].Name != "" || ints[:1][0] != 0 || strs[:1][0] != "" {
		t.Error("appending to the copy wrote into the original's backing array")
	}
}

func TestDeepCopy_UnexportedFieldsAreCopiedAsValues(t *testing.T) {
	h := &holder{V: withUnexported{Items: []int{1}, hidden: []int{2}}}
	cp := DeepCopy(h)
	if !reflect.DeepEqual(h.V.hidden, cp.V.hidden) || !reflect.DeepEqual(h.V.Items, cp.V.Items) {
		t.Fatalf("copy differs: %#v", cp.V)
	}
	// A struct with an unexported field is one value: its slices are shared, as documented.
	cp.V.Items[0] = 100
	if h.V.Items[0] != 100 {
		t.Error("a struct with unexported fields was copied deeply; the documented behaviour is a value copy")
	}
}

func TestDeepCopy_InterfaceFieldsCopyTheirDynamicValues(t *testing.T) {
	tests := []struct {
		name   string
		in     *holder
		mutate func(*holder)
		check  func(*holder) bool // true when the original is intact
	}{
		{"pointer to struct", &holder{Any: &part{"p", 1}},
			func(h *holder) { h.Any.(*part).Name = "x" }, func(h *holder) bool { return h.Any.(*part).Name == "p" }},
		{"struct value holding a slice", &holder{Val: small{"s", new(int)}},
			func(h *holder) { *h.Val.(small).Ptr = 5 }, func(h *holder) bool { return *h.Val.(small).Ptr == 0 }},
		{"slice value", &holder{Val: []int{1}},
			func(h *holder) { h.Val.([]int)[0] = 5 }, func(h *holder) bool { return h.Val.([]int)[0] == 1 }},
		{"JSON map", &holder{Val: map[string]any{"a": []any{"b"}}},
			func(h *holder) { h.Val.(map[string]any)["a"].([]any)[0] = "x" }, func(h *holder) bool { return h.Val.(map[string]any)["a"].([]any)[0] == "b" }},
		{"typed nil pointer", &holder{Any: (*part)(nil)},
			func(h *holder) {}, func(h *holder) bool { return h.Any.(*part) == nil }},
		{"object interface", &holder{Obj: &testKind{ObjectMeta: ObjectMeta{Labels: map[string]string{"a": "b"}}}},
			func(h *holder) { h.Obj.GetLabels()["a"] = "x" }, func(h *holder) bool { return h.Obj.GetLabels()["a"] == "b" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := DeepCopy(tt.in)
			if !reflect.DeepEqual(tt.in, cp) {
				t.Fatalf("copy differs: %#v", cp)
			}
			tt.mutate(cp)
			if !tt.check(tt.in) {
				t.Error("mutating the copy changed the original")
			}
		})
	}
}

func TestDeepCopy_RecursiveTypesThroughSlicesMapsAndArrays(t *testing.T) {
	leaf := &tree{Name: "leaf"}
	root := &tree{Name: "root", Kids: []tree{{Name: "k", ByName: map[string]*tree{"leaf": leaf}}}, Siblings: [2]*tree{leaf, nil}}
	cp := DeepCopy(root)
	if !reflect.DeepEqual(root, cp) {
		t.Fatalf("copy differs: %#v", cp)
	}
	cp.Kids[0].ByName["leaf"].Name = "changed"
	cp.Siblings[0].Name = "changed too"
	if leaf.Name != "leaf" {
		t.Error("recursive copy shares nodes")
	}
}

func TestDeepCopy_NonPointerValues(t *testing.T) {
	w := *sampleWide()
	cp := DeepCopy(w)
	*cp.Inner.Ptr = 100
	cp.Labels["k"] = "changed"
	if *w.Inner.Ptr != 1 || w.Labels["k"] != "v" {
		t.Error("copy of a struct value shares memory")
	}
	m := map[string][]int{"a": {1}}
	mc := DeepCopy(m)
	mc["a"][0] = 2
	if m["a"][0] != 1 {
		t.Error("copy of a map value shares its slices")
	}
	if got := DeepCopy(42); got != 42 {
		t.Errorf("DeepCopy(42) = %d", got)
	}
}

// The copiers store pointers word by word; copying while the collector runs checks that
// every pointer store is seen by it (a missed write barrier shows up as corrupted copies).
func TestDeepCopy_ConcurrentWithGarbageCollection(t *testing.T) {
	stop := make(chan struct{})
	var gcs sync.WaitGroup
	gcs.Add(1)
	go func() {
		defer gcs.Done()
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				cp := DeepCopy(withoutFn(sampleWide()))
				runtime.Gosched()
				if !reflect.DeepEqual(cp, withoutFn(sampleWide())) {
					t.Errorf("copy %d corrupted: %#v", i, cp)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	gcs.Wait()
}

func BenchmarkDeepCopyShapes(b *testing.B) {
	w := sampleWide()
	w.Fn = nil
	b.Run("wide", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = DeepCopy(w)
		}
	})
	s := &small{"s", new(int)}
	b.Run("small", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = DeepCopy(s)
		}
	})
}

// Mutually recursive types used by no other test, so their plans are first built here,
// by several goroutines at once.
type ringA struct {
	Name string
	Bs   []ringB
}

type ringB struct {
	Name string
	A    *ringA
}

func TestDeepCopy_FirstUseOfRecursiveTypesFromManyGoroutines(t *testing.T) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if g%2 == 0 {
				b := &ringB{Name: "b", A: &ringA{Name: "a", Bs: []ringB{{Name: "inner"}}}}
				if cp := DeepCopy(b); !reflect.DeepEqual(cp, b) || cp.A == b.A {
					t.Errorf("copy of ringB wrong: %#v", cp)
				}
				return
			}
			a := &ringA{Name: "a", Bs: []ringB{{Name: "b", A: &ringA{Name: "inner"}}}}
			if cp := DeepCopy(a); !reflect.DeepEqual(cp, a) || cp.Bs[0].A == a.Bs[0].A {
				t.Errorf("copy of ringA wrong: %#v", cp)
			}
		}()
	}
	close(start)
	wg.Wait()
}
