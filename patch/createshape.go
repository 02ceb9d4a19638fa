package patch

import (
	"slices"
	"strconv"
	"sync"

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

// Bounds of the cache of creates: shapes are made of client data.
const (
	maxShapeBytes        = 16 << 10
	maxCreateShapesBytes = 1 << 20
)

// createShapes caches the managedFields entry of a create (without its time; nil when
// the create records nothing) by manager and shape. The zero value is ready. When
// full it starts over.
type createShapes struct {
	mu      sync.Mutex
	entries map[string]*scheme.ManagedFieldsEntry
	bytes   int
}

func (c *createShapes) get(key string) (*scheme.ManagedFieldsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

func (c *createShapes) put(key string, e *scheme.ManagedFieldsEntry) {
	size := len(key)
	if e != nil {
		size += len(e.FieldsV1.Raw)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || c.bytes+size > maxCreateShapesBytes {
		c.entries, c.bytes = map[string]*scheme.ManagedFieldsEntry{}, 0
	}
	c.entries[key] = e
	c.bytes += size
}

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
	b = strconv.AppendQuote(b, manager)
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
		for _, k := range sortedKeys(x) {
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			zv, ok := zm[k]
			var fine bool
			if b, fine = appendShape(b, x[k], zv, ok); !fine {
				return b, false
			}
			b = append(b, ',')
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
		for _, k := range sortedKeys(x) {
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendValue(b, x[k]); !ok {
				return b, false
			}
			b = append(b, ',')
		}
		return append(b, '}'), true
	case []any:
		b = append(b, '[')
		for _, it := range x {
			var ok bool
			if b, ok = appendValue(b, it); !ok {
				return b, false
			}
			b = append(b, ',')
		}
		return append(b, ']'), true
	case string:
		return strconv.AppendQuote(append(b, 's'), x), true
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

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
