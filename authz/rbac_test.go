package authz_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/scheme"
)

func meta(namespace, name string, labels ...string) scheme.ObjectMeta {
	m := scheme.ObjectMeta{Namespace: namespace, Name: name}
	for i := 0; i+1 < len(labels); i += 2 {
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		m.Labels[labels[i]] = labels[i+1]
	}
	return m
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: meta("", name), Rules: rules}
}

func role(namespace, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: meta(namespace, name), Rules: rules}
}

func user(name string) rbacv1.Subject  { return rbacv1.Subject{Kind: rbacv1.UserKind, Name: name} }
func group(name string) rbacv1.Subject { return rbacv1.Subject{Kind: rbacv1.GroupKind, Name: name} }
func sa(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

func clusterBinding(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: meta("", name), Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.ClusterRoleKind, Name: roleName}}
}

func binding(namespace, name, kind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: meta(namespace, name), Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: kind, Name: roleName}}
}

// res is a resource request of u.
func res(u *authn.User, verb, group, resource, namespace, name string) authz.Attributes {
	resource, sub, _ := strings.Cut(resource, "/")
	return authz.Attributes{User: u, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub,
		Namespace: namespace, Name: name, ResourceRequest: true}
}

func path(u *authn.User, verb, p string) authz.Attributes {
	return authz.Attributes{User: u, Verb: verb, Path: p}
}

func TestRBAC_KubeSemanticsOfEveryRuleFeature(t *testing.T) {
	bob := &authn.User{Name: "bob", Groups: []string{"system:authenticated"}}
	dev := &authn.User{Name: "dana", Groups: []string{"developers", "system:authenticated"}}
	robot := &authn.User{Name: "system:serviceaccount:ci:robot", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"}}
	tests := []struct {
		name    string
		objs    []scheme.Object
		attrs   authz.Attributes
		allowed bool
		reason  string
	}{
		{"a listed verb is allowed", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "list", "", "pods", "x", ""), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"an unlisted verb is not", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "delete", "", "pods", "x", "p"), false, ""},
		{"verb * is every verb", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "deletecollection", "", "pods", "x", ""), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"the core group is not another group", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"widgets"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "toys.example.com", "widgets", "x", "w"), false, ""},
		{"apiGroup * is every group", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"widgets"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "toys.example.com", "widgets", "x", "w"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"a resource does not grant its subresources", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "pods/log", "x", "p"), false, ""},
		{"resource/subresource grants that subresource", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "pods/log", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"resource/subresource does not grant the resource", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "pods", "x", "p"), false, ""},
		{"*/scale grants every resource's scale", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "update", "toys.example.com", "widgets/scale", "x", "w"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"*/scale does not grant status", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "update", "toys.example.com", "widgets/status", "x", "w"), false, ""},
		{"resource * grants subresources too", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "pods/log", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"resourceNames allow the named object", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "configmaps", "x", "a"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"resourceNames refuse other objects", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "configmaps", "x", "b"), false, ""},
		{"resourceNames refuse a list, which names nothing", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "list", "", "configmaps", "x", ""), false, ""},
		{"a nonResourceURL is exact", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}),
			clusterBinding("b", "r", user("bob"))},
			path(bob, "get", "/metrics/x"), false, ""},
		{"a nonResourceURL ending in * is a prefix", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/logs/*"}}),
			clusterBinding("b", "r", user("bob"))},
			path(bob, "get", "/logs/a/b"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "bob"`},
		{"a nonResourceURL rule grants no resource", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}),
			clusterBinding("b", "r", user("bob"))},
			res(bob, "get", "", "pods", "x", "p"), false, ""},
		{"a resource rule grants no path", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			clusterBinding("b", "r", user("bob"))},
			path(bob, "get", "/apis"), false, ""},
		{"a group subject grants its members", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", group("developers"))},
			res(dev, "get", "", "pods", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "developers"`},
		{"a group subject grants no one else", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", group("developers"))},
			res(bob, "get", "", "pods", "x", "p"), false, ""},
		{"a service account subject is its system:serviceaccount user", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", sa("ci", "robot"))},
			res(robot, "get", "", "pods", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to ServiceAccount "robot/ci"`},
		{"a service account of another namespace is another user", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", sa("prod", "robot"))},
			res(robot, "get", "", "pods", "x", "p"), false, ""},
		{"a RoleBinding's service account defaults to its namespace", []scheme.Object{
			role("ci", "r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			binding("ci", "b", rbacv1.RoleKind, "r", sa("", "robot"))},
			res(robot, "get", "", "pods", "ci", "p"), true, `RBAC: allowed by RoleBinding "b/ci" of Role "r" to ServiceAccount "robot/ci"`},
		{"a ClusterRoleBinding's service account without namespace is nobody", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", sa("", "robot"))},
			res(robot, "get", "", "pods", "ci", "p"), false, ""},
		{"the service accounts group of a namespace", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			clusterBinding("b", "r", group("system:serviceaccounts:ci"))},
			res(robot, "get", "", "pods", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "system:serviceaccounts:ci"`},
		{"a RoleBinding to a ClusterRole grants it in its namespace", []scheme.Object{
			clusterRole("edit", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			binding("team", "b", rbacv1.ClusterRoleKind, "edit", user("bob"))},
			res(bob, "delete", "", "secrets", "team", "s"), true, `RBAC: allowed by RoleBinding "b/team" of ClusterRole "edit" to User "bob"`},
		{"a RoleBinding to a ClusterRole grants nothing in another namespace", []scheme.Object{
			clusterRole("edit", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			binding("team", "b", rbacv1.ClusterRoleKind, "edit", user("bob"))},
			res(bob, "delete", "", "secrets", "other", "s"), false, ""},
		{"a RoleBinding grants nothing cluster-wide", []scheme.Object{
			clusterRole("edit", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			binding("team", "b", rbacv1.ClusterRoleKind, "edit", user("bob"))},
			res(bob, "list", "", "secrets", "", ""), false, ""},
		{"a Role of another namespace is not found", []scheme.Object{
			role("other", "r", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			binding("team", "b", rbacv1.RoleKind, "r", user("bob"))},
			res(bob, "get", "", "pods", "team", "p"), false, `RBAC: role.rbac.authorization.k8s.io "r" not found`},
		{"a missing ClusterRole is the reason", []scheme.Object{
			clusterBinding("b", "nope", user("bob"))},
			res(bob, "get", "", "pods", "x", "p"), false, `RBAC: clusterrole.rbac.authorization.k8s.io "nope" not found`},
		{"several missing roles are listed once each", []scheme.Object{
			clusterBinding("a", "nope", user("bob")), clusterBinding("b", "nope", user("bob")), clusterBinding("c", "gone", user("bob"))},
			res(bob, "get", "", "pods", "x", "p"), false, `RBAC: [clusterrole.rbac.authorization.k8s.io "nope" not found, clusterrole.rbac.authorization.k8s.io "gone" not found]`},
		{"a missing role of someone else is no reason", []scheme.Object{
			clusterBinding("b", "nope", user("alice"))},
			res(bob, "get", "", "pods", "x", "p"), false, ""},
		{"an aggregated ClusterRole has the rules of the roles it selects", []scheme.Object{
			&rbacv1.ClusterRole{ObjectMeta: meta("", "aggregate"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"secrets"}}},
				AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"aggregate-to": "x"}}}}},
			&rbacv1.ClusterRole{ObjectMeta: meta("", "piece", "aggregate-to", "x"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}},
			clusterBinding("b", "aggregate", user("bob"))},
			res(bob, "get", "", "pods", "x", "p"), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "aggregate" to User "bob"`},
		{"an aggregated ClusterRole's own rules are replaced", []scheme.Object{
			&rbacv1.ClusterRole{ObjectMeta: meta("", "aggregate"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"secrets"}}},
				AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"aggregate-to": "x"}}}}},
			&rbacv1.ClusterRole{ObjectMeta: meta("", "piece", "aggregate-to", "x"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}},
			clusterBinding("b", "aggregate", user("bob"))},
			res(bob, "delete", "", "secrets", "x", "s"), false, ""},
		{"aggregation by matchExpressions, through another aggregated role", []scheme.Object{
			&rbacv1.ClusterRole{ObjectMeta: meta("", "top"), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"mid"}}}}}}},
			&rbacv1.ClusterRole{ObjectMeta: meta("", "mid", "tier", "mid"), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "leaf", Operator: "Exists"}}}}}},
			&rbacv1.ClusterRole{ObjectMeta: meta("", "leaf", "leaf", ""), Rules: []rbacv1.PolicyRule{{Verbs: []string{"watch"}, APIGroups: []string{""}, Resources: []string{"pods"}}}},
			clusterBinding("b", "top", user("bob"))},
			res(bob, "watch", "", "pods", "", ""), true, `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "top" to User "bob"`},
		{"a selector that matches no role aggregates nothing", []scheme.Object{
			&rbacv1.ClusterRole{ObjectMeta: meta("", "top"), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "leaf", Operator: "DoesNotExist"}}}}}},
			&rbacv1.ClusterRole{ObjectMeta: meta("", "leaf", "leaf", ""), Rules: []rbacv1.PolicyRule{{Verbs: []string{"watch"}, APIGroups: []string{""}, Resources: []string{"pods"}}}},
			clusterBinding("b", "top", user("bob"))},
			res(bob, "watch", "", "pods", "", ""), false, ""},
		{"no user, no rules", []scheme.Object{
			clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
			clusterBinding("b", "r", user(""))},
			res(nil, "get", "", "pods", "x", "p"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := authz.NewRBAC(tt.objs...)
			if err != nil {
				t.Fatal(err)
			}
			allowed, reason, err := r.Authorize(context.Background(), tt.attrs)
			if err != nil || allowed != tt.allowed || reason != tt.reason {
				t.Errorf("Authorize = %v, %q, %v; want %v, %q, nil", allowed, reason, err, tt.allowed, tt.reason)
			}
		})
	}
}

func TestNewRBAC_RefusesWhatIsNotRBAC(t *testing.T) {
	for _, tt := range []struct {
		name string
		obj  scheme.Object
		want string
	}{
		{"a Role without namespace", role("", "r"), `Role "r" has no namespace`},
		{"a RoleBinding without namespace", binding("", "b", rbacv1.RoleKind, "r"), `RoleBinding "b" has no namespace`},
		{"another kind", &corev1.ConfigMap{}, "*v1.ConfigMap is not a Role"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := authz.NewRBAC(tt.obj); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewRBAC = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestRBAC_SetReplacesTheRulesAndKeepsThemOnError(t *testing.T) {
	bob := &authn.User{Name: "bob"}
	get := res(bob, "get", "", "pods", "x", "p")
	r, err := authz.NewRBAC()
	if err != nil {
		t.Fatal(err)
	}
	if allowed, _, _ := r.Authorize(context.Background(), get); allowed {
		t.Fatal("no rules allowed a request")
	}
	if err := r.Set(clusterRole("r", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
		clusterBinding("b", "r", user("bob"))); err != nil {
		t.Fatal(err)
	}
	if allowed, _, _ := r.Authorize(context.Background(), get); !allowed {
		t.Fatal("Set's rules do not allow the request")
	}
	if err := r.Set(role("", "bad")); err == nil {
		t.Fatal("Set of a Role without namespace succeeded")
	}
	if allowed, _, _ := r.Authorize(context.Background(), get); !allowed {
		t.Error("a failed Set changed the rules")
	}
}
