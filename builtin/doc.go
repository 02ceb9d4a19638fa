// Package builtin holds Kubernetes' built-in kinds a controller test needs: core/v1
// Namespace, ConfigMap, Secret, ServiceAccount and Event, events.k8s.io/v1 Event,
// coordination.k8s.io/v1 Lease, authentication.k8s.io/v1 SelfSubjectReview,
// rbac.authorization.k8s.io/v1 rbacv1.Role, rbacv1.ClusterRole, rbacv1.RoleBinding and rbacv1.ClusterRoleBinding, and
// authorization.k8s.io/v1 authorizationv1.SubjectAccessReview, authorizationv1.SelfSubjectAccessReview and
// authorizationv1.LocalSubjectAccessReview, with kube's JSON and protobuf encodings, so that client-go's
// typed clientset, kubectl and controller-runtime talk to an apikit server about them
// unchanged.
//
// It is opt-in: a host calls [AddToScheme] to serve the kinds as kube-apiserver does
// (scope, short names, categories, table columns) and passes [Strategies] as
// rest.Options.Strategies for kube's rules on writes (a Secret's stringData merged into
// data, immutable ConfigMaps and Secrets, data key validation) and for
// SelfSubjectReview, which answers with the requesting user and stores nothing. The
// access reviews are answered by the Handler's own Authorizer (authz.Authorize), so
// kubectl auth can-i works; the RBAC objects are validated as kube validates them and
// checked for privilege escalation as kube checks them (a user grants only permissions
// the Handler's Authorizer allows the user, unless allowed the verb escalate or bind),
// and package rest/authz's RBAC authorizer can follow them in storage. A host that serves
// RBAC alone calls [AddRBACToScheme] with [RBACStrategies]. A host that does not call
// AddToScheme serves none of this and sees no change.
package builtin
