package rest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// asObject narrows a converted value to scheme.Object.
func asObject(k scheme.Kinded) (scheme.Object, error) {
	obj, ok := k.(scheme.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not an object with metadata", k)
	}
	return obj, nil
}

// toInternal converts an object to the internal hub version of gvk's group, or returns it
// at gvk's version when the kind has none (schema-only kinds). A stored object of the
// group a resource shares storage with is converted to gvk's group first.
func (h *Handler) toInternal(obj scheme.Object, gvk scheme.GroupVersionKind) (scheme.Object, error) {
	if k := obj.GetObjectKind().GroupVersionKind(); k.Kind != "" && k.Group != gvk.Group {
		var err error
		if obj, err = h.toVersion(obj, gvk.GroupVersion()); err != nil {
			return nil, err
		}
	}
	hub := gvk.GroupKind().WithVersion(scheme.InternalVersion)
	if !h.scheme.Recognizes(hub) || h.scheme.IsUnstructured(hub) {
		return obj, nil
	}
	out, err := conversion.ToVersion(h.scheme, obj, hub.GroupVersion())
	if err != nil {
		return nil, err
	}
	return asObject(out)
}

// toVersion converts an object (internal, stored or external) to the version gv. An
// object already at gv is returned as is when shared is false (it is the caller's own).
func (h *Handler) toVersion(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.GroupVersion() == gv && gvk.Kind != "" {
		return obj, nil
	}
	out, err := conversion.ToVersion(h.scheme, obj, gv)
	if err != nil {
		return nil, err
	}
	return asObject(out)
}

// toMap returns the unstructured form of an object.
func toMap(obj scheme.Object) (map[string]any, error) {
	if u, ok := obj.(*scheme.Unstructured); ok {
		return u.Object, nil
	}
	return conversion.ToUnstructured(obj)
}

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
