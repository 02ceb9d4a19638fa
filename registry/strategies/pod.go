package strategies

import (
	"context"
	"math"
	"reflect"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// podStrategy is kube-apiserver v1.37's pod strategy (pkg/registry/core/pod): a new
// pod is Pending at generation 1 with its QoS class computed; an update keeps the
// status, bumps the generation when the spec changes, and may change only the images,
// activeDeadlineSeconds, added tolerations and removed scheduling gates.
func podStrategy() registry.StrategyFor[*corev1.Pod] {
	return registry.StrategyFor[*corev1.Pod]{
		PrepareForCreate: func(_ context.Context, p *corev1.Pod) { preparePodForCreate(p) },
		PrepareForUpdate: func(_ context.Context, p, old *corev1.Pod) { preparePodForUpdate(p, old) },
		Validate:         func(_ context.Context, p *corev1.Pod) validation.ErrorList { return uniqueErrors(validatePodCreate(p)) },
		ValidateUpdate: func(_ context.Context, p, old *corev1.Pod) validation.ErrorList {
			return uniqueErrors(validatePodUpdate(p, old))
		},
		WarningsOnCreate: func(_ context.Context, p *corev1.Pod) []string { return podWarningsOnCreate(p) },
	}
}

// uniqueErrors drops the repeats of an error, keeping the first: kube-apiserver's
// declarative validation step (every pod and podtemplate write) filters the list
// through ErrorList.ToAggregate, which removes errors whose text repeats.
func uniqueErrors(errs validation.ErrorList) validation.ErrorList {
	seen := make(map[string]bool, len(errs))
	out := errs[:0:0]
	for _, e := range errs {
		if s := e.Error(); !seen[s] {
			seen[s] = true
			out = append(out, e)
		}
	}
	return out
}

// addDefaultTolerations is kube-apiserver's DefaultTolerationSeconds admission plugin
// (on by default), run on a pod's creates and updates: a pod that does not tolerate
// the not-ready or unreachable NoExecute taint tolerates it for 300 seconds.
func addDefaultTolerations(spec *corev1.PodSpec) {
	const notReady, unreachable = "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"
	tolerates := func(key string) bool {
		for _, t := range spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				return true
			}
		}
		return false
	}
	missNotReady, missUnreachable := !tolerates(notReady), !tolerates(unreachable)
	for _, m := range []struct {
		missing bool
		key     string
	}{{missNotReady, notReady}, {missUnreachable, unreachable}} {
		if m.missing {
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: m.key, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))})
		}
	}
}

// AddDefaultTolerations is what the DefaultTolerationSeconds admission plugin
// (package registry/admission) adds to a pod before the admission webhooks see it; the
// Pod strategy adds the same (nothing when they are there).
func AddDefaultTolerations(spec *corev1.PodSpec) { addDefaultTolerations(spec) }

func ptrTo[T any](v T) *T { return &v }

func preparePodForCreate(p *corev1.Pod) {
	addDefaultTolerations(&p.Spec)
	p.Generation = 1
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	dropDisabledPodFields(&p.Spec, p.Annotations, nil)
	if len(p.Spec.SchedulingGates) > 0 {
		p.Status.Conditions = []corev1.PodCondition{{
			Type:               corev1.PodScheduled,
			LastTransitionTime: scheme.Now(),
			Status:             corev1.ConditionFalse,
			Reason:             "SchedulingGated",
			Message:            "Scheduling is blocked due to non-empty scheduling gates",
		}}
	}
	mutatePodAffinity(p)
	for i := range p.Spec.TopologySpreadConstraints {
		c := &p.Spec.TopologySpreadConstraints[i]
		if len(c.MatchLabelKeys) > 0 && c.LabelSelector != nil {
			applyLabelKeys(c.LabelSelector, c.MatchLabelKeys, "In", p.Labels)
		}
	}
	defaultPodLevelResources(&p.Spec)
	p.Status.QOSClass = podQOS(&p.Spec)
}

// mutatePodAffinity is kube's: matchLabelKeys and mismatchLabelKeys of the pod
// (anti-)affinity terms become In and NotIn expressions on the pod's own label values
// (MatchLabelKeysInPodAffinity is GA).
func mutatePodAffinity(p *corev1.Pod) {
	a := p.Spec.Affinity
	if a == nil {
		return
	}
	apply := func(t *corev1.PodAffinityTerm) {
		if (len(t.MatchLabelKeys) == 0 && len(t.MismatchLabelKeys) == 0) || t.LabelSelector == nil {
			return
		}
		applyLabelKeys(t.LabelSelector, t.MatchLabelKeys, "In", p.Labels)
		applyLabelKeys(t.LabelSelector, t.MismatchLabelKeys, "NotIn", p.Labels)
	}
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			apply(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			apply(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			apply(&pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			apply(&pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
	}
}

func applyLabelKeys(s *metav1.LabelSelector, keys []string, op string, labels map[string]string) {
	for _, k := range keys {
		if v, ok := labels[k]; ok {
			s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: op, Values: []string{v}})
		}
	}
}

func preparePodForUpdate(p, old *corev1.Pod) {
	addDefaultTolerations(&p.Spec)
	p.Status = old.Status
	if p.Spec.Resources == nil && old.Spec.Resources != nil {
		r := *old.Spec.Resources
		p.Spec.Resources = &r
	}
	dropDisabledPodFields(&p.Spec, p.Annotations, &old.Spec)
	// The registry has carried the stored generation over, as kube's BeforeUpdate does.
	if !podSpecsEqual(&p.Spec, &old.Spec) {
		p.Generation = old.Generation + 1
	} else {
		p.Generation = old.Generation
	}
}

// quantityEqual compares quantities by value, as apimachinery's semantic equality does.
var quantityEqual = cmp.Comparer(func(a, b quantity.Quantity) bool { return a.Cmp(b) == 0 })

// semantic is apimachinery's equality.Semantic: quantities by value, and an empty
// slice or map equal to a nil one.
var semantic = cmp.Options{quantityEqual, cmpopts.EquateEmpty()}

func podSpecsEqual(a, b *corev1.PodSpec) bool { return cmp.Equal(a, b, semantic) }

// podQOS is kube's ComputePodQOS: BestEffort without cpu or memory requests and
// limits, Guaranteed when every container's requests equal its limits for both,
// Burstable otherwise; pod-level resources decide when they are set.
func podQOS(spec *corev1.PodSpec) corev1.PodQOSClass {
	if r := spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		return requirementsQOS(r)
	}
	var qos corev1.PodQOSClass
	all := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	for i := range all {
		c := requirementsQOS(&all[i].Resources)
		switch {
		case c == corev1.PodQOSBurstable:
			return c
		case qos == "":
			qos = c
		case qos != c:
			return corev1.PodQOSBurstable
		}
	}
	if qos == "" {
		return corev1.PodQOSBestEffort
	}
	return qos
}

func requirementsQOS(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var qos corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		var c corev1.PodQOSClass
		switch {
		case req.Cmp(lim) != 0:
			c = corev1.PodQOSBurstable
		case req.IsZero():
			c = corev1.PodQOSBestEffort
		default:
			c = corev1.PodQOSGuaranteed
		}
		switch {
		case c == corev1.PodQOSBurstable:
			return c
		case qos == "":
			qos = c
		case qos != c:
			return corev1.PodQOSBurstable
		}
	}
	return qos
}

// validatePodMetadataAndSpec is kube's validatePodMetadataAndSpec but for the
// metadata, which the registry checks: the pod's annotations, its spec, token
// projections needing a service account, a non-negative grace period, and images
// without surrounding whitespace.
func validatePodMetadataAndSpec(p *corev1.Pod) validation.ErrorList {
	spec := validation.NewPath("spec")
	errs := validatePodSpecificAnnotations(p.Annotations, &p.Spec, validation.NewPath("metadata", "annotations"))
	errs = append(errs, validatePodSpecWith(&p.Spec, &p.ObjectMeta, spec, podOptions{resourceIsPod: true})...)
	if p.Spec.ServiceAccountName == "" {
		for vi, v := range p.Spec.Volumes {
			if v.Projected == nil {
				continue
			}
			for si, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil {
					errs = append(errs, validation.Forbidden(spec.Child("volumes").Index(vi).Child("projected", "sources").Index(si).Child("serviceAccountToken"),
						"must not be specified when serviceAccountName is not set"))
				}
			}
		}
	}
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil {
		errs = append(errs, validateNonnegative(*g, spec.Child("terminationGracePeriodSeconds"))...)
	}
	for i := range p.Spec.Containers {
		errs = append(errs, validateImageWhitespace(&p.Spec.Containers[i], spec.Child("containers").Index(i))...)
	}
	for i := range p.Spec.InitContainers {
		errs = append(errs, validateImageWhitespace(&p.Spec.InitContainers[i], spec.Child("initContainers").Index(i))...)
	}
	return errs
}

// validatePodCreate is kube's ValidatePodCreate.
func validatePodCreate(p *corev1.Pod) validation.ErrorList {
	errs := validatePodMetadataAndSpec(p)
	spec := validation.NewPath("spec")
	if len(p.Spec.EphemeralContainers) > 0 {
		errs = append(errs, validation.Forbidden(spec.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if p.Spec.NodeName != "" && len(p.Spec.SchedulingGates) > 0 {
		errs = append(errs, validation.Forbidden(spec.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

// updatablePodSpecFields are the fields kube lets a pod update change, as its message
// lists them.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// podUpdateForbidden is the start of kube's message when a pod update changes a field
// it may not change; the message goes on with a diff of the two specs.
var podUpdateForbidden = "pod updates may not change fields other than " + strings.Join(updatablePodSpecFields, ",")

// validatePodUpdate is kube's ValidatePodUpdate (the metadata update rules are the
// registry's).
func validatePodUpdate(p, old *corev1.Pod) validation.ErrorList {
	errs := validatePodMetadataAndSpec(p)
	spec := validation.NewPath("spec")
	if e, stop := validateContainerUpdates(p.Spec.Containers, old.Spec.Containers, spec.Child("containers")); stop {
		return append(errs, e...)
	} else {
		errs = append(errs, e...)
	}
	if e, stop := validateContainerUpdates(p.Spec.InitContainers, old.Spec.InitContainers, spec.Child("initContainers")); stop {
		return append(errs, e...)
	} else {
		errs = append(errs, e...)
	}
	adsPath := spec.Child("activeDeadlineSeconds")
	if ads := p.Spec.ActiveDeadlineSeconds; ads != nil {
		if *ads < 0 || *ads > math.MaxInt32 {
			return append(errs, validation.Invalid(adsPath, *ads, inclusiveRangeError(0, math.MaxInt32)))
		}
		if o := old.Spec.ActiveDeadlineSeconds; o != nil && *o < *ads {
			return append(errs, validation.Invalid(adsPath, *ads, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, validation.Invalid(adsPath, nil, "must not update from a positive integer to nil value"))
	}
	errs = append(errs, validateOnlyAddedTolerations(p.Spec.Tolerations, old.Spec.Tolerations, spec.Child("tolerations"))...)
	errs = append(errs, validateOnlyDeletedSchedulingGates(p.Spec.SchedulingGates, old.Spec.SchedulingGates, spec.Child("schedulingGates"))...)
	if podSpecsEqual(&p.Spec, &old.Spec) {
		return errs
	}
	// The spec with what an update may change set back to the stored values.
	munged := p.Spec
	munged.Containers = withOldImages(p.Spec.Containers, old.Spec.Containers)
	munged.InitContainers = withOldImages(p.Spec.InitContainers, old.Spec.InitContainers)
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.SchedulingGates = old.Spec.SchedulingGates
	munged.Tolerations = old.Spec.Tolerations
	if o, n := old.Spec.TerminationGracePeriodSeconds, munged.TerminationGracePeriodSeconds; o != nil && *o < 0 && n != nil && *n == 1 {
		munged.TerminationGracePeriodSeconds = o
	}
	if len(old.Spec.SchedulingGates) > 0 {
		// A gated pod may still narrow its placement: add to its node selector and
		// to its required node affinity terms.
		if !cmp.Equal(munged.NodeSelector, old.Spec.NodeSelector, semantic) {
			errs = append(errs, validateNodeSelectorMutation(spec.Child("nodeSelector"), munged.NodeSelector, old.Spec.NodeSelector)...)
			munged.NodeSelector = old.Spec.NodeSelector
		}
		var oldNA, newNA *corev1.NodeAffinity
		if old.Spec.Affinity != nil {
			oldNA = old.Spec.Affinity.NodeAffinity
		}
		if munged.Affinity != nil {
			newNA = munged.Affinity.NodeAffinity
		}
		if !cmp.Equal(oldNA, newNA, semantic) {
			errs = append(errs, validateNodeAffinityMutation(spec.Child("affinity", "nodeAffinity"), newNA, oldNA)...)
			switch {
			case munged.Affinity == nil && oldNA == nil:
			case munged.Affinity == nil:
				munged.Affinity = &corev1.Affinity{NodeAffinity: oldNA}
			case old.Spec.Affinity == nil && munged.Affinity.PodAntiAffinity == nil && munged.Affinity.PodAffinity == nil:
				munged.Affinity = nil
			default:
				a := *munged.Affinity
				a.NodeAffinity = oldNA
				munged.Affinity = &a
			}
		}
	}
	if !podSpecsEqual(&munged, &old.Spec) {
		errs = append(errs, validation.Forbidden(spec, podUpdateForbidden+"\n"+podSpecDiff(&old.Spec, &munged)))
	}
	return errs
}

func validateNodeSelectorMutation(p *validation.Path, next, old map[string]string) validation.ErrorList {
	for k, v := range old {
		if nv, ok := next[k]; !ok || nv != v {
			return validation.ErrorList{validation.Invalid(p, next, "only additions to spec.nodeSelector are allowed (no mutations or deletions)")}
		}
	}
	return nil
}

func validateNodeAffinityMutation(p *validation.Path, next, old *corev1.NodeAffinity) validation.ErrorList {
	if old == nil || old.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	oldTerms := old.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	var newTerms []corev1.NodeSelectorTerm
	if next != nil && next.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		newTerms = next.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	}
	tp := p.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	if len(oldTerms) > 0 && len(oldTerms) != len(newTerms) {
		return validation.ErrorList{validation.Invalid(tp, badStruct(newTerms), "no additions/deletions to non-empty NodeSelectorTerms list are allowed")}
	}
	var errs validation.ErrorList
	for i := range oldTerms {
		if !termOnlyAdds(newTerms[i], oldTerms[i]) {
			errs = append(errs, validation.Invalid(tp.Index(i), badStruct(newTerms[i]), "only additions are allowed (no mutations or deletions)"))
		}
	}
	return errs
}

// termOnlyAdds reports whether next keeps old's requirements in order and only adds.
func termOnlyAdds(next, old corev1.NodeSelectorTerm) bool {
	if len(old.MatchExpressions) == 0 && len(old.MatchFields) == 0 && (len(next.MatchExpressions) > 0 || len(next.MatchFields) > 0) {
		return false
	}
	if l := len(old.MatchExpressions); l > 0 && (len(next.MatchExpressions) < l || !cmp.Equal(next.MatchExpressions[:l], old.MatchExpressions, semantic)) {
		return false
	}
	if l := len(old.MatchFields); l > 0 && (len(next.MatchFields) < l || !cmp.Equal(next.MatchFields[:l], old.MatchFields, semantic)) {
		return false
	}
	return true
}

// withOldImages is a copy of next (nil when empty, as kube builds it) with the images
// of old, which have as many containers.
func withOldImages(next, old []corev1.Container) []corev1.Container {
	var out []corev1.Container
	for i, c := range next {
		c.Image = old[i].Image
		out = append(out, c)
	}
	return out
}

func validateContainerUpdates(next, old []corev1.Container, fldPath *validation.Path) (validation.ErrorList, bool) {
	if len(next) != len(old) {
		return validation.ErrorList{validation.Forbidden(fldPath, "pod updates may not add or remove containers")}, true
	}
	var errs validation.ErrorList
	for i, c := range next {
		if c.Image == "" {
			errs = append(errs, validation.Required(fldPath.Index(i).Child("image"), ""))
		}
		if len(strings.TrimSpace(c.Image)) != len(c.Image) {
			errs = append(errs, validation.Invalid(fldPath.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
	}
	return errs, false
}

func validateOnlyAddedTolerations(next, old []corev1.Toleration, fldPath *validation.Path) validation.ErrorList {
	for _, o := range old {
		found := false
		for _, n := range next {
			c := o
			c.TolerationSeconds = n.TolerationSeconds
			if reflect.DeepEqual(c, n) {
				found = true
				break
			}
		}
		if !found {
			return validation.ErrorList{validation.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return validateTolerations(next, fldPath)
}

func validateOnlyDeletedSchedulingGates(next, old []corev1.PodSchedulingGate, fldPath *validation.Path) validation.ErrorList {
	if len(next) == 0 {
		return nil
	}
	known := make(map[string]bool, len(old))
	for _, g := range old {
		known[g.Name] = true
	}
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, g := range next {
		if known[g.Name] || seen[g.Name] {
			continue
		}
		seen[g.Name] = true
		errs = append(errs, validation.Forbidden(fldPath.Index(i).Child("name"), "only deletion is allowed, but found new scheduling gate '"+g.Name+"'"))
	}
	return errs
}

// podWarningsOnCreate is kube's WarningsOnCreate for a pod: a name that is not a DNS
// label, then the warnings of its spec and metadata.
func podWarningsOnCreate(p *corev1.Pod) []string {
	var warnings []string
	if msgs := validation.IsDNS1123Label(p.Name); len(msgs) > 0 {
		warnings = append(warnings, "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: ["+strings.Join(msgs, " ")+"]")
	}
	return append(warnings, podSpecWarnings(nil, &p.Spec, p.Annotations)...)
}

// podTemplateStrategy is kube's podtemplate strategy: generation 1 on create and one
// more when the template changes, the template validated as a pod template under
// "template", and the template's warnings on create and on a change.
func podTemplateStrategy() registry.StrategyFor[*corev1.PodTemplate] {
	return registry.StrategyFor[*corev1.PodTemplate]{
		PrepareForCreate: func(_ context.Context, t *corev1.PodTemplate) {
			t.Generation = 1
			dropDisabledPodTemplateFields(&t.Template, nil)
		},
		PrepareForUpdate: func(_ context.Context, t, old *corev1.PodTemplate) {
			dropDisabledPodTemplateFields(&t.Template, &old.Template)
			t.Generation = old.Generation
			if !cmp.Equal(&t.Template, &old.Template, semantic) {
				t.Generation = old.Generation + 1
			}
		},
		Validate: func(_ context.Context, t *corev1.PodTemplate) validation.ErrorList {
			return uniqueErrors(validatePodTemplateSpec(&t.Template, validation.NewPath("template")))
		},
		ValidateUpdate: func(_ context.Context, t, _ *corev1.PodTemplate) validation.ErrorList {
			return uniqueErrors(validatePodTemplateSpec(&t.Template, validation.NewPath("template")))
		},
		WarningsOnCreate: func(_ context.Context, t *corev1.PodTemplate) []string {
			return podTemplateWarnings(validation.NewPath("template"), &t.Template)
		},
		WarningsOnUpdate: func(_ context.Context, t, old *corev1.PodTemplate) []string {
			if t.Generation == old.Generation {
				return nil
			}
			return podTemplateWarnings(validation.NewPath("template"), &t.Template)
		},
	}
}
