package builtin

import (
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// policyRule, subject and roleRef are rbac/v1 PolicyRule, Subject and RoleRef.
var (
	policyRule = fields{
		repeated("verbs", 1, protobuf.TypeString),
		repeated("apiGroups", 2, protobuf.TypeString),
		repeated("resources", 3, protobuf.TypeString),
		repeated("resourceNames", 4, protobuf.TypeString),
		repeated("nonResourceURLs", 5, protobuf.TypeString),
	}
	subject = fields{
		field("kind", 1, protobuf.TypeString),
		field("apiGroup", 2, protobuf.TypeString),
		field("name", 3, protobuf.TypeString),
		field("namespace", 4, protobuf.TypeString),
	}
	roleRef = fields{
		field("apiGroup", 1, protobuf.TypeString),
		field("kind", 2, protobuf.TypeString),
		field("name", 3, protobuf.TypeString),
	}
	// labelSelector is meta/v1 metav1.LabelSelector.
	labelSelector = fields{
		field("matchLabels", 1, protobuf.TypeStringMap),
		repeated("matchExpressions", 2, protobuf.TypeMessage),
		field("matchExpressions.key", 1, protobuf.TypeString),
		field("matchExpressions.operator", 2, protobuf.TypeString),
		repeated("matchExpressions.values", 3, protobuf.TypeString),
	}
)

// rbacProtobufFields are the field numbers of k8s.io/api rbac/v1 generated.proto.
func rbacProtobufFields() map[scheme.GroupVersionKind]fields {
	meta := field("metadata", 1, protobuf.TypeObjectMeta)
	rules := repeated("rules", 2, protobuf.TypeMessage)
	bindingFields := append(fields{meta,
		repeated("subjects", 2, protobuf.TypeMessage),
		field("roleRef", 3, protobuf.TypeMessage),
	}, append(under("subjects", subject), under("roleRef", roleRef)...)...)
	clusterRole := append(fields{meta, rules,
		optional("aggregationRule", 3, protobuf.TypeMessage),
		repeated("aggregationRule.clusterRoleSelectors", 1, protobuf.TypeMessage),
	}, append(under("rules", policyRule), under("aggregationRule.clusterRoleSelectors", labelSelector)...)...)
	return map[scheme.GroupVersionKind]fields{
		rbacv1.SchemeGroupVersion.WithKind("Role"):               append(fields{meta, rules}, under("rules", policyRule)...),
		rbacv1.SchemeGroupVersion.WithKind("ClusterRole"):        clusterRole,
		rbacv1.SchemeGroupVersion.WithKind("RoleBinding"):        bindingFields,
		rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"): bindingFields,
	}
}
