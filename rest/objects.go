package rest

import (
	"fmt"
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

// readPath reads a dotted JSON path (".spec.replicas" or "spec.replicas") from a map.
func readPath(m map[string]any, path string) (any, bool) {
	return scheme.NestedField(m, strings.Split(strings.TrimPrefix(path, "."), ".")...)
}

// writePath sets a dotted JSON path in a map, creating intermediate maps.
func writePath(m map[string]any, path string, v any) error {
	return scheme.SetNestedField(m, v, strings.Split(strings.TrimPrefix(path, "."), ".")...)
}
