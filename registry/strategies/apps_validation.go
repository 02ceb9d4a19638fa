package strategies

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// --- Deployment -----------------------------------------------------------------

func prepareDeploymentCreate(d *appsv1.Deployment) {
	d.Status = appsv1.DeploymentStatus{}
	d.Generation = 1
}

// prepareDeploymentUpdate keeps the stored status and bumps the generation when the spec
// or the annotations changed: kube copies a Deployment's annotations to its ReplicaSets.
func prepareDeploymentUpdate(d, old *appsv1.Deployment) {
	d.Status = old.Status
	bumpGenerationUnless(&d.ObjectMeta, &old.ObjectMeta, semanticEqual(d.Spec, old.Spec) && semanticEqual(d.Annotations, old.Annotations))
}

func validateDeployment(d *appsv1.Deployment) validation.ErrorList {
	errs := validation.ValidateObjectMeta(d, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	return append(errs, validateDeploymentSpec(d, validation.NewPath("spec"))...)
}

func validateDeploymentUpdate(d, old *appsv1.Deployment) validation.ErrorList {
	errs := validateDeploymentSpec(d, validation.NewPath("spec"))
	return append(errs, immutableField(d.Spec.Selector, old.Spec.Selector, validation.NewPath("spec", "selector"))...)
}

// validateDeploymentSpec is kube's ValidateDeploymentSpec; d's annotations carry the
// internal spec.rollbackTo.
func validateDeploymentSpec(d *appsv1.Deployment, p *validation.Path) validation.ErrorList {
	spec := &d.Spec
	errs := nonNegativeField(int64(replicasOf(spec.Replicas)), p.Child("replicas"))
	errs = append(errs, validateStrictSelector(spec.Selector, "empty selector is invalid for deployment", p.Child("selector"))...)
	if !labelSelectorConverts(spec.Selector) {
		errs = append(errs, validation.Invalid(p.Child("selector"), spec.Selector, invalidLabelSelectorMsg))
	} else {
		errs = append(errs, validatePodTemplateForReplicas(&spec.Template, spec.Selector, "ReplicaSet", p.Child("template"))...)
	}
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, p.Child("strategy"))...)
	errs = append(errs, nonNegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegativeField(int64(*spec.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	if v, ok := d.Annotations[deploymentRollbackToAnnotation]; ok && v != "" {
		if rev, err := strconv.ParseInt(v, 10, 64); err == nil {
			errs = append(errs, nonNegativeField(rev, p.Child("rollback", "version"))...)
		}
	}
	if pds := spec.ProgressDeadlineSeconds; pds != nil {
		errs = append(errs, nonNegativeField(int64(*pds), p.Child("progressDeadlineSeconds"))...)
		if *pds <= spec.MinReadySeconds {
			errs = append(errs, validation.Invalid(p.Child("progressDeadlineSeconds"), pds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateDeploymentStrategy(st *appsv1.DeploymentStrategy, p *validation.Path) validation.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return validation.ErrorList{validation.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return validation.ErrorList{validation.Required(p.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdateDeployment(st.RollingUpdate, p.Child("rollingUpdate"))
	default:
		return validation.ErrorList{validation.NotSupported(p, internalDeploymentStrategyOf(st),
			[]string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

func validateRollingUpdateDeployment(ru *appsv1.RollingUpdateDeployment, p *validation.Path) validation.ErrorList {
	mu, ms := intOrStringOf(ru.MaxUnavailable), intOrStringOf(ru.MaxSurge)
	errs := validatePositiveIntOrPercent(mu, p.Child("maxUnavailable"))
	errs = append(errs, validatePositiveIntOrPercent(ms, p.Child("maxSurge"))...)
	if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
		errs = append(errs, validation.Invalid(p.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
	}
	return append(errs, notMoreThan100Percent(mu, p.Child("maxUnavailable"))...)
}

// validateDeploymentStatusUpdate is kube's ValidateDeploymentStatusUpdate (the metadata
// part runs in the registry).
func validateDeploymentStatusUpdate(d, old *appsv1.Deployment) validation.ErrorList {
	p := validation.NewPath("status")
	s := &d.Status
	errs := nonNegativeField(s.ObservedGeneration, p.Child("observedGeneration"))
	errs = append(errs, nonNegativeField(int64(s.Replicas), p.Child("replicas"))...)
	errs = append(errs, nonNegativeField(int64(s.UpdatedReplicas), p.Child("updatedReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.UnavailableReplicas), p.Child("unavailableReplicas"))...)
	if s.TerminatingReplicas != nil {
		errs = append(errs, nonNegativeField(int64(*s.TerminatingReplicas), p.Child("terminatingReplicas"))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonNegativeField(int64(*s.CollisionCount), p.Child("collisionCount"))...)
	}
	if s.UpdatedReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("updatedReplicas"), s.UpdatedReplicas, greaterThanReplicasMsg))
	}
	if s.ReadyReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("readyReplicas"), s.ReadyReplicas, greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return append(errs, collisionCountDecremented(s.CollisionCount, old.Status.CollisionCount)...)
}

// --- ReplicaSet -----------------------------------------------------------------

func validateReplicaSet(rs *appsv1.ReplicaSet) validation.ErrorList {
	errs := validation.ValidateObjectMeta(rs, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	return append(errs, validateReplicaSetSpec(&rs.Spec, validation.NewPath("spec"))...)
}

func validateReplicaSetUpdate(rs, old *appsv1.ReplicaSet) validation.ErrorList {
	errs := validateReplicaSetSpec(&rs.Spec, validation.NewPath("spec"))
	return append(errs, immutableField(rs.Spec.Selector, old.Spec.Selector, validation.NewPath("spec", "selector"))...)
}

func validateReplicaSetSpec(spec *appsv1.ReplicaSetSpec, p *validation.Path) validation.ErrorList {
	errs := nonNegativeField(int64(replicasOf(spec.Replicas)), p.Child("replicas"))
	errs = append(errs, nonNegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	// kube names the kind "deployment" in this ReplicaSet message too.
	errs = append(errs, validateStrictSelector(spec.Selector, "empty selector is invalid for deployment", p.Child("selector"))...)
	if !labelSelectorConverts(spec.Selector) {
		return append(errs, validation.Invalid(p.Child("selector"), spec.Selector, invalidLabelSelectorMsg))
	}
	return append(errs, validatePodTemplateForReplicas(&spec.Template, spec.Selector, "ReplicaSet", p.Child("template"))...)
}

func validateReplicaSetStatus(s *appsv1.ReplicaSetStatus, p *validation.Path) validation.ErrorList {
	errs := nonNegativeField(int64(s.Replicas), p.Child("replicas"))
	errs = append(errs, nonNegativeField(int64(s.FullyLabeledReplicas), p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, nonNegativeField(s.ObservedGeneration, p.Child("observedGeneration"))...)
	if s.TerminatingReplicas != nil {
		errs = append(errs, nonNegativeField(int64(*s.TerminatingReplicas), p.Child("terminatingReplicas"))...)
	}
	if s.FullyLabeledReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("fullyLabeledReplicas"), s.FullyLabeledReplicas, greaterThanReplicasMsg))
	}
	if s.ReadyReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("readyReplicas"), s.ReadyReplicas, greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.Replicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, greaterThanReplicasMsg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return errs
}

// --- StatefulSet ----------------------------------------------------------------

// statefulSetOptions are kube's StatefulSetValidationOptions that differ between a
// create and an update.
type statefulSetOptions struct {
	allowInvalidServiceName          bool
	skipValidatePodTemplateSpec      bool
	skipValidateVolumeClaimTemplates bool
	allowRecreateStrategy            bool
}

// setClaimTemplateTypes does what kube's conversion of a StatefulSet to v1 does: each
// volumeClaimTemplate is stored with apiVersion v1 and kind PersistentVolumeClaim.
func setClaimTemplateTypes(ss *appsv1.StatefulSet) {
	for i := range ss.Spec.VolumeClaimTemplates {
		ss.Spec.VolumeClaimTemplates[i].APIVersion = "v1"
		ss.Spec.VolumeClaimTemplates[i].Kind = "PersistentVolumeClaim"
	}
}

// validateStatefulSet is kube's ValidateStatefulSet: a StatefulSet's name is a DNS
// label, as its pods' hostnames derive from it. The StatefulSetRecreateStrategy gate is
// off in v1.37.
func validateStatefulSet(ss *appsv1.StatefulSet) validation.ErrorList {
	errs := validation.ValidateObjectMeta(ss, true, validation.NameIsDNSLabel, validation.NewPath("metadata"))
	return append(errs, validateStatefulSetSpec(&ss.Spec, validation.NewPath("spec"), statefulSetOptions{})...)
}

// validateStatefulSetUpdate is kube's ValidateStatefulSetUpdate: the new spec (with its
// template left unchecked when the stored spec does not pass), then the fields that may
// not change: selector, volumeClaimTemplates, serviceName, podManagementPolicy.
func validateStatefulSetUpdate(ss, old *appsv1.StatefulSet) validation.ErrorList {
	opts := statefulSetOptions{
		allowInvalidServiceName:          true,
		skipValidateVolumeClaimTemplates: true,
		allowRecreateStrategy:            old.Spec.UpdateStrategy.Type == appsv1.RecreateStatefulSetStrategyType,
	}
	if len(validateStatefulSetSpec(&old.Spec, validation.NewPath("spec"), opts)) > 0 {
		opts.skipValidatePodTemplateSpec = true
	}
	p := validation.NewPath("spec")
	errs := validateStatefulSetSpec(&ss.Spec, p, opts)
	errs = append(errs, immutableField(ss.Spec.Selector, old.Spec.Selector, p.Child("selector"))...)
	if !semanticEqual(ss.Spec.VolumeClaimTemplates, old.Spec.VolumeClaimTemplates) {
		errs = append(errs, validation.Immutable(p.Child("volumeClaimTemplates"), badStruct(internalClaimTemplates(ss.Spec.VolumeClaimTemplates))))
	}
	errs = append(errs, immutableField(ss.Spec.ServiceName, old.Spec.ServiceName, p.Child("serviceName"))...)
	return append(errs, immutableField(ss.Spec.PodManagementPolicy, old.Spec.PodManagementPolicy, p.Child("podManagementPolicy"))...)
}

func validateStatefulSetSpec(spec *appsv1.StatefulSetSpec, p *validation.Path, opts statefulSetOptions) validation.ErrorList {
	var errs validation.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		errs = append(errs, validation.Required(p.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, validation.Invalid(p.Child("podManagementPolicy"), spec.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	us := &spec.UpdateStrategy
	usPath := p.Child("updateStrategy")
	switch {
	case us.Type == "":
		errs = append(errs, validation.Required(usPath, ""))
	case us.Type == appsv1.OnDeleteStatefulSetStrategyType,
		us.Type == appsv1.RecreateStatefulSetStrategyType && opts.allowRecreateStrategy:
		if us.RollingUpdate != nil {
			errs = append(errs, validation.Invalid(usPath.Child("rollingUpdate"), internalStatefulSetRollingUpdateOf(us.RollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case us.Type == appsv1.RollingUpdateStatefulSetStrategyType:
		if us.RollingUpdate != nil {
			errs = append(errs, validateRollingUpdateStatefulSet(us.RollingUpdate, usPath.Child("rollingUpdate"))...)
		}
	default:
		valid := "must be 'RollingUpdate' or 'OnDelete'"
		if opts.allowRecreateStrategy {
			valid = "must be 'RollingUpdate', 'OnDelete', or 'Recreate'"
		}
		errs = append(errs, validation.Invalid(usPath, internalStatefulSetStrategyOf(us), valid))
	}
	if policy := spec.PersistentVolumeClaimRetentionPolicy; policy != nil {
		pp := p.Child("persistentVolumeClaimRetentionPolicy")
		errs = append(errs, validateRetentionPolicyType(policy.WhenDeleted, pp.Child("whenDeleted"))...)
		errs = append(errs, validateRetentionPolicyType(policy.WhenScaled, pp.Child("whenScaled"))...)
	}
	if !opts.skipValidateVolumeClaimTemplates {
		for i := range spec.VolumeClaimTemplates {
			errs = append(errs, validateClaimTemplateSpec(&spec.VolumeClaimTemplates[i].Spec, p.Child("volumeClaimTemplates").Index(i).Child("spec"))...)
		}
	}
	errs = append(errs, nonNegativeField(int64(replicasOf(spec.Replicas)), p.Child("replicas"))...)
	errs = append(errs, nonNegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	if spec.Ordinals != nil {
		errs = append(errs, nonNegativeField(int64(spec.Ordinals.Start), p.Child("ordinals.start"))...)
	}
	if !opts.allowInvalidServiceName && spec.ServiceName != "" {
		errs = append(errs, validateDNS1123Label(spec.ServiceName, p.Child("serviceName"))...)
	}
	errs = append(errs, validateStrictSelector(spec.Selector, "empty selector is invalid for statefulset", p.Child("selector"))...)
	if !labelSelectorConverts(spec.Selector) {
		errs = append(errs, validation.Invalid(p.Child("selector"), spec.Selector, ""))
	} else {
		errs = append(errs, validateStatefulSetTemplate(spec, p.Child("template"), opts)...)
	}
	return append(errs, restartAlwaysAndNoDeadline(&spec.Template, "StatefulSet", p.Child("template", "spec"))...)
}

// internalClaimTemplates are a StatefulSet's claim templates as kube's internal type
// holds them: without the apiVersion and kind that v1 stores.
func internalClaimTemplates(claims []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	if claims == nil {
		return nil
	}
	out := slices.Clone(claims)
	for i := range out {
		out[i].TypeMeta = scheme.TypeMeta{}
	}
	return out
}

// validateStatefulSetTemplate is kube's ValidatePodTemplateSpecForStatefulSet of the
// template as the controller completes it: without the hostname and subdomain it
// overwrites, with a volume for each volumeClaimTemplate.
func validateStatefulSetTemplate(spec *appsv1.StatefulSetSpec, p *validation.Path, opts statefulSetOptions) validation.ErrorList {
	t := &spec.Template
	if t.Spec.Subdomain != "" || t.Spec.Hostname != "" || len(spec.VolumeClaimTemplates) > 0 {
		c := *t
		c.Spec.Subdomain, c.Spec.Hostname = "", ""
		if len(spec.VolumeClaimTemplates) > 0 {
			claims := map[string]bool{}
			var volumes []corev1.Volume
			for _, vct := range spec.VolumeClaimTemplates {
				if claims[vct.Name] {
					continue
				}
				claims[vct.Name] = true
				volumes = append(volumes, corev1.Volume{Name: vct.Name, VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: vct.Name},
				}})
			}
			for _, v := range t.Spec.Volumes {
				if !claims[v.Name] {
					volumes = append(volumes, v)
				}
			}
			c.Spec.Volumes = volumes
		}
		t = &c
	}
	var errs validation.ErrorList
	if !selectorEmpty(spec.Selector) && !selectorMatches(spec.Selector, t.Labels) {
		errs = append(errs, validation.Invalid(p.Child("metadata", "labels"), t.Labels, selectorMismatchMsg))
	}
	if !opts.skipValidatePodTemplateSpec {
		// The template's check covers its labels and annotations: kube v1.37 reports
		// each of their errors once (TestDifferential_AppsV1), not again below.
		return append(errs, validatePodTemplateSpec(t, p)...)
	}
	errs = append(errs, validation.ValidateLabels(t.Labels, p.Child("labels"))...)
	return append(errs, validation.ValidateAnnotations(t.Annotations, p.Child("annotations"))...)
}

func validateRollingUpdateStatefulSet(ru *appsv1.RollingUpdateStatefulSetStrategy, p *validation.Path) validation.ErrorList {
	var partition int32
	if ru.Partition != nil {
		partition = *ru.Partition
	}
	errs := nonNegativeField(int64(partition), p.Child("partition"))
	if ru.MaxUnavailable != nil {
		mp := p.Child("maxUnavailable")
		errs = append(errs, validatePositiveIntOrPercent(*ru.MaxUnavailable, mp)...)
		if intOrPercentValue(*ru.MaxUnavailable) == 0 {
			errs = append(errs, validation.Invalid(mp, *ru.MaxUnavailable, "cannot be 0"))
		}
		errs = append(errs, notMoreThan100Percent(*ru.MaxUnavailable, mp)...)
	}
	return errs
}

func validateRetentionPolicyType(t appsv1.PersistentVolumeClaimRetentionPolicyType, p *validation.Path) validation.ErrorList {
	switch t {
	case appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	return validation.ErrorList{validation.NotSupported(p, t, []string{
		string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)})}
}

// validateClaimTemplateSpec is the part of kube's ValidatePersistentVolumeClaimSpec that a
// claim template meets: access modes, selector, a positive storage request, the class
// name and the volume mode.
func validateClaimTemplateSpec(spec *corev1.PersistentVolumeClaimSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(spec.AccessModes) == 0 {
		errs = append(errs, validation.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	if spec.Selector != nil {
		errs = append(errs, validateLabelSelector(spec.Selector, false, p.Child("selector"))...)
	}
	supported := []string{string(corev1.ReadOnlyMany), string(corev1.ReadWriteMany), string(corev1.ReadWriteOnce), string(corev1.ReadWriteOncePod)}
	rwop, other := false, false
	for _, m := range spec.AccessModes {
		switch m {
		case corev1.ReadWriteOncePod:
			rwop = true
		case corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce:
			other = true
		default:
			errs = append(errs, validation.NotSupported(p.Child("accessModes"), m, supported))
		}
	}
	if rwop && other {
		errs = append(errs, validation.Forbidden(p.Child("accessModes"), "may not use ReadWriteOncePod with other access modes"))
	}
	sp := p.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, validation.Required(sp, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, validation.Invalid(sp, q.String(), "must be greater than zero"))
	}
	if spec.StorageClassName != nil && *spec.StorageClassName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(*spec.StorageClassName) {
			errs = append(errs, validation.Invalid(p.Child("storageClassName"), *spec.StorageClassName, msg))
		}
	}
	if m := spec.VolumeMode; m != nil && *m != corev1.PersistentVolumeBlock && *m != corev1.PersistentVolumeFilesystem {
		errs = append(errs, validation.NotSupported(p.Child("volumeMode"), *m, []string{string(corev1.PersistentVolumeBlock), string(corev1.PersistentVolumeFilesystem)}))
	}
	return errs
}

// statefulSetWarnings are kube's warnings of a StatefulSet write about its own fields.
func statefulSetWarnings(ss *appsv1.StatefulSet) []string {
	if l := ss.Spec.RevisionHistoryLimit; l != nil && *l < 0 {
		return []string{"spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"}
	}
	return nil
}

// validateStatefulSetStatusUpdate is kube's ValidateStatefulSetStatusUpdate (the
// metadata part runs in the registry).
func validateStatefulSetStatusUpdate(ss, old *appsv1.StatefulSet) validation.ErrorList {
	p := validation.NewPath("status")
	s := &ss.Status
	errs := nonNegativeField(int64(s.Replicas), p.Child("replicas"))
	errs = append(errs, nonNegativeField(int64(s.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.CurrentReplicas), p.Child("currentReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.UpdatedReplicas), p.Child("updatedReplicas"))...)
	errs = append(errs, nonNegativeField(int64(s.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, nonNegativeField(s.ObservedGeneration, p.Child("observedGeneration"))...)
	if s.CollisionCount != nil {
		errs = append(errs, nonNegativeField(int64(*s.CollisionCount), p.Child("collisionCount"))...)
	}
	for _, c := range []struct {
		name string
		v    int32
	}{{"readyReplicas", s.ReadyReplicas}, {"currentReplicas", s.CurrentReplicas}, {"updatedReplicas", s.UpdatedReplicas}, {"availableReplicas", s.AvailableReplicas}} {
		if c.v > s.Replicas {
			errs = append(errs, validation.Invalid(p.Child(c.name), c.v, greaterThanReplicasMsg))
		}
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, validation.Invalid(p.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than status.readyReplicas"))
	}
	return append(errs, collisionCountDecremented(s.CollisionCount, old.Status.CollisionCount)...)
}

// --- DaemonSet ------------------------------------------------------------------

// templateGeneration is a DaemonSet's internal spec.templateGeneration, which v1 keeps
// in an annotation; 0 when absent or not a number.
func templateGeneration(ds *appsv1.DaemonSet) int64 {
	n, _ := strconv.ParseInt(ds.Annotations[daemonSetTemplateGenerationAnnotation], 10, 64)
	return n
}

func setTemplateGeneration(ds *appsv1.DaemonSet, n int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[daemonSetTemplateGenerationAnnotation] = strconv.FormatInt(n, 10)
}

// prepareDaemonSetCreate clears the status, and starts the generation and the
// templateGeneration at 1 (a higher templateGeneration given is kept, as kube keeps it).
func prepareDaemonSetCreate(ds *appsv1.DaemonSet) {
	ds.Status = appsv1.DaemonSetStatus{}
	ds.Generation = 1
	tg := templateGeneration(ds)
	if tg < 1 {
		tg = 1
	}
	setTemplateGeneration(ds, tg)
}

// prepareDaemonSetUpdate keeps the stored status and templateGeneration; a template
// change bumps both the templateGeneration and the generation, another spec change the
// generation alone.
func prepareDaemonSetUpdate(ds, old *appsv1.DaemonSet) {
	ds.Status = old.Status
	tg := templateGeneration(old)
	switch {
	case !semanticEqual(old.Spec.Template, ds.Spec.Template):
		tg++
		ds.Generation = old.Generation + 1
	case !semanticEqual(old.Spec, ds.Spec):
		ds.Generation = old.Generation + 1
	default:
		ds.Generation = old.Generation
	}
	setTemplateGeneration(ds, tg)
}

func validateDaemonSet(ds *appsv1.DaemonSet) validation.ErrorList {
	errs := validation.ValidateObjectMeta(ds, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	return append(errs, validateDaemonSetSpec(ds, false, validation.NewPath("spec"))...)
}

// validateDaemonSetUpdate is kube's ValidateDaemonSetUpdate: the templateGeneration
// rules and the immutable selector, then the spec, whose selector may keep invalid label
// values the stored one has.
func validateDaemonSetUpdate(ds, old *appsv1.DaemonSet) validation.ErrorList {
	p := validation.NewPath("spec")
	tg, oldTG := templateGeneration(ds), templateGeneration(old)
	var errs validation.ErrorList
	if tg < oldTG {
		errs = append(errs, validation.Invalid(p.Child("templateGeneration"), tg, "must not be decremented"))
	}
	templateUpdated := !semanticEqual(ds.Spec.Template, old.Spec.Template)
	switch {
	case tg == oldTG && templateUpdated:
		errs = append(errs, validation.Invalid(p.Child("templateGeneration"), tg, "must be incremented upon template update"))
	case tg > oldTG && !templateUpdated:
		errs = append(errs, validation.Invalid(p.Child("templateGeneration"), tg, "must not be incremented without template update"))
	}
	errs = append(errs, immutableField(ds.Spec.Selector, old.Spec.Selector, p.Child("selector"))...)
	return append(errs, validateDaemonSetSpec(ds, labelSelectorHasInvalidLabelValue(old.Spec.Selector), p)...)
}

func validateDaemonSetSpec(ds *appsv1.DaemonSet, allowInvalidSelectorValues bool, p *validation.Path) validation.ErrorList {
	spec := &ds.Spec
	errs := validateLabelSelector(spec.Selector, allowInvalidSelectorValues, p.Child("selector"))
	if labelSelectorConverts(spec.Selector) && !selectorMatches(spec.Selector, spec.Template.Labels) {
		errs = append(errs, validation.Invalid(p.Child("template", "metadata", "labels"), spec.Template.Labels, selectorMismatchMsg))
	}
	if selectorEmpty(spec.Selector) {
		errs = append(errs, validation.Invalid(p.Child("selector"), spec.Selector, "empty selector is invalid for daemonset"))
	}
	errs = append(errs, validatePodTemplateSpec(&spec.Template, p.Child("template"))...)
	errs = append(errs, restartAlwaysAndNoDeadline(&spec.Template, "DaemonSet", p.Child("template", "spec"))...)
	errs = append(errs, nonNegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, nonNegativeField(templateGeneration(ds), p.Child("templateGeneration"))...)
	errs = append(errs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, p.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegativeField(int64(*spec.RevisionHistoryLimit), p.Child("revisionHistoryLimit"))...)
	}
	return errs
}

func validateDaemonSetUpdateStrategy(st *appsv1.DaemonSetUpdateStrategy, p *validation.Path) validation.ErrorList {
	switch st.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if st.RollingUpdate == nil {
			return validation.ErrorList{validation.Required(p.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdateDaemonSet(st.RollingUpdate, p.Child("rollingUpdate"))
	default:
		return validation.ErrorList{validation.NotSupported(p, internalDaemonSetStrategyOf(st),
			[]string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)})}
	}
	return nil
}

func validateRollingUpdateDaemonSet(ru *appsv1.RollingUpdateDaemonSet, p *validation.Path) validation.ErrorList {
	mu, ms := intOrStringOf(ru.MaxUnavailable), intOrStringOf(ru.MaxSurge)
	errs := validatePositiveIntOrPercent(mu, p.Child("maxUnavailable"))
	errs = append(errs, validatePositiveIntOrPercent(ms, p.Child("maxSurge"))...)
	errs = append(errs, notMoreThan100Percent(mu, p.Child("maxUnavailable"))...)
	errs = append(errs, notMoreThan100Percent(ms, p.Child("maxSurge"))...)
	hasUnavailable, hasSurge := intOrPercentValue(mu) != 0, intOrPercentValue(ms) != 0
	switch {
	case hasUnavailable && hasSurge:
		errs = append(errs, validation.Invalid(p.Child("maxSurge"), ms, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		errs = append(errs, validation.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
	}
	return errs
}

// validateDaemonSetStatusUpdate is kube's ValidateDaemonSetStatusUpdate (the metadata
// part runs in the registry).
func validateDaemonSetStatusUpdate(ds, old *appsv1.DaemonSet) validation.ErrorList {
	p := validation.NewPath("status")
	s := &ds.Status
	var errs validation.ErrorList
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"currentNumberScheduled", int64(s.CurrentNumberScheduled)}, {"numberMisscheduled", int64(s.NumberMisscheduled)},
		{"desiredNumberScheduled", int64(s.DesiredNumberScheduled)}, {"numberReady", int64(s.NumberReady)},
		{"observedGeneration", s.ObservedGeneration}, {"updatedNumberScheduled", int64(s.UpdatedNumberScheduled)},
		{"numberAvailable", int64(s.NumberAvailable)}, {"numberUnavailable", int64(s.NumberUnavailable)},
	} {
		errs = append(errs, nonNegativeField(c.v, p.Child(c.name))...)
	}
	if s.CollisionCount != nil {
		errs = append(errs, nonNegativeField(int64(*s.CollisionCount), p.Child("collisionCount"))...)
	}
	return append(errs, collisionCountDecremented(s.CollisionCount, old.Status.CollisionCount)...)
}

// --- ControllerRevision ---------------------------------------------------------

func validateControllerRevision(cr *appsv1.ControllerRevision) validation.ErrorList {
	errs := validation.ValidateObjectMeta(cr, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	return append(errs, nonNegativeField(cr.Revision, validation.NewPath("revision"))...)
}

// validateControllerRevisionCreate is kube's ValidateControllerRevisionCreate: data
// must be a JSON object.
func validateControllerRevisionCreate(cr *appsv1.ControllerRevision) validation.ErrorList {
	errs := validateControllerRevision(cr)
	p := validation.NewPath("data")
	var v any
	switch err := json.Unmarshal(cr.Data.Raw, &v); {
	case cr.Data.Raw == nil:
		errs = append(errs, validation.Required(p, "data is mandatory"))
	case err != nil:
		errs = append(errs, validation.Invalid(p, "<value omitted>", "error parsing data: "+err.Error()))
	case v == nil:
		errs = append(errs, validation.Required(p, "data is mandatory"))
	default:
		if _, ok := v.(map[string]any); !ok {
			errs = append(errs, validation.Required(p, "data must be a valid JSON object"))
		}
	}
	return errs
}

// validateControllerRevisionUpdate is kube's ValidateControllerRevisionUpdate: the
// revision's metadata and number as on create, and data that does not change.
func validateControllerRevisionUpdate(cr, old *appsv1.ControllerRevision) validation.ErrorList {
	errs := validateControllerRevision(cr)
	if !bytes.Equal(cr.Data.Raw, old.Data.Raw) {
		errs = append(errs, validation.Immutable(validation.NewPath("data"), cr.Data))
	}
	return errs
}

// --- shared rules ---------------------------------------------------------------

// immutableField is kube's ValidateImmutableField: Invalid "field is immutable" with the
// new value when it differs semantically from the old.
func immutableField(v, old any, p *validation.Path) validation.ErrorList {
	if semanticEqual(v, old) {
		return nil
	}
	return validation.ErrorList{validation.Immutable(p, v)}
}

// intOrStringOf is the internal value of an optional int-or-string: its zero (the
// integer 0) when unset.
func intOrStringOf(v *scheme.IntOrString) scheme.IntOrString {
	if v == nil {
		return scheme.IntOrString{}
	}
	return *v
}

var percentPattern = regexp.MustCompile(`^[0-9]+%$`)

// invalidPercentMsg is kube's IsValidPercent message.
const invalidPercentMsg = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

// validatePositiveIntOrPercent is kube's ValidatePositiveIntOrPercent.
func validatePositiveIntOrPercent(v scheme.IntOrString, p *validation.Path) validation.ErrorList {
	switch v.Type {
	case scheme.String:
		if !percentPattern.MatchString(v.StrVal) {
			return validation.ErrorList{validation.Invalid(p, v, invalidPercentMsg)}
		}
	case scheme.Int:
		return nonNegativeField(int64(v.IntValue()), p)
	default:
		// kube's message has the doubled percent sign, as it is not a format string there.
		return validation.ErrorList{validation.Invalid(p, v, "must be an integer or percentage (e.g '5%%')")}
	}
	return nil
}

// percentValue is kube's getPercentValue: the number of a valid percentage.
func percentValue(v scheme.IntOrString) (int, bool) {
	if v.Type != scheme.String || !percentPattern.MatchString(v.StrVal) {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// intOrPercentValue is kube's getIntOrPercentValue.
func intOrPercentValue(v scheme.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// notMoreThan100Percent is kube's IsNotMoreThan100Percent.
func notMoreThan100Percent(v scheme.IntOrString, p *validation.Path) validation.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return validation.ErrorList{validation.Invalid(p, v, "must not be greater than 100%")}
	}
	return nil
}

// The internal strategy types of kube's apps API, which kube's messages print as JSON
// with their Go field names (they have no json tags): the bad values of
// NotSupported and Invalid strategy errors.
type (
	internalRollingUpdateDeployment struct {
		MaxUnavailable scheme.IntOrString
		MaxSurge       scheme.IntOrString
	}
	internalDeploymentStrategy struct {
		Type          appsv1.DeploymentStrategyType
		RollingUpdate *internalRollingUpdateDeployment
	}
	internalRollingUpdateDaemonSet struct {
		MaxUnavailable scheme.IntOrString
		MaxSurge       scheme.IntOrString
	}
	internalDaemonSetStrategy struct {
		Type          appsv1.DaemonSetUpdateStrategyType
		RollingUpdate *internalRollingUpdateDaemonSet
	}
	internalStatefulSetRollingUpdate struct {
		Partition      int32
		MaxUnavailable *scheme.IntOrString
	}
	internalStatefulSetStrategy struct {
		Type          appsv1.StatefulSetUpdateStrategyType
		RollingUpdate *internalStatefulSetRollingUpdate
	}
)

func internalDeploymentStrategyOf(st *appsv1.DeploymentStrategy) internalDeploymentStrategy {
	out := internalDeploymentStrategy{Type: st.Type}
	if ru := st.RollingUpdate; ru != nil {
		out.RollingUpdate = &internalRollingUpdateDeployment{MaxUnavailable: intOrStringOf(ru.MaxUnavailable), MaxSurge: intOrStringOf(ru.MaxSurge)}
	}
	return out
}

func internalDaemonSetStrategyOf(st *appsv1.DaemonSetUpdateStrategy) internalDaemonSetStrategy {
	out := internalDaemonSetStrategy{Type: st.Type}
	if ru := st.RollingUpdate; ru != nil {
		out.RollingUpdate = &internalRollingUpdateDaemonSet{MaxUnavailable: intOrStringOf(ru.MaxUnavailable), MaxSurge: intOrStringOf(ru.MaxSurge)}
	}
	return out
}

func internalStatefulSetRollingUpdateOf(ru *appsv1.RollingUpdateStatefulSetStrategy) *internalStatefulSetRollingUpdate {
	if ru == nil {
		return nil
	}
	out := &internalStatefulSetRollingUpdate{MaxUnavailable: ru.MaxUnavailable}
	if ru.Partition != nil {
		out.Partition = *ru.Partition
	}
	return out
}

func internalStatefulSetStrategyOf(st *appsv1.StatefulSetUpdateStrategy) internalStatefulSetStrategy {
	return internalStatefulSetStrategy{Type: st.Type, RollingUpdate: internalStatefulSetRollingUpdateOf(st.RollingUpdate)}
}
