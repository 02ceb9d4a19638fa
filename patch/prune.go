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
	outA = make(map[string]any, len(a))
	outB = make(map[string]any, len(b))
	for k, av := range a {
		bv, ok := b[k]
		if !ok {
			outA[k] = av
			continue
		}
		if identicalJSON(av, bv) {
			dropped = true
			continue
		}
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		if aIsMap && bIsMap {
			var d bool
			outA[k], outB[k], d = withoutCommonFields(am, bm)
			dropped = dropped || d
			continue
		}
		outA[k], outB[k] = av, bv
	}
	for k, bv := range b {
		if _, ok := a[k]; !ok {
			outB[k] = bv
		}
	}
	return outA, outB, dropped
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
