package patch

import (
	"math"
	"reflect"
)

// withoutCommonFields returns copies of two unstructured objects without the members
// they hold with identical values, recursively through members that are objects on
// both sides, for structured-merge-diff's Compare: a member equal on both sides adds
// nothing to the Added, Modified or Removed sets, an object left empty on both sides
// is a leaf equal to itself, and an atomic object keeps what makes its sides differ.
// Lists are kept or dropped whole. Only the comparison may see the results: they are
// not the objects, so validation and conversion between versions need the originals.
// The arguments are not modified; the results share the values they keep with them.
// dropped reports whether they lack anything.
func withoutCommonFields(a, b map[string]any) (outA, outB map[string]any, dropped bool) {
	outA, outB, dropped, _ = withoutCommon(a, b)
	return orEmpty(outA), orEmpty(outB), dropped
}

// withoutCommon is withoutCommonFields, its results nil when empty, and whether a and
// b are identical (identicalJSON): learnt from their members' answers in the one walk
// down each pair of objects, not by comparing each object again at every level above
// it, which cost the square of the depth (13 s for an update 8,000 levels deep).
func withoutCommon(a, b map[string]any) (outA, outB map[string]any, dropped, identical bool) {
	identical = len(a) == len(b) && (a == nil) == (b == nil)
	for k, av := range a {
		bv, ok := b[k]
		if !ok {
			outA, identical = with(outA, k, av), false
			continue
		}
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		if aIsMap && bIsMap {
			oa, ob, d, same := withoutCommon(am, bm)
			if same {
				dropped = true
				continue
			}
			outA, outB = with(outA, k, orEmpty(oa)), with(outB, k, orEmpty(ob))
			dropped, identical = dropped || d, false
			continue
		}
		if identicalJSON(av, bv) {
			dropped = true
			continue
		}
		outA, outB, identical = with(outA, k, av), with(outB, k, bv), false
	}
	for k, bv := range b {
		if _, ok := a[k]; !ok {
			outB, identical = with(outB, k, bv), false
		}
	}
	return outA, outB, dropped, identical
}

// with sets m[k] to v, making m when nil: identical objects cost no copy.
func with(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

// orEmpty is m, or an empty object for nil.
func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// identicalJSON reports whether two unstructured values are the same: of the same Go
// types throughout, with equal scalars (NaN equals nothing). It is stricter than any
// equality structured-merge-diff applies.
func identicalJSON(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case float64:
		b, ok := b.(float64)
		return ok && a == b && !math.IsNaN(a)
	case nil:
		return b == nil
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !identicalJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) || (a == nil) != (b == nil) {
			return false
		}
		for i := range a {
			if !identicalJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}
