package registry

import (
	"fmt"

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
func (s *Store) toInternal(obj scheme.Object, gvk scheme.GroupVersionKind) (scheme.Object, error) {
	if k := obj.GetObjectKind().GroupVersionKind(); k.Kind != "" && k.Group != gvk.Group {
		var err error
		if obj, err = s.toVersion(obj, gvk.GroupVersion()); err != nil {
			return nil, err
		}
	}
	hub := gvk.GroupKind().WithVersion(scheme.InternalVersion)
	if !s.scheme.Recognizes(hub) || s.scheme.IsUnstructured(hub) {
		return obj, nil
	}
	out, err := conversion.ToVersion(s.scheme, obj, hub.GroupVersion())
	if err != nil {
		return nil, err
	}
	return asObject(out)
}

// toVersion converts an object (internal, stored or external) to the version gv; an
// object already at gv is returned as is.
func (s *Store) toVersion(obj scheme.Object, gv scheme.GroupVersion) (scheme.Object, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.GroupVersion() == gv && gvk.Kind != "" {
		return obj, nil
	}
	out, err := conversion.ToVersion(s.scheme, obj, gv)
	if err != nil {
		return nil, err
	}
	return asObject(out)
}
