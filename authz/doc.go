// Package authz holds the authorizers of an apikit server, each a Authorizer for
// rest.Options.Authorizer, with the semantics of kube-apiserver's:
//
//   - [RBAC]: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (the types of
//     package builtin/rbac/v1), from Go values ([NewRBAC]), from a YAML manifest ([LoadRBAC]),
//     or followed as they are created through the API ([RBAC.WatchStorage], with
//     builtin.AddRBACToScheme serving rbac.authorization.k8s.io/v1).
//   - [SubjectAccessReview]: the decision of a kube-apiserver, asked with
//     authorization.k8s.io/v1 SubjectAccessReviews and cached as k8s.io/apiserver's
//     delegating authorizer caches it: what an aggregated API server uses.
//   - [PrivilegedGroups]: every request of the members of some groups (system:masters).
//   - [AlwaysAllowPaths]: non-resource paths such as /metrics for everyone who got past
//     authentication (--authorization-always-allow-paths).
//   - [Union]: the first of several that allows, as kube-apiserver chains its
//     --authorization-mode list.
//
// None denies outright: a request nothing allows is refused by the Handler with kube's
// 403 message, the reasons appended. Writes of RBAC objects are also checked for
// privilege escalation, by strategies.RBAC, which asks the Handler's Authorizer
// whatever it is (see there). Which requests need which permissions, including
// impersonation (verb "impersonate" on users, groups, serviceaccounts, uids and
// userextras), is the Handler's business; see package rest.
package authz
