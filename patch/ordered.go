package patch

import (
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// structured-merge-diff records the fields it compares in sorted slices, inserting one
// field at a time where it belongs (fieldpath.PathElementSet.Insert), in the order it
// walks the object's maps. A Go map walks in random order, so each insertion moves
// half the fields already there: a create with 100,000 labels moved 2.5 billion
// path elements, seconds of CPU per request, with or without a valid object. Walked in
// key order, every insertion appends. toTyped hands structured-merge-diff the object
// as values whose maps, when larger than orderedMapMin, iterate and zip in key order.

// orderedMapMin is the size from which a map is walked in key order: below it, sorting
// costs more than the insertions it saves.
const orderedMapMin = 16

// toTyped is pt.FromUnstructured(obj, opts...) with maps walked in key order.
func toTyped(pt typed.ParseableType, obj any, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return typed.AsTyped(orderedValue(obj), pt.Schema, pt.TypeRef, opts...)
}

// orderedValue is the structured-merge-diff value of v, whose maps and lists yield
// ordered values in turn.
func orderedValue(v any) value.Value {
	switch x := v.(type) {
	case map[string]any:
		return mapValue{value.NewValueInterface(x), x}
	case []any:
		return listValue{value.NewValueInterface(x), x}
	}
	return value.NewValueInterface(v)
}

// mapValue is a map[string]any value; its map is an orderedMap.
type mapValue struct {
	value.Value
	m map[string]any
}

// AsMap returns the map.
func (v mapValue) AsMap() value.Map { return orderedMap(v.m) }

// AsMapUsing returns the map.
func (v mapValue) AsMapUsing(value.Allocator) value.Map { return orderedMap(v.m) }

// listValue is a []any value; its list yields ordered values.
type listValue struct {
	value.Value
	l []any
}

// AsList returns the list.
func (v listValue) AsList() value.List { return orderedList(v.l) }

// AsListUsing returns the list.
func (v listValue) AsListUsing(value.Allocator) value.List { return orderedList(v.l) }

// orderedMap is a value.Map over a map[string]any that iterates and zips in key order
// when it has at least orderedMapMin keys.
type orderedMap map[string]any

var _ value.Map = orderedMap(nil)

// Set sets key to val.
func (m orderedMap) Set(key string, val value.Value) { m[key] = val.Unstructured() }

// Get returns key's value.
func (m orderedMap) Get(key string) (value.Value, bool) {
	v, ok := m[key]
	if !ok {
		return nil, false
	}
	return orderedValue(v), true
}

// GetUsing returns key's value.
func (m orderedMap) GetUsing(_ value.Allocator, key string) (value.Value, bool) { return m.Get(key) }

// Has reports whether key is set.
func (m orderedMap) Has(key string) bool { _, ok := m[key]; return ok }

// Delete removes key.
func (m orderedMap) Delete(key string) { delete(m, key) }

// Equals reports whether other holds the same keys and values.
func (m orderedMap) Equals(other value.Map) bool { return m.EqualsUsing(value.HeapAllocator, other) }

// EqualsUsing reports whether other holds the same keys and values.
func (m orderedMap) EqualsUsing(a value.Allocator, other value.Map) bool {
	if len(m) != other.Length() {
		return false
	}
	return other.IterateUsing(a, func(key string, v value.Value) bool {
		mine, ok := m[key]
		return ok && value.EqualsUsing(a, orderedValue(mine), v)
	})
}

// Iterate calls fn for each member, in key order for a large map.
func (m orderedMap) Iterate(fn func(key string, v value.Value) bool) bool {
	if len(m) < orderedMapMin {
		for k, v := range m {
			if !fn(k, orderedValue(v)) {
				return false
			}
		}
		return true
	}
	for _, k := range sortedKeys(nil, m) {
		if !fn(k, orderedValue(m[k])) {
			return false
		}
	}
	return true
}

// IterateUsing is Iterate.
func (m orderedMap) IterateUsing(_ value.Allocator, fn func(key string, v value.Value) bool) bool {
	return m.Iterate(fn)
}

// Length is the number of members.
func (m orderedMap) Length() int { return len(m) }

// Empty reports whether the map has no members.
func (m orderedMap) Empty() bool { return len(m) == 0 }

// Zip calls fn for each key of m or other with both values (nil where absent).
func (m orderedMap) Zip(other value.Map, order value.MapTraverseOrder, fn func(key string, lhs, rhs value.Value) bool) bool {
	return m.ZipUsing(value.HeapAllocator, other, order, fn)
}

// ZipUsing calls fn for each key of m or other with both values (nil where absent).
// With LexicalKeyOrder the keys come in the order of their union; otherwise (the
// Unordered of structured-merge-diff's walks) the keys of m first, then those only
// other has, each in key order when their map is large.
func (m orderedMap) ZipUsing(a value.Allocator, other value.Map, order value.MapTraverseOrder, fn func(key string, lhs, rhs value.Value) bool) bool {
	if order == value.LexicalKeyOrder && other != nil {
		return zipLexical(a, m, other, fn)
	}
	ok := m.Iterate(func(key string, lv value.Value) bool {
		var rv value.Value
		if other != nil {
			rv, _ = other.GetUsing(a, key)
		}
		return fn(key, lv, rv)
	})
	if !ok || other == nil {
		return ok
	}
	return other.IterateUsing(a, func(key string, rv value.Value) bool {
		if _, mine := m[key]; mine {
			return true
		}
		return fn(key, nil, rv)
	})
}

// zipLexical zips m and other in the lexical order of their joined keys.
func zipLexical(a value.Allocator, m orderedMap, other value.Map, fn func(key string, lhs, rhs value.Value) bool) bool {
	keys := make([]string, 0, len(m)+other.Length())
	for k := range m {
		keys = append(keys, k)
	}
	other.IterateUsing(a, func(key string, _ value.Value) bool {
		if _, mine := m[key]; !mine {
			keys = append(keys, key)
		}
		return true
	})
	slices.Sort(keys)
	for _, k := range keys {
		var lv, rv value.Value
		if v, ok := m[k]; ok {
			lv = orderedValue(v)
		}
		rv, _ = other.GetUsing(a, k)
		if !fn(k, lv, rv) {
			return false
		}
	}
	return true
}

// orderedList is a value.List over a []any whose items are ordered values.
type orderedList []any

var _ value.List = orderedList(nil)

// Length is the number of items.
func (l orderedList) Length() int { return len(l) }

// At returns item i.
func (l orderedList) At(i int) value.Value { return orderedValue(l[i]) }

// AtUsing returns item i.
func (l orderedList) AtUsing(_ value.Allocator, i int) value.Value { return l.At(i) }

// Range returns the items in order.
func (l orderedList) Range() value.ListRange { return &orderedRange{l: l, i: -1} }

// RangeUsing returns the items in order.
func (l orderedList) RangeUsing(value.Allocator) value.ListRange { return l.Range() }

// Equals reports whether other holds equal items in the same order.
func (l orderedList) Equals(other value.List) bool { return l.EqualsUsing(value.HeapAllocator, other) }

// EqualsUsing reports whether other holds equal items in the same order.
func (l orderedList) EqualsUsing(a value.Allocator, other value.List) bool {
	if len(l) != other.Length() {
		return false
	}
	for i, v := range l {
		if !value.EqualsUsing(a, orderedValue(v), other.AtUsing(a, i)) {
			return false
		}
	}
	return true
}

// orderedRange walks an orderedList.
type orderedRange struct {
	l orderedList
	i int
}

// Next moves to the next item.
func (r *orderedRange) Next() bool {
	r.i++
	return r.i < len(r.l)
}

// Item returns the current item.
func (r *orderedRange) Item() (int, value.Value) { return r.i, orderedValue(r.l[r.i]) }
