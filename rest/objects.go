package rest

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// fieldString renders a selectable field's value as field selectors compare it.
func fieldString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// zeroField is the zero value, as JSON decodes it, of the Go field at the dotted JSON path
// of a typed object's type t: false for a bool, 0 for a number, nil for anything else, a
// path that is not a field of t included.
func zeroField(t reflect.Type, path string) any {
	for _, name := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		i := slices.IndexFunc(scheme.JSONFields(t), func(f scheme.JSONField) bool { return f.Name == name })
		if i < 0 {
			return nil
		}
		t = scheme.JSONFields(t)[i].Type
	}
	switch t.Kind() {
	case reflect.Bool:
		return false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(0)
	}
	return nil
}

// readPath reads a dotted JSON path (".spec.replicas" or "spec.replicas") from a map.
func readPath(m map[string]any, path string) (any, bool) {
	return scheme.NestedField(m, strings.Split(strings.TrimPrefix(path, "."), ".")...)
}

// writePath sets a dotted JSON path in a map, creating intermediate maps.
func writePath(m map[string]any, path string, v any) error {
	return scheme.SetNestedField(m, v, strings.Split(strings.TrimPrefix(path, "."), ".")...)
}
