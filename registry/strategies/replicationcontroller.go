package strategies

import (
	"context"
	"maps"
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// ReplicationControllers returns kube-apiserver v1.37.2's write rules of core/v1
// replicationcontrollers (pkg/registry/core/replicationcontroller and
// ValidateReplicationController): status reset on create and kept on update, generation 1
// on create and bumped by a spec change, a non-empty selector that the template's labels
// match, the template validated as a pod template whose pods always restart and have no
// deadline, a delete without propagationPolicy orphaning the pods (v1's default
// garbage-collection policy), and the status subresource, which keeps the spec.
func ReplicationControllers() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		corev1.ReplicationControllers: registry.StrategyFor[*corev1.ReplicationController]{
			PrepareForCreate: func(_ context.Context, rc *corev1.ReplicationController) {
				rc.Status = corev1.ReplicationControllerStatus{}
				rc.Generation = 1
				if rc.Spec.Template != nil {
					dropDisabledPodTemplateFields(rc.Spec.Template, nil)
				}
			},
			PrepareForUpdate: func(_ context.Context, rc, old *corev1.ReplicationController) {
				rc.Status = old.Status
				if rc.Spec.Template != nil {
					dropDisabledPodTemplateFields(rc.Spec.Template, old.Spec.Template)
				}
				bumpGenerationUnless(&rc.ObjectMeta, &old.ObjectMeta, semanticEqual(rc.Spec, old.Spec))
			},
			Validate: func(_ context.Context, rc *corev1.ReplicationController) validation.ErrorList {
				errs := validation.ValidateObjectMeta(rc, true, validation.NameIsLongName, validation.NewPath("metadata"))
				return append(errs, validateReplicationControllerSpec(&rc.Spec, validation.NewPath("spec"))...)
			},
			ValidateUpdate: func(_ context.Context, rc, old *corev1.ReplicationController) validation.ErrorList {
				errs := validateReplicationControllerSpec(&rc.Spec, validation.NewPath("spec"))
				return append(errs, nonConvertibleFieldErrors(rc, old)...)
			},
			WarningsOnCreate: func(_ context.Context, rc *corev1.ReplicationController) []string {
				return append(podNameWarnings(rc.Name), podTemplateWarnings(templatePath, rc.Spec.Template)...)
			},
			WarningsOnUpdate: func(_ context.Context, rc, old *corev1.ReplicationController) []string {
				// kube passes the stored template where the new one belongs
				// (GetWarningsForPodTemplate(ctx, path, old, new)): the warnings are the old's.
				return templateWarningsIfChanged(rc.Generation != old.Generation && old.Spec.Template != nil, old.Spec.Template)
			},
			DefaultGarbageCollectionPolicy: orphansAt("v1"),
			Status: &registry.StrategyFor[*corev1.ReplicationController]{
				PrepareForUpdate: func(_ context.Context, rc, old *corev1.ReplicationController) { rc.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, rc, _ *corev1.ReplicationController) validation.ErrorList {
					return validateReplicationControllerStatus(&rc.Status, validation.NewPath("status"))
				},
			},
		},
	}
}

// validateReplicationControllerSpec is kube's ValidateReplicationControllerSpec: the
// selector map must select something (kube checks none of its keys or values), and the
// template is ValidatePodTemplateSpecForRC's.
func validateReplicationControllerSpec(spec *corev1.ReplicationControllerSpec, p *validation.Path) validation.ErrorList {
	errs := nonNegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))
	if len(spec.Selector) == 0 {
		errs = append(errs, validation.Required(p.Child("selector"), ""))
	}
	if spec.Replicas == nil {
		errs = append(errs, validation.Required(p.Child("replicas"), ""))
	} else {
		errs = append(errs, nonNegativeField(int64(*spec.Replicas), p.Child("replicas"))...)
	}
	return append(errs, validatePodTemplateForRC(spec.Template, spec.Selector, p.Child("template"))...)
}

// validatePodTemplateForRC is ValidatePodTemplateSpecForRC: a template is required, its
// labels must match a non-empty selector map, and its pods always restart without a
// deadline.
func validatePodTemplateForRC(t *corev1.PodTemplateSpec, selector map[string]string, p *validation.Path) validation.ErrorList {
	if t == nil {
		return validation.ErrorList{validation.Required(p, "")}
	}
	var errs validation.ErrorList
	if len(selector) > 0 && !storage.LabelSelectorFromSet(selector).Matches(t.Labels) {
		errs = append(errs, validation.Invalid(p.Child("metadata", "labels"), t.Labels, selectorMismatchMsg))
	}
	errs = append(errs, validatePodTemplateSpec(t, p)...)
	return append(errs, restartAlwaysAndNoDeadline(t, "ReplicationController", p.Child("spec"))...)
}

// validateReplicationControllerStatus is ValidateReplicationControllerStatus: counts not
// negative, none of the partial counts above status.replicas, available not above ready.
func validateReplicationControllerStatus(s *corev1.ReplicationControllerStatus, p *validation.Path) validation.ErrorList {
	errs := nonNegativeField(int64(s.Replicas), p.Child("replicas"))
	errs = append(errs, nonNegativeField(int64(s.FullyLabeledReplicas), p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, nonNegativeField(s.ObservedGeneration, p.Child("observedGeneration"))...)
	if s.FullyLabeledReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("fullyLabeledReplicas"), int64(s.FullyLabeledReplicas), greaterThanReplicasMsg))
	}
	if s.ReadyReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("readyReplicas"), int64(s.ReadyReplicas), greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), int64(s.AvailableReplicas), greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), int64(s.AvailableReplicas), "cannot be greater than readyReplicas"))
	}
	return errs
}

// nonConvertibleAnnotationPrefix marks the fields of an RC that an older client could not
// convert (kube's core.NonConvertibleAnnotationPrefix).
const nonConvertibleAnnotationPrefix = "non-convertible.kubernetes.io"

// nonConvertibleFieldErrors is the rcStrategy.ValidateUpdate rule on the stored object's
// non-convertible annotations: a non-convertible selector may not change, and any other
// non-convertible field is an unknown field.
func nonConvertibleFieldErrors(rc, old *corev1.ReplicationController) validation.ErrorList {
	var errs validation.ErrorList
	for _, key := range slices.Sorted(maps.Keys(old.Annotations)) {
		if !strings.HasPrefix(key, nonConvertibleAnnotationPrefix) {
			continue
		}
		parts := strings.Split(key, "/")
		if len(parts) != 2 {
			continue
		}
		if strings.Contains(parts[1], "selector") {
			if !maps.Equal(rc.Spec.Selector, old.Spec.Selector) {
				errs = append(errs, validation.Invalid(validation.NewPath("spec").Child("selector"), rc.Spec.Selector, "cannot update non-convertible selector"))
			}
			continue
		}
		e := validation.NotFound(validation.NewPath(parts[1]), old.Annotations[key])
		e.Detail = "unknown non-convertible field"
		errs = append(errs, e)
	}
	return errs
}
