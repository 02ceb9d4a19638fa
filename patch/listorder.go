package patch

import (
	"slices"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// sortedForComparison returns the unstructured value v of type tr with the elements of
// every associative list (list-map or set) stably sorted by the path element
// structured-merge-diff indexes them by. It copies only what it reorders and the maps
// and lists on the way there, and never modifies v.
//
// Why: structured-merge-diff's Compare, and the field sets it builds, insert the path
// element of each list element into a sorted slice. In key order each insert is an
// append; out of order each one shifts the slice, which is quadratic on large lists
// (a create with 150,000 parts not in key order took a minute). Field sets do not depend
// on the order of an associative list, and a stable sort keeps elements with the same
// key in their order, the one thing Compare reads from the order of such a list, so the
// managed fields come out the same. What Compare compares as whole values, in order, is
// left alone: atomic lists and maps, and elements whose key repeats; so is a list with
// an element that has no path element (Compare reports it by index).
//
// Objects without a list longer than sortListsLongerThan are returned as they are, after
// a walk that resolves no types: on short lists the inserts cost less than the sort.
func sortedForComparison(s *smdschema.Schema, tr smdschema.TypeRef, v any) any {
	if !hasListLongerThan(v, sortListsLongerThan) {
		return v
	}
	out, _ := sortAssociative(s, tr, v)
	return out
}

// sortListsLongerThan is the length from which out-of-order inserts cost more than
// sortedForComparison: at 256 elements an insert shifts a few kilobytes at most.
const sortListsLongerThan = 256

// hasListLongerThan reports whether v holds a list of more than n elements.
func hasListLongerThan(v any, n int) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, c := range v {
			if hasListLongerThan(c, n) {
				return true
			}
		}
	case []any:
		if len(v) > n {
			return true
		}
		for _, c := range v {
			if hasListLongerThan(c, n) {
				return true
			}
		}
	}
	return false
}

// sortAssociative is sortedForComparison that also reports whether it changed anything.
func sortAssociative(s *smdschema.Schema, tr smdschema.TypeRef, v any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		atom, ok := s.Resolve(tr)
		if !ok || atom.Map == nil || atom.Map.ElementRelationship == smdschema.Atomic {
			return v, false
		}
		var out map[string]any
		for k, child := range v {
			ctr := atom.Map.ElementType
			if f, ok := atom.Map.FindField(k); ok {
				ctr = f.Type
			}
			sorted, changed := sortAssociative(s, ctr, child)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(v))
				for k2, c := range v {
					out[k2] = c
				}
			}
			out[k] = sorted
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		atom, ok := s.Resolve(tr)
		if !ok || atom.List == nil || atom.List.ElementRelationship != smdschema.Associative {
			return v, false
		}
		return sortList(s, atom.List, v)
	}
	return v, false
}

// sortList sorts the elements of an associative list by path element and then the
// lists inside them, except inside elements whose key repeats: Compare compares those
// duplicates as whole values, in order.
func sortList(s *smdschema.Schema, l *smdschema.List, items []any) ([]any, bool) {
	byElement, ok := elementOrder(l, items)
	if !ok {
		return items, false
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	var out []any
	if !slices.IsSortedFunc(order, byElement) {
		slices.SortStableFunc(order, byElement)
		out = make([]any, len(items))
		for i, j := range order {
			out[i] = items[j]
		}
	}
	for i, j := range order {
		if (i > 0 && byElement(order[i-1], j) == 0) || (i+1 < len(order) && byElement(j, order[i+1]) == 0) {
			continue
		}
		sorted, changed := sortAssociative(s, l.ElementType, items[j])
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(items)
		}
		out[i] = sorted
	}
	if out == nil {
		return items, false
	}
	return out, true
}

// elementOrder returns a comparison of the elements of an associative list (by index)
// that is zero exactly when their path elements are equal, or false when an element has
// none. A list-map keyed by one string field, the common case, compares the strings;
// any other compares path elements.
func elementOrder(l *smdschema.List, items []any) (func(a, b int) int, bool) {
	if len(l.Keys) == 1 {
		keys := make([]string, len(items))
		strs := true
		for i, item := range items {
			m, _ := item.(map[string]any)
			if keys[i], strs = m[l.Keys[0]].(string); !strs {
				break
			}
		}
		if strs {
			return func(a, b int) int { return strings.Compare(keys[a], keys[b]) }, true
		}
	}
	pes, ok := pathElements(l, items)
	if !ok {
		return nil, false
	}
	return func(a, b int) int { return pes[a].Compare(pes[b]) }, true
}

// pathElements returns the path element of each element of an associative list as
// structured-merge-diff derives it (the schemas of this package give key fields no
// defaults), or false when an element has none.
func pathElements(l *smdschema.List, items []any) ([]fieldpath.PathElement, bool) {
	pes := make([]fieldpath.PathElement, len(items))
	for i, item := range items {
		if len(l.Keys) == 0 {
			switch item.(type) {
			case nil, map[string]any, []any:
				return nil, false
			}
			v := value.NewValueInterface(item)
			pes[i].Value = &v
			continue
		}
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		key := make(value.FieldList, 0, len(l.Keys))
		for _, name := range l.Keys {
			if kv, ok := m[name]; ok {
				key = append(key, value.Field{Name: name, Value: value.NewValueInterface(kv)})
			}
		}
		if len(key) == 0 {
			return nil, false
		}
		key.Sort()
		pes[i].Key = &key
	}
	return pes, true
}
