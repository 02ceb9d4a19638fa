package builtin

import (
	"fmt"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// betaStorageClassAnnotation is the annotation that named a volume's or a claim's class
// before spec.storageClassName; kube's printers read it first.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// volumeResources are the core/v1 persistentvolumeclaims and persistentvolumes as
// kube-apiserver v1.37.2 serves them, with the columns of kube's table printers
// (printPersistentVolumeClaim, printPersistentVolume). Neither has a selectable field
// of its own: kube selects both by metadata.name (and a claim by metadata.namespace).
var volumeResources = []scheme.Resource{
	{Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", ShortNames: []string{"pvc"}, Namespaced: true, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Status", Type: "string", Description: "phase represents the current phase of PersistentVolumeClaim.",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any {
					if c.DeletionTimestamp != nil {
						return "Terminating"
					}
					return string(c.Status.Phase)
				})},
			{Name: "Volume", Type: "string", Description: "volumeName is the binding reference to the PersistentVolume backing this claim.",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any { return c.Spec.VolumeName })},
			// A claim shows its capacity and access modes once it names its volume.
			{Name: "Capacity", Type: "string", Description: "capacity represents the actual resources of the underlying volume.",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any {
					if c.Spec.VolumeName == "" {
						return ""
					}
					q := c.Status.Capacity[corev1.ResourceStorage]
					return q.String()
				})},
			{Name: "Access Modes", Type: "string", Description: "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any {
					if c.Spec.VolumeName == "" {
						return ""
					}
					return accessModesString(c.Status.AccessModes)
				})},
			{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any { return claimClass(c) })},
			{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any { return orUnset(c.Spec.VolumeAttributesClassName) })},
			ageColumn,
			{Name: "VolumeMode", Type: "string", Priority: 1, Description: "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
				Cell: cellOf(func(c *corev1.PersistentVolumeClaim) any { return volumeModeString(c.Spec.VolumeMode) })},
		}},
	{Kind: "PersistentVolume", Plural: "persistentvolumes", ShortNames: []string{"pv"}, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Capacity", Type: "string", Description: "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
				Cell: cellOf(func(v *corev1.PersistentVolume) any {
					q := v.Spec.Capacity[corev1.ResourceStorage]
					return q.String()
				})},
			{Name: "Access Modes", Type: "string", Description: "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
				Cell: cellOf(func(v *corev1.PersistentVolume) any { return accessModesString(v.Spec.AccessModes) })},
			{Name: "Reclaim Policy", Type: "string", Description: "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
				Cell: cellOf(func(v *corev1.PersistentVolume) any { return string(v.Spec.PersistentVolumeReclaimPolicy) })},
			{Name: "Status", Type: "string", Description: "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
				Cell: cellOf(func(v *corev1.PersistentVolume) any {
					if v.DeletionTimestamp != nil {
						return "Terminating"
					}
					return string(v.Status.Phase)
				})},
			{Name: "Claim", Type: "string", Description: "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
				Cell: cellOf(func(v *corev1.PersistentVolume) any {
					if v.Spec.ClaimRef == nil {
						return ""
					}
					return v.Spec.ClaimRef.Namespace + "/" + v.Spec.ClaimRef.Name
				})},
			{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv",
				Cell: cellOf(func(v *corev1.PersistentVolume) any {
					if class, ok := v.Annotations[betaStorageClassAnnotation]; ok {
						return class
					}
					return v.Spec.StorageClassName
				})},
			{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv",
				Cell: cellOf(func(v *corev1.PersistentVolume) any { return orUnset(v.Spec.VolumeAttributesClassName) })},
			{Name: "Reason", Type: "string", Description: "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
				Cell: cellOf(func(v *corev1.PersistentVolume) any { return v.Status.Reason })},
			ageColumn,
			{Name: "VolumeMode", Type: "string", Priority: 1, Description: "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
				Cell: cellOf(func(v *corev1.PersistentVolume) any { return volumeModeString(v.Spec.VolumeMode) })},
		}},
}

// claimClass is the storage class a claim asks for as kube's helpers read it: the beta
// annotation first, then spec.storageClassName, "" for none.
func claimClass(c *corev1.PersistentVolumeClaim) string {
	if class, ok := c.Annotations[betaStorageClassAnnotation]; ok {
		return class
	}
	if c.Spec.StorageClassName != nil {
		return *c.Spec.StorageClassName
	}
	return ""
}

func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

func volumeModeString(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

// accessModesString is kube's GetAccessModesAsString: each mode present once, in the
// order RWO, ROX, RWX, RWOP, comma-separated.
func accessModesString(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		for _, have := range modes {
			if have == m.mode {
				out = append(out, m.short)
				break
			}
		}
	}
	return strings.Join(out, ",")
}

// AddVolumesToScheme registers the core/v1 PersistentVolumeClaim and PersistentVolume
// kinds and their lists, their resources, protobuf messages and defaults. AddToScheme
// calls it.
func AddVolumesToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.PersistentVolumeClaim{}, &corev1.PersistentVolumeClaimList{},
		&corev1.PersistentVolume{}, &corev1.PersistentVolumeList{})
	for _, r := range volumeResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerStorageDefaults(s)
	return nil
}
