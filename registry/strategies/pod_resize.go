package strategies

import (
	"context"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// podResizeStrategy is kube's podResizeStrategy (pkg/registry/core/pod/strategy.go),
// the strategy of pods/resize with v1.37.2's gates (InPlacePodLevelResourcesVerticalScaling
// and PodLevelResourcesFixDefaulting on, InPlacePodVerticalScalingMemoryBackedVolumes
// off): a write keeps all of the stored pod but its containers' and init containers'
// resources and resizePolicy and the pod-level resources (its metadata reset as
// kube's ResetObjectMetaForStatus resets it), bumps the generation when they change,
// and is validated by ValidatePodResize.
func podResizeStrategy() *registry.StrategyFor[*corev1.Pod] {
	return &registry.StrategyFor[*corev1.Pod]{
		PrepareForUpdate: func(_ context.Context, p, old *corev1.Pod) { preparePodResize(p, old) },
		ValidateUpdate: func(_ context.Context, p, old *corev1.Pod) validation.ErrorList {
			return uniqueErrors(validatePodResize(p, old))
		},
	}
}

// preparePodResize is kube's podResizeStrategy.PrepareForUpdate: dropNonResizeUpdates
// (a request that adds, removes, reorders or renames containers is left as it is for
// validation to refuse), the pod-level resources kept or defaulted, then the
// generation.
func preparePodResize(p, old *corev1.Pod) {
	if len(p.Spec.Containers) != len(old.Spec.Containers) || len(p.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return
	}
	resources := p.Spec.Resources
	containers := keepOnlyResizeOf(p.Spec.Containers, old.Spec.Containers)
	initContainers := keepOnlyResizeOf(p.Spec.InitContainers, old.Spec.InitContainers)
	p.Spec = old.Spec
	p.Spec.Resources = resources
	p.Status = old.Status
	resetMetaForStatus(p, old)
	p.Spec.Containers, p.Spec.InitContainers = containers, initContainers
	if p.Spec.Resources == nil && old.Spec.Resources != nil {
		r := *old.Spec.Resources
		p.Spec.Resources = &r
	}
	if p.Spec.Resources != nil {
		defaultPodLevelResources(&p.Spec)
	}
	dropDisabledPodFields(&p.Spec, p.Annotations, &old.Spec)
	if !podSpecsEqual(&p.Spec, &old.Spec) {
		p.Generation = old.Generation + 1
	}
}

// keepOnlyResizeOf is kube's dropNonResizeUpdatesForContainers: the stored containers
// with the request's resources and resizePolicy, or the request's own when a name
// moved (for validation to refuse).
func keepOnlyResizeOf(next, old []corev1.Container) []corev1.Container {
	if len(next) == 0 {
		return next
	}
	out := make([]corev1.Container, len(old))
	copy(out, old)
	for i := range next {
		if out[i].Name != next[i].Name {
			return next
		}
		out[i].Resources, out[i].ResizePolicy = next[i].Resources, next[i].ResizePolicy
	}
	return out
}

// validatePodResize is kube's ValidatePodResize (the metadata update rules are the
// registry's): the pod as validatePodMetadataAndSpec sees it; static and windows pods
// refused; the QoS class kept; a node that reports running containers without their
// resources refused; pod-level resources neither removed nor changed but for cpu and
// memory; containers neither added, removed, reordered nor renamed; no request or
// limit removed; and nothing changed but cpu and memory.
func validatePodResize(p, old *corev1.Pod) validation.ErrorList {
	errs := validatePodMetadataAndSpec(p)
	if _, ok := old.Annotations["kubernetes.io/config.mirror"]; ok {
		return validation.ErrorList{validation.Forbidden(validation.NewPath(""), "static pods cannot be resized")}
	}
	if old.Spec.OS != nil && old.Spec.OS.Name == corev1.Windows {
		return validation.ErrorList{validation.Forbidden(validation.NewPath(""), "windows pods cannot be resized")}
	}
	spec := validation.NewPath("spec")
	oldQOS := old.Status.QOSClass
	if oldQOS == "" {
		oldQOS = podQOS(&old.Spec)
	}
	if oldQOS != podQOS(&p.Spec) {
		errs = append(errs, validation.Invalid(spec, string(p.Status.QOSClass), "Pod QOS Class may not change as a result of resizing"))
	}
	if !nodeSupportsResize(old) {
		errs = append(errs, validation.Forbidden(spec, "Pod running on node without support for resize"))
	}
	// masked is the request's spec with the cpu and memory it may change set back to
	// the stored ones: what must then equal the stored spec.
	masked := p.Spec
	if hasPodLevelResources(old) || hasPodLevelResources(p) {
		errs = append(errs, validatePodLevelResize(p, old, &masked, spec)...)
	}
	if order := validateResizeOrder(p, old, spec); len(order) > 0 {
		return append(errs, order...)
	}
	for i := range old.Spec.InitContainers {
		errs = append(errs, validateContainerResize(&p.Spec.InitContainers[i].Resources, &old.Spec.InitContainers[i].Resources,
			spec.Child("initContainers").Index(i).Child("resources"))...)
	}
	for i := range old.Spec.Containers {
		errs = append(errs, validateContainerResize(&p.Spec.Containers[i].Resources, &old.Spec.Containers[i].Resources,
			spec.Child("containers").Index(i).Child("resources"))...)
	}
	masked.Containers = make([]corev1.Container, len(p.Spec.Containers))
	for i, c := range p.Spec.Containers {
		c.Resources = withStoredCPUAndMemory(c.Resources, old.Spec.Containers[i].Resources)
		if !cmp.Equal(c, old.Spec.Containers[i], semantic) {
			errs = append(errs, validation.Forbidden(spec, "only cpu and memory resources are mutable"))
		}
		masked.Containers[i] = c
	}
	masked.InitContainers = make([]corev1.Container, len(p.Spec.InitContainers))
	for i, c := range p.Spec.InitContainers {
		path := spec.Child("initContainers").Index(i)
		modified := !cmp.Equal(c, old.Spec.InitContainers[i], semantic)
		c.Resources = withStoredCPUAndMemory(c.Resources, old.Spec.InitContainers[i].Resources)
		if !cmp.Equal(c, old.Spec.InitContainers[i], semantic) {
			errs = append(errs, validation.Forbidden(path, "only cpu and memory resources for init or sidecar containers are mutable"))
		}
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if modified && !sidecar {
			for _, rp := range c.ResizePolicy {
				if rp.RestartPolicy == "RestartContainer" {
					errs = append(errs, validation.Forbidden(path, "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
				}
			}
		}
		masked.InitContainers[i] = c
	}
	if !cmp.Equal(p.Spec.Volumes, old.Spec.Volumes, semantic) {
		errs = append(errs, validation.Forbidden(spec.Child("volumes"), "volumes are immutable on resize when InPlacePodVerticalScalingMemoryBackedVolumes feature gate is disabled"))
	}
	if len(errs) > 0 {
		return errs
	}
	if !podSpecsEqual(&masked, &old.Spec) {
		errs = append(errs, validation.Forbidden(spec, "only cpu and memory resources are mutable"))
	}
	return errs
}

// nodeSupportsResize is kube's isPodResizeRequestSupported: the first running
// container's status must report its resources (a node without in-place resize
// reports none); without a running container it is assumed.
func nodeSupportsResize(p *corev1.Pod) bool {
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Running != nil {
			return c.Resources != nil
		}
	}
	return true
}

func hasPodLevelResources(p *corev1.Pod) bool {
	r := p.Spec.Resources
	return r != nil && len(r.Requests)+len(r.Limits) > 0
}

// validatePodLevelResize is kube's validatePodLevelResourcesResize: pod-level
// resources, requests and limits cannot be removed, and nothing of them but cpu and
// memory may change; masked gets the pod-level resources with the stored cpu and
// memory.
func validatePodLevelResize(p, old *corev1.Pod, masked *corev1.PodSpec, spec *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if old.Spec.Resources != nil && p.Spec.Resources == nil {
		return append(errs, validation.Forbidden(spec.Child("resources"), "pod-level resources cannot be removed"))
	}
	if old.Spec.Resources != nil {
		if resourcesRemoved(p.Spec.Resources.Requests, old.Spec.Resources.Requests) {
			errs = append(errs, validation.Forbidden(spec.Child("resources", "requests"), "pod-level resource requests cannot be removed"))
		}
		if resourcesRemoved(p.Spec.Resources.Limits, old.Spec.Resources.Limits) {
			errs = append(errs, validation.Forbidden(spec.Child("resources", "limits"), "pod-level resource limits cannot be removed"))
		}
	}
	masked.Resources = podLevelWithStoredCPUAndMemory(p.Spec.Resources, old.Spec.Resources)
	if !cmp.Equal(masked.Resources, old.Spec.Resources, semantic) {
		errs = append(errs, validation.Forbidden(spec, "only cpu and memory resources are mutable at pod-level"))
	}
	return errs
}

// podLevelWithStoredCPUAndMemory is kube's dropCPUMemoryResourceRequirementsUpdates,
// on a copy: nil when nothing is left of resources that the stored pod did not have.
func podLevelWithStoredCPUAndMemory(r, old *corev1.ResourceRequirements) *corev1.ResourceRequirements {
	if r == nil {
		return nil
	}
	var oldRequests, oldLimits corev1.ResourceList
	if old != nil {
		oldRequests, oldLimits = old.Requests, old.Limits
	}
	out := *r
	out.Requests = listWithStoredCPUAndMemory(r.Requests, oldRequests)
	out.Limits = listWithStoredCPUAndMemory(r.Limits, oldLimits)
	if old == nil && len(out.Requests) == 0 && len(out.Limits) == 0 && len(out.Claims) == 0 {
		return nil
	}
	return &out
}

// withStoredCPUAndMemory is kube's dropCPUMemoryResourcesFromContainer on a copy: the
// requirements with the stored cpu and memory, and the request's claims.
func withStoredCPUAndMemory(r, old corev1.ResourceRequirements) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Limits:   listWithStoredCPUAndMemory(r.Limits, old.Limits),
		Requests: listWithStoredCPUAndMemory(r.Requests, old.Requests),
		Claims:   r.Claims,
	}
}

// listWithStoredCPUAndMemory is kube's dropCPUMemoryUpdates: a copy of l with cpu and
// memory as old has them.
func listWithStoredCPUAndMemory(l, old corev1.ResourceList) corev1.ResourceList {
	if l == nil && old == nil {
		return nil
	}
	out := make(corev1.ResourceList, len(l)+2)
	for k, v := range l {
		if k != corev1.ResourceCPU && k != corev1.ResourceMemory {
			out[k] = v
		}
	}
	for _, k := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if v, ok := old[k]; ok {
			out[k] = v
		}
	}
	return out
}

// validateResizeOrder is kube's validatePodResizeContainerOrdering.
func validateResizeOrder(p, old *corev1.Pod, spec *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, set := range []struct {
		field     string
		next, old []corev1.Container
	}{{"containers", p.Spec.Containers, old.Spec.Containers}, {"initContainers", p.Spec.InitContainers, old.Spec.InitContainers}} {
		if len(set.next) != len(set.old) {
			errs = append(errs, validation.Forbidden(spec.Child(set.field), set.field+" may not be added or removed on resize"))
			continue
		}
		for i := range set.old {
			if set.next[i].Name != set.old[i].Name {
				errs = append(errs, validation.Forbidden(spec.Child(set.field).Index(i).Child("name"), set.field+" may not be renamed or reordered on resize"))
			}
		}
	}
	return errs
}

// validateContainerResize is kube's: no request or limit may be removed.
func validateContainerResize(next, old *corev1.ResourceRequirements, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if resourcesRemoved(next.Requests, old.Requests) {
		errs = append(errs, validation.Forbidden(path.Child("requests"), "resource requests cannot be removed"))
	}
	if resourcesRemoved(next.Limits, old.Limits) {
		errs = append(errs, validation.Forbidden(path.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

func resourcesRemoved(l, old corev1.ResourceList) bool {
	if len(old) > len(l) {
		return true
	}
	for name := range old {
		if _, ok := l[name]; !ok {
			return true
		}
	}
	return false
}
