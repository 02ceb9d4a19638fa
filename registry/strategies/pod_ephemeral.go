package strategies

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// podEphemeralContainersStrategy is kube's podEphemeralContainersStrategy
// (pkg/registry/core/pod/strategy.go), the strategy of pods/ephemeralcontainers: a
// write keeps all of the stored pod but spec.ephemeralContainers (its metadata reset
// as kube's ResetObjectMetaForStatus resets it), bumps the generation when they
// change, and is validated by ValidatePodEphemeralContainersUpdate: the whole pod
// spec, and no existing ephemeral container removed or changed.
func podEphemeralContainersStrategy() *registry.StrategyFor[*corev1.Pod] {
	return &registry.StrategyFor[*corev1.Pod]{
		PrepareForUpdate: func(_ context.Context, p, old *corev1.Pod) {
			ephemeral := p.Spec.EphemeralContainers
			p.Spec = old.Spec
			p.Status = old.Status
			resetMetaForStatus(p, old)
			p.Spec.EphemeralContainers = ephemeral
		},
		ValidateUpdate: func(_ context.Context, p, old *corev1.Pod) validation.ErrorList {
			return uniqueErrors(validateEphemeralContainersUpdate(p, old))
		},
	}
}

// resetMetaForStatus is apimachinery's metav1.ResetObjectMetaForStatus: the stored
// deletionTimestamp, generation, labels, annotations, finalizers and owner references.
func resetMetaForStatus(p, old *corev1.Pod) {
	p.DeletionTimestamp = old.DeletionTimestamp
	p.Generation = old.Generation
	p.Labels = old.Labels
	p.Annotations = old.Annotations
	p.Finalizers = old.Finalizers
	p.OwnerReferences = old.OwnerReferences
}

// validateEphemeralContainersUpdate is kube's ValidatePodEphemeralContainersUpdate
// (the metadata update rules are the registry's).
func validateEphemeralContainersUpdate(p, old *corev1.Pod) validation.ErrorList {
	errs := validatePodMetadataAndSpec(p)
	if _, ok := old.Annotations["kubernetes.io/config.mirror"]; ok {
		return validation.ErrorList{validation.Forbidden(validation.NewPath(""), "static pods do not support ephemeral containers")}
	}
	path := validation.NewPath("spec", "ephemeralContainers")
	byName := make(map[string]*corev1.EphemeralContainer, len(p.Spec.EphemeralContainers))
	for i := range p.Spec.EphemeralContainers {
		byName[p.Spec.EphemeralContainers[i].Name] = &p.Spec.EphemeralContainers[i]
	}
	for _, o := range old.Spec.EphemeralContainers {
		n, ok := byName[o.Name]
		switch {
		case !ok:
			errs = append(errs, validation.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !ephemeralEqual(&o, n):
			errs = append(errs, validation.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%v", o.Name, podSpecDiff(o, *n))))
		}
	}
	return errs
}

// ephemeralEqual is apimachinery's semantic equality of two ephemeral containers.
func ephemeralEqual(a, b *corev1.EphemeralContainer) bool {
	return reflect.DeepEqual(a, b) || cmp.Equal(a, b, semantic)
}
