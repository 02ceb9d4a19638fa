package patch

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/scheme"
)

var widgetKind = scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}

// withManyLabels adds n labels (and n/2 annotations) to w's metadata, some of them
// rng-chosen so that two widgets differ in some, enough to be walked in key order.
func withManyLabels(rng *rand.Rand, w map[string]any, n int) map[string]any {
	md, _ := w["metadata"].(map[string]any)
	if md == nil {
		return w
	}
	labels := map[string]any{}
	annotations := map[string]any{}
	for i := range n {
		if rng.IntN(8) > 0 {
			labels[fmt.Sprintf("l%03d", i)] = fmt.Sprint(rng.IntN(2))
		}
		if i%2 == 0 && rng.IntN(8) > 0 {
			annotations[fmt.Sprintf("a%03d", i)] = "x"
		}
	}
	md["labels"], md["annotations"] = labels, annotations
	return w
}

// TestToTyped_StructuredMergeDiffAnswersAsForFromUnstructured runs structured-merge-diff's
// Compare, ToFieldSet and Merge on random pairs of Widgets (small ones and ones with
// maps over orderedMapMin) made by toTyped and by FromUnstructured: the answers must
// be the same, since only the order maps are walked in differs.
func TestToTyped_StructuredMergeDiffAnswersAsForFromUnstructured(t *testing.T) {
	pt, err := parserFor(testapi.NewScheme(), widgetKind)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(23, 5))
	compared, large := 0, 0
	for i := range 2000 {
		base := randomWidget(rng)
		if i%2 == 0 {
			base = withManyLabels(rng, base, orderedMapMin+rng.IntN(40))
			large++
		}
		a, b := mutate(rng, base), mutate(rng, base)
		if i%4 == 0 {
			b = withManyLabels(rng, b, orderedMapMin+rng.IntN(40))
		}
		aPlain, aErr := pt.FromUnstructured(a, typed.AllowDuplicates)
		bPlain, bErr := pt.FromUnstructured(b, typed.AllowDuplicates)
		aOrd, aOrdErr := toTyped(pt, a, typed.AllowDuplicates)
		bOrd, bOrdErr := toTyped(pt, b, typed.AllowDuplicates)
		if (aErr == nil) != (aOrdErr == nil) || (bErr == nil) != (bOrdErr == nil) {
			t.Fatalf("case %d: validation differs: %v / %v, %v / %v", i, aErr, aOrdErr, bErr, bOrdErr)
		}
		if aErr != nil || bErr != nil {
			continue
		}
		want, err := aPlain.Compare(bPlain)
		if err != nil {
			t.Fatal(err)
		}
		got, err := aOrd.Compare(bOrd)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Added.Equals(want.Added) || !got.Modified.Equals(want.Modified) || !got.Removed.Equals(want.Removed) {
			t.Fatalf("case %d: Compare differs:\ngot  %v\nwant %v", i, got, want)
		}
		wantSet, err1 := bPlain.ToFieldSet()
		gotSet, err2 := bOrd.ToFieldSet()
		if err1 != nil || err2 != nil || !gotSet.Equals(wantSet) {
			t.Fatalf("case %d: ToFieldSet differs (%v, %v)", i, err1, err2)
		}
		wantMerged, err1 := aPlain.Merge(bPlain)
		gotMerged, err2 := aOrd.Merge(bOrd)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("case %d: Merge errors differ: %v, %v", i, err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(gotMerged.AsValue().Unstructured(), wantMerged.AsValue().Unstructured()) {
			t.Fatalf("case %d: Merge differs", i)
		}
		compared++
	}
	if compared < 1000 || large < 1000 {
		t.Fatalf("only %d pairs compared, %d with large maps", compared, large)
	}
}

// insertionMoves counts the elements a sorted slice moves when keys are inserted one
// by one in the order given, as structured-merge-diff's PathElementSet.Insert does:
// for each key, the keys inserted before it that sort after it.
func insertionMoves(keys []string) int {
	sorted := slices.Sorted(slices.Values(keys))
	rank := make(map[string]int, len(sorted))
	for i, k := range sorted {
		rank[k] = i + 1
	}
	tree := make([]int, len(sorted)+1) // a Fenwick tree of the inserted ranks
	moves := 0
	for n, k := range keys {
		below := 0
		for i := rank[k]; i > 0; i -= i & -i {
			below += tree[i]
		}
		moves += n - below
		for i := rank[k]; i < len(tree); i += i & -i {
			tree[i]++
		}
	}
	return moves
}

// walkedLabels returns the label keys in the order structured-merge-diff's Compare of
// an object without labels (a create) and of tv visits them: the new object's labels
// map zipped with none.
func walkedLabels(t *testing.T, tv *typed.TypedValue) []string {
	t.Helper()
	md, ok := tv.AsValue().AsMap().Get("metadata")
	if !ok {
		t.Fatal("no metadata")
	}
	labels, ok := md.AsMap().Get("labels")
	if !ok {
		t.Fatal("no labels")
	}
	var keys []string
	value.MapZipUsing(value.NewFreelistAllocator(), nil, labels.AsMap(), value.Unordered, func(key string, _, _ value.Value) bool {
		keys = append(keys, key)
		return true
	})
	return keys
}

// TestToTyped_LargeMapsAreWalkedInKeyOrder counts the work structured-merge-diff's
// field sets do for a create with 100,000 labels, as elements moved by insertions into
// sorted slices: none when toTyped's maps are walked in key order (every insertion
// appends), about n²/4 (2.5 billion) for a Go map's random order.
func TestToTyped_LargeMapsAreWalkedInKeyOrder(t *testing.T) {
	pt, err := parserFor(testapi.NewScheme(), widgetKind)
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	labels := make(map[string]any, n)
	for i := range n {
		labels[fmt.Sprintf("k%05d", i)] = ""
	}
	w := map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "labels": labels}}
	plain, err := pt.FromUnstructured(w, typed.AllowDuplicates)
	if err != nil {
		t.Fatal(err)
	}
	ordered, err := toTyped(pt, w, typed.AllowDuplicates)
	if err != nil {
		t.Fatal(err)
	}
	plainKeys, orderedKeys := walkedLabels(t, plain), walkedLabels(t, ordered)
	if len(orderedKeys) != n || len(plainKeys) != n {
		t.Fatalf("walked %d and %d labels, want %d", len(orderedKeys), len(plainKeys), n)
	}
	plainMoves, orderedMoves := insertionMoves(plainKeys), insertionMoves(orderedKeys)
	t.Logf("%d labels: %d elements moved walking a Go map, %d walking toTyped's", n, plainMoves, orderedMoves)
	if orderedMoves != 0 {
		t.Errorf("toTyped's walk moves %d elements, want 0 (key order)", orderedMoves)
	}
}

// BenchmarkCompareCreateLabels runs structured-merge-diff's Compare of a create (the
// empty Widget against one with n labels), side by side for the object walked as a Go
// map (FromUnstructured) and in key order (toTyped); the Go map's walk is left out at
// 100,000 labels, where one comparison takes seconds.
func BenchmarkCompareCreateLabels(b *testing.B) {
	pt, err := parserFor(testapi.NewScheme(), widgetKind)
	if err != nil {
		b.Fatal(err)
	}
	empty, err := toTyped(pt, map[string]any{}, typed.AllowDuplicates)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{12500, 50000, 100000} {
		labels := make(map[string]any, n)
		for i := range n {
			labels[fmt.Sprintf("k%05d", i)] = ""
		}
		w := map[string]any{"apiVersion": "toys.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "labels": labels}}
		for _, walk := range []struct {
			name string
			tv   func() (*typed.TypedValue, error)
		}{
			{"gomap", func() (*typed.TypedValue, error) { return pt.FromUnstructured(w, typed.AllowDuplicates) }},
			{"keyorder", func() (*typed.TypedValue, error) { return toTyped(pt, w, typed.AllowDuplicates) }},
		} {
			if walk.name == "gomap" && n > 50000 {
				continue
			}
			b.Run(fmt.Sprintf("labels=%d/walk=%s", n, walk.name), func(b *testing.B) {
				tv, err := walk.tv()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := empty.Compare(tv); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// deepPair is two objects nested depth levels deep ({"a": {"a": ...}}) that differ
// only at the bottom.
func deepPair(depth int) (a, b map[string]any) {
	a, b = map[string]any{"x": int64(1)}, map[string]any{"y": int64(2)}
	for range depth {
		a, b = map[string]any{"a": a}, map[string]any{"a": b}
	}
	return a, b
}

// TestWithoutCommonFields_DeepPairCostsLinearInDepth runs withoutCommonFields on pairs
// 1,000 and 8,000 levels deep that differ at the bottom, as an update of a deep custom
// resource hands them over, and bounds the ratio of the benchmarked costs by 24, three
// times the depth ratio (comparing each object again at every level above it made it
// about 64). It checks the results too.
func TestWithoutCommonFields_DeepPairCostsLinearInDepth(t *testing.T) {
	const small, large = 1000, 8000
	var perOp [2]float64
	for i, depth := range []int{small, large} {
		a, b := deepPair(depth)
		outA, outB, dropped := withoutCommonFields(a, b)
		wantA, wantB := deepPair(depth)
		if dropped || !reflect.DeepEqual(outA, wantA) || !reflect.DeepEqual(outB, wantB) {
			t.Fatalf("depth %d: wrong results (dropped %v)", depth, dropped)
		}
		r := testing.Benchmark(func(b2 *testing.B) {
			for b2.Loop() {
				withoutCommonFields(a, b)
			}
		})
		perOp[i] = float64(r.T.Nanoseconds()) / float64(r.N)
		t.Logf("depth %d: %.0f ns/op over %d runs", depth, perOp[i], r.N)
	}
	if ratio := perOp[1] / perOp[0]; ratio > 3*large/small {
		t.Errorf("depth %d costs %.1f times depth %d: more than linear", large, ratio, small)
	}
}
