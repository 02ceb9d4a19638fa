package strategies

import (
	"slices"

	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/validation"
)

// The operators of a LabelSelectorRequirement.
const (
	selectorOpIn           = "In"
	selectorOpNotIn        = "NotIn"
	selectorOpExists       = "Exists"
	selectorOpDoesNotExist = "DoesNotExist"
)

// validateLabelSelector is apimachinery's metav1validation.ValidateLabelSelector: the
// matchLabels as labels, then each matchExpressions term's operator, values and key.
// allowInvalidValues skips the label-value check of the terms' values, as kube allows
// on a DaemonSet update whose stored selector already had such values.
func validateLabelSelector(ps *metav1.LabelSelector, allowInvalidValues bool, p *validation.Path) validation.ErrorList {
	if ps == nil {
		return nil
	}
	errs := validation.ValidateLabels(ps.MatchLabels, p.Child("matchLabels"))
	for i, expr := range ps.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		switch expr.Operator {
		case selectorOpIn, selectorOpNotIn:
			if len(expr.Values) == 0 {
				errs = append(errs, validation.Required(ep.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case selectorOpExists, selectorOpDoesNotExist:
			if len(expr.Values) > 0 {
				errs = append(errs, validation.Forbidden(ep.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, validation.Invalid(ep.Child("operator"), expr.Operator, "not a valid selector operator"))
		}
		for _, msg := range validation.IsQualifiedName(expr.Key) {
			errs = append(errs, validation.Invalid(ep.Child("key"), expr.Key, msg))
		}
		if !allowInvalidValues {
			for j, v := range expr.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					errs = append(errs, validation.Invalid(ep.Child("values").Index(j), v, msg))
				}
			}
		}
	}
	return errs
}

// labelSelectorConverts reports whether metav1.LabelSelectorAsSelector accepts ps (a
// nil one is the selector that matches nothing): every key a qualified name, every value
// a label value, a known operator with the values it takes.
func labelSelectorConverts(ps *metav1.LabelSelector) bool {
	if ps == nil {
		return true
	}
	for k, v := range ps.MatchLabels {
		if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
			return false
		}
	}
	for _, expr := range ps.MatchExpressions {
		switch expr.Operator {
		case selectorOpIn, selectorOpNotIn:
			if len(expr.Values) == 0 {
				return false
			}
		case selectorOpExists, selectorOpDoesNotExist:
			if len(expr.Values) > 0 {
				return false
			}
		default:
			return false
		}
		if len(validation.IsQualifiedName(expr.Key)) > 0 {
			return false
		}
		for _, v := range expr.Values {
			if len(validation.IsValidLabelValue(v)) > 0 {
				return false
			}
		}
	}
	return true
}

// labelSelectorHasInvalidLabelValue is metav1validation.LabelSelectorHasInvalidLabelValue:
// whether a matchExpressions value is no valid label value.
func labelSelectorHasInvalidLabelValue(ps *metav1.LabelSelector) bool {
	if ps == nil {
		return false
	}
	for _, expr := range ps.MatchExpressions {
		for _, v := range expr.Values {
			if len(validation.IsValidLabelValue(v)) > 0 {
				return true
			}
		}
	}
	return false
}

// selectorEmpty is labels.Selector.Empty of the converted ps: an empty (non-nil)
// selector, which matches everything. The nil selector matches nothing and is not empty.
func selectorEmpty(ps *metav1.LabelSelector) bool {
	return ps != nil && len(ps.MatchLabels)+len(ps.MatchExpressions) == 0
}

// selectorMatches is labels.Selector.Matches of the converted ps (which must convert):
// nil matches nothing, empty everything, else every term must hold.
func selectorMatches(ps *metav1.LabelSelector, labels map[string]string) bool {
	if ps == nil {
		return false
	}
	for k, v := range ps.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, expr := range ps.MatchExpressions {
		got, ok := labels[expr.Key]
		switch expr.Operator {
		case selectorOpIn:
			if !ok || !slices.Contains(expr.Values, got) {
				return false
			}
		case selectorOpNotIn:
			if ok && slices.Contains(expr.Values, got) {
				return false
			}
		case selectorOpExists:
			if !ok {
				return false
			}
		case selectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
