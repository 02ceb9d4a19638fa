package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/authn"
	authorizationv1 "github.com/apikit-dev/apikit/builtin/authorization/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
)

func TestValidateRBAC_AsKubeWordsIt(t *testing.T) {
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"a resource rule names groups, resources and verbs", causes(validateRules([]rbacv1.PolicyRule{{}}, false)), []string{
			"rules[0].verbs: Required value: verbs must contain at least one value",
			"rules[0].apiGroups: Required value: resource rules must supply at least one api group",
			"rules[0].resources: Required value: resource rules must supply at least one resource"}},
		{"resourceNames need one resource", causes(validateRules([]rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"a", "b"}, ResourceNames: []string{"n"}}}, false)),
			[]string{"rules[0].resourceNames: Required value: resource names cannot apply to multiple resources"}},
		{"non-resource URLs alone, and only cluster-wide", causes(validateRules([]rbacv1.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"a"}, NonResourceURLs: []string{"/x"}}}, true)), []string{
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs`,
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`}},
		{"a good binding", causes(validateBinding(rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.RoleKind, Name: "r"}, []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "s"}}, true)), nil},
		{"a bad binding", causes(validateBinding(rbacv1.RoleRef{APIGroup: "x", Kind: "Thing"}, []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "u"}, {Kind: "Robot", Name: "r"}, {Kind: rbacv1.ServiceAccountKind, Name: "S_A", APIGroup: "x"}}, false)), []string{
			`roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io"`,
			`roleRef.kind: Unsupported value: "Thing": supported values: "ClusterRole"`,
			`roleRef.name: Required value`,
			`subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"`,
			`subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			`subjects[2].name: Invalid value: "S_A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`subjects[2].apiGroup: Unsupported value: "x": supported values: ""`,
			`subjects[2].namespace: Required value`}},
		{"roleRef never changes", causes(validateRoleRefUnchanged(rbacv1.RoleRef{Kind: rbacv1.RoleKind, Name: "a"}, rbacv1.RoleRef{Kind: rbacv1.RoleKind, Name: "b"})), []string{
			`roleRef: Invalid value: {"apiGroup":"","kind":"Role","name":"a"}: cannot change roleRef`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestAccessReview_OutsideARequestFailsClosed(t *testing.T) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/", Verb: "get"}}}
	got, err := accessReviewStrategy{}.RespondToCreate(context.Background(), &authn.User{Name: "bob"}, review)
	if err != nil {
		t.Fatal(err)
	}
	if st := got.(*authorizationv1.SelfSubjectAccessReview).Status; st.Allowed || st.EvaluationError == "" {
		t.Errorf("status %+v, want not allowed with an evaluation error", st)
	}
}
