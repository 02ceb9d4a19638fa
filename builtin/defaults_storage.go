package builtin

import (
	"maps"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerStorageDefaults registers kube-apiserver v1.37.2's defaults of the
// PersistentVolume kind and its volume sources (k8s.io/kubernetes pkg/apis/core/v1
// defaults.go and zz_generated.defaults.go). A claim's defaults (phase Pending, volume
// mode Filesystem) are registerCoreDefaults', as a StatefulSet's claim templates get
// them too; the sources a PV shares with a pod volume (hostPath, azureDisk) have theirs
// there.
func registerStorageDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultPersistentVolume)
	conversion.RegisterDefaults(s, func(v *corev1.ISCSIPersistentVolumeSource) {
		if v.ISCSIInterface == "" {
			v.ISCSIInterface = "default"
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.RBDPersistentVolumeSource) {
		if v.RBDPool == "" {
			v.RBDPool = "rbd"
		}
		if v.RadosUser == "" {
			v.RadosUser = "admin"
		}
		if v.Keyring == "" {
			v.Keyring = "/etc/ceph/keyring"
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.ScaleIOPersistentVolumeSource) {
		if v.StorageMode == "" {
			v.StorageMode = "ThinProvisioned"
		}
		if v.FSType == "" {
			v.FSType = "xfs"
		}
	})
}

// defaultPersistentVolume is SetDefaults_PersistentVolume: Pending, reclaim policy
// Retain, a Filesystem volume unless it says Block.
func defaultPersistentVolume(pv *corev1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		mode := corev1.PersistentVolumeFilesystem
		pv.Spec.VolumeMode = &mode
	}
}

// registerNodeDefaults registers SetDefaults_NodeStatus: a node that reports a capacity
// and no allocatable can allocate all of it. The quantities are rounded afterwards by
// the ResourceList defaults, as kube's SetObjectDefaults_Node does.
func registerNodeDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultNodeStatus)
	conversion.RegisterDefaults(s, normalizePodCIDRs)
}

// normalizePodCIDRs is kube's v1 NodeSpec conversion through its internal type, which
// has only podCIDRs, done where kube does it, as the request is decoded (so that the
// managed fields see its result): a podCIDR that podCIDRs does not start with wins
// alone, and podCIDR reads back as the first of podCIDRs.
func normalizePodCIDRs(spec *corev1.NodeSpec) {
	if spec.PodCIDR != "" && (len(spec.PodCIDRs) == 0 || spec.PodCIDRs[0] != spec.PodCIDR) {
		spec.PodCIDRs = []string{spec.PodCIDR}
	}
	spec.PodCIDR = ""
	if len(spec.PodCIDRs) > 0 {
		spec.PodCIDR = spec.PodCIDRs[0]
	}
}

func defaultNodeStatus(st *corev1.NodeStatus) {
	if st.Allocatable == nil && st.Capacity != nil {
		st.Allocatable = maps.Clone(st.Capacity)
	}
}
