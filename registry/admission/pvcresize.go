package admission

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/apierrors"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// PersistentVolumeClaimResize is kube's validating admission plugin of that name
// (plugin/pkg/admission/storage/persistentvolume/resize): an update that raises a
// claim's storage request is refused (403) unless the claim is bound and its
// StorageClass, the same before and after, exists and allows volume expansion. The
// class is read with registry.Get; a class that is not found (a Store that serves no
// storageclasses finds none) refuses the resize, as kube's lister does.
type PersistentVolumeClaimResize struct{}

// Validate implements registry.ValidatingAdmission.
func (PersistentVolumeClaimResize) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationUpdate || a.APIGroup != "" || a.Resource != corev1.PersistentVolumeClaims.Resource || a.Subresource != "" {
		return nil
	}
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	old, ok := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return nil
	}
	if old.Status.Phase != corev1.ClaimBound {
		return apierrors.NewForbidden(corev1.PersistentVolumeClaims, pvc.Name, errors.New("Only bound persistent volume claims can be expanded"))
	}
	if !allowResize(ctx, pvc, old) {
		return apierrors.NewForbidden(corev1.PersistentVolumeClaims, pvc.Name,
			errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

func allowResize(ctx context.Context, pvc, old *corev1.PersistentVolumeClaim) bool {
	class, oldClass := claimClass(pvc), claimClass(old)
	if class == "" || oldClass == "" || class != oldClass {
		return false
	}
	sc, err := registry.Get(ctx, StorageClasses, "", class)
	if err != nil {
		return false
	}
	return allowsVolumeExpansion(sc)
}

// claimClass is kube's GetPersistentVolumeClaimClass: the beta annotation first, then
// spec.storageClassName.
func claimClass(c *corev1.PersistentVolumeClaim) string {
	if class, ok := c.Annotations[betaStorageClassAnnotation]; ok {
		return class
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}
