package authz_test

import (
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// The rules and roles of kube's TestSyncClusterRole
// (pkg/controller/clusterroleaggregation in k8s.io/kubernetes).
var (
	hammerRules = []rbacv1.PolicyRule{
		{Verbs: []string{"hammer"}, Resources: []string{"nails"}},
		{Verbs: []string{"hammer"}, Resources: []string{"wedges"}},
	}
	chiselRules = []rbacv1.PolicyRule{{Verbs: []string{"chisel"}, Resources: []string{"mortises"}}}
	sawRules    = []rbacv1.PolicyRule{{Verbs: []string{"saw"}, Resources: []string{"boards"}}}
)

func labelledRole(name string, labels map[string]string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func aggregatedRole(name string, labels map[string]string, selectors []metav1.LabelSelector, rules ...[]rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := labelledRole(name, labels, concatRules(rules...))
	r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: selectors}
	return r
}

func matchLabels(sets ...map[string]string) []metav1.LabelSelector {
	var out []metav1.LabelSelector
	for _, s := range sets {
		out = append(out, metav1.LabelSelector{MatchLabels: s})
	}
	return out
}

func concatRules(rules ...[]rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		out = append(out, r...)
	}
	return out
}

func rolesByName(roles ...*rbacv1.ClusterRole) map[string]*rbacv1.ClusterRole {
	m := map[string]*rbacv1.ClusterRole{}
	for _, r := range roles {
		m[r.Name] = r
	}
	return m
}

func TestAggregateClusterRoles_AsKubesAggregationControllerConverges(t *testing.T) {
	bar := map[string]string{"foo": "bar"}
	notBar := map[string]string{"foo": "not-bar"}
	tests := []struct {
		name  string
		roles []*rbacv1.ClusterRole
		want  map[string][]rbacv1.PolicyRule
	}{
		{"own rules are replaced by the selected roles'", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			aggregatedRole("combined", nil, matchLabels(bar), sawRules),
		}, map[string][]rbacv1.PolicyRule{"combined": hammerRules}},
		{"nothing selected strips the rules", []*rbacv1.ClusterRole{
			labelledRole("hammer", notBar, hammerRules),
			aggregatedRole("combined", nil, matchLabels(bar), hammerRules),
		}, map[string][]rbacv1.PolicyRule{"combined": nil}},
		{"selected roles in name order", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			labelledRole("chisel", bar, chiselRules),
			labelledRole("saw", notBar, sawRules),
			aggregatedRole("combined", nil, matchLabels(bar)),
		}, map[string][]rbacv1.PolicyRule{"combined": concatRules(chiselRules, hammerRules)}},
		{"selectors in their order, each in name order", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			labelledRole("chisel", bar, chiselRules),
			labelledRole("saw", notBar, sawRules),
			aggregatedRole("combined", nil, matchLabels(notBar, bar)),
		}, map[string][]rbacv1.PolicyRule{"combined": concatRules(sawRules, chiselRules, hammerRules)}},
		{"a rule two roles share is kept once", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			labelledRole("chisel", bar, chiselRules),
			labelledRole("saw", bar, sawRules),
			labelledRole("other-saw", notBar, sawRules),
			aggregatedRole("combined", nil, matchLabels(bar, notBar)),
		}, map[string][]rbacv1.PolicyRule{"combined": concatRules(chiselRules, hammerRules, sawRules)}},
		{"rules differing only in resourceNames are both kept", []*rbacv1.ClusterRole{
			labelledRole("a", bar, []rbacv1.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"secrets"}}}),
			labelledRole("b", bar, []rbacv1.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"secrets"}, ResourceNames: []string{"s"}}}),
			aggregatedRole("combined", nil, matchLabels(bar)),
		}, map[string][]rbacv1.PolicyRule{"combined": {
			{Verbs: []string{"get"}, Resources: []string{"secrets"}},
			{Verbs: []string{"get"}, Resources: []string{"secrets"}, ResourceNames: []string{"s"}},
		}}},
		{"a role its own selector matches is skipped", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			aggregatedRole("combined", bar, matchLabels(bar), sawRules),
		}, map[string][]rbacv1.PolicyRule{"combined": hammerRules}},
		{"an empty selector selects every other role", []*rbacv1.ClusterRole{
			labelledRole("hammer", bar, hammerRules),
			labelledRole("saw", nil, sawRules),
			aggregatedRole("combined", nil, []metav1.LabelSelector{{}}),
		}, map[string][]rbacv1.PolicyRule{"combined": concatRules(hammerRules, sawRules)}},
		{"match expressions", []*rbacv1.ClusterRole{
			labelledRole("chisel", map[string]string{"tier": "1"}, chiselRules),
			labelledRole("hammer", map[string]string{"tier": "2"}, hammerRules),
			labelledRole("saw", map[string]string{"tier": "3", "blunt": "y"}, sawRules),
			aggregatedRole("combined", nil, []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: "In", Values: []string{"1", "3"}},
				{Key: "blunt", Operator: "DoesNotExist"},
			}}}),
		}, map[string][]rbacv1.PolicyRule{"combined": chiselRules}},
		// The controller writes the aggregated rules into the role, so a role that
		// selects an aggregated role ends up with the rules that one aggregates.
		{"an aggregated role selected by another gives its aggregated rules", []*rbacv1.ClusterRole{
			labelledRole("hammer", map[string]string{"to": "inner"}, hammerRules),
			aggregatedRole("inner", map[string]string{"to": "outer"}, matchLabels(map[string]string{"to": "inner"}), sawRules),
			aggregatedRole("outer", nil, matchLabels(map[string]string{"to": "outer"})),
		}, map[string][]rbacv1.PolicyRule{"inner": hammerRules, "outer": hammerRules}},
		{"a cycle ends where it closes", []*rbacv1.ClusterRole{
			aggregatedRole("a", map[string]string{"to": "b"}, matchLabels(map[string]string{"to": "a"}), hammerRules),
			aggregatedRole("b", map[string]string{"to": "a"}, matchLabels(map[string]string{"to": "b"}), sawRules),
		}, map[string][]rbacv1.PolicyRule{"a": hammerRules, "b": hammerRules}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roles := rolesByName(tt.roles...)
			got := authz.AggregateClusterRoles(roles)
			if len(got) != len(tt.want) {
				t.Fatalf("aggregated roles %v, want %v", keysOf(got), keysOf(tt.want))
			}
			for name, want := range tt.want {
				if rules, ok := got[name]; !ok || !equalRuleLists(rules, want) {
					t.Errorf("%s: rules %+v, want %+v", name, rules, want)
				}
				if rules := authz.AggregatedRules(roles, name); !equalRuleLists(rules, want) {
					t.Errorf("AggregatedRules(%s) = %+v, want %+v", name, rules, want)
				}
			}
		})
	}
}

func TestAggregatedRules_PlainAndMissingRoles(t *testing.T) {
	roles := rolesByName(
		labelledRole("hammer", map[string]string{"foo": "bar"}, hammerRules),
		aggregatedRole("combined", nil, matchLabels(map[string]string{"foo": "bar"}), sawRules),
	)
	before := *roles["combined"]
	if got := authz.AggregatedRules(roles, "hammer"); !equalRuleLists(got, hammerRules) {
		t.Errorf("a role without aggregationRule: %+v, want its own rules", got)
	}
	if got := authz.AggregatedRules(roles, "missing"); got != nil {
		t.Errorf("a missing role: %+v, want nil", got)
	}
	authz.AggregateClusterRoles(roles)
	if !reflect.DeepEqual(*roles["combined"], before) {
		t.Errorf("the roles were modified: %+v", *roles["combined"])
	}
}

func equalRuleLists(a, b []rbacv1.PolicyRule) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func keysOf(m map[string][]rbacv1.PolicyRule) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// BenchmarkAggregatedRules resolves one aggregated role among many, as the escalation
// check does on every RoleBinding write that names one.
func BenchmarkAggregatedRules(b *testing.B) {
	var roles []*rbacv1.ClusterRole
	for i := range 400 {
		roles = append(roles, labelledRole("plain-"+string(rune('a'+i%26))+string(rune('a'+i/26)), map[string]string{"set": string(rune('a' + i%20))}, hammerRules))
	}
	for i := range 20 {
		roles = append(roles, aggregatedRole("agg-"+string(rune('a'+i)), nil, matchLabels(map[string]string{"set": string(rune('a' + i))})))
	}
	m := rolesByName(roles...)
	b.ReportAllocs()
	for b.Loop() {
		if len(authz.AggregatedRules(m, "agg-c")) != len(hammerRules) {
			b.Fatal("wrong rules")
		}
	}
}
