package v1

import (
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// SchemeGroupVersion is the group of Kubernetes' role-based access control objects.
var SchemeGroupVersion = scheme.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}

// Resource names of the RBAC kinds.
var (
	Roles               = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "roles"}
	ClusterRoles        = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "clusterroles"}
	RoleBindings        = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "rolebindings"}
	ClusterRoleBindings = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "clusterrolebindings"}
)

// The kinds of RBAC subjects and role references, spelled as in k8s.io/api/rbac/v1.
const (
	UserKind           = "User"
	GroupKind          = "Group"
	ServiceAccountKind = "ServiceAccount"
	RoleKind           = "Role"
	ClusterRoleKind    = "ClusterRole"
)

// PolicyRule allows verbs on resources or on non-resource URLs. "*" in verbs, apiGroups,
// resources or nonResourceURLs matches everything; "*/scale" matches the scale
// subresource of every resource; a nonResourceURL ending in "*" is a prefix.
type PolicyRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups       []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources       []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames   []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants its role to: a User, a Group, or a ServiceAccount
// (whose namespace defaults to the RoleBinding's).
type Subject struct {
	Kind      string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	APIGroup  string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	Name      string `json:"name" protobuf:"bytes,3,opt,name=name"`
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the Role or ClusterRole a binding grants; it cannot change.
type RoleRef struct {
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	Kind     string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name     string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a namespaced set of rules.
type Role struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleList is a list of Roles.
type RoleList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a cluster-wide set of rules; with an AggregationRule its rules are
// those of the ClusterRoles its selectors match.
type ClusterRole struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Rules           []PolicyRule     `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule selects the ClusterRoles whose rules an aggregated ClusterRole has.
type AggregationRule struct {
	ClusterRoleSelectors []metav1.LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleList is a list of ClusterRoles.
type ClusterRoleList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants a Role, or a ClusterRole's rules within its own namespace, to
// subjects.
type RoleBinding struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef  RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// RoleBindingList is a list of RoleBindings.
type RoleBindingList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants a ClusterRole to subjects in every namespace.
type ClusterRoleBinding struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef  RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
type ClusterRoleBindingList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
