package conversion

import (
	"fmt"
	"sync"

	"github.com/apikit-dev/apikit/scheme"
)

// UnstructuredConverter converts the objects of c, copies of objects of a kind without a
// Go type, in place to the version c.To of the same group, in one call, as a
// CustomResourceDefinition's conversion webhook does (one ConversionReview for the
// items of a list). It may change anything but the kind, the name and the rest of
// metadata besides labels and annotations: ToVersion sets apiVersion to the target and
// restores the other metadata afterwards, as kube-apiserver does with a webhook's
// answer.
type UnstructuredConverter func(c UnstructuredConversion) error

// UnstructuredConversion is one call of an UnstructuredConverter.
type UnstructuredConversion struct {
	// Objects are the objects to convert, none of them at To yet.
	Objects []*scheme.Unstructured
	// To is the version to convert them to.
	To scheme.GroupVersion
	// List is the kind of the list whose items Objects are, at To; it is empty when a
	// single object is converted. kube words a failed conversion of a list by the
	// list's kind and the index of the item.
	List scheme.GroupVersionKind
}

// unstructuredConvertersKey keys the converters of a scheme in scheme.Extension.
type unstructuredConvertersKey struct{}

type unstructuredConverters struct {
	mu    sync.RWMutex
	funcs map[scheme.GroupKind]UnstructuredConverter
}

func unstructuredConvertersOf(s *scheme.Scheme) *unstructuredConverters {
	return s.Extension(unstructuredConvertersKey{}, func() any {
		return &unstructuredConverters{funcs: map[scheme.GroupKind]UnstructuredConverter{}}
	}).(*unstructuredConverters)
}

// RegisterUnstructured makes ToVersion convert unstructured objects of the kind gk
// between versions with fn instead of only rewriting apiVersion: what a CRD with
// conversion strategy Webhook needs. Registering a kind again replaces its converter.
func RegisterUnstructured(s *scheme.Scheme, gk scheme.GroupKind, fn UnstructuredConverter) {
	c := unstructuredConvertersOf(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.funcs[gk] = fn
}

func (c *unstructuredConverters) lookup(gk scheme.GroupKind) UnstructuredConverter {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.funcs[gk]
}

// HasUnstructuredConverter reports whether the unstructured kind gk converts with an
// UnstructuredConverter (RegisterUnstructured), which converts many objects in one call.
func HasUnstructuredConverter(s *scheme.Scheme, gk scheme.GroupKind) bool {
	return unstructuredConvertersOf(s).lookup(gk) != nil
}

// convertUnstructured converts u (a copy ToVersion owns) to gv with the converter
// registered for its kind, if any, and sets its apiVersion to gv.
func convertUnstructured(s *scheme.Scheme, u *scheme.Unstructured, gv scheme.GroupVersion) error {
	return convertUnstructuredItems(s, []*scheme.Unstructured{u}, gv, scheme.GroupVersionKind{})
}

// convertUnstructuredItems converts items (copies the caller owns, of one kind) to gv
// in one call of the converter registered for their kind, if any, leaving out those
// already at gv, and sets their apiVersion to gv; list is the kind of the list they
// are the items of, empty for one object.
func convertUnstructuredItems(s *scheme.Scheme, items []*scheme.Unstructured, gv scheme.GroupVersion, list scheme.GroupVersionKind) error {
	if len(items) == 0 {
		return nil
	}
	src := items[0].GroupVersionKind()
	fn := unstructuredConvertersOf(s).lookup(src.GroupKind())
	var pending []*scheme.Unstructured
	var originals []map[string]any
	for _, u := range items {
		if fn == nil || u.GroupVersionKind().Version == gv.Version {
			if u.GetAPIVersion() != "" {
				u.SetAPIVersion(gv.String())
			}
			continue
		}
		pending = append(pending, u)
		original, _ := scheme.DeepCopyJSONValue(u.Object["metadata"]).(map[string]any)
		originals = append(originals, original)
	}
	if len(pending) == 0 {
		return nil
	}
	if err := fn(UnstructuredConversion{Objects: pending, To: gv, List: list}); err != nil {
		if len(items) == 1 {
			return fmt.Errorf("converting %v %s from %s to %s: %w", src.GroupKind(), objectName(items[0]), src.Version, gv.Version, err)
		}
		return fmt.Errorf("converting a list of %v to %s: %w", src.GroupKind(), gv.Version, err)
	}
	for i, u := range pending {
		if kind := u.GetKind(); kind != src.Kind {
			return fmt.Errorf("converting %v %s to %s: the converter changed the kind to %q", src.GroupKind(), objectName(u), gv.Version, kind)
		}
		u.SetAPIVersion(gv.String())
		restoreMetadata(u, originals[i])
	}
	return nil
}

// ItemsToVersion converts items, the objects of a list of listKind, to gv in one call
// of their kind's UnstructuredConverter for all of them that are not at gv yet: a
// CRD's conversion webhook gets one ConversionReview for a list, as kube-apiserver
// sends it. ok is false, and nothing is done, unless every item is a
// *scheme.Unstructured of one kind that has a converter (ToVersion converts other
// objects one by one). items is not changed: out holds a copy of each converted
// item and the others themselves.
func ItemsToVersion(s *scheme.Scheme, items []scheme.Object, gv scheme.GroupVersion, listKind string) (out []scheme.Object, ok bool, err error) {
	if len(items) == 0 {
		return nil, false, nil
	}
	first, isU := items[0].(*scheme.Unstructured)
	if !isU {
		return nil, false, nil
	}
	gk := first.GroupVersionKind().GroupKind()
	if gk.Group != gv.Group || !HasUnstructuredConverter(s, gk) {
		return nil, false, nil
	}
	dst := gv.WithKind(gk.Kind)
	if !s.Recognizes(dst) || !s.IsUnstructured(dst) {
		return nil, false, nil
	}
	out = make([]scheme.Object, len(items))
	var copies []*scheme.Unstructured
	for i, it := range items {
		u, isU := it.(*scheme.Unstructured)
		if !isU || u.GroupVersionKind().GroupKind() != gk {
			return nil, false, nil
		}
		out[i] = u
		if u.GroupVersionKind().Version != gv.Version {
			c := u.DeepCopy()
			copies = append(copies, c)
			out[i] = c
		}
	}
	if err := convertUnstructuredItems(s, copies, gv, gv.WithKind(listKind)); err != nil {
		return nil, true, err
	}
	return out, true, nil
}

// restoreMetadata puts back every metadata field of the original except labels and
// annotations, the only ones a conversion may change.
func restoreMetadata(u *scheme.Unstructured, original map[string]any) {
	converted, _ := u.Object["metadata"].(map[string]any)
	restored := make(map[string]any, len(original)+2)
	for k, v := range original {
		if k != "labels" && k != "annotations" {
			restored[k] = v
		}
	}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := converted[k]; ok {
			restored[k] = v
		}
	}
	if original == nil && len(restored) == 0 {
		delete(u.Object, "metadata")
		return
	}
	u.Object["metadata"] = restored
}
