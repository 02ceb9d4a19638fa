package strategies

import (
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/validation"
)

// validateLabelName is apimachinery's ValidateLabelName: a qualified name.
func validateLabelName(name string, p *validation.Path) validation.ErrorList {
	return validateQualifiedName(name, p)
}

// validatePodLabelSelector is apimachinery's ValidateLabelSelector with kube's
// options: matchLabels as labels, each expression's operator, key and (unless
// allowInvalidValues) values.
func validatePodLabelSelector(s *metav1.LabelSelector, allowInvalidValues bool, p *validation.Path) validation.ErrorList {
	if s == nil {
		return nil
	}
	errs := validation.ValidateLabels(s.MatchLabels, p.Child("matchLabels"))
	for i, r := range s.MatchExpressions {
		rp := p.Child("matchExpressions").Index(i)
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs = append(errs, validation.Required(rp.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				errs = append(errs, validation.Forbidden(rp.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, validation.Invalid(rp.Child("operator"), r.Operator, "not a valid selector operator"))
		}
		errs = append(errs, validateLabelName(r.Key, rp.Child("key"))...)
		if !allowInvalidValues {
			for j, v := range r.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					errs = append(errs, validation.Invalid(rp.Child("values").Index(j), v, msg))
				}
			}
		}
	}
	return errs
}

func validateAffinity(a *corev1.Affinity, p *validation.Path) validation.ErrorList {
	if a == nil {
		return nil
	}
	var errs validation.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			errs = append(errs, validateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution, np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := np.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if t.Weight <= 0 || t.Weight > 100 {
				errs = append(errs, validation.Invalid(tp.Child("weight"), int64(t.Weight), "must be in the range 1-100"))
			}
			// Preferred terms may carry invalid label values (kube passes true).
			errs = append(errs, validateNodeSelectorTerm(t.Preference, true, tp.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))...)
	}
	return errs
}

func validateNodeSelector(s *corev1.NodeSelector, p *validation.Path) validation.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return validation.ErrorList{validation.Required(tp, "must have at least one node selector term")}
	}
	var errs validation.ErrorList
	for i, t := range s.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(t, false, tp.Index(i))...)
	}
	return errs
}

func validateNodeSelectorTerm(t corev1.NodeSelectorTerm, allowInvalidValues bool, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for j, r := range t.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(r, allowInvalidValues, p.Child("matchExpressions").Index(j))...)
	}
	for j, r := range t.MatchFields {
		rp := p.Child("matchFields").Index(j)
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, validation.Required(rp.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, validation.Invalid(rp.Child("operator"), string(r.Operator), "not a valid selector operator"))
		}
		if r.Key != "metadata.name" {
			errs = append(errs, validation.Invalid(rp.Child("key"), r.Key, "not a valid field selector key"))
			continue
		}
		for k, v := range r.Values {
			for _, msg := range validation.NameIsDNSSubdomain(v, false) {
				errs = append(errs, validation.Invalid(rp.Child("values").Index(k), v, msg))
			}
		}
	}
	return errs
}

func validateNodeSelectorRequirement(r corev1.NodeSelectorRequirement, allowInvalidValues bool, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, validation.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, validation.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, validation.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, validation.Invalid(p.Child("operator"), string(r.Operator), "not a valid selector operator"))
	}
	errs = append(errs, validateLabelName(r.Key, p.Child("key"))...)
	if !allowInvalidValues {
		for i, v := range r.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				errs = append(errs, validation.Invalid(p.Child("values").Index(i), v, msg))
			}
		}
	}
	return errs
}

func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, t := range required {
		errs = append(errs, validatePodAffinityTerm(t, p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, t := range preferred {
		tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if t.Weight <= 0 || t.Weight > 100 {
			errs = append(errs, validation.Invalid(tp.Child("weight"), int64(t.Weight), "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(t.PodAffinityTerm, tp.Child("podAffinityTerm"))...)
	}
	return errs
}

func validatePodAffinityTerm(t corev1.PodAffinityTerm, p *validation.Path) validation.ErrorList {
	errs := validatePodLabelSelector(t.LabelSelector, false, p.Child("labelSelector"))
	errs = append(errs, validatePodLabelSelector(t.NamespaceSelector, false, p.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range validation.NameIsDNSLabel(ns, false) {
			errs = append(errs, validation.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	errs = append(errs, validateMatchLabelKeys(p, t.MatchLabelKeys, t.MismatchLabelKeys, t.LabelSelector)...)
	if t.TopologyKey == "" {
		errs = append(errs, validation.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, validateLabelName(t.TopologyKey, p.Child("topologyKey"))...)
}

// validateMatchLabelKeys is kube's ValidateMatchLabelKeysAndMismatchLabelKeys.
func validateMatchLabelKeys(p *validation.Path, match, mismatch []string, sel *metav1.LabelSelector) validation.ErrorList {
	var errs validation.ErrorList
	keys := func(kp *validation.Path, list []string) {
		if len(list) == 0 {
			return
		}
		if sel == nil {
			errs = append(errs, validation.Forbidden(kp, "must not be specified when labelSelector is not set"))
			return
		}
		for i, k := range list {
			errs = append(errs, validateLabelName(k, kp.Index(i))...)
		}
	}
	keys(p.Child("matchLabelKeys"), match)
	keys(p.Child("mismatchLabelKeys"), mismatch)
	if sel != nil {
		index := map[string]int{}
		for i, k := range match {
			index[k] = i
		}
		selKeys := map[string]bool{}
		for k := range sel.MatchLabels {
			selKeys[k] = true
		}
		for _, e := range sel.MatchExpressions {
			if i, ok := index[e.Key]; ok && selKeys[e.Key] {
				// kube indexes the term's path, not matchLabelKeys.
				errs = append(errs, validation.Invalid(p.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			selKeys[e.Key] = true
		}
	}
	for i, k := range match {
		if slices.Contains(mismatch, k) {
			errs = append(errs, validation.Invalid(p.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return errs
}

func validateTolerations(tolerations []corev1.Toleration, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, t := range tolerations {
		p := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, validateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, validation.Invalid(p.Child("operator"), string(t.Operator),
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, validation.Invalid(p.Child("effect"), string(t.Effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, validation.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, validation.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			// TaintTolerationComparisonOperators is alpha, off by default.
			errs = append(errs, validation.NotSupported(p.Child("operator"), string(t.Operator), []string{"Equal", "Exists", "Lt", "Gt"}))
		default:
			errs = append(errs, validation.NotSupported(p.Child("operator"), string(t.Operator), []string{"Equal", "Exists"}))
		}
		if t.Effect != "" {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, validation.NotSupported(p.Child("effect"), string(t.Effect), []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
			}
		}
	}
	return errs
}

func validateTopologySpreadConstraints(cs []corev1.TopologySpreadConstraint, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, c := range cs {
		p := fldPath.Index(i)
		errs = append(errs, validatePositive(int64(c.MaxSkew), p.Child("maxSkew"))...)
		if c.TopologyKey == "" {
			errs = append(errs, validation.Required(p.Child("topologyKey"), "can not be empty"))
		}
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			errs = append(errs, validation.NotSupported(p.Child("whenUnsatisfiable"), string(c.WhenUnsatisfiable), []string{"DoNotSchedule", "ScheduleAnyway"}))
		}
		for _, rest := range cs[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				errs = append(errs, validation.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), "{"+c.TopologyKey+", "+string(c.WhenUnsatisfiable)+"}"))
				break
			}
		}
		if m := c.MinDomains; m != nil {
			errs = append(errs, validatePositive(int64(*m), p.Child("minDomains"))...)
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, validation.Invalid(p.Child("minDomains"), int64(*m),
					"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "+string(c.WhenUnsatisfiable)))
			}
		}
		for _, np := range []struct {
			v    *corev1.NodeInclusionPolicy
			name string
		}{{c.NodeAffinityPolicy, "nodeAffinityPolicy"}, {c.NodeTaintsPolicy, "nodeTaintsPolicy"}} {
			if np.v != nil && *np.v != corev1.NodeInclusionPolicyHonor && *np.v != corev1.NodeInclusionPolicyIgnore {
				errs = append(errs, validation.NotSupported(p.Child(np.name), string(*np.v), []string{"Honor", "Ignore"}))
			}
		}
		// MatchLabelKeysInPodTopologySpread and its SelectorMerge are on by default.
		errs = append(errs, validateMatchLabelKeys(p, c.MatchLabelKeys, nil, c.LabelSelector)...)
		errs = append(errs, validatePodLabelSelector(c.LabelSelector, false, p.Child("labelSelector"))...)
	}
	return errs
}
