package patch

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apikit-dev/apikit/scheme"
)

// orderSchema has every kind of list sortedForComparison meets: a list-map with two
// keys (either may be missing), list-maps nested in list-maps, a set of mixed scalars,
// and atomic lists and maps that must keep their order.
const orderSchema = `types:
- name: root
  map:
    fields:
    - name: items
      type:
        list:
          elementType: {namedType: item}
          elementRelationship: associative
          keys: [name, port]
    - name: named
      type:
        list:
          elementType: {namedType: item}
          elementRelationship: associative
          keys: [name]
    - name: tags
      type:
        list:
          elementType: {scalar: untyped}
          elementRelationship: associative
    - name: atomicTags
      type:
        list:
          elementType: {scalar: untyped}
          elementRelationship: atomic
    - name: atomicItems
      type:
        list:
          elementType: {namedType: item}
          elementRelationship: atomic
    - name: atomicMap
      type:
        map:
          elementType: {namedType: item}
          elementRelationship: atomic
    - name: byName
      type:
        map:
          elementType: {namedType: item}
- name: item
  map:
    fields:
    - name: name
      type: {scalar: string}
    - name: port
      type: {scalar: numeric}
    - name: value
      type: {scalar: string}
    - name: subs
      type:
        list:
          elementType: {namedType: sub}
          elementRelationship: associative
          keys: [id]
- name: sub
  map:
    fields:
    - name: id
      type: {scalar: string}
    - name: v
      type: {scalar: numeric}
`

// orderGen draws small objects from small pools, so that keys repeat (duplicates),
// go missing, and the two sides of a comparison share most elements.
type orderGen struct{ r *rand.Rand }

func (g orderGen) pick(vals ...any) any { return vals[g.r.IntN(len(vals))] }

func (g orderGen) subs() []any {
	out := []any{}
	for range g.r.IntN(4) {
		s := map[string]any{"v": g.pick(int64(1), int64(2))}
		if g.r.IntN(8) != 0 {
			s["id"] = g.pick("s1", "s2", "s3")
		}
		out = append(out, s)
	}
	return out
}

func (g orderGen) item() map[string]any {
	it := map[string]any{}
	if g.r.IntN(6) != 0 {
		it["name"] = g.pick("a", "b", "c", "d")
	}
	if g.r.IntN(3) == 0 {
		it["port"] = g.pick(int64(80), int64(443), 8.5)
	}
	if g.r.IntN(2) == 0 {
		it["value"] = g.pick("x", "y")
	}
	if g.r.IntN(3) == 0 {
		it["subs"] = g.subs()
	}
	return it
}

func (g orderGen) items(n int) []any {
	out := make([]any, 0, n)
	for range n {
		out = append(out, g.item())
	}
	return out
}

func (g orderGen) object() map[string]any {
	o := map[string]any{}
	if g.r.IntN(5) != 0 {
		// Past 12 elements the sort is not an insertion sort, where an unstable
		// sort would show.
		o["items"] = g.items(g.r.IntN(9) + 15*g.r.IntN(2))
	}
	if g.r.IntN(2) == 0 {
		// Every element named: the list-map keyed by one string.
		named := g.items(g.r.IntN(9) + 15*g.r.IntN(2))
		for _, it := range named {
			it.(map[string]any)["name"] = g.pick("a", "b", "c", "d")
		}
		o["named"] = named
	}
	if g.r.IntN(3) != 0 {
		tags := []any{}
		for range g.r.IntN(6) {
			tags = append(tags, g.pick("x", "y", "z", int64(1), 1.5, true))
		}
		o["tags"] = tags
	}
	if g.r.IntN(3) == 0 {
		o["atomicTags"] = []any{g.pick("x", "y"), g.pick("x", "y")}
	}
	if g.r.IntN(3) == 0 {
		o["atomicItems"] = g.items(g.r.IntN(4))
	}
	if g.r.IntN(3) == 0 {
		o["atomicMap"] = map[string]any{"k": map[string]any{"subs": g.subs()}}
	}
	if g.r.IntN(3) == 0 {
		o["byName"] = map[string]any{"first": map[string]any{"subs": g.subs()}, "second": g.item()}
	}
	return o
}

// shuffled shuffles every list in v, in place.
func (g orderGen) shuffled(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			g.shuffled(c)
		}
	case []any:
		g.r.Shuffle(len(v), func(a, b int) { v[a], v[b] = v[b], v[a] })
		for _, c := range v {
			g.shuffled(c)
		}
	}
	return v
}

// sortAll is sortedForComparison without its length threshold, so that small random
// objects are sorted too.
func sortAll(pt typed.ParseableType, v any) any {
	out, _ := sortAssociative(pt.Schema, pt.TypeRef, v)
	return out
}

// comparison is Compare's result as strings, or its error.
func comparison(t *testing.T, pt typed.ParseableType, lhs, rhs map[string]any) string {
	t.Helper()
	l, err := pt.FromUnstructured(lhs, typed.AllowDuplicates)
	if err != nil {
		return "live: error"
	}
	r, err := pt.FromUnstructured(rhs, typed.AllowDuplicates)
	if err != nil {
		return "new: error"
	}
	c, err := l.Compare(r)
	if err != nil {
		return "compare: error"
	}
	set, err := r.ToFieldSet()
	if err != nil {
		return "field set: error"
	}
	return fmt.Sprintf("added %v\nmodified %v\nremoved %v\nfields %v", c.Added, c.Modified, c.Removed, set)
}

// TestSortedForComparison_ComparesAsTheOriginalOrder is the differential test of the
// reordering Update does: on random objects, structured-merge-diff's comparison and
// field set of the sorted objects equal those of the objects as they came, and the
// originals stay untouched.
func TestSortedForComparison_ComparesAsTheOriginalOrder(t *testing.T) {
	parser, err := typed.NewParser(typed.YAMLObject(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	pt := parser.Type("root")
	g := orderGen{rand.New(rand.NewPCG(16, 2026))}
	reordered := 0
	for i := range 3000 {
		lhs, rhs := g.object(), g.object()
		if i%2 == 0 {
			// The same object with every list, atomic or not, shuffled: only the
			// order of atomic lists and of duplicates may show in the comparison.
			rhs = g.shuffled(scheme.DeepCopyJSONValue(lhs)).(map[string]any)
		}
		lhsCopy, rhsCopy := scheme.DeepCopyJSONValue(lhs), scheme.DeepCopyJSONValue(rhs)
		sl := sortAll(pt, lhs).(map[string]any)
		sr := sortAll(pt, rhs).(map[string]any)
		if !reflect.DeepEqual(lhs, lhsCopy) || !reflect.DeepEqual(rhs, rhsCopy) {
			t.Fatalf("case %d: sortedForComparison modified its input", i)
		}
		if !reflect.DeepEqual(sl, lhs) || !reflect.DeepEqual(sr, rhs) {
			reordered++
		}
		want := comparison(t, pt, lhs, rhs)
		if got := comparison(t, pt, sl, sr); got != want {
			t.Fatalf("case %d:\nlive %v\nnew %v\nsorted: %s\nas given: %s", i, lhs, rhs, got, want)
		}
	}
	// The test must exercise the sorting, not only objects that were in order already.
	if reordered < 1000 {
		t.Fatalf("only %d of 3000 cases were reordered", reordered)
	}
}

// TestSortedForComparison_SortsWhatItMayAndNothingElse pins which lists move.
func TestSortedForComparison_SortsWhatItMayAndNothingElse(t *testing.T) {
	parser, err := typed.NewParser(typed.YAMLObject(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	pt := parser.Type("root")
	tests := []struct {
		name     string
		in, want map[string]any
	}{{
		name: "list-map by key, duplicates in their order, nested list-maps too",
		in: map[string]any{"items": []any{
			map[string]any{"name": "b", "value": "1"},
			map[string]any{"name": "a", "subs": []any{map[string]any{"id": "s2"}, map[string]any{"id": "s1"}}},
			map[string]any{"name": "b", "value": "2"},
		}},
		want: map[string]any{"items": []any{
			map[string]any{"name": "a", "subs": []any{map[string]any{"id": "s1"}, map[string]any{"id": "s2"}}},
			map[string]any{"name": "b", "value": "1"},
			map[string]any{"name": "b", "value": "2"},
		}},
	}, {
		name: "inside elements whose key repeats nothing moves",
		in: map[string]any{"items": []any{
			map[string]any{"name": "a", "subs": []any{map[string]any{"id": "s2"}, map[string]any{"id": "s1"}}},
			map[string]any{"name": "a"},
		}},
		want: map[string]any{"items": []any{
			map[string]any{"name": "a", "subs": []any{map[string]any{"id": "s2"}, map[string]any{"id": "s1"}}},
			map[string]any{"name": "a"},
		}},
	}, {
		name: "set of scalars",
		in:   map[string]any{"tags": []any{"z", "x", "y"}},
		want: map[string]any{"tags": []any{"x", "y", "z"}},
	}, {
		name: "a list-map with an element without keys keeps its order",
		in:   map[string]any{"items": []any{map[string]any{"name": "b"}, map[string]any{"value": "v"}, map[string]any{"name": "a"}}},
		want: map[string]any{"items": []any{map[string]any{"name": "b"}, map[string]any{"value": "v"}, map[string]any{"name": "a"}}},
	}, {
		name: "atomic lists and maps keep their order inside",
		in: map[string]any{
			"atomicItems": []any{map[string]any{"name": "b"}, map[string]any{"name": "a"}},
			"atomicTags":  []any{"y", "x"},
			"atomicMap":   map[string]any{"k": map[string]any{"subs": []any{map[string]any{"id": "s2"}, map[string]any{"id": "s1"}}}},
		},
		want: map[string]any{
			"atomicTags":  []any{"y", "x"},
			"atomicItems": []any{map[string]any{"name": "b"}, map[string]any{"name": "a"}},
			"atomicMap":   map[string]any{"k": map[string]any{"subs": []any{map[string]any{"id": "s2"}, map[string]any{"id": "s1"}}}},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sortAll(pt, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSortedForComparison_SortsOnlyObjectsWithLongLists checks the threshold: an object
// whose lists are all short is returned as it is, one with a long list anywhere is sorted.
func TestSortedForComparison_SortsOnlyObjectsWithLongLists(t *testing.T) {
	parser, err := typed.NewParser(typed.YAMLObject(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	pt := parser.Type("root")
	reversedTags := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprintf("t%04d", n-i)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		tags       int
		wantSorted bool
	}{
		{"short list", sortListsLongerThan, false},
		{"long list", sortListsLongerThan + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{"tags": reversedTags(tc.tags)}
			got := sortedForComparison(pt.Schema, pt.TypeRef, in).(map[string]any)["tags"].([]any)
			sorted := slices.IsSortedFunc(got, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			if sorted != tc.wantSorted {
				t.Fatalf("sorted = %v, want %v", sorted, tc.wantSorted)
			}
		})
	}
}
