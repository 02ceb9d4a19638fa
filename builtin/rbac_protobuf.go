package builtin

import (
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// registerRBACProtobuf gives the RBAC kinds the field numbers of k8s.io/api rbac/v1
// generated.proto, which their Go types carry as protobuf struct tags (an aggregation
// rule's selectors are meta/v1 LabelSelectors). Call it after the kinds and their lists
// are added to s.
func registerRBACProtobuf(s *scheme.Scheme) error {
	return protobuf.RegisterTypes(s, rbacv1.SchemeGroupVersion,
		&rbacv1.Role{}, &rbacv1.ClusterRole{}, &rbacv1.RoleBinding{}, &rbacv1.ClusterRoleBinding{})
}
