package authz_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/authz/rbacfile"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"
)

// A server whose administrators are in system:masters, whose /metrics is open to every
// authenticated client, and whose other users get what an RBAC manifest grants them.
func Example() {
	rbac, err := rbacfile.Load(strings.NewReader(`
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widget-reader
rules:
- apiGroups: ["toys.example.com"]
  resources: ["widgets"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: bob-reads-widgets
  namespace: default
subjects:
- kind: User
  name: bob
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: widget-reader
`))
	if err != nil {
		panic(err)
	}
	authorizer := authz.Union(authz.PrivilegedGroups("system:masters"), authz.AlwaysAllowPaths("/metrics"), rbac)

	bob := &authn.User{Name: "bob", Groups: []string{"system:authenticated"}}
	for _, a := range []authz.Attributes{
		{User: bob, Verb: "list", APIGroup: "toys.example.com", Resource: "widgets", Namespace: "default", ResourceRequest: true},
		{User: bob, Verb: "delete", APIGroup: "toys.example.com", Resource: "widgets", Namespace: "default", Name: "w", ResourceRequest: true},
		{User: bob, Verb: "list", APIGroup: "toys.example.com", Resource: "widgets", Namespace: "kube-system", ResourceRequest: true},
		{User: bob, Verb: "get", Path: "/metrics"},
	} {
		allowed, reason, _ := authorizer.Authorize(context.Background(), a)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s %q: %v %s", a.Verb, a.Resource+a.Path, a.Namespace, allowed, reason)))
	}
	// Output:
	// list widgets "default": true RBAC: allowed by RoleBinding "bob-reads-widgets/default" of ClusterRole "widget-reader" to User "bob"
	// delete widgets "default": false
	// list widgets "kube-system": false
	// get /metrics "": true
}
