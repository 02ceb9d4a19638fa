package builtin

import (
	"fmt"
	"slices"

	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// AddAuthorizationToScheme registers authorization.k8s.io/v1 SubjectAccessReview,
// SelfSubjectAccessReview and LocalSubjectAccessReview with their protobuf field
// numbers. Served with strategies.Authorization, they are answered by the Handler's own
// Authorizer (authz.Authorize) and never stored, so kubectl auth can-i works.
// AddToScheme calls it.
func AddAuthorizationToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(authorizationv1.SchemeGroupVersion, &authorizationv1.SubjectAccessReview{}, &authorizationv1.SubjectAccessReviewList{},
		&authorizationv1.SelfSubjectAccessReview{}, &authorizationv1.SelfSubjectAccessReviewList{},
		&authorizationv1.LocalSubjectAccessReview{}, &authorizationv1.LocalSubjectAccessReviewList{})
	create := []string{"create"} // reviews are answered, never stored
	for _, r := range []scheme.Resource{
		{Group: authorizationv1.SchemeGroupVersion.Group, Kind: "SubjectAccessReview", Plural: "subjectaccessreviews", Verbs: create},
		{Group: authorizationv1.SchemeGroupVersion.Group, Kind: "SelfSubjectAccessReview", Plural: "selfsubjectaccessreviews", Verbs: create},
		{Group: authorizationv1.SchemeGroupVersion.Group, Kind: "LocalSubjectAccessReview", Plural: "localsubjectaccessreviews", Namespaced: true, Verbs: create},
	} {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := registerProtobufFields(s, authorizationProtobufFields()); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	return nil
}

// authorizationProtobufFields are the field numbers of k8s.io/api authorization/v1
// generated.proto.
func authorizationProtobufFields() map[scheme.GroupVersionKind]fields {
	selector := fields{
		field("rawSelector", 1, protobuf.TypeString),
		repeated("requirements", 2, protobuf.TypeMessage),
		field("requirements.key", 1, protobuf.TypeString),
		field("requirements.operator", 2, protobuf.TypeString),
		repeated("requirements.values", 3, protobuf.TypeString),
	}
	attributes := append(fields{
		optional("resourceAttributes", 1, protobuf.TypeMessage),
		field("resourceAttributes.namespace", 1, protobuf.TypeString),
		field("resourceAttributes.verb", 2, protobuf.TypeString),
		field("resourceAttributes.group", 3, protobuf.TypeString),
		field("resourceAttributes.version", 4, protobuf.TypeString),
		field("resourceAttributes.resource", 5, protobuf.TypeString),
		field("resourceAttributes.subresource", 6, protobuf.TypeString),
		field("resourceAttributes.name", 7, protobuf.TypeString),
		optional("resourceAttributes.fieldSelector", 8, protobuf.TypeMessage),
		optional("resourceAttributes.labelSelector", 9, protobuf.TypeMessage),
		optional("nonResourceAttributes", 2, protobuf.TypeMessage),
		field("nonResourceAttributes.path", 1, protobuf.TypeString),
		field("nonResourceAttributes.verb", 2, protobuf.TypeString),
	}, append(under("resourceAttributes.fieldSelector", selector), under("resourceAttributes.labelSelector", selector)...)...)
	review := func(spec fields) fields {
		return append(fields{
			field("metadata", 1, protobuf.TypeObjectMeta),
			field("spec", 2, protobuf.TypeMessage),
			field("status", 3, protobuf.TypeMessage),
			field("status.allowed", 1, protobuf.TypeBool),
			field("status.reason", 2, protobuf.TypeString),
			field("status.evaluationError", 3, protobuf.TypeString),
			field("status.denied", 4, protobuf.TypeBool),
		}, under("spec", spec)...)
	}
	subjectSpec := append(slices.Clone(attributes),
		field("user", 3, protobuf.TypeString),
		repeated("groups", 4, protobuf.TypeString),
		field("extra", 5, protobuf.TypeStringMap),
		field("uid", 6, protobuf.TypeString),
	)
	return map[scheme.GroupVersionKind]fields{
		authorizationv1.SchemeGroupVersion.WithKind("SubjectAccessReview"):      review(subjectSpec),
		authorizationv1.SchemeGroupVersion.WithKind("LocalSubjectAccessReview"): review(subjectSpec),
		authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"):  review(attributes),
	}
}
