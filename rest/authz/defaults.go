package authz

import (
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/scheme"
)

// DefaultPolicy returns the part of kube-apiserver's bootstrap RBAC policy every
// apikit server wants, as new objects for NewRBAC or for storing: cluster-admin
// (everything) bound to the group system:masters; system:basic-user (create
// SelfSubjectAccessReviews, SelfSubjectRulesReviews and SelfSubjectReviews, so that
// kubectl auth can-i and whoami work) and system:discovery (get on /api, /apis,
// /openapi, health and /version) bound to system:authenticated; and
// system:public-info-viewer (health and /version) bound to system:authenticated and
// system:unauthenticated.
//
// RBAC.WatchStorage replaces the rules with the stored ones: a server that follows
// storage and wants these too stores them, or asks a second RBAC made from them in a
// Union.
func DefaultPolicy() []scheme.Object {
	get := []string{"get"}
	health := []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}
	authenticated := builtin.Subject{Kind: builtin.GroupKind, APIGroup: builtin.RBACV1.Group, Name: "system:authenticated"}
	unauthenticated := builtin.Subject{Kind: builtin.GroupKind, APIGroup: builtin.RBACV1.Group, Name: "system:unauthenticated"}
	masters := builtin.Subject{Kind: builtin.GroupKind, APIGroup: builtin.RBACV1.Group, Name: "system:masters"}
	var objs []scheme.Object
	add := func(name string, rules []builtin.PolicyRule, subjects ...builtin.Subject) {
		labels := map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
		objs = append(objs,
			&builtin.ClusterRole{TypeMeta: scheme.TypeMeta{APIVersion: builtin.RBACV1.String(), Kind: "ClusterRole"},
				ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Rules: rules},
			&builtin.ClusterRoleBinding{TypeMeta: scheme.TypeMeta{APIVersion: builtin.RBACV1.String(), Kind: "ClusterRoleBinding"},
				ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Subjects: subjects,
				RoleRef: builtin.RoleRef{APIGroup: builtin.RBACV1.Group, Kind: builtin.ClusterRoleKind, Name: name}})
	}
	add("cluster-admin", []builtin.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}, masters)
	add("system:basic-user", []builtin.PolicyRule{
		{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
		{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
	}, authenticated)
	add("system:discovery", []builtin.PolicyRule{
		{Verbs: get, NonResourceURLs: append([]string{"/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*"}, health...)},
	}, authenticated)
	add("system:public-info-viewer", []builtin.PolicyRule{{Verbs: get, NonResourceURLs: health}}, authenticated, unauthenticated)
	return objs
}
