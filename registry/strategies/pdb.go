package strategies

import (
	"context"
	"regexp"
	"slices"

	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	policyv1 "github.com/apikit-dev/apikit/builtin/policy/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Policy returns kube-apiserver v1.37.2's write rules of policy/v1
// (pkg/registry/policy/poddisruptionbudget): a PodDisruptionBudget is created at
// generation 1 without status, its spec validated as kube's ValidatePodDisruptionBudget;
// its status is written only through /status, which keeps the spec and validates the
// counts and conditions. Like kube's, the strategy allows no unconditional update, and
// a create's metadata is checked only once its spec passes.
func Policy() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{policyv1.PodDisruptionBudgets: pdbStrategy()}
}

func pdbStrategy() registry.StrategyFor[*policyv1.PodDisruptionBudget] {
	return registry.StrategyFor[*policyv1.PodDisruptionBudget]{
		MetadataAfterValidate:  true,
		RequireResourceVersion: true,
		PrepareForCreate: func(_ context.Context, p *policyv1.PodDisruptionBudget) {
			p.Status = policyv1.PodDisruptionBudgetStatus{}
			p.Generation = 1
			stripV1beta1Label(p, nil)
		},
		PrepareForUpdate: func(_ context.Context, p, old *policyv1.PodDisruptionBudget) {
			p.Status = old.Status
			stripV1beta1Label(p, old)
		},
		Validate: func(_ context.Context, p *policyv1.PodDisruptionBudget) validation.ErrorList {
			return validatePDBSpec(&p.Spec, false, validation.NewPath("spec"))
		},
		ValidateUpdate: func(_ context.Context, p, old *policyv1.PodDisruptionBudget) validation.ErrorList {
			allowInvalid := old.Spec.Selector != nil && len(validateLabelSelector(old.Spec.Selector, false, nil)) > 0
			return validatePDBSpec(&p.Spec, allowInvalid, validation.NewPath("spec"))
		},
		Status: &registry.StrategyFor[*policyv1.PodDisruptionBudget]{
			PrepareForUpdate: func(_ context.Context, p, old *policyv1.PodDisruptionBudget) { p.Spec = old.Spec },
			ValidateUpdate: func(_ context.Context, p, _ *policyv1.PodDisruptionBudget) validation.ErrorList {
				return validatePDBStatus(&p.Status, validation.NewPath("status"))
			},
		},
	}
}

// pdbV1beta1Label is the key kube's policy/v1beta1 conversion used to tell its
// empty selectors apart; kube strips it from any other selector.
const pdbV1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

// stripV1beta1Label is kube's dropDisabledFields: unless the selector is unchanged or
// is exactly the match-all or match-none selector, expressions on pdbV1beta1Label go.
func stripV1beta1Label(p, old *policyv1.PodDisruptionBudget) {
	sel := p.Spec.Selector
	if sel == nil || old != nil && selectorsEqual(old.Spec.Selector, sel) {
		return
	}
	if len(sel.MatchLabels) == 0 && (len(sel.MatchExpressions) == 0 ||
		len(sel.MatchExpressions) == 1 && sel.MatchExpressions[0].Key == pdbV1beta1Label && sel.MatchExpressions[0].Operator == selectorOpExists && len(sel.MatchExpressions[0].Values) == 0) {
		return
	}
	sel.MatchExpressions = slices.DeleteFunc(sel.MatchExpressions, func(e metav1.LabelSelectorRequirement) bool { return e.Key == pdbV1beta1Label })
}

// selectorsEqual is apimachinery's semantic equality of two selectors (nil and empty
// lists and maps alike).
func selectorsEqual(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.MatchLabels) != len(b.MatchLabels) || len(a.MatchExpressions) != len(b.MatchExpressions) {
		return false
	}
	for k, v := range a.MatchLabels {
		if w, ok := b.MatchLabels[k]; !ok || w != v {
			return false
		}
	}
	for i, e := range a.MatchExpressions {
		f := b.MatchExpressions[i]
		if e.Key != f.Key || e.Operator != f.Operator || !slices.Equal(e.Values, f.Values) {
			return false
		}
	}
	return true
}

// internalPDBSpec is kube's internal PodDisruptionBudgetSpec, which has no json tags:
// the value its "cannot be both set" message prints.
type internalPDBSpec struct {
	MinAvailable               *scheme.IntOrString
	Selector                   *metav1.LabelSelector
	MaxUnavailable             *scheme.IntOrString
	UnhealthyPodEvictionPolicy *policyv1.UnhealthyPodEvictionPolicyType
}

// validatePDBSpec is kube's ValidatePodDisruptionBudgetSpec.
func validatePDBSpec(spec *policyv1.PodDisruptionBudgetSpec, allowInvalidSelectorValues bool, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, validation.Invalid(p, internalPDBSpec{spec.MinAvailable, spec.Selector, spec.MaxUnavailable, spec.UnhealthyPodEvictionPolicy},
			"minAvailable and maxUnavailable cannot be both set"))
	}
	if v := spec.MinAvailable; v != nil {
		errs = append(errs, validatePositiveIntOrPercent(*v, p.Child("minAvailable"))...)
		errs = append(errs, notMoreThan100Percent(*v, p.Child("minAvailable"))...)
	}
	if v := spec.MaxUnavailable; v != nil {
		errs = append(errs, validatePositiveIntOrPercent(*v, p.Child("maxUnavailable"))...)
		errs = append(errs, notMoreThan100Percent(*v, p.Child("maxUnavailable"))...)
	}
	errs = append(errs, validateLabelSelector(spec.Selector, allowInvalidSelectorValues, p.Child("selector"))...)
	if u := spec.UnhealthyPodEvictionPolicy; u != nil && *u != policyv1.IfHealthyBudget && *u != policyv1.AlwaysAllow {
		errs = append(errs, validation.NotSupported(p.Child("unhealthyPodEvictionPolicy"), *u, []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}))
	}
	return errs
}

// validatePDBStatus is kube's ValidatePodDisruptionBudgetStatusUpdate at policy/v1.
func validatePDBStatus(st *policyv1.PodDisruptionBudgetStatus, p *validation.Path) validation.ErrorList {
	errs := validateConditions(st.Conditions, p.Child("conditions"))
	errs = append(errs, nonNegativeField(int64(st.DisruptionsAllowed), p.Child("disruptionsAllowed"))...)
	errs = append(errs, nonNegativeField(int64(st.CurrentHealthy), p.Child("currentHealthy"))...)
	errs = append(errs, nonNegativeField(int64(st.DesiredHealthy), p.Child("desiredHealthy"))...)
	errs = append(errs, nonNegativeField(int64(st.ExpectedPods), p.Child("expectedPods"))...)
	return errs
}

const (
	conditionReasonFmt    = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
	conditionReasonErrMsg = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
	maxConditionReasonLen = 1 * 1024
	maxConditionMsgLen    = 32 * 1024
)

// conditionReasonRegexMsg is kube's RegexError of a bad reason, with its examples.
const conditionReasonRegexMsg = conditionReasonErrMsg + " (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '" + conditionReasonFmt + "')"

var conditionReasonPattern = regexp.MustCompile("^" + conditionReasonFmt + "$")

// validateConditions is apimachinery's metav1validation.ValidateConditions.
func validateConditions(conds []scheme.Condition, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		if seen[c.Type] {
			errs = append(errs, validation.Duplicate(cp, c.Type))
		}
		seen[c.Type] = true
		if c.Type == "" {
			errs = append(errs, validation.Required(cp.Child("type"), "is required"))
		} else {
			errs = append(errs, validateQualifiedName(c.Type, cp.Child("type"))...)
		}
		switch c.Status {
		case "":
			errs = append(errs, validation.Required(cp.Child("status"), ""))
		case scheme.ConditionTrue, scheme.ConditionFalse, scheme.ConditionUnknown:
		default:
			errs = append(errs, validation.NotSupported(cp.Child("status"), c.Status, []string{"False", "True", "Unknown"}))
		}
		if c.ObservedGeneration < 0 {
			errs = append(errs, validation.Invalid(cp.Child("observedGeneration"), c.ObservedGeneration, "must be greater than or equal to zero"))
		}
		if c.LastTransitionTime.IsZero() {
			errs = append(errs, validation.Required(cp.Child("lastTransitionTime"), ""))
		}
		if c.Reason == "" {
			errs = append(errs, validation.Required(cp.Child("reason"), ""))
		} else {
			if !conditionReasonPattern.MatchString(c.Reason) {
				errs = append(errs, validation.Invalid(cp.Child("reason"), c.Reason, conditionReasonRegexMsg))
			}
			if len(c.Reason) > maxConditionReasonLen {
				errs = append(errs, validation.TooLong(cp.Child("reason"), "", maxConditionReasonLen))
			}
		}
		if len(c.Message) > maxConditionMsgLen {
			errs = append(errs, validation.TooLong(cp.Child("message"), "", maxConditionMsgLen))
		}
	}
	return errs
}
