package strategies

import (
	"context"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
)

// podStatusStrategy is the part of kube's podStatusStrategy.PrepareForUpdate that
// decides what a write to pods/status keeps: the stored spec and owner references, the
// stored QoS class, DRA statuses and observedGenerations where the request leaves
// them out; the request's status and other metadata. Without it, a pods/status write
// would run the pod strategy's PrepareForUpdate, which keeps the stored status, so no
// status would ever change (a kubelet's Running, the eviction's DisruptionTarget).
// kube's ValidatePodStatusUpdate is not run yet.
func podStatusStrategy() *registry.StrategyFor[*corev1.Pod] {
	return &registry.StrategyFor[*corev1.Pod]{
		PrepareForUpdate: func(_ context.Context, p, old *corev1.Pod) {
			p.Spec = old.Spec
			p.DeletionTimestamp = nil
			p.OwnerReferences = old.OwnerReferences
			if p.Status.QOSClass == "" {
				p.Status.QOSClass = old.Status.QOSClass
			}
			if p.Status.ResourceClaimStatuses == nil && old.Status.ResourceClaimStatuses != nil {
				p.Status.ResourceClaimStatuses = old.Status.ResourceClaimStatuses
			}
			if p.Status.ExtendedResourceClaimStatus == nil && old.Status.ExtendedResourceClaimStatus != nil {
				p.Status.ExtendedResourceClaimStatus = old.Status.ExtendedResourceClaimStatus
			}
			if p.Status.NodeAllocatableResourceClaimStatuses == nil && old.Status.NodeAllocatableResourceClaimStatuses != nil {
				p.Status.NodeAllocatableResourceClaimStatuses = old.Status.NodeAllocatableResourceClaimStatuses
			}
			preserveObservedGeneration(p, old)
		},
	}
}

// preserveObservedGeneration is kube's preserveOldObservedGeneration: an
// observedGeneration the request leaves at 0 (the status's, or a condition's, paired
// with the old conditions of its type in order) keeps the stored one.
func preserveObservedGeneration(p, old *corev1.Pod) {
	if p.Status.ObservedGeneration == 0 {
		p.Status.ObservedGeneration = old.Status.ObservedGeneration
	}
	olds := map[corev1.PodConditionType][]int64{}
	for _, c := range old.Status.Conditions {
		olds[c.Type] = append(olds[c.Type], c.ObservedGeneration)
	}
	for i, c := range p.Status.Conditions {
		var g int64
		if gs := olds[c.Type]; len(gs) > 0 {
			g, olds[c.Type] = gs[0], gs[1:]
		}
		if c.ObservedGeneration == 0 {
			p.Status.Conditions[i].ObservedGeneration = g
		}
	}
}
