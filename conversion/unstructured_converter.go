package conversion

import (
	"fmt"
	"sync"

	"github.com/apikit-dev/apikit/scheme"
)

// UnstructuredConverter converts obj, a deep copy of an object of a kind without a Go
// type, in place to the version to of the same group, as a CustomResourceDefinition's
// conversion webhook does. It may change anything but the kind, the name and the rest
// of metadata besides labels and annotations: ToVersion sets apiVersion to the target
// and restores the other metadata afterwards, as kube-apiserver does with a webhook's
// answer.
type UnstructuredConverter func(obj *scheme.Unstructured, to scheme.GroupVersion) error

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

// convertUnstructured converts u (a copy ToVersion owns) to gv with the converter
// registered for its kind, if any, and sets its apiVersion to gv.
func convertUnstructured(s *scheme.Scheme, u *scheme.Unstructured, gv scheme.GroupVersion) error {
	src := u.GroupVersionKind()
	fn := unstructuredConvertersOf(s).lookup(src.GroupKind())
	if fn == nil || src.Version == gv.Version {
		if u.GetAPIVersion() != "" {
			u.SetAPIVersion(gv.String())
		}
		return nil
	}
	original, _ := scheme.DeepCopyJSONValue(u.Object["metadata"]).(map[string]any)
	if err := fn(u, gv); err != nil {
		return fmt.Errorf("converting %v %s from %s to %s: %w", src.GroupKind(), objectName(u), src.Version, gv.Version, err)
	}
	if kind := u.GetKind(); kind != src.Kind {
		return fmt.Errorf("converting %v %s from %s to %s: the converter changed the kind to %q", src.GroupKind(), objectName(u), src.Version, gv.Version, kind)
	}
	u.SetAPIVersion(gv.String())
	restoreMetadata(u, original)
	return nil
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
