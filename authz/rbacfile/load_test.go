package rbacfile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz/rbacfile"
)

func TestLoad_ReadsDocumentsAndListsAndRefusesTypos(t *testing.T) {
	manifest := `
# the roles
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleList
items:
- metadata: {name: pod-reader}
  rules:
  - {apiGroups: [""], resources: [pods], verbs: [get]}
---
---
apiVersion: v1
kind: List
items:
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRoleBinding
  metadata: {name: ops}
  subjects: [{kind: Group, name: ops, apiGroup: rbac.authorization.k8s.io}]
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
`
	r, err := rbacfile.Load(strings.NewReader(manifest))
	if err != nil {
		t.Fatal(err)
	}
	ops := &authn.User{Name: "o", Groups: []string{"ops"}}
	if allowed, reason, _ := r.Authorize(context.Background(), authz.Attributes{User: ops, Verb: "get", Resource: "pods", Namespace: "x", Name: "p", ResourceRequest: true}); !allowed {
		t.Errorf("the loaded rules refuse ops: %q", reason)
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"a misspelt field", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: x}\nrules:\n- {resourceName: [a], verbs: [get]}\n",
			`RBAC document 1: ClusterRole "x": strict decoding error: unknown field "rules[0].resourceName"`},
		{"another kind", "apiVersion: v1\nkind: ConfigMap\n", `RBAC document 1: v1 "ConfigMap" is not an rbac.authorization.k8s.io/v1`},
		{"another version", "---\napiVersion: rbac.authorization.k8s.io/v1beta1\nkind: Role\n", `RBAC document 1: rbac.authorization.k8s.io/v1beta1 "Role" is not`},
		{"an item of a v1 List", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret}\n", `RBAC document 1: items[0]: v1 "Secret" is not`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rbacfile.Load(strings.NewReader(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
