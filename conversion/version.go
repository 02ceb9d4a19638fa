package conversion

import (
	"fmt"
	"reflect"

	"github.com/apikit-dev/apikit/scheme"
)

// ToVersion converts a registered object (or list) to the same kind in the group version
// gv. Conversion between two external versions always passes through the group's internal
// hub (scheme.InternalVersion): v1alpha1 -> internal -> v1, never directly. The result is
// always a new object that shares no memory with in, even when in is already at gv (then
// it is a deep copy). Its apiVersion and kind are set to the target's; an internal result
// keeps them empty. The target kind (and, between external versions, the internal kind)
// must be registered, or the error is a *scheme.NotRegisteredError. Kinds of different
// groups convert only between two Go types registered with RegisterAcrossGroups, directly
// (no hub).
//
// A *scheme.Unstructured (or *scheme.UnstructuredList) of a kind registered without a Go
// type converts between versions by rewriting apiVersion only, like a CustomResource whose
// conversion strategy is None, or with the UnstructuredConverter registered for its kind
// (RegisterUnstructured), like one whose strategy is Webhook. Typed objects and unstructured ones do not convert into
// each other here: use ToUnstructured and FromUnstructured.
func ToVersion(s *scheme.Scheme, in scheme.Kinded, gv scheme.GroupVersion) (scheme.Kinded, error) {
	switch u := in.(type) {
	case *scheme.Unstructured:
		return unstructuredToVersion(s, u.GroupVersionKind(), gv, func() (scheme.Kinded, scheme.ObjectKind, error) {
			c := u.DeepCopy()
			return c, c, convertUnstructured(s, c, gv)
		})
	case *scheme.UnstructuredList:
		return unstructuredToVersion(s, u.GroupVersionKind(), gv, func() (scheme.Kinded, scheme.ObjectKind, error) {
			c := u.DeepCopyObject().(*scheme.UnstructuredList)
			// The items of one kind convert in one call (one ConversionReview).
			items := make([]*scheme.Unstructured, len(c.Items))
			for i := range c.Items {
				items[i] = &c.Items[i]
				if items[i].GroupVersionKind().GroupKind() != items[0].GroupVersionKind().GroupKind() {
					items = nil
					break
				}
			}
			if items != nil {
				return c, c, convertUnstructuredItems(s, items, gv, gv.WithKind(u.GroupVersionKind().Kind))
			}
			for i := range c.Items {
				if err := convertUnstructured(s, &c.Items[i], gv); err != nil {
					return nil, nil, err
				}
			}
			return c, c, nil
		})
	}
	src, err := sourceKind(s, in)
	if err != nil {
		return nil, err
	}
	dst := gv.WithKind(src.Kind)
	if !s.Recognizes(dst) {
		return nil, fmt.Errorf("converting %v %s to %s: %w", src.GroupKind(), objectName(in), gv, &scheme.NotRegisteredError{GVK: dst})
	}
	if s.IsUnstructured(dst) {
		return nil, fmt.Errorf("converting %v %s to %s: the target kind has no Go type; use ToUnstructured", src.GroupKind(), objectName(in), gv)
	}
	out, err := s.New(dst)
	if err != nil {
		return nil, err
	}
	cur := in
	if src.Group != gv.Group {
		if !registryOf(s).convertsAcrossGroups(reflect.TypeOf(in).Elem(), reflect.TypeOf(out).Elem()) {
			return nil, fmt.Errorf("converting %v %s to %s: cannot convert between groups", src.GroupKind(), objectName(in), gv)
		}
	} else if src.Version != scheme.InternalVersion && dst.Version != scheme.InternalVersion && src.Version != dst.Version {
		hubGVK := src.GroupKind().WithVersion(scheme.InternalVersion)
		hub, err := s.New(hubGVK)
		if err != nil {
			return nil, fmt.Errorf("converting %v %s from %s to %s through the internal version: %w", src.GroupKind(), objectName(in), src.Version, gv.Version, err)
		}
		if err := Convert(s, in, hub); err != nil {
			return nil, fmt.Errorf("converting %v %s from %s to the internal version: %w", src.GroupKind(), objectName(in), src.Version, err)
		}
		cur = hub
	}
	if err := Convert(s, cur, out); err != nil {
		return nil, fmt.Errorf("converting %v %s to %s: %w", src.GroupKind(), objectName(in), gv, err)
	}
	if dst.Version == scheme.InternalVersion {
		out.GetObjectKind().SetGroupVersionKind(scheme.GroupVersionKind{})
	} else {
		out.GetObjectKind().SetGroupVersionKind(dst)
	}
	return out, nil
}

// sourceKind finds the kind of a typed object: the one its apiVersion and kind name if the
// Go type is registered as it, otherwise the type's only (or first) registration.
func sourceKind(s *scheme.Scheme, in scheme.Kinded) (scheme.GroupVersionKind, error) {
	kinds, err := s.ObjectKinds(in)
	if err != nil {
		return scheme.GroupVersionKind{}, err
	}
	if gvk := in.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		for _, k := range kinds {
			if k == gvk {
				return k, nil
			}
		}
	}
	return kinds[0], nil
}

func unstructuredToVersion(s *scheme.Scheme, src scheme.GroupVersionKind, gv scheme.GroupVersion, convert func() (scheme.Kinded, scheme.ObjectKind, error)) (scheme.Kinded, error) {
	dst := gv.WithKind(src.Kind)
	if !s.Recognizes(dst) {
		return nil, fmt.Errorf("converting unstructured %v to %s: %w", src.GroupKind(), gv, &scheme.NotRegisteredError{GVK: dst})
	}
	if !s.IsUnstructured(dst) {
		return nil, fmt.Errorf("converting unstructured %v to %s: the target kind has a Go type; use FromUnstructured", src.GroupKind(), gv)
	}
	if src.Group != gv.Group {
		return nil, fmt.Errorf("converting unstructured %v to %s: cannot convert between groups", src.GroupKind(), gv)
	}
	out, kind, err := convert()
	if err != nil {
		return nil, err
	}
	kind.SetGroupVersionKind(dst)
	return out, nil
}

func objectName(obj scheme.Kinded) string {
	m, ok := obj.(interface {
		GetNamespace() string
		GetName() string
	})
	if !ok {
		return ""
	}
	if ns := m.GetNamespace(); ns != "" {
		return fmt.Sprintf("%q", ns+"/"+m.GetName())
	}
	return fmt.Sprintf("%q", m.GetName())
}
