package authz

import (
	"maps"
	"slices"

	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
)

// AggregateClusterRoles returns the rules of every ClusterRole of roles (by name) that
// has an aggregationRule, by name, as kube's clusterrole-aggregation controller keeps
// them: the rules of the ClusterRoles its selectors match, matching roles in name
// order, each rule once, the role itself skipped and its own rules replaced. An
// aggregated role that matches another aggregated role gets that one's aggregated
// rules, as the controller converges to; cycles end where they close.
//
// Stored aggregated ClusterRoles do not carry the aggregated rules: the RBAC authorizer
// (package authz) and the escalation check of strategies.RBAC both resolve them
// here, from the same objects, so that both see the same rules. roles is only read.
func AggregateClusterRoles(roles map[string]*rbacv1.ClusterRole) map[string][]rbacv1.PolicyRule {
	a := newAggregation(roles)
	out := map[string][]rbacv1.PolicyRule{}
	for _, name := range a.names {
		if roles[name].AggregationRule != nil {
			out[name] = a.resolve(name, map[string]bool{})
		}
	}
	return out
}

// AggregatedRules returns the rules ClusterRole name of roles has, the rules
// AggregateClusterRoles gives it: its own rules when it has no aggregationRule, nil when
// roles has no such role.
func AggregatedRules(roles map[string]*rbacv1.ClusterRole, name string) []rbacv1.PolicyRule {
	if _, ok := roles[name]; !ok {
		return nil
	}
	a := newAggregation(roles)
	rules := a.resolve(name, map[string]bool{})
	if a.cycled {
		// Where a cycle closes depends on the role resolution starts from: resolve in
		// AggregateClusterRoles' order, so that the escalation check and the
		// authorizer see the same rules.
		return AggregateClusterRoles(roles)[name]
	}
	return rules
}

// aggregation resolves aggregationRules over one set of ClusterRoles, remembering each
// aggregated role's rules once resolved.
type aggregation struct {
	roles    map[string]*rbacv1.ClusterRole
	names    []string // sorted
	resolved map[string][]rbacv1.PolicyRule
	// cycled is set once a resolution met a role already being resolved.
	cycled bool
}

func newAggregation(roles map[string]*rbacv1.ClusterRole) *aggregation {
	return &aggregation{roles: roles, names: slices.Sorted(maps.Keys(roles)), resolved: map[string][]rbacv1.PolicyRule{}}
}

// resolve returns the rules of role name; visiting holds the aggregated roles being
// resolved further up, where a cycle stops (at the role's own rules).
func (a *aggregation) resolve(name string, visiting map[string]bool) []rbacv1.PolicyRule {
	role := a.roles[name]
	if role.AggregationRule == nil {
		return role.Rules
	}
	if rules, ok := a.resolved[name]; ok {
		return rules
	}
	if visiting[name] {
		a.cycled = true
		return role.Rules
	}
	visiting[name] = true
	defer delete(visiting, name)
	var rules []rbacv1.PolicyRule
	for _, sel := range role.AggregationRule.ClusterRoleSelectors {
		for _, other := range a.names {
			if other == name || !selectorMatches(sel, a.roles[other].Labels) {
				continue
			}
			for _, rule := range a.resolve(other, visiting) {
				if !slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return equalRules(r, rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	a.resolved[name] = rules
	return rules
}

func equalRules(a, b rbacv1.PolicyRule) bool {
	return slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) &&
		slices.Equal(a.ResourceNames, b.ResourceNames) && slices.Equal(a.NonResourceURLs, b.NonResourceURLs)
}

// selectorMatches is meta/v1 LabelSelectorAsSelector(sel).Matches(labels): every
// matchLabels pair and every expression holds; an unknown operator matches nothing, as
// kube's controller skips a selector it cannot convert.
func selectorMatches(sel metav1.LabelSelector, labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range sel.MatchExpressions {
		v, ok := labels[e.Key]
		switch e.Operator {
		case "In":
			if !ok || !slices.Contains(e.Values, v) {
				return false
			}
		case "NotIn":
			if ok && slices.Contains(e.Values, v) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}
