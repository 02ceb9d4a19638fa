package admission

import (
	"context"
	"slices"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// The finalizers kube's volume protection controllers remove once nothing uses the
// object (pkg/volume/util).
const (
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	PVProtectionFinalizer  = "kubernetes.io/pv-protection"
)

// StorageObjectInUseProtection is kube's mutating admission plugin of that name
// (plugin/pkg/admission/storage/storageobjectinuseprotection): a new
// PersistentVolumeClaim gets the kubernetes.io/pvc-protection finalizer and a new
// PersistentVolume kubernetes.io/pv-protection, once each, so that neither is removed
// while a pod or a claim uses it. (Its VolumeAttributesClass finalizer waits for
// storage.k8s.io, issue 28.)
type StorageObjectInUseProtection struct{}

// Admit implements registry.MutatingAdmission.
func (StorageObjectInUseProtection) Admit(_ context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationCreate || a.Subresource != "" || a.APIGroup != "" {
		return nil
	}
	var finalizer string
	switch {
	case a.Resource == corev1.PersistentVolumeClaims.Resource:
		if _, ok := obj.(*corev1.PersistentVolumeClaim); !ok {
			return nil
		}
		finalizer = PVCProtectionFinalizer
	case a.Resource == corev1.PersistentVolumes.Resource:
		if _, ok := obj.(*corev1.PersistentVolume); !ok {
			return nil
		}
		finalizer = PVProtectionFinalizer
	default:
		return nil
	}
	if f := obj.GetFinalizers(); !slices.Contains(f, finalizer) {
		obj.SetFinalizers(append(f, finalizer))
	}
	return nil
}
