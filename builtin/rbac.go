package builtin

import (
	"fmt"

	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// rbacResources are the RBAC resources as kube-apiserver's discovery lists them. Like
// kube's RBAC strategies, a PUT of a missing object creates it (checked for
// escalation as any create).
var rbacResources = []scheme.Resource{
	{Group: rbacv1.SchemeGroupVersion.Group, Kind: "Role", Plural: "roles", Namespaced: true, NameValidation: validation.NameIsPathSegment, AllowCreateOnUpdate: true},
	{Group: rbacv1.SchemeGroupVersion.Group, Kind: "ClusterRole", Plural: "clusterroles", NameValidation: validation.NameIsPathSegment, AllowCreateOnUpdate: true},
	{Group: rbacv1.SchemeGroupVersion.Group, Kind: "RoleBinding", Plural: "rolebindings", Namespaced: true, NameValidation: validation.NameIsPathSegment, AllowCreateOnUpdate: true,
		PrinterColumns: []scheme.PrinterColumn{{Name: "Role", Type: "string", JSONPath: ".roleRef.name"}}},
	{Group: rbacv1.SchemeGroupVersion.Group, Kind: "ClusterRoleBinding", Plural: "clusterrolebindings", NameValidation: validation.NameIsPathSegment, AllowCreateOnUpdate: true,
		PrinterColumns: []scheme.PrinterColumn{{Name: "Role", Type: "string", JSONPath: ".roleRef.name"}}},
}

// AddRBACToScheme registers the rbac.authorization.k8s.io/v1 kinds (Role, ClusterRole,
// RoleBinding, ClusterRoleBinding and their lists), their resources, kube's defaults
// (a roleRef's and a User or Group subject's apiGroup) and their protobuf field numbers,
// so that kubectl and client-go create and read RBAC objects as on kube-apiserver.
// AddToScheme calls it; a host that serves none of the other built-in kinds calls it
// alone and passes strategies.RBAC as rest.Options.Strategies. Package authz's RBAC
// authorizer follows the stored objects with RBAC.WatchStorage.
func AddRBACToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(rbacv1.SchemeGroupVersion, &rbacv1.Role{}, &rbacv1.RoleList{}, &rbacv1.ClusterRole{}, &rbacv1.ClusterRoleList{},
		&rbacv1.RoleBinding{}, &rbacv1.RoleBindingList{}, &rbacv1.ClusterRoleBinding{}, &rbacv1.ClusterRoleBindingList{})
	for _, r := range rbacResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	conversion.RegisterDefaults(s, defaultRoleRef)
	conversion.RegisterDefaults(s, defaultSubject)
	if err := registerRBACProtobuf(s); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	return nil
}

// defaultRoleRef is kube's SetDefaults_RoleBinding and SetDefaults_ClusterRoleBinding:
// a role reference is of the RBAC group.
func defaultRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.SchemeGroupVersion.Group
	}
}

// defaultSubject is kube's SetDefaults_Subject: Users and Groups are of the RBAC group.
func defaultSubject(s *rbacv1.Subject) {
	if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
		s.APIGroup = rbacv1.SchemeGroupVersion.Group
	}
}
