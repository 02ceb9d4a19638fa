package strategies

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
)

// defaultPodLevelResources is kube's DefaultPodLevelResources (PodLevelResources and
// PodLevelResourcesFixDefaulting are on in v1.37), run when a pod is created with
// spec.resources: hugepage limits from the containers', then the pod's requests from
// the containers' aggregate (overcommittable cpu and memory) or its own limits, then
// the limits of requested resources that every container limits.
func defaultPodLevelResources(spec *corev1.PodSpec) {
	r := spec.Resources
	if r == nil || len(r.Requests) == 0 && len(r.Limits) == 0 {
		return
	}
	limits := aggregateContainerResources(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	podLimits := r.Limits
	if podLimits == nil {
		podLimits = corev1.ResourceList{}
	}
	for name, q := range limits {
		if !isHugePageResource(name) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := podLimits[name]; !ok {
			podLimits[name] = q
		}
	}
	if len(podLimits) > 0 {
		r.Limits = podLimits
	}

	requests := aggregateContainerResources(spec, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
	podRequests := r.Requests
	if podRequests == nil {
		podRequests = corev1.ResourceList{}
	}
	for name, q := range requests {
		if _, ok := podRequests[name]; !ok && isPodLevelResource(name) && isOvercommitAllowed(name) {
			podRequests[name] = q
		}
	}
	for name, q := range r.Limits {
		if _, ok := podRequests[name]; !ok && isPodLevelResource(name) {
			podRequests[name] = q
		}
	}
	if len(podRequests) > 0 {
		r.Requests = podRequests
	}

	candidates := map[corev1.ResourceName]bool{}
	for name := range r.Requests {
		if _, ok := r.Limits[name]; !ok && isPodLevelResource(name) {
			candidates[name] = true
		}
	}
	eachContainer(spec, func(c *corev1.Container) {
		for name := range candidates {
			if _, ok := c.Resources.Limits[name]; !ok {
				delete(candidates, name)
			}
		}
	})
	if len(candidates) == 0 {
		return
	}
	for name := range candidates {
		v, ok := limits[name]
		if !ok {
			continue
		}
		if req := r.Requests[name]; req.Cmp(v) > 0 {
			v = req
		}
		if r.Limits == nil {
			r.Limits = corev1.ResourceList{}
		}
		r.Limits[name] = v
	}
}

func isPodLevelResource(n corev1.ResourceName) bool {
	return n == corev1.ResourceCPU || n == corev1.ResourceMemory || isHugePageResource(n)
}

// aggregateContainerResources is component-helpers' aggregateContainerResourcesByFn
// for the spec: the regular and sidecar containers' sum, or the largest of each init
// container's with the sidecars started before it, whichever is larger.
func aggregateContainerResources(spec *corev1.PodSpec, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	result := corev1.ResourceList{}
	for i := range spec.Containers {
		addResources(result, of(&spec.Containers[i]))
	}
	sidecars, inits := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		res := of(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addResources(result, res)
			addResources(sidecars, res)
			res = sidecars
		} else {
			combined := corev1.ResourceList{}
			addResources(combined, res)
			addResources(combined, sidecars)
			res = combined
		}
		maxResources(inits, res)
	}
	maxResources(result, inits)
	return result
}

func addResources(into, l corev1.ResourceList) {
	for name, q := range l {
		if cur, ok := into[name]; ok {
			cur.Add(q)
			into[name] = cur
		} else {
			into[name] = q
		}
	}
}

func maxResources(into, l corev1.ResourceList) {
	for name, q := range l {
		if cur, ok := into[name]; !ok || q.Cmp(cur) > 0 {
			into[name] = q
		}
	}
}
