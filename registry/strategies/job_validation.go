package strategies

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "github.com/apikit-dev/apikit/builtin/batch/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/validation"
)

// Limits of kube's Job validation (pkg/apis/batch/validation).
const (
	maxParallelismForIndexedJob             = 100_000
	maxFailedIndexesForIndexedJob           = 100_000
	completionsSoftLimit                    = 100_000
	parallelismLimitForHighCompletions      = 10_000
	maxFailedIndexesLimitForHighCompletions = 10_000
	maxPodFailurePolicyRules                = 20
	maxPodFailurePolicyOnExitCodesValues    = 255
	maxPodFailurePolicyOnPodConditions      = 20
	maxManagedByLength                      = 63
	maxSuccessPolicySucceededIndexes        = 64 * 1024
	maxSuccessPolicyRules                   = 20
	// parallelismSoftLimitForUnlimitedCompletions is pkg/api/job's warning threshold.
	parallelismSoftLimitForUnlimitedCompletions = 10_000
)

// The values kube's messages list, sorted as its sets.List sorts them.
var (
	podFailurePolicyActions   = []string{"Count", "FailIndex", "FailJob", "Ignore"}
	onExitCodesOperators      = []string{"In", "NotIn"}
	onPodConditionsStatuses   = []string{"False", "True", "Unknown"}
	podReplacementPolicies    = []string{"Failed", "TerminatingOrFailed"}
	completionModes           = []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}
	jobRestartPolicies        = []string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)}
	jobRestartPolicyRequired  = fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)
	jobTemplatePath           = validation.NewPath("spec", "template")
	jobTemplateMetadataPath   = jobTemplatePath.Child("metadata")
	domainPrefixedPathPattern = regexp.MustCompile(`^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$`)
)

// jobOptions are kube's JobValidationOptions that apikit's rules read.
type jobOptions struct {
	// allowInvalidSelectorValues keeps a stored selector whose values are no label values.
	allowInvalidSelectorValues bool
	// requirePrefixedLabels checks the batch.kubernetes.io labels of a generated selector.
	requirePrefixedLabels bool
	// allowMutableSchedulingDirectives and allowMutablePodResources are what a
	// suspended Job's template may change (both gates are beta, on, in v1.37).
	allowMutableSchedulingDirectives bool
	allowMutablePodResources         bool
}

// validateJobCreate is kube's ValidateJobCreate: metadata with a DNS subdomain name,
// the generated selector and labels, the spec, and a name that an Indexed Job's pod
// hostnames can carry.
func validateJobCreate(j *batchv1.Job) validation.ErrorList {
	errs := validation.ValidateObjectMeta(j, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	errs = append(errs, validateGeneratedSelector(j, true)...)
	errs = append(errs, validateJobSpecAndSelector(&j.Spec, jobSpecPath, false)...)
	return append(errs, validateNameAllowsCompletions(j)...)
}

// validateJobUpdate is kube's ValidateJobUpdate with the options of its Job strategy:
// a stored selector's bad values kept, and a suspended Job that never started (or is
// suspended again, with no active pods) may change its scheduling directives and its
// containers' resources.
func validateJobUpdate(j, old *batchv1.Job) validation.ErrorList {
	mutable := old.Spec.Suspend != nil && *old.Spec.Suspend &&
		(old.Status.StartTime == nil || jobConditionTrue(old.Status.Conditions, batchv1.JobSuspended)) && old.Status.Active == 0
	opts := jobOptions{
		allowInvalidSelectorValues:       labelSelectorHasInvalidLabelValue(old.Spec.Selector),
		allowMutableSchedulingDirectives: mutable,
		allowMutablePodResources:         mutable,
	}
	p := jobSpecPath
	errs := validateJobSpecAndSelector(&j.Spec, p, opts.allowInvalidSelectorValues)
	errs = append(errs, validateJobCompletionsUpdate(&j.Spec, &old.Spec, p.Child("completions"))...)
	errs = append(errs, immutableField(j.Spec.Selector, old.Spec.Selector, p.Child("selector"))...)
	errs = append(errs, validateJobTemplateUpdate(&j.Spec, &old.Spec, opts)...)
	errs = append(errs, immutableField(j.Spec.CompletionMode, old.Spec.CompletionMode, p.Child("completionMode"))...)
	if !semanticEqual(j.Spec.PodFailurePolicy, old.Spec.PodFailurePolicy) {
		errs = append(errs, validation.Immutable(p.Child("podFailurePolicy"), badStructOrNil(j.Spec.PodFailurePolicy)))
	}
	errs = append(errs, immutableField(j.Spec.BackoffLimitPerIndex, old.Spec.BackoffLimitPerIndex, p.Child("backoffLimitPerIndex"))...)
	errs = append(errs, immutableField(j.Spec.ManagedBy, old.Spec.ManagedBy, p.Child("managedBy"))...)
	if !semanticEqual(j.Spec.SuccessPolicy, old.Spec.SuccessPolicy) {
		errs = append(errs, validation.Immutable(p.Child("successPolicy"), badStructOrNil(j.Spec.SuccessPolicy)))
	}
	return append(errs, validateNameAllowsCompletions(j)...)
}

// badStructOrNil renders a pointer to an internal struct as kube does, nil as null.
func badStructOrNil[T any](v *T) any {
	if v == nil {
		return nil
	}
	return badStruct(v)
}

// validateGeneratedSelector is kube's validateGeneratedSelector: unless the selector is
// manual, the object has a uid, the template carries the labels generateJobSelector
// adds with the Job's uid and name, and the selector selects them.
func validateGeneratedSelector(j *batchv1.Job, prefixed bool) validation.ErrorList {
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector || j.Spec.Selector == nil {
		return nil
	}
	var errs validation.ErrorList
	if j.UID == "" {
		errs = append(errs, validation.Required(validation.NewPath("metadata", "uid"), ""))
	}
	uid := string(j.UID)
	errs = append(errs, hasLabel(j.Spec.Template.Labels, legacyControllerUIDLabel, uid)...)
	errs = append(errs, hasLabel(j.Spec.Template.Labels, legacyJobNameLabel, j.Name)...)
	expected := map[string]string{legacyControllerUIDLabel: uid, legacyJobNameLabel: j.Name}
	if prefixed {
		errs = append(errs, hasLabel(j.Spec.Template.Labels, controllerUIDLabel, uid)...)
		errs = append(errs, hasLabel(j.Spec.Template.Labels, jobNameLabel, j.Name)...)
		expected[controllerUIDLabel] = uid
		expected[jobNameLabel] = j.Name
	}
	if labelSelectorConverts(j.Spec.Selector) && !selectorMatches(j.Spec.Selector, expected) {
		errs = append(errs, validation.Invalid(validation.NewPath("spec", "selector"), j.Spec.Selector, "`selector` not auto-generated"))
	}
	return errs
}

// hasLabel is kube's ValidateHasLabel on the Job's template metadata.
func hasLabel(labels map[string]string, key, want string) validation.ErrorList {
	p := jobTemplateMetadataPath.Child("labels").Key(key)
	got, ok := labels[key]
	switch {
	case !ok:
		return validation.ErrorList{validation.Required(p, fmt.Sprintf("must be '%s'", want))}
	case got != want:
		return validation.ErrorList{validation.Invalid(p, labels, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// validateNameAllowsCompletions is kube's rule that an Indexed Job's last pod hostname,
// "<name>-<completions-1>", is a DNS label.
func validateNameAllowsCompletions(j *batchv1.Job) validation.ErrorList {
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion || j.Spec.Completions == nil || *j.Spec.Completions <= 0 {
		return nil
	}
	host := fmt.Sprintf("%s-%d", j.Name, *j.Spec.Completions-1)
	if len(validation.IsDNS1123Label(host)) > 0 {
		return validation.ErrorList{validation.Invalid(validation.NewPath("metadata", "name"), j.Name, "will not able to create pod with invalid DNS label: "+host)}
	}
	return nil
}

// validateJobSpecAndSelector is kube's ValidateJobSpec: the spec's rules, a required
// valid selector, and a selector that matches the template's labels.
func validateJobSpecAndSelector(spec *batchv1.JobSpec, p *validation.Path, allowInvalidSelectorValues bool) validation.ErrorList {
	errs := validateJobSpec(spec, p)
	if spec.Selector == nil {
		errs = append(errs, validation.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(spec.Selector, allowInvalidSelectorValues, p.Child("selector"))...)
	}
	// A nil selector converts to the one that matches nothing.
	if labelSelectorConverts(spec.Selector) && !selectorMatches(spec.Selector, spec.Template.Labels) {
		errs = append(errs, validation.Invalid(p.Child("template", "metadata", "labels"), spec.Template.Labels, selectorMismatchMsg))
	}
	return errs
}

// validateJobSpec is kube's validateJobSpec, shared by Jobs and CronJobs' job templates:
// the counts, managedBy, the completion mode's limits, the pod failure and success
// policies, the pod replacement policy, the template, and its restartPolicy.
func validateJobSpec(spec *batchv1.JobSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, f := range []struct {
		v    *int32
		name string
	}{{spec.Parallelism, "parallelism"}, {spec.Completions, "completions"}} {
		if f.v != nil {
			errs = append(errs, nonNegativeField(int64(*f.v), p.Child(f.name))...)
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, nonNegativeField(*spec.ActiveDeadlineSeconds, p.Child("activeDeadlineSeconds"))...)
	}
	for _, f := range []struct {
		v    *int32
		name string
	}{{spec.BackoffLimit, "backoffLimit"}, {spec.TTLSecondsAfterFinished, "ttlSecondsAfterFinished"}, {spec.BackoffLimitPerIndex, "backoffLimitPerIndex"}} {
		if f.v != nil {
			errs = append(errs, nonNegativeField(int64(*f.v), p.Child(f.name))...)
		}
	}
	if spec.MaxFailedIndexes != nil {
		errs = append(errs, nonNegativeField(int64(*spec.MaxFailedIndexes), p.Child("maxFailedIndexes"))...)
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, validation.Required(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if spec.ManagedBy != nil {
		errs = append(errs, domainPrefixedPath(*spec.ManagedBy, p.Child("managedBy"))...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			errs = append(errs, validation.TooLong(p.Child("managedBy"), "", maxManagedByLength))
		}
	}
	errs = append(errs, validateCompletionMode(spec, p)...)
	if spec.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(spec, p.Child("podFailurePolicy"))...)
	}
	if spec.SuccessPolicy != nil {
		if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
			errs = append(errs, validation.Invalid(p.Child("successPolicy"), badStruct(*spec.SuccessPolicy), "requires indexed completion mode"))
		} else {
			errs = append(errs, validateSuccessPolicy(spec, p.Child("successPolicy"))...)
		}
	}
	if r := spec.PodReplacementPolicy; r != nil {
		switch {
		case spec.PodFailurePolicy != nil && *r != batchv1.Failed:
			errs = append(errs, validation.NotSupported(p.Child("podReplacementPolicy"), *r, []string{string(batchv1.Failed)}))
		case spec.PodFailurePolicy == nil && !slices.Contains(podReplacementPolicies, string(*r)):
			errs = append(errs, validation.NotSupported(p.Child("podReplacementPolicy"), *r, podReplacementPolicies))
		}
	}
	errs = append(errs, validatePodTemplateSpec(&spec.Template, p.Child("template"))...)
	rp := p.Child("template", "spec", "restartPolicy")
	switch restart := spec.Template.Spec.RestartPolicy; {
	case restart == corev1.RestartPolicyAlways || restart == "":
		errs = append(errs, validation.Required(rp, jobRestartPolicyRequired))
	case restart != corev1.RestartPolicyOnFailure && restart != corev1.RestartPolicyNever:
		errs = append(errs, validation.NotSupported(rp, restart, jobRestartPolicies))
	case spec.PodFailurePolicy != nil && restart != corev1.RestartPolicyNever:
		errs = append(errs, validation.Invalid(rp, restart, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	return errs
}

// validateCompletionMode is kube's check of spec.completionMode: a known mode; for
// Indexed, completions set and the parallelism and failed-index limits; for NonIndexed,
// no per-index backoff.
func validateCompletionMode(spec *batchv1.JobSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if mode := spec.CompletionMode; mode != nil {
		if *mode != batchv1.NonIndexedCompletion && *mode != batchv1.IndexedCompletion {
			errs = append(errs, validation.NotSupported(p.Child("completionMode"), mode, completionModes))
		}
		if *mode == batchv1.IndexedCompletion {
			if spec.Completions == nil {
				errs = append(errs, validation.Required(p.Child("completions"), "when completion mode is Indexed"))
			}
			if spec.Parallelism != nil && *spec.Parallelism > maxParallelismForIndexedJob {
				errs = append(errs, validation.Invalid(p.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxParallelismForIndexedJob)))
			}
			if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
				errs = append(errs, validation.Invalid(p.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
			}
			if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesForIndexedJob {
				errs = append(errs, validation.Invalid(p.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob)))
			}
			if spec.Completions != nil && *spec.Completions > completionsSoftLimit && spec.BackoffLimitPerIndex != nil {
				high := fmt.Sprintf("when completions are above %d and used with backoff limit per index", completionsSoftLimit)
				if spec.MaxFailedIndexes == nil {
					errs = append(errs, validation.Required(p.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
				}
				if spec.Parallelism != nil && *spec.Parallelism > parallelismLimitForHighCompletions {
					errs = append(errs, validation.Invalid(p.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d %s", parallelismLimitForHighCompletions, high)))
				}
				if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
					errs = append(errs, validation.Invalid(p.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d %s", maxFailedIndexesLimitForHighCompletions, high)))
				}
			}
		}
	}
	if spec.CompletionMode == nil || *spec.CompletionMode == batchv1.NonIndexedCompletion {
		if spec.BackoffLimitPerIndex != nil {
			errs = append(errs, validation.Invalid(p.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if spec.MaxFailedIndexes != nil {
			errs = append(errs, validation.Invalid(p.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	return errs
}

// domainPrefixedPath is apimachinery's IsDomainPrefixedPath: "<DNS subdomain>/<path>".
func domainPrefixedPath(v string, p *validation.Path) validation.ErrorList {
	if v == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	host, path, ok := strings.Cut(v, "/")
	if !ok || host == "" || path == "" {
		return validation.ErrorList{validation.Invalid(p, v, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	var errs validation.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(host) {
		errs = append(errs, validation.Invalid(p, host, msg))
	}
	if !domainPrefixedPathPattern.MatchString(path) {
		errs = append(errs, validation.Invalid(p, path, `Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+')`))
	}
	return errs
}

// validatePodFailurePolicy is kube's validatePodFailurePolicy: at most 20 rules, each
// with a known action and exactly one of onExitCodes and onPodConditions.
func validatePodFailurePolicy(spec *batchv1.JobSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	rules := p.Child("rules")
	if n := len(spec.PodFailurePolicy.Rules); n > maxPodFailurePolicyRules {
		errs = append(errs, validation.TooMany(rules, n, maxPodFailurePolicyRules))
	}
	names := map[string]bool{}
	for _, c := range spec.Template.Spec.Containers {
		names[c.Name] = true
	}
	for _, c := range spec.Template.Spec.InitContainers {
		names[c.Name] = true
	}
	for i := range spec.PodFailurePolicy.Rules {
		errs = append(errs, validatePodFailurePolicyRule(spec, &spec.PodFailurePolicy.Rules[i], rules.Index(i), names)...)
	}
	return errs
}

func validatePodFailurePolicyRule(spec *batchv1.JobSpec, rule *batchv1.PodFailurePolicyRule, p *validation.Path, names map[string]bool) validation.ErrorList {
	var errs validation.ErrorList
	ap := p.Child("action")
	switch {
	case rule.Action == "":
		errs = append(errs, validation.Required(ap, fmt.Sprintf("valid values: %q", podFailurePolicyActions)))
	case rule.Action == batchv1.PodFailurePolicyActionFailIndex:
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, validation.Invalid(ap, rule.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case !slices.Contains(podFailurePolicyActions, string(rule.Action)):
		errs = append(errs, validation.NotSupported(ap, rule.Action, podFailurePolicyActions))
	}
	if rule.OnExitCodes != nil {
		errs = append(errs, validateOnExitCodes(rule.OnExitCodes, p.Child("onExitCodes"), names)...)
	}
	if len(rule.OnPodConditions) > 0 {
		errs = append(errs, validateOnPodConditions(rule.OnPodConditions, p.Child("onPodConditions"))...)
	}
	if rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0 {
		errs = append(errs, validation.Invalid(p, validation.OmitValue, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0 {
		errs = append(errs, validation.Invalid(p, validation.OmitValue, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

func validateOnPodConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(patterns) > maxPodFailurePolicyOnPodConditions {
		errs = append(errs, validation.TooMany(p, len(patterns), maxPodFailurePolicyOnPodConditions))
	}
	for j, pat := range patterns {
		pp := p.Index(j)
		errs = append(errs, validateQualifiedName(string(pat.Type), pp.Child("type"))...)
		switch {
		case pat.Status == "":
			errs = append(errs, validation.Required(pp.Child("status"), fmt.Sprintf("valid values: %q", onPodConditionsStatuses)))
		case !slices.Contains(onPodConditionsStatuses, string(pat.Status)):
			errs = append(errs, validation.NotSupported(pp.Child("status"), pat.Status, onPodConditionsStatuses))
		}
	}
	return errs
}

func validateOnExitCodes(req *batchv1.PodFailurePolicyOnExitCodesRequirement, p *validation.Path, names map[string]bool) validation.ErrorList {
	var errs validation.ErrorList
	op := p.Child("operator")
	switch {
	case req.Operator == "":
		errs = append(errs, validation.Required(op, fmt.Sprintf("valid values: %q", onExitCodesOperators)))
	case !slices.Contains(onExitCodesOperators, string(req.Operator)):
		errs = append(errs, validation.NotSupported(op, req.Operator, onExitCodesOperators))
	}
	if req.ContainerName != nil && !names[*req.ContainerName] {
		errs = append(errs, validation.Invalid(p.Child("containerName"), *req.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	vp := p.Child("values")
	switch n := len(req.Values); {
	case n == 0:
		errs = append(errs, validation.Invalid(vp, req.Values, "at least one value is required"))
	case n > maxPodFailurePolicyOnExitCodesValues:
		errs = append(errs, validation.TooMany(vp, n, maxPodFailurePolicyOnExitCodesValues))
	}
	ordered := true
	seen := map[int32]bool{}
	for j, v := range req.Values {
		if req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, validation.Invalid(vp.Index(j), v, "must not be 0 for the In operator"))
		}
		if seen[v] {
			errs = append(errs, validation.Duplicate(vp.Index(j), v))
		}
		seen[v] = true
		if j > 0 && req.Values[j-1] > v {
			ordered = false
		}
	}
	if !ordered {
		errs = append(errs, validation.Invalid(vp, req.Values, "must be ordered"))
	}
	return errs
}

// validateSuccessPolicy is kube's validateSuccessPolicy of an Indexed Job: one to 20
// rules, each with succeededIndexes within completions or a succeededCount no larger
// than completions and those indexes.
func validateSuccessPolicy(spec *batchv1.JobSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	rules := p.Child("rules")
	if len(spec.SuccessPolicy.Rules) == 0 {
		errs = append(errs, validation.Required(rules, "at least one rules must be specified when the successPolicy is specified"))
	}
	if n := len(spec.SuccessPolicy.Rules); n > maxSuccessPolicyRules {
		errs = append(errs, validation.TooMany(rules, n, maxSuccessPolicyRules))
	}
	// Without completions (already Required) kube's rules below dereference nil and its
	// apiserver answers 500; apikit skips the checks against completions instead.
	for i, rule := range spec.SuccessPolicy.Rules {
		rp := rules.Index(i)
		if rule.SucceededCount == nil && rule.SucceededIndexes == nil {
			errs = append(errs, validation.Required(rp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if rule.SucceededIndexes != nil {
			ip := rp.Child("succeededIndexes")
			if len(*rule.SucceededIndexes) > maxSuccessPolicySucceededIndexes {
				errs = append(errs, validation.TooLong(ip, "", maxSuccessPolicySucceededIndexes))
			}
			if spec.Completions != nil {
				var err error
				if total, err = validateIndexesFormat(*rule.SucceededIndexes, *spec.Completions); err != nil {
					errs = append(errs, validation.Invalid(ip, *rule.SucceededIndexes, "error parsing succeededIndexes: "+err.Error()))
				}
			}
		}
		if rule.SucceededCount != nil {
			cp := rp.Child("succeededCount")
			errs = append(errs, nonNegativeField(int64(*rule.SucceededCount), cp)...)
			if spec.Completions != nil && *rule.SucceededCount > *spec.Completions {
				errs = append(errs, validation.Invalid(cp, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", *spec.Completions)))
			}
			if spec.Completions != nil && rule.SucceededIndexes != nil && *rule.SucceededCount > total {
				errs = append(errs, validation.Invalid(cp, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// validateJobCompletionsUpdate is kube's validateCompletions: immutable for NonIndexed
// Jobs; an Indexed Job changes completions only together with an equal parallelism.
func validateJobCompletionsUpdate(spec, old *batchv1.JobSpec, p *validation.Path) validation.ErrorList {
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		return immutableField(spec.Completions, old.Completions, p)
	}
	if semanticEqual(spec.Completions, old.Completions) || spec.Completions == nil {
		return nil
	}
	if spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		return validation.ErrorList{validation.Invalid(p, spec.Completions, "can only be modified in tandem with spec.parallelism")}
	}
	return nil
}

// validateJobTemplateUpdate is kube's validatePodTemplateUpdate: the template may not
// change, except that a suspended Job that may (opts) changes its node affinity, node
// selector, tolerations, scheduling gates, labels and annotations, and its containers'
// resources.
func validateJobTemplateUpdate(spec, old *batchv1.JobSpec, opts jobOptions) validation.ErrorList {
	tmpl, oldTmpl := &spec.Template, &old.Template
	if opts.allowMutableSchedulingDirectives {
		c := *oldTmpl
		c.Spec.Affinity = schedulingAffinity(tmpl.Spec.Affinity, oldTmpl.Spec.Affinity)
		c.Spec.NodeSelector = tmpl.Spec.NodeSelector
		c.Spec.Tolerations = tmpl.Spec.Tolerations
		c.Annotations = tmpl.Annotations
		c.Labels = tmpl.Labels
		c.Spec.SchedulingGates = tmpl.Spec.SchedulingGates
		oldTmpl = &c
	}
	p := jobSpecPath.Child("template")
	if old.Suspend == nil || !*old.Suspend || !opts.allowMutablePodResources {
		if !semanticEqual(*tmpl, *oldTmpl) {
			return validation.ErrorList{validation.Immutable(p, badStruct(tmpl))}
		}
		return nil
	}
	// Only the containers' resources may change: the old spec with the new resources
	// must be the new spec.
	c := oldTmpl.Spec
	c.Containers = withResourcesOf(c.Containers, tmpl.Spec.Containers)
	c.InitContainers = withResourcesOf(c.InitContainers, tmpl.Spec.InitContainers)
	if !semanticEqual(tmpl.Spec, c) {
		// kube's path is the child "template.spec", one segment with a dot.
		return validation.ErrorList{validation.Immutable(jobSpecPath.Child("template.spec"), badStruct(tmpl.Spec))}
	}
	// kube checks no more of the template then: its metadata may change.
	return nil
}

// schedulingAffinity is the old affinity with the new node affinity, as kube's rule
// lets a suspended Job replace it (and clear an affinity that had only that).
func schedulingAffinity(next, old *corev1.Affinity) *corev1.Affinity {
	switch {
	case next == nil && old != nil:
		c := *old
		c.NodeAffinity = nil
		if c == (corev1.Affinity{}) {
			return nil
		}
		return &c
	case next != nil && old == nil:
		return &corev1.Affinity{NodeAffinity: next.NodeAffinity}
	case next != nil && old != nil:
		c := *old
		c.NodeAffinity = next.NodeAffinity
		return &c
	}
	return old
}

// withResourcesOf copies old with each container's resources taken from next where
// the lists have the same length and the container the same name.
func withResourcesOf(old, next []corev1.Container) []corev1.Container {
	if len(old) != len(next) {
		return old
	}
	out := slices.Clone(old)
	for i := range out {
		if out[i].Name == next[i].Name {
			out[i].Resources = next[i].Resources
		}
	}
	return out
}

// jobSpecWarnings is pkg/api/job's WarningsForJobSpec: a huge Indexed Job, then the
// pod template's warnings.
func jobSpecWarnings(p *validation.Path, spec *batchv1.JobSpec) []string {
	var warnings []string
	if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion &&
		replicasOf(spec.Completions) > completionsSoftLimit && replicasOf(spec.Parallelism) > parallelismSoftLimitForUnlimitedCompletions {
		warnings = append(warnings, p.String()+": In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")
	}
	return append(warnings, podTemplateWarnings(p.Child("template"), &spec.Template)...)
}

// validateIndexesFormat is kube's parser of an indexes list ("1,3-5,7"): increasing
// intervals below completions; it returns how many indexes the list holds.
func validateIndexesFormat(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var last *int32
	var total int32
	for _, interval := range strings.Split(s, ",") {
		x, y, err := parseIndexInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last != nil && *last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", *last, x)
		}
		total += y - x + 1
		last = &y
	}
	return total, nil
}

func parseIndexInterval(s string, completions int32) (int32, int32, error) {
	limits := strings.Split(s, "-")
	if len(limits) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	x, err := strconv.Atoi(limits[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[0])
	}
	if x >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[0])
	}
	if len(limits) == 1 {
		return int32(x), int32(x), nil
	}
	y, err := strconv.Atoi(limits[1])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[1])
	}
	if y >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[1])
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return int32(x), int32(y), nil
}

// errIndexesOverlap is the error of failedIndexes that repeat completedIndexes.
var errIndexesOverlap = errors.New("failedIndexes and completedIndexes overlap at index")

// indexesOverlap is kube's validateFailedIndexesNotOverlapCompleted: it walks both
// interval lists (skipping intervals that do not parse) and reports the first index in
// both.
func indexesOverlap(completed, failed string, completions int32) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cErr := parseIndexInterval(cs[0], completions)
	fx, fy, fErr := parseIndexInterval(fs[0], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cErr != nil:
			ci++
			if ci < len(cs) {
				cx, cy, cErr = parseIndexInterval(cs[ci], completions)
			}
		case fErr != nil:
			fi++
			if fi < len(fs) {
				fx, fy, fErr = parseIndexInterval(fs[fi], completions)
			}
		case cx <= fy && fx <= cy:
			return fmt.Errorf("%w: %d", errIndexesOverlap, max(cx, fx))
		case cx <= fx:
			ci++
			if ci < len(cs) {
				cx, cy, cErr = parseIndexInterval(cs[ci], completions)
			}
		default:
			fi++
			if fi < len(fs) {
				fx, fy, fErr = parseIndexInterval(fs[fi], completions)
			}
		}
	}
	return nil
}
