package admission

import (
	"context"
	"encoding/json"
	"slices"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// StorageClasses is storage.k8s.io storageclasses, which these plugins read (issue 28
// serves it; until then a Store has none and the plugins find no class).
var StorageClasses = scheme.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}

// The annotations that mark a StorageClass the default one.
const (
	IsDefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaIsDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// betaStorageClassAnnotation named a claim's class before spec.storageClassName.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// DefaultStorageClass is kube's mutating admission plugin of that name
// (plugin/pkg/admission/storage/storageclass/setdefault): a new PersistentVolumeClaim
// that names no class (neither spec.storageClassName, even "", nor the beta
// annotation) gets the default StorageClass's name; of several defaults, the newest,
// then the first by name. Without a default class it is left as it is. The classes
// are read with registry.List in the Store's call.
type DefaultStorageClass struct{}

// Admit implements registry.MutatingAdmission.
func (DefaultStorageClass) Admit(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationCreate || a.APIGroup != "" || a.Resource != corev1.PersistentVolumeClaims.Resource || a.Subresource != "" {
		return nil
	}
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok || pvc.Spec.StorageClassName != nil {
		return nil
	}
	if _, ok := pvc.Annotations[betaStorageClassAnnotation]; ok {
		return nil
	}
	classes, err := registry.List(ctx, StorageClasses, "")
	if err != nil {
		return err
	}
	var defaults []scheme.Object
	for _, c := range classes {
		an := c.GetAnnotations()
		if an[IsDefaultStorageClassAnnotation] == "true" || an[BetaIsDefaultStorageClassAnnotation] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	slices.SortFunc(defaults, func(x, y scheme.Object) int {
		tx, ty := x.GetCreationTimestamp().UnixNano(), y.GetCreationTimestamp().UnixNano()
		switch {
		case tx > ty:
			return -1
		case tx < ty:
			return 1
		}
		if x.GetName() < y.GetName() {
			return -1
		}
		return 1
	})
	name := defaults[0].GetName()
	pvc.Spec.StorageClassName = &name
	return nil
}

// allowsVolumeExpansion reports a StorageClass's allowVolumeExpansion, read from its
// JSON form so that it does not depend on which Go type serves storage.k8s.io.
func allowsVolumeExpansion(class scheme.Object) bool {
	b, err := json.Marshal(class)
	if err != nil {
		return false
	}
	var c struct {
		AllowVolumeExpansion *bool `json:"allowVolumeExpansion"`
	}
	if json.Unmarshal(b, &c) != nil || c.AllowVolumeExpansion == nil {
		return false
	}
	return *c.AllowVolumeExpansion
}
