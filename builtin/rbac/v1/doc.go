// Package v1 holds the rbac.authorization.k8s.io/v1 kinds, laid out like
// k8s.io/api/rbac/v1 (import it as rbacv1): Role, ClusterRole, RoleBinding and
// ClusterRoleBinding with their lists, and the PolicyRule, Subject, RoleRef and
// AggregationRule they carry. Package builtin registers them in a scheme; package authz
// authorizes by them.
package v1
