package authz

import (
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
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
	authenticated := rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "system:authenticated"}
	unauthenticated := rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "system:unauthenticated"}
	masters := rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "system:masters"}
	var objs []scheme.Object
	add := func(name string, rules []rbacv1.PolicyRule, subjects ...rbacv1.Subject) {
		labels := map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
		objs = append(objs,
			&rbacv1.ClusterRole{TypeMeta: scheme.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
				ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Rules: rules},
			&rbacv1.ClusterRoleBinding{TypeMeta: scheme.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
				ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Subjects: subjects,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.ClusterRoleKind, Name: name}})
	}
	add("cluster-admin", []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
	}, masters)
	add("system:basic-user", []rbacv1.PolicyRule{
		{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
		{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
	}, authenticated)
	add("system:discovery", []rbacv1.PolicyRule{
		{Verbs: get, NonResourceURLs: append([]string{"/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*"}, health...)},
	}, authenticated)
	add("system:public-info-viewer", []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: health}}, authenticated, unauthenticated)
	return objs
}
