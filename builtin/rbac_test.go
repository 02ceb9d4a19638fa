package builtin

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

func TestProtobuf_RBACAndAccessReviewKindsRoundTrip(t *testing.T) {
	ser := protobuf.New(newScheme(t))
	meta := scheme.ObjectMeta{Name: "x", Namespace: "ns", Labels: map[string]string{"a": "b"}}
	rules := []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{"", "apps"}, Resources: []string{"pods", "pods/log"}, ResourceNames: []string{"p"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/logs/*"}},
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "bob"}, {Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: "ci"}}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.ClusterRoleKind, Name: "view"}
	attrs := &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "list", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale", Name: "d",
		LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "a=b", Requirements: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"v"}}}},
		FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []authorizationv1.FieldSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"d"}}}}}
	status := authorizationv1.SubjectAccessReviewStatus{Allowed: true, Denied: false, Reason: "r", EvaluationError: "e"}
	tm := func(group scheme.GroupVersion, kind string) scheme.TypeMeta {
		return scheme.TypeMeta{APIVersion: group.String(), Kind: kind}
	}
	roundTripProtobuf(t, ser, []scheme.Kinded{
		&rbacv1.Role{TypeMeta: tm(rbacv1.SchemeGroupVersion, "Role"), ObjectMeta: meta, Rules: rules},
		&rbacv1.ClusterRole{TypeMeta: tm(rbacv1.SchemeGroupVersion, "ClusterRole"), ObjectMeta: scheme.ObjectMeta{Name: "x"}, Rules: rules,
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "NotIn", Values: []string{"v", "w"}}, {Key: "e", Operator: "Exists"}}}}}},
		&rbacv1.RoleBinding{TypeMeta: tm(rbacv1.SchemeGroupVersion, "RoleBinding"), ObjectMeta: meta, Subjects: subjects, RoleRef: ref},
		&rbacv1.ClusterRoleBinding{TypeMeta: tm(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"), ObjectMeta: scheme.ObjectMeta{Name: "x"}, Subjects: subjects, RoleRef: ref},
		&authorizationv1.SubjectAccessReview{TypeMeta: tm(authorizationv1.SchemeGroupVersion, "SubjectAccessReview"), Spec: authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs,
			User: "bob", Groups: []string{"g"}, Extra: map[string]authorizationv1.ExtraValue{"k": {"v1", "v2"}}, UID: "1"}, Status: status},
		&authorizationv1.LocalSubjectAccessReview{TypeMeta: tm(authorizationv1.SchemeGroupVersion, "LocalSubjectAccessReview"), ObjectMeta: scheme.ObjectMeta{Namespace: "ns"},
			Spec: authorizationv1.SubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/x", Verb: "get"}, User: "bob"}, Status: status},
		&authorizationv1.SelfSubjectAccessReview{TypeMeta: tm(authorizationv1.SchemeGroupVersion, "SelfSubjectAccessReview"), Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs}, Status: status},
	})
}

func TestRBACDefaults_RoleRefAndUserOrGroupSubjectsGetTheRBACGroup(t *testing.T) {
	s := newScheme(t)
	b := &rbacv1.RoleBinding{Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}, {Kind: rbacv1.GroupKind, Name: "g"}, {Kind: rbacv1.ServiceAccountKind, Name: "s"}},
		RoleRef: rbacv1.RoleRef{Kind: rbacv1.RoleKind, Name: "r"}}
	conversion.Default(s, b)
	want := &rbacv1.RoleBinding{Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "u"}, {Kind: rbacv1.GroupKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "g"},
		{Kind: rbacv1.ServiceAccountKind, Name: "s"}}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.RoleKind, Name: "r"}}
	if d := cmp.Diff(want, b); d != "" {
		t.Errorf("defaulted binding (-want +got):\n%s", d)
	}
}
