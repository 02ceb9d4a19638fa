// Package builtin registers Kubernetes' built-in kinds a controller test needs in a
// scheme, as kube-apiserver serves them: the kinds of the type packages beneath it —
// core/v1 (corev1.Namespace, ConfigMap, Secret, ServiceAccount, Event), events.k8s.io/v1
// (eventsv1.Event), coordination.k8s.io/v1 (coordinationv1.Lease),
// authentication.k8s.io/v1 (authenticationv1.SelfSubjectReview),
// rbac.authorization.k8s.io/v1 (rbacv1.Role, ClusterRole, RoleBinding,
// ClusterRoleBinding) and authorization.k8s.io/v1 (authorizationv1.SubjectAccessReview,
// SelfSubjectAccessReview, LocalSubjectAccessReview) — with their resources (scope,
// short names, categories, table columns), kube's defaults, the conversions between
// core/v1 and events.k8s.io/v1 Events, which share one storage, and the field numbers
// of kube's protobuf encoding, so that client-go's typed clientset, kubectl and
// controller-runtime talk to an apikit server about them unchanged.
//
// It is opt-in: a host calls [AddToScheme] for all of them, or [AddRBACToScheme] or
// [AddAuthorizationToScheme] for one group, and passes the matching rules of package
// registry/strategies (strategies.Builtin, strategies.RBAC, strategies.Authorization)
// as rest.Options.Strategies. A host that does not call AddToScheme serves none of this
// and sees no change.
package builtin
