package conversion

import (
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
)

// The conversions of objects (values with metadata) that the HTTP handler and the
// registry share, over ToVersion, ToUnstructured and FromUnstructured.

// AsObject narrows a converted value to scheme.Object.
func AsObject(k scheme.Kinded) (scheme.Object, error) {
	obj, ok := k.(scheme.Object)
	if !ok {
		return nil, fmt.Errorf("%T is not an object with metadata", k)
	}
	return obj, nil
}

// ObjectToInternal converts obj to the internal hub version of gvk's group, or returns
// it at gvk's version when the kind has none (schema-only kinds). A stored object of
// the group a resource shares storage with is converted to gvk's group first.
func ObjectToInternal(s *scheme.Scheme, obj scheme.Object, gvk scheme.GroupVersionKind) (scheme.Object, error) {
	if k := obj.GetObjectKind().GroupVersionKind(); k.Kind != "" && k.Group != gvk.Group {
		var err error
		if obj, err = ObjectToVersion(s, obj, gvk.GroupVersion()); err != nil {
			return nil, err
		}
	}
	hub := gvk.GroupKind().WithVersion(scheme.InternalVersion)
	if !s.Recognizes(hub) || s.IsUnstructured(hub) {
		return obj, nil
	}
	out, err := ToVersion(s, obj, hub.GroupVersion())
	if err != nil {
		return nil, err
	}
	return AsObject(out)
}

// ObjectToVersion converts obj (internal, stored or external) to the version gv; an
// object already at gv is returned as it is.
func ObjectToVersion(s *scheme.Scheme, obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.GroupVersion() == gv && gvk.Kind != "" {
		return obj, nil
	}
	out, err := ToVersion(s, obj, gv)
	if err != nil {
		return nil, err
	}
	return AsObject(out)
}

// ObjectMap returns the unstructured form of obj: its own map when it is a
// *scheme.Unstructured (not a copy), else ToUnstructured's.
func ObjectMap(obj scheme.Object) (map[string]any, error) {
	if u, ok := obj.(*scheme.Unstructured); ok {
		return u.Object, nil
	}
	return ToUnstructured(obj)
}

// ObjectFromMap builds an object of kind gvk of s from its unstructured form m, which a
// schema-only kind keeps as it is.
func ObjectFromMap(s *scheme.Scheme, gvk scheme.GroupVersionKind, m map[string]any) (scheme.Object, error) {
	k, err := s.New(gvk)
	if err != nil {
		return nil, err
	}
	if u, ok := k.(*scheme.Unstructured); ok {
		u.Object = m
	} else if err := FromUnstructured(m, k); err != nil {
		return nil, err
	}
	obj, err := AsObject(k)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}
