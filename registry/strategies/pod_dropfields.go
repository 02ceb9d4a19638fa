package strategies

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
)

// dropDisabledPodFields is kube's DropDisabledPodFields (and, for a template,
// DropDisabledTemplateFields) with v1.37's default feature gates: the fields of the
// gates that are off are cleared from spec unless old (the stored spec of an update,
// nil on create) already uses them, so that they are neither validated nor stored. The
// gates off by default: EmptyDirVolumeMode, VolumeBindMountOptions,
// ContainerStopSignals, H2CContainerProbe, GRPCContainerProbeTLS,
// AtomicWriteVolumeUserFields, GenericWorkload and EvictionRequestAPI. The legacy init
// container annotations are always dropped.
func dropDisabledPodFields(spec *corev1.PodSpec, annotations map[string]string, old *corev1.PodSpec) {
	if !inUse(old, func(s *corev1.PodSpec) bool {
		for _, v := range s.Volumes {
			if v.EmptyDir != nil && v.EmptyDir.Mode != nil {
				return true
			}
		}
		return false
	}) {
		for i := range spec.Volumes {
			if spec.Volumes[i].EmptyDir != nil {
				spec.Volumes[i].EmptyDir.Mode = nil
			}
		}
	}
	if !anyContainer(old, func(c *corev1.Container) bool {
		for _, m := range c.VolumeMounts {
			if len(m.BindMountOptions) > 0 {
				return true
			}
		}
		return false
	}) {
		eachContainer(spec, func(c *corev1.Container) {
			for j := range c.VolumeMounts {
				c.VolumeMounts[j].BindMountOptions = nil
			}
		})
	}
	if !anyContainer(old, func(c *corev1.Container) bool { return c.Lifecycle != nil && c.Lifecycle.StopSignal != nil }) {
		eachContainer(spec, func(c *corev1.Container) {
			if c.Lifecycle != nil && c.Lifecycle.StopSignal != nil {
				c.Lifecycle.StopSignal = nil
				if c.Lifecycle.PostStart == nil && c.Lifecycle.PreStop == nil {
					c.Lifecycle = nil
				}
			}
		})
	}
	if !anyContainer(old, httpProtocolSet) {
		eachContainer(spec, func(c *corev1.Container) {
			for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
				if p != nil && p.HTTPGet != nil {
					p.HTTPGet.Protocol = nil
				}
			}
			if l := c.Lifecycle; l != nil {
				for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
					if h != nil && h.HTTPGet != nil {
						h.HTTPGet.Protocol = nil
					}
				}
			}
		})
	}
	if !anyContainer(old, func(c *corev1.Container) bool {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil && p.GRPC != nil && p.GRPC.Mode != nil {
				return true
			}
		}
		return false
	}) {
		eachContainer(spec, func(c *corev1.Container) {
			for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
				if p != nil && p.GRPC != nil {
					p.GRPC.Mode = nil
				}
			}
		})
	}
	if !inUse(old, func(s *corev1.PodSpec) bool {
		set := false
		volumeUserFields(s, func(u **int64) { set = set || *u != nil })
		return set
	}) {
		volumeUserFields(spec, func(u **int64) { *u = nil })
	}
	if old == nil || old.SchedulingGroup == nil {
		spec.SchedulingGroup = nil
	}
	if old == nil || old.EvictionResponders == nil {
		spec.EvictionResponders = nil
	}
	for _, k := range []string{"pod.beta.kubernetes.io/init-containers", "pod.alpha.kubernetes.io/init-containers",
		"pod.beta.kubernetes.io/init-container-statuses", "pod.alpha.kubernetes.io/init-container-statuses"} {
		delete(annotations, k)
	}
}

func inUse(s *corev1.PodSpec, f func(*corev1.PodSpec) bool) bool { return s != nil && f(s) }

// anyContainer reports whether f holds for a container of s (nil: none).
func anyContainer(s *corev1.PodSpec, f func(*corev1.Container) bool) bool {
	found := false
	if s != nil {
		eachContainer(s, func(c *corev1.Container) { found = found || f(c) })
	}
	return found
}

// eachContainer calls f with every init, regular and ephemeral container of s.
func eachContainer(s *corev1.PodSpec, f func(*corev1.Container)) {
	for i := range s.InitContainers {
		f(&s.InitContainers[i])
	}
	for i := range s.Containers {
		f(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		f((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

func httpProtocolSet(c *corev1.Container) bool {
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil && p.HTTPGet != nil && p.HTTPGet.Protocol != nil {
			return true
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil && h.HTTPGet.Protocol != nil {
				return true
			}
		}
	}
	return false
}

// volumeUserFields calls f with each of the user fields of AtomicWriteVolumeUserFields
// in the volumes of s, for the first source kube looks at in each volume.
func volumeUserFields(s *corev1.PodSpec, f func(**int64)) {
	items := func(kps []corev1.KeyToPath) {
		for j := range kps {
			f(&kps[j].User)
		}
	}
	files := func(fs []corev1.DownwardAPIVolumeFile) {
		for j := range fs {
			f(&fs[j].User)
		}
	}
	for i := range s.Volumes {
		v := &s.Volumes[i]
		switch {
		case v.Secret != nil:
			f(&v.Secret.DefaultUser)
			items(v.Secret.Items)
		case v.ConfigMap != nil:
			f(&v.ConfigMap.DefaultUser)
			items(v.ConfigMap.Items)
		case v.DownwardAPI != nil:
			f(&v.DownwardAPI.DefaultUser)
			files(v.DownwardAPI.Items)
		case v.Projected != nil:
			f(&v.Projected.DefaultUser)
			for j := range v.Projected.Sources {
				src := &v.Projected.Sources[j]
				switch {
				case src.Secret != nil:
					items(src.Secret.Items)
				case src.DownwardAPI != nil:
					files(src.DownwardAPI.Items)
				case src.ConfigMap != nil:
					items(src.ConfigMap.Items)
				case src.ServiceAccountToken != nil:
					f(&src.ServiceAccountToken.User)
				case src.ClusterTrustBundle != nil:
					f(&src.ClusterTrustBundle.User)
				case src.PodCertificate != nil:
					f(&src.PodCertificate.User)
				}
			}
		}
	}
}

// dropDisabledPodTemplateFields is kube's DropDisabledTemplateFields, for the
// workloads' strategies: old is the stored template of an update, nil on create.
func dropDisabledPodTemplateFields(t, old *corev1.PodTemplateSpec) {
	var oldSpec *corev1.PodSpec
	if old != nil {
		oldSpec = &old.Spec
	}
	dropDisabledPodFields(&t.Spec, t.Annotations, oldSpec)
}
