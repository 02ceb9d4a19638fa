package patch

import (
	"slices"
	"strconv"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apikit-dev/apikit/scheme"
)

// What a create records in managedFields (Update with no live object and no entries
// of its own) is a function of the manager and of what structured-merge-diff sees of
// the object: its validation against the schema and its comparison with the kind's
// zero object. Both depend on the members' names, the Go type of each scalar, whether
// a scalar equals the zero object's at the same place, and the list items (their keys
// name the paths of list-maps and sets); not on the other scalars' values. A shape
// writes down exactly that, so that creates of one kind (names, labels and values
// differ, the fields are the same) compute their entry once.

// Bounds of the caches of shapes: shapes are made of client data.
const (
	maxShapeBytes      = 16 << 10
	maxShapeCacheBytes = 512 << 10
)

// shapeCache maps shapes to what a write of that shape records, bounded by
// maxShapeCacheBytes (size tells what an entry weighs beyond its key): when full it
// starts over. The zero value is ready.
type shapeCache[T any] struct {
	mu      sync.Mutex
	entries map[string]T
	bytes   int
}

func (c *shapeCache[T]) get(key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

func (c *shapeCache[T]) put(key string, e T, size int) {
	size += len(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || c.bytes+size > maxShapeCacheBytes {
		c.entries, c.bytes = map[string]T{}, 0
	}
	c.entries[key] = e
	c.bytes += size
}

// createShapes caches the managedFields entry of a create (without its time; nil when
// the create records nothing) by manager and shape.
type createShapes = shapeCache[*scheme.ManagedFieldsEntry]

// withoutManagedFieldsKey reports that obj has no metadata.managedFields member.
func withoutManagedFieldsKey(obj map[string]any) bool {
	md, _ := obj["metadata"].(map[string]any)
	_, has := md["managedFields"]
	return !has
}

// createShape is the cache key of a create of obj by manager; ok is false for objects
// with values of other types than decoded JSON's, or too large to cache.
func (fm *FieldManager) createShape(obj map[string]any, manager string) (string, bool) {
	b := make([]byte, 0, 512)
	b = appendString(b, manager)
	b, ok := appendShape(b, obj, fm.empty().obj, true)
	if !ok || len(b) > maxShapeBytes {
		return "", false
	}
	return string(b), true
}

// appendShape appends the shape of v, an object member or the object itself; zero is
// the zero object's value at the same place (zok: it has one). Objects list their
// members sorted by name; scalars are their Go type, then '=' when equal to zero's as
// structured-merge-diff compares them, '!' when not, '-' when zero has none there;
// lists are written whole (appendValue).
func appendShape(b []byte, v, zero any, zok bool) ([]byte, bool) {
	switch x := v.(type) {
	case map[string]any:
		zm, isMap := zero.(map[string]any)
		if zok && !isMap {
			return b, false
		}
		b = append(b, '{')
		var buf [16]string
		for _, k := range sortedKeys(buf[:0], x) {
			b = appendString(b, k)
			zv, ok := zm[k]
			var fine bool
			if b, fine = appendShape(b, x[k], zv, ok); !fine {
				return b, false
			}
			if b = append(b, ','); len(b) > maxShapeBytes {
				return b, false // too large to cache: stop here
			}
		}
		return append(b, '}'), true
	case []any:
		if _, isList := zero.([]any); zok && !isList {
			return b, false
		}
		return appendValue(b, x)
	}
	tag, ok := scalarTag(v)
	if !ok {
		return b, false
	}
	b = append(b, tag)
	switch {
	case !zok:
		return append(b, '-'), true
	case !isScalar(zero):
		return b, false
	case value.Equals(value.NewValueInterface(zero), value.NewValueInterface(v)):
		return append(b, '='), true
	default:
		return append(b, '!'), true
	}
}

// appendValue appends v whole, typed: list items name paths (list-map keys, set
// members), so they are part of the shape with their values.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case map[string]any:
		b = append(b, '{')
		var buf [16]string
		for _, k := range sortedKeys(buf[:0], x) {
			b = appendString(b, k)
			var ok bool
			if b, ok = appendValue(b, x[k]); !ok {
				return b, false
			}
			if b = append(b, ','); len(b) > maxShapeBytes {
				return b, false // too large to cache: stop here
			}
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		for _, it := range x {
			var ok bool
			if b, ok = appendValue(b, it); !ok {
				return b, false
			}
			if b = append(b, ','); len(b) > maxShapeBytes {
				return b, false // too large to cache: stop here
			}
		}
		return append(b, ']'), true
	case string:
		return appendString(append(b, 's'), x), true
	case int64:
		return strconv.AppendInt(append(b, 'i'), x, 10), true
	case float64:
		return strconv.AppendFloat(append(b, 'f'), x, 'g', -1, 64), true
	case bool:
		return strconv.AppendBool(append(b, 'b'), x), true
	case nil:
		return append(b, 'n'), true
	}
	return b, false
}

// scalarTag names the Go type of a scalar of decoded JSON.
func scalarTag(v any) (byte, bool) {
	switch v.(type) {
	case string:
		return 's', true
	case int64:
		return 'i', true
	case float64:
		return 'f', true
	case bool:
		return 'b', true
	case nil:
		return 'n', true
	}
	return 0, false
}

func isScalar(v any) bool {
	_, ok := scalarTag(v)
	return ok
}

// sortedKeys appends the keys of m to keys, sorted.
func sortedKeys(keys []string, m map[string]any) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendString appends s with its length first: shapes are read by no one, only
// compared, and must not be ambiguous.
func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// What an update records is, in the same way, a function of the manager, the fields
// each manager had (the fieldsV1 documents, all of the request's version), and what
// structured-merge-diff sees of the pair of objects: the shape of each, and for each
// scalar both hold whether the two are equal. updateShapes caches it by those.

// updateResult is what recordUpdate made of the managers' fields: the new fields and
// whether the request's manager was recorded (its time set to now).
type updateResult struct {
	fields   fieldpath.ManagedFields
	recorded bool
}

type updateShapes = shapeCache[updateResult]

// updateShape is the cache key of an update by manager of live to obj, sorted for
// comparison, with the managers' fields m; ok is false when there is none: a manager of
// another version (whose comparison converts the objects), values of other types than
// decoded JSON's, members that are objects on one side and not on the other, or a
// key too large to cache.
func (fm *FieldManager) updateShape(m managed, live, obj any, manager string) (string, bool) {
	lm, lok := live.(map[string]any)
	nm, nok := obj.(map[string]any)
	if !lok || !nok {
		return "", false
	}
	ids := make([]string, 0, len(m.fields))
	for id, vs := range m.fields {
		if vs.APIVersion() != fm.version {
			return "", false
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b := make([]byte, 0, 1024)
	b = appendString(b, manager)
	for _, id := range ids {
		b = appendString(b, id)
		b = strconv.AppendBool(b, m.fields[id].Applied())
		if raw, ok := m.raws[id]; ok {
			b = strconv.AppendInt(b, int64(len(raw)), 10)
			b = append(append(b, ':'), raw...)
		} else {
			b = append(b, 'n')
		}
		if len(b) > maxShapeBytes {
			return "", false
		}
	}
	b = append(b, '|')
	b, ok := appendPairShape(b, lm, nm)
	if !ok || len(b) > maxShapeBytes {
		return "", false
	}
	return string(b), true
}

// appendPairShape appends the shape of a member both objects hold: objects list the
// members of either, each marked as live's only ('L'), obj's only ('N') or both's
// ('B'); scalars are both Go types and '=' when structured-merge-diff finds them equal,
// '!' when not; lists are written whole, both.
func appendPairShape(b []byte, l, n any) ([]byte, bool) {
	switch lx := l.(type) {
	case map[string]any:
		nx, ok := n.(map[string]any)
		if !ok {
			return b, false
		}
		b = append(b, '{')
		var buf [16]string
		inBoth := 0
		for _, k := range sortedKeys(buf[:0], lx) {
			b = appendString(b, k)
			lv := lx[k]
			nv, both := nx[k]
			var fine bool
			if both {
				inBoth++
				b, fine = appendPairShape(append(b, 'B'), lv, nv)
			} else {
				b, fine = appendShape(append(b, 'L'), lv, nil, false)
			}
			if !fine {
				return b, false
			}
			if b = append(b, ','); len(b) > maxShapeBytes {
				return b, false // too large to cache: stop here
			}
		}
		if inBoth == len(nx) {
			return append(b, '}'), true // obj has no member of its own
		}
		for _, k := range sortedKeys(buf[:0], nx) {
			if _, both := lx[k]; both {
				continue
			}
			b = appendString(b, k)
			var fine bool
			if b, fine = appendShape(append(b, 'N'), nx[k], nil, false); !fine {
				return b, false
			}
			if b = append(b, ','); len(b) > maxShapeBytes {
				return b, false // too large to cache: stop here
			}
		}
		return append(b, '}'), true
	case []any:
		nx, ok := n.([]any)
		if !ok {
			return b, false
		}
		if b, ok = appendValue(b, lx); !ok {
			return b, false
		}
		return appendValue(b, nx)
	}
	lt, lok := scalarTag(l)
	nt, nok := scalarTag(n)
	if !lok || !nok {
		return b, false
	}
	b = append(b, lt, nt)
	if scalarsEqual(l, n) {
		return append(b, '='), true
	}
	return append(b, '!'), true
}

// scalarsEqual is structured-merge-diff's equality of two scalars of decoded JSON,
// without wrapping them when they are of one Go type.
func scalarsEqual(a, b any) bool {
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return a == b
		}
	case int64:
		if b, ok := b.(int64); ok {
			return a == b
		}
	case bool:
		if b, ok := b.(bool); ok {
			return a == b
		}
	}
	return value.Equals(value.NewValueInterface(a), value.NewValueInterface(b))
}
