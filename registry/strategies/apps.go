package strategies

import (
	"context"
	"fmt"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Apps returns kube-apiserver v1.37.2's write rules of the apps/v1 kinds
// (pkg/registry/apps/*/strategy.go and pkg/apis/apps/validation): status reset on create
// and kept on update, metadata.generation 1 on create and bumped as each kind's strategy
// decides, the status subresource's own rules (a write there keeps the spec, and a
// Deployment's labels), and each kind's validation with kube's messages and field paths.
// The pod template is checked by validatePodTemplateSpec. The hooks receive apps/v1
// objects: kube's internal fields that v1 keeps in annotations (a DaemonSet's
// templateGeneration, a Deployment's rollbackTo) are read from and written to them.
func Apps() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		appsv1.Deployments: registry.StrategyFor[*appsv1.Deployment]{
			PrepareForCreate: func(_ context.Context, d *appsv1.Deployment) { prepareDeploymentCreate(d) },
			PrepareForUpdate: func(_ context.Context, d, old *appsv1.Deployment) { prepareDeploymentUpdate(d, old) },
			Validate:         func(_ context.Context, d *appsv1.Deployment) validation.ErrorList { return validateDeployment(d) },
			ValidateUpdate: func(_ context.Context, d, old *appsv1.Deployment) validation.ErrorList {
				return validateDeploymentUpdate(d, old)
			},
			WarningsOnCreate: func(_ context.Context, d *appsv1.Deployment) []string { return podNameWarnings(d.Name) },
			Status: &registry.StrategyFor[*appsv1.Deployment]{
				PrepareForUpdate: func(_ context.Context, d, old *appsv1.Deployment) {
					d.Spec = old.Spec
					d.Labels = old.Labels
				},
				ValidateUpdate: func(_ context.Context, d, old *appsv1.Deployment) validation.ErrorList {
					return validateDeploymentStatusUpdate(d, old)
				},
			},
		},
		appsv1.ReplicaSets: registry.StrategyFor[*appsv1.ReplicaSet]{
			PrepareForCreate: func(_ context.Context, rs *appsv1.ReplicaSet) {
				rs.Status = appsv1.ReplicaSetStatus{}
				rs.Generation = 1
			},
			PrepareForUpdate: func(_ context.Context, rs, old *appsv1.ReplicaSet) {
				rs.Status = old.Status
				bumpGenerationUnless(&rs.ObjectMeta, &old.ObjectMeta, semanticEqual(rs.Spec, old.Spec))
			},
			Validate: func(_ context.Context, rs *appsv1.ReplicaSet) validation.ErrorList { return validateReplicaSet(rs) },
			ValidateUpdate: func(_ context.Context, rs, old *appsv1.ReplicaSet) validation.ErrorList {
				return validateReplicaSetUpdate(rs, old)
			},
			WarningsOnCreate: func(_ context.Context, rs *appsv1.ReplicaSet) []string { return podNameWarnings(rs.Name) },
			Status: &registry.StrategyFor[*appsv1.ReplicaSet]{
				PrepareForUpdate: func(_ context.Context, rs, old *appsv1.ReplicaSet) { rs.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, rs, old *appsv1.ReplicaSet) validation.ErrorList {
					return validateReplicaSetStatus(&rs.Status, validation.NewPath("status"))
				},
			},
		},
		appsv1.StatefulSets: registry.StrategyFor[*appsv1.StatefulSet]{
			PrepareForCreate: func(_ context.Context, ss *appsv1.StatefulSet) {
				ss.Status = appsv1.StatefulSetStatus{}
				ss.Generation = 1
				setClaimTemplateTypes(ss)
			},
			PrepareForUpdate: func(_ context.Context, ss, old *appsv1.StatefulSet) {
				ss.Status = old.Status
				setClaimTemplateTypes(ss)
				bumpGenerationUnless(&ss.ObjectMeta, &old.ObjectMeta, semanticEqual(ss.Spec, old.Spec))
			},
			Validate: func(_ context.Context, ss *appsv1.StatefulSet) validation.ErrorList {
				return validateStatefulSet(ss)
			},
			ValidateUpdate: func(_ context.Context, ss, old *appsv1.StatefulSet) validation.ErrorList {
				return validateStatefulSetUpdate(ss, old)
			},
			WarningsOnCreate: func(_ context.Context, ss *appsv1.StatefulSet) []string { return statefulSetWarnings(ss) },
			WarningsOnUpdate: func(_ context.Context, ss, _ *appsv1.StatefulSet) []string { return statefulSetWarnings(ss) },
			Status: &registry.StrategyFor[*appsv1.StatefulSet]{
				PrepareForUpdate: func(_ context.Context, ss, old *appsv1.StatefulSet) { ss.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, ss, old *appsv1.StatefulSet) validation.ErrorList {
					return validateStatefulSetStatusUpdate(ss, old)
				},
			},
		},
		appsv1.DaemonSets: registry.StrategyFor[*appsv1.DaemonSet]{
			PrepareForCreate: func(_ context.Context, ds *appsv1.DaemonSet) { prepareDaemonSetCreate(ds) },
			PrepareForUpdate: func(_ context.Context, ds, old *appsv1.DaemonSet) { prepareDaemonSetUpdate(ds, old) },
			Validate:         func(_ context.Context, ds *appsv1.DaemonSet) validation.ErrorList { return validateDaemonSet(ds) },
			ValidateUpdate: func(_ context.Context, ds, old *appsv1.DaemonSet) validation.ErrorList {
				return validateDaemonSetUpdate(ds, old)
			},
			Status: &registry.StrategyFor[*appsv1.DaemonSet]{
				PrepareForUpdate: func(_ context.Context, ds, old *appsv1.DaemonSet) {
					ds.Spec = old.Spec
					// The templateGeneration is part of the spec in kube's internal type.
					setTemplateGeneration(ds, templateGeneration(old))
				},
				ValidateUpdate: func(_ context.Context, ds, old *appsv1.DaemonSet) validation.ErrorList {
					return validateDaemonSetStatusUpdate(ds, old)
				},
			},
		},
		appsv1.ControllerRevisions: withoutGeneration(registry.StrategyFor[*appsv1.ControllerRevision]{
			Validate: func(_ context.Context, cr *appsv1.ControllerRevision) validation.ErrorList {
				return validateControllerRevisionCreate(cr)
			},
			ValidateUpdate: func(_ context.Context, cr, old *appsv1.ControllerRevision) validation.ErrorList {
				return validateControllerRevisionUpdate(cr, old)
			},
		}),
	}
}

// Annotations by which apps/v1 carries fields of kube's internal types.
const (
	// daemonSetTemplateGenerationAnnotation holds a DaemonSet's spec.templateGeneration.
	daemonSetTemplateGenerationAnnotation = "deprecated.daemonset.template.generation"
	// deploymentRollbackToAnnotation holds a Deployment's spec.rollbackTo.revision.
	deploymentRollbackToAnnotation = "deprecated.deployment.rollback.to"
)

// Messages of kube's validation that several rules share.
const (
	negativeMsg             = "must be greater than or equal to 0"
	selectorMismatchMsg     = "`selector` does not match template `labels`"
	greaterThanReplicasMsg  = "cannot be greater than status.replicas"
	cannotBeDecrementedMsg  = "cannot be decremented"
	invalidLabelSelectorMsg = "invalid label selector"
)

// nonNegativeField is kube's ValidateNonnegativeField.
func nonNegativeField(v int64, p *validation.Path) validation.ErrorList {
	if v < 0 {
		return validation.ErrorList{validation.Invalid(p, v, negativeMsg)}
	}
	return nil
}

// replicasOf is the internal int32 of a defaulted *int32 replica count.
func replicasOf(r *int32) int32 {
	if r == nil {
		return 0
	}
	return *r
}

// bumpGenerationUnless sets the generation of an update as kube's strategies do: the
// stored one, plus one when the spec changed (same is false).
func bumpGenerationUnless(meta, old *scheme.ObjectMeta, same bool) {
	meta.Generation = old.Generation
	if !same {
		meta.Generation++
	}
}

// podNameWarnings is the warning kube gives a Deployment or ReplicaSet whose name is
// no DNS label: its pods' names and hostnames derive from it.
func podNameWarnings(name string) []string {
	if msgs := validation.IsDNS1123Label(name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

// isDecremented is kube's IsDecremented of a collisionCount.
func isDecremented(update, old *int32) bool {
	if update == nil && old != nil {
		return true
	}
	if update == nil || old == nil {
		return false
	}
	return *update < *old
}

// collisionCountDecremented is the error of a status update that lowered collisionCount.
func collisionCountDecremented(update, old *int32) validation.ErrorList {
	if !isDecremented(update, old) {
		return nil
	}
	return validation.ErrorList{validation.Invalid(validation.NewPath("status").Child("collisionCount"), replicasOf(update), cannotBeDecrementedMsg)}
}

// validatePodTemplateForReplicas is kube's ValidatePodTemplateSpecForReplicaSet, which
// Deployments and ReplicaSets use (once their selector converted): labels matching a
// non-empty selector, the template itself, restartPolicy Always and no
// activeDeadlineSeconds.
func validatePodTemplateForReplicas(template *corev1.PodTemplateSpec, sel *metav1.LabelSelector, kind string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if !selectorEmpty(sel) && !selectorMatches(sel, template.Labels) {
		errs = append(errs, validation.Invalid(p.Child("metadata", "labels"), template.Labels, selectorMismatchMsg))
	}
	errs = append(errs, validatePodTemplateSpec(template, p)...)
	errs = append(errs, restartAlwaysAndNoDeadline(template, kind, p.Child("spec"))...)
	return errs
}

// restartAlwaysAndNoDeadline are the two rules every workload kind adds to its template:
// pods that always restart and run without a deadline.
func restartAlwaysAndNoDeadline(template *corev1.PodTemplateSpec, kind string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, validation.NotSupported(p.Child("restartPolicy"), template.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, validation.Forbidden(p.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// validateStrictSelector is the selector rule of Deployments, ReplicaSets and
// StatefulSets: required, valid with strict label values, and not empty.
func validateStrictSelector(sel *metav1.LabelSelector, emptyMsg string, p *validation.Path) validation.ErrorList {
	if sel == nil {
		return validation.ErrorList{validation.Required(p, "")}
	}
	errs := validateLabelSelector(sel, false, p)
	if selectorEmpty(sel) {
		errs = append(errs, validation.Invalid(p, sel, emptyMsg))
	}
	return errs
}
