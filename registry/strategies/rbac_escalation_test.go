package strategies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// bearerIsName authenticates "Bearer NAME" as the user NAME in system:authenticated;
// "admin" is in system:masters too.
type bearerIsName struct{}

func (bearerIsName) Authenticate(r *http.Request) (*authn.User, bool, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || name == "" {
		return nil, false, nil
	}
	u := &authn.User{Name: name, Groups: []string{"system:authenticated"}}
	if name == "admin" {
		u.Groups = append(u.Groups, "system:masters")
	}
	return u, true, nil
}

// countingAuthorizer counts the questions asked of an Authorizer.
type countingAuthorizer struct {
	authz.Authorizer
	n atomic.Int64
}

func (c *countingAuthorizer) Authorize(ctx context.Context, a authz.Attributes) (bool, string, error) {
	c.n.Add(1)
	return c.Authorizer.Authorize(ctx, a)
}

// Fixture objects: who holds what. carol may write every RBAC object and holds
// get/list pods; dave may create RoleBindings in default and holds get/list pods there
// (the two users); erin may write RBAC objects, escalate roles and bind
// cluster-admin; frank may write RBAC objects and holds cluster-admin (without being
// in system:masters); sam may write RBAC objects and holds get on every "*/scale" and
// on the pod "web".
func escalationFixture() []scheme.Object {
	tm := func(kind string) scheme.TypeMeta {
		return scheme.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
	}
	rule := func(verbs, groups, resources []string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	l := func(s ...string) []string { return s }
	clusterRole := func(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{TypeMeta: tm("ClusterRole"), ObjectMeta: scheme.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
	}
	crb := func(name, role string, users ...string) *rbacv1.ClusterRoleBinding {
		b := &rbacv1.ClusterRoleBinding{TypeMeta: tm("ClusterRoleBinding"), ObjectMeta: scheme.ObjectMeta{Name: name},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.ClusterRoleKind, Name: role}}
		for _, u := range users {
			b.Subjects = append(b.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: u})
		}
		return b
	}
	rb := func(name, kind, role, user string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{TypeMeta: tm("RoleBinding"), ObjectMeta: scheme.ObjectMeta{Name: name, Namespace: "default"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: kind, Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: user}}}
	}
	rbac := l("rbac.authorization.k8s.io")
	writes := l("create", "update", "patch")
	agg := clusterRole("agg", nil)
	agg.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"agg": "yes"}}}}
	return []scheme.Object{
		clusterRole("cluster-admin", nil, rule(l("*"), l("*"), l("*")), rbacv1.PolicyRule{Verbs: l("*"), NonResourceURLs: l("*")}),
		clusterRole("pod-reader", nil, rule(l("get", "list"), l(""), l("pods"))),
		clusterRole("secret-admin", nil, rule(l("*"), l(""), l("secrets"))),
		clusterRole("rbac-writer", nil, rule(writes, rbac, l("roles", "clusterroles", "rolebindings", "clusterrolebindings"))),
		clusterRole("escalator", nil, rule(l("escalate"), rbac, l("roles", "clusterroles")), rule(l("bind"), rbac, l("clusterroles"), "cluster-admin")),
		clusterRole("scaler", nil, rule(l("get"), l("*"), l("*/scale")), rule(l("get"), l(""), l("pods"), "web")),
		clusterRole("rolebinding-creator", nil, rule(l("create"), rbac, l("rolebindings"))),
		agg,
		clusterRole("agg-piece", map[string]string{"agg": "yes"}, rule(l("get"), l(""), l("pods"))),
		crb("carol-writes", "rbac-writer", "carol", "erin", "frank", "sam"),
		crb("carol-pods", "pod-reader", "carol"),
		crb("erin-escalates", "escalator", "erin"),
		crb("frank-admin", "cluster-admin", "frank"),
		crb("sam-scales", "scaler", "sam"),
		crb("admins", "cluster-admin"),
		clusterRole("admin-sized", nil, adminSizedRule()),
		crb("holder-writes", "rbac-writer", "holder"),
		crb("holder-holds", "admin-sized", "holder"),
		rb("dave-creates", rbacv1.ClusterRoleKind, "rolebinding-creator", "dave"),
		rb("dave-pods", rbacv1.ClusterRoleKind, "pod-reader", "dave"),
		&rbacv1.Role{TypeMeta: tm("Role"), ObjectMeta: scheme.ObjectMeta{Name: "carol-role", Namespace: "default"}, Rules: []rbacv1.PolicyRule{rule(l("get"), l(""), l("pods"))}},
		&rbacv1.Role{TypeMeta: tm("Role"), ObjectMeta: scheme.ObjectMeta{Name: "everything", Namespace: "default"}, Rules: []rbacv1.PolicyRule{rule(l("*"), l("*"), l("*"))}},
	}
}

// escalationServer serves the built-in kinds with strategies.Builtin, the fixture
// stored, authorized by az (system:masters and the fixture's rules, however asked),
// counted.
func escalationServer(t testing.TB, az authz.Authorizer) (*apitest.Server, *countingAuthorizer) {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	counter := &countingAuthorizer{Authorizer: az}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Authenticator: bearerIsName{}, Authorizer: counter}})
	send(t, srv, "admin", "POST", "/api/v1/namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`, http.StatusCreated)
	for _, obj := range escalationFixture() {
		body, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		send(t, srv, "admin", "POST", collectionPath(obj), "", string(body), http.StatusCreated)
	}
	return srv, counter
}

// fixtureRBAC is the fixture's rules and system:masters' as an Authorizer.
func fixtureRBAC(t testing.TB) authz.Authorizer {
	t.Helper()
	rbac, err := authz.NewRBAC(escalationFixture()...)
	if err != nil {
		t.Fatal(err)
	}
	return authz.Union(authz.PrivilegedGroups("system:masters"), rbac)
}

func collectionPath(obj scheme.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	plural := strings.ToLower(kind) + "s"
	if ns := obj.GetNamespace(); ns != "" {
		return "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/" + plural
	}
	return "/apis/rbac.authorization.k8s.io/v1/" + plural
}

// send makes a request as user and returns the decoded answer, failing unless its
// status is want (any when want is 0).
func send(t testing.TB, srv *apitest.Server, user, method, path, contentType, body string, want int) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s as %s: %d, not JSON: %s", method, path, user, resp.StatusCode, data)
	}
	if want != 0 && resp.StatusCode != want {
		t.Fatalf("%s %s as %s: %d %s, want %d", method, path, user, resp.StatusCode, data, want)
	}
	return resp.StatusCode, out
}

const (
	rbacAPI       = "/apis/rbac.authorization.k8s.io/v1"
	applyYAML     = "application/apply-patch+yaml"
	jsonPatch     = "application/json-patch+json"
	mergePatch    = "application/merge-patch+json"
	notHeld       = `user %q (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n"
	allResources  = `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`
	allURLs       = `{NonResourceURLs:["*"], Verbs:["*"]}`
	aggregateOnly = "must have cluster-admin privileges to use the aggregationRule"
)

func clusterRoleJSON(name, rules string, extra ...string) string {
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + name + `"},"rules":` + rules + strings.Join(extra, "") + `}`
}

func roleJSON(name, rules string) string {
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"` + name + `","namespace":"default"},"rules":` + rules + `}`
}

func bindingJSON(kind, name, namespace, roleKind, role string, users ...string) string {
	ns := ""
	if namespace != "" {
		ns = `,"namespace":"` + namespace + `"`
	}
	var subjects []string
	for _, u := range users {
		subjects = append(subjects, `{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"`+u+`"}`)
	}
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"` + kind + `","metadata":{"name":"` + name + `"` + ns + `},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"` + roleKind + `","name":"` + role + `"},"subjects":[` + strings.Join(subjects, ",") + `]}`
}

// manyPermissions is a rule of 100 verbs on 100 resources: 10,000 pieces.
func manyPermissions() string {
	var verbs, resources []string
	for i := range 100 {
		verbs = append(verbs, fmt.Sprintf(`"v%d"`, i))
		resources = append(resources, fmt.Sprintf(`"r%d"`, i))
	}
	return `[{"verbs":[` + strings.Join(verbs, ",") + `],"apiGroups":[""],"resources":[` + strings.Join(resources, ",") + `]}]`
}

// escalationCase is one write and what kube-apiserver answers it.
type escalationCase struct {
	name                            string
	user, method, path, ctype, body string
	code                            int
	// message is the whole Status message of a refusal.
	message string
	// maxQuestions bounds the Authorizer questions the write costs beyond the
	// request's own authorization (0: not checked).
	maxQuestions int64
}

func escalationCases() []escalationCase {
	crs, crbs := rbacAPI+"/clusterroles", rbacAPI+"/clusterrolebindings"
	roles, rbs := rbacAPI+"/namespaces/default/roles", rbacAPI+"/namespaces/default/rolebindings"
	forbidden := func(resource, name, user, lines string) string {
		return fmt.Sprintf("%s.rbac.authorization.k8s.io %q is forbidden: "+notHeld+"%s", resource, name, user, lines)
	}
	return []escalationCase{
		// Roles and ClusterRoles: only held permissions, unless escalate.
		{name: "a ClusterRole of */*/* from a user without it", user: "carol", method: "POST", path: crs, body: clusterRoleJSON("star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`),
			code: 403, message: forbidden("clusterroles", "star", "carol", allResources)},
		{name: "a ClusterRole of held permissions", user: "carol", method: "POST", path: crs, body: clusterRoleJSON("readers", `[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]`), code: 201, maxQuestions: 4},
		{name: "a ClusterRole one verb beyond what is held", user: "carol", method: "POST", path: crs, body: clusterRoleJSON("deleters", `[{"verbs":["get","list","delete","deletecollection"],"apiGroups":[""],"resources":["pods"]}]`),
			code: 403, message: forbidden("clusterroles", "deleters", "carol", `{APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]}`)},
		{name: "a Role listing each missing permission once per line, sorted", user: "carol", method: "POST", path: roles, body: roleJSON("r1", `[{"verbs":["get","watch"],"apiGroups":[""],"resources":["secrets","pods"]},{"verbs":["watch"],"apiGroups":[""],"resources":["pods"]}]`),
			code: 403, message: forbidden("roles", "r1", "carol", `{APIGroups:[""], Resources:["pods"], Verbs:["watch" "watch"]}`+"\n"+`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "watch"]}`)},
		{name: "a ClusterRole of a non-resource URL not held", user: "carol", method: "POST", path: crs, body: clusterRoleJSON("metrics", `[{"verbs":["get"],"nonResourceURLs":["/metrics"]}]`),
			code: 403, message: forbidden("clusterroles", "metrics", "carol", `{NonResourceURLs:["/metrics"], Verbs:["get"]}`)},
		{name: "widening one's Role by PUT", user: "carol", method: "PUT", path: roles + "/carol-role", body: roleJSON("carol-role", `[{"verbs":["get","delete"],"apiGroups":[""],"resources":["pods"]}]`),
			code: 403, message: forbidden("roles", "carol-role", "carol", `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`)},
		{name: "widening one's Role by JSON patch", user: "carol", method: "PATCH", path: roles + "/carol-role", ctype: jsonPatch, body: `[{"op":"add","path":"/rules/-","value":{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}}]`,
			code: 403, message: forbidden("roles", "carol-role", "carol", allResources)},
		{name: "widening one's Role by merge patch", user: "carol", method: "PATCH", path: roles + "/carol-role", ctype: mergePatch, body: `{"rules":[{"verbs":["*"],"apiGroups":[""],"resources":["secrets"]}]}`,
			code: 403, message: forbidden("roles", "carol-role", "carol", `{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`)},
		{name: "widening one's Role by apply", user: "carol", method: "PATCH", path: roles + "/carol-role?fieldManager=carol&force=true", ctype: applyYAML,
			body: "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: carol-role, namespace: default}\nrules: [{verbs: [list], apiGroups: [''], resources: [secrets]}]\n",
			code: 403, message: forbidden("roles", "carol-role", "carol", `{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`)},
		{name: "creating a Role by apply", user: "carol", method: "PATCH", path: roles + "/applied?fieldManager=carol", ctype: applyYAML,
			body: "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: applied, namespace: default}\nrules: [{verbs: [get], apiGroups: [''], resources: [secrets]}]\n",
			code: 403, message: forbidden("roles", "applied", "carol", `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`)},
		{name: "creating a ClusterRole by PUT", user: "carol", method: "PUT", path: crs + "/put-star", body: clusterRoleJSON("put-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`),
			code: 403, message: forbidden("clusterroles", "put-star", "carol", allResources)},
		{name: "creating a ClusterRole of held permissions by PUT", user: "carol", method: "PUT", path: crs + "/put-readers", body: clusterRoleJSON("put-readers", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`), code: 201},
		{name: "creating a binding of cluster-admin by PUT", user: "carol", method: "PUT", path: crbs + "/put-mine", body: bindingJSON("ClusterRoleBinding", "put-mine", "", "ClusterRole", "cluster-admin", "carol"),
			code: 403, message: forbidden("clusterrolebindings", "put-mine", "carol", allResources+"\n"+allURLs)},
		{name: "a dry-run create is checked too", user: "carol", method: "POST", path: crs + "?dryRun=All", body: clusterRoleJSON("star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`),
			code: 403, message: forbidden("clusterroles", "star", "carol", allResources)},
		{name: "an update of held rules", user: "carol", method: "PUT", path: roles + "/carol-role", body: roleJSON("carol-role", `[{"verbs":["list","get"],"apiGroups":[""],"resources":["pods"]}]`), code: 200},
		{name: "a label on a Role of permissions not held", user: "carol", method: "PATCH", path: roles + "/everything", ctype: mergePatch, body: `{"metadata":{"labels":{"a":"b"}}}`,
			code: 403, message: forbidden("roles", "everything", "carol", allResources)},
		{name: "only the garbage collector's fields of a Role of permissions not held", user: "carol", method: "PATCH", path: roles + "/everything", ctype: mergePatch,
			body: `{"metadata":{"finalizers":["example.com/keep"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"u-1"}]}}`, code: 200},
		{name: "*/*/* from a user allowed to escalate ClusterRoles", user: "erin", method: "POST", path: crs, body: clusterRoleJSON("erin-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`), code: 201, maxQuestions: 1},
		{name: "a Role of anything from a user allowed to escalate Roles", user: "erin", method: "PUT", path: roles + "/carol-role", body: roleJSON("carol-role", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`), code: 200, maxQuestions: 1},
		{name: "*/*/* from a user who holds it, in one question after escalate", user: "frank", method: "POST", path: crs, body: clusterRoleJSON("frank-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]},{"verbs":["*"],"nonResourceURLs":["*"]}]`), code: 201, maxQuestions: 3},
		// kube's Covers: "*/scale" and resourceNames.
		{name: "a subresource covered by */scale", user: "sam", method: "POST", path: crs, body: clusterRoleJSON("scale1", `[{"verbs":["get"],"apiGroups":["apps"],"resources":["deployments/scale","*/scale"]}]`), code: 201},
		{name: "all resources are not covered by */scale", user: "sam", method: "POST", path: crs, body: clusterRoleJSON("scale2", `[{"verbs":["get"],"apiGroups":["apps"],"resources":["*","deployments"]}]`),
			code: 403, message: forbidden("clusterroles", "scale2", "sam", `{APIGroups:["apps"], Resources:["*"], Verbs:["get"]}`+"\n"+`{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`)},
		{name: "a held resourceName", user: "sam", method: "POST", path: crs, body: clusterRoleJSON("web", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["web"]}]`), code: 201},
		{name: "a resourceName not held", user: "sam", method: "POST", path: crs, body: clusterRoleJSON("db", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["web","db"]}]`),
			code: 403, message: forbidden("clusterroles", "db", "sam", `{APIGroups:[""], Resources:["pods"], ResourceNames:["db"], Verbs:["get"]}`)},
		{name: "every name of a resource from a user who holds one name", user: "sam", method: "POST", path: crs, body: clusterRoleJSON("pods", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`),
			code: 403, message: forbidden("clusterroles", "pods", "sam", `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`)},
		// Aggregation takes every permission.
		{name: "an aggregationRule from a user without every permission", user: "carol", method: "POST", path: crs,
			body: clusterRoleJSON("carol-agg", `[]`, `,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"yes"}}]}`),
			code: 403, message: `clusterroles.rbac.authorization.k8s.io "carol-agg" is forbidden: ` + aggregateOnly},
		{name: "an aggregationRule from a user with every permission", user: "frank", method: "POST", path: crs,
			body: clusterRoleJSON("frank-agg", `[]`, `,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"yes"}}]}`), code: 201},
		{name: "an aggregationRule from a user allowed to escalate", user: "erin", method: "POST", path: crs,
			body: clusterRoleJSON("erin-agg", `[]`, `,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"yes"}}]}`), code: 201},
		{name: "a change to an aggregated ClusterRole", user: "carol", method: "PATCH", path: crs + "/agg", ctype: mergePatch, body: `{"metadata":{"labels":{"a":"b"}}}`,
			code: 403, message: `clusterroles.rbac.authorization.k8s.io "agg" is forbidden: ` + aggregateOnly},
		// Bounded work.
		{name: "10,000 permissions not held, refused without asking each", user: "carol", method: "POST", path: crs, body: clusterRoleJSON("many", manyPermissions()),
			code: 403, maxQuestions: 2, message: `clusterroles.rbac.authorization.k8s.io "many" is forbidden: user "carol" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held: ` +
				`the rules break down into 10000 permissions (verb x apiGroup x resource x resourceName, verb x nonResourceURL), more than the 1024 checked one by one; only a user who holds every permission, or may escalate this role, may grant them`},
		{name: "10,000 permissions held by a user with every permission", user: "frank", method: "POST", path: crs, body: clusterRoleJSON("many", manyPermissions()), code: 201, maxQuestions: 2},
		// Bindings: only roles whose permissions are held, unless bind.
		{name: "binding cluster-admin to oneself", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "mine", "", "ClusterRole", "cluster-admin", "carol"),
			code: 403, message: forbidden("clusterrolebindings", "mine", "carol", allResources+"\n"+allURLs)},
		{name: "binding a ClusterRole of held permissions", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "readers", "", "ClusterRole", "pod-reader", "bob"), code: 201},
		{name: "binding cluster-admin in a namespace with only create rolebindings", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "mine", "default", "ClusterRole", "cluster-admin", "dave"),
			code: 403, message: forbidden("rolebindings", "mine", "dave", allResources+"\n"+allURLs)},
		{name: "binding in a namespace what is held there", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "dave-readers", "default", "ClusterRole", "pod-reader", "bob"), code: 201},
		{name: "binding a Role of permissions not held", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "everything", "default", "Role", "everything", "dave"),
			code: 403, message: forbidden("rolebindings", "everything", "dave", allResources)},
		{name: "binding cluster-admin with the bind verb on it", user: "erin", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "erin-admin", "", "ClusterRole", "cluster-admin", "erin"), code: 201, maxQuestions: 1},
		{name: "binding another role than the one bind allows", user: "erin", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "erin-secrets", "", "ClusterRole", "secret-admin", "erin"),
			code: 403, message: forbidden("clusterrolebindings", "erin-secrets", "erin", `{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`)},
		{name: "binding a ClusterRole that does not exist", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "nope", "", "ClusterRole", "nope", "carol"),
			code: 404, message: `clusterrolebindings.rbac.authorization.k8s.io "nope" not found`},
		{name: "binding a Role that does not exist", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "nope", "default", "Role", "nope", "dave"),
			code: 404, message: `rolebindings.rbac.authorization.k8s.io "nope" not found`},
		{name: "binding an aggregated ClusterRole whose gathered rules are held", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "agg1", "", "ClusterRole", "agg", "bob"), code: 201},
		{name: "an aggregated ClusterRole gathers a role stored since", user: "admin", method: "POST", path: crs,
			body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"agg-piece2","labels":{"agg":"yes"}},"rules":[{"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]}]}`, code: 201},
		{name: "binding the aggregated ClusterRole now takes the gathered permission", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "agg2", "", "ClusterRole", "agg", "bob"),
			code: 403, message: forbidden("clusterrolebindings", "agg2", "carol", `{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}`)},
		{name: "adding oneself to a binding of cluster-admin by PUT", user: "carol", method: "PUT", path: crbs + "/admins", body: bindingJSON("ClusterRoleBinding", "admins", "", "ClusterRole", "cluster-admin", "carol"),
			code: 403, message: forbidden("clusterrolebindings", "admins", "carol", allResources+"\n"+allURLs)},
		{name: "adding oneself to a binding of cluster-admin by JSON patch", user: "carol", method: "PATCH", path: crbs + "/admins", ctype: jsonPatch,
			body: `[{"op":"add","path":"/subjects","value":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"carol"}]}]`,
			code: 403, message: forbidden("clusterrolebindings", "admins", "carol", allResources+"\n"+allURLs)},
		{name: "adding oneself to a binding of cluster-admin by apply", user: "carol", method: "PATCH", path: crbs + "/admins?fieldManager=carol&force=true", ctype: applyYAML,
			body: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: admins}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: carol}]\n",
			code: 403, message: forbidden("clusterrolebindings", "admins", "carol", allResources+"\n"+allURLs)},
		{name: "creating a binding of cluster-admin by apply", user: "carol", method: "PATCH", path: rbs + "/applied?fieldManager=carol", ctype: applyYAML,
			body: "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: applied, namespace: default}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: User, apiGroup: rbac.authorization.k8s.io, name: carol}]\n",
			code: 403, message: forbidden("rolebindings", "applied", "carol", allResources+"\n"+allURLs)},
		{name: "only the garbage collector's fields of a binding of cluster-admin", user: "carol", method: "PATCH", path: crbs + "/admins", ctype: mergePatch, body: `{"metadata":{"finalizers":["example.com/keep"]}}`, code: 200},
		{name: "a ClusterRoleBinding of a Role", user: "carol", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "of-role", "", "Role", "carol-role", "carol"),
			code: 400, message: "Namespace parameter required."},
		{name: "a binding of a role without a name", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "no-name", "default", "ClusterRole", "", "dave"),
			code: 400, message: "Name parameter required."},
		{name: "a binding of a role whose name is no path segment", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "dots", "default", "Role", "../x", "dave"),
			code: 400, message: `Name parameter invalid: "../x": may not contain '/'`},
		{name: "a binding of an unknown kind of role", user: "dave", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "of-foo", "default", "Foo", "x", "dave"),
			code: 500, message: `unsupported role reference kind: "Foo"`},
		{name: "a binding of an unknown kind of role from system:masters, validated", user: "admin", method: "POST", path: rbs, body: bindingJSON("RoleBinding", "of-foo", "default", "Foo", "x", "dave"),
			code: 422, message: `RoleBinding.rbac.authorization.k8s.io "of-foo" is invalid: roleRef.kind: Unsupported value: "Foo": supported values: "Role", "ClusterRole"`},
		{name: "anything from system:masters, unasked", user: "admin", method: "POST", path: crbs, body: bindingJSON("ClusterRoleBinding", "admin-nope", "", "ClusterRole", "nope", "carol"), code: 201, maxQuestions: -1},
	}
}

// runEscalationCases runs the cases in order against srv, whose Authorizer counter counts.
func runEscalationCases(t *testing.T, srv *apitest.Server, counter *countingAuthorizer) {
	for _, c := range escalationCases() {
		t.Run(c.name, func(t *testing.T) {
			before := counter.n.Load()
			code, st := send(t, srv, c.user, c.method, c.path, c.ctype, c.body, 0)
			questions := counter.n.Load() - before - 1 // the request's own authorization
			if code != c.code {
				t.Fatalf("%s %s as %s: %d %v, want %d", c.method, c.path, c.user, code, st, c.code)
			}
			if c.message != "" {
				if msg, _ := st["message"].(string); msg != c.message && !strings.HasSuffix(msg, ": "+c.message) {
					t.Errorf("message\n%s\nwant\n%s", msg, c.message)
				}
				if want := map[int]any{400: "BadRequest", 403: "Forbidden", 404: "NotFound", 422: "Invalid", 500: nil}[code]; st["reason"] != want {
					t.Errorf("reason %v, want %v", st["reason"], want)
				}
			}
			switch {
			case c.maxQuestions < 0 && questions != 0:
				t.Errorf("the write asked the Authorizer %d questions, want none", questions)
			case c.maxQuestions > 0 && questions > c.maxQuestions:
				t.Errorf("the write asked the Authorizer %d questions, want at most %d", questions, c.maxQuestions)
			}
			t.Logf("%d questions", questions)
		})
	}
}

func TestRBACEscalation_KubesCasesThroughTheRBACAuthorizer(t *testing.T) {
	srv, counter := escalationServer(t, fixtureRBAC(t))
	runEscalationCases(t, srv, counter)
}

// sarCreators lets anyone create a SubjectAccessReview, the delegating server's own
// credentials being none here, and asks rbac about the rest.
type sarCreators struct{ rbac authz.Authorizer }

func (s sarCreators) Authorize(ctx context.Context, a authz.Attributes) (bool, string, error) {
	if a.ResourceRequest && a.Verb == "create" && a.APIGroup == "authorization.k8s.io" && a.Resource == "subjectaccessreviews" {
		return true, "", nil
	}
	return s.rbac.Authorize(ctx, a)
}

func TestRBACEscalation_KubesCasesThroughADelegatedSubjectAccessReview(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	// The cluster that decides: the fixture's rules behind its SubjectAccessReviews.
	cluster := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Authenticator: anyone{}, Authorizer: sarCreators{fixtureRBAC(t)}}})
	sar := &authz.SubjectAccessReview{Server: cluster.URL, Client: cluster.Client(), AllowTTL: -1, DenyTTL: -1}
	srv, counter := escalationServer(t, sar)
	runEscalationCases(t, srv, counter)
}

// anyone authenticates every request as the delegating server.
type anyone struct{}

func (anyone) Authenticate(*http.Request) (*authn.User, bool, error) {
	return &authn.User{Name: "system:apiserver", Groups: []string{"system:authenticated"}}, true, nil
}

// TestRBACEscalation_HeldAcrossAUnion splits carol's permissions between two
// authorizers: each piece is asked of the union, so rules held half here and half there
// are held.
func TestRBACEscalation_HeldAcrossAUnion(t *testing.T) {
	l := func(s ...string) []string { return s }
	half := func(verb string) authz.Authorizer {
		rbac, err := authz.NewRBAC(
			&rbacv1.ClusterRole{ObjectMeta: scheme.ObjectMeta{Name: verb}, Rules: []rbacv1.PolicyRule{{Verbs: l(verb), APIGroups: l(""), Resources: l("configmaps")}}},
			&rbacv1.ClusterRoleBinding{ObjectMeta: scheme.ObjectMeta{Name: verb}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.SchemeGroupVersion.Group, Kind: rbacv1.ClusterRoleKind, Name: verb},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.SchemeGroupVersion.Group, Name: "carol"}}})
		if err != nil {
			t.Fatal(err)
		}
		return rbac
	}
	srv, _ := escalationServer(t, authz.Union(fixtureRBAC(t), half("get"), half("list")))
	for _, c := range []struct {
		rules, message string
		code           int
	}{
		{`[{"verbs":["get","list"],"apiGroups":[""],"resources":["configmaps"]}]`, "", 201},
		{`[{"verbs":["get","list","watch"],"apiGroups":[""],"resources":["configmaps"]}]`, fmt.Sprintf(notHeld, "carol") + `{APIGroups:[""], Resources:["configmaps"], Verbs:["watch"]}`, 403},
	} {
		_, st := send(t, srv, "carol", "POST", rbacAPI+"/clusterroles", "", clusterRoleJSON(fmt.Sprint("u", c.code), c.rules), c.code)
		if msg, _ := st["message"].(string); !strings.HasSuffix(msg, c.message) {
			t.Errorf("message %q, want it to end with %q", msg, c.message)
		}
	}
}

// adminSizedRule is a rule of 6 verbs on 71 resources: 426 pieces, as many as the
// aggregated admin ClusterRole of kube's bootstrap policy.
func adminSizedRule() rbacv1.PolicyRule {
	r := rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch", "create", "update", "delete"}, APIGroups: []string{"example.com"}}
	for i := range 71 {
		r.Resources = append(r.Resources, fmt.Sprintf("things%d", i))
	}
	return r
}

// squareRule is a rule of n verbs on n resources of one group: n*n pieces.
func squareRule(n int) string {
	var verbs, resources []string
	for i := range n {
		verbs = append(verbs, fmt.Sprintf(`"v%d"`, i))
		resources = append(resources, fmt.Sprintf(`"r%d"`, i))
	}
	return `[{"verbs":[` + strings.Join(verbs, ",") + `],"apiGroups":[""],"resources":[` + strings.Join(resources, ",") + `]}]`
}

// BenchmarkRBACEscalation measures what the escalation check of one ClusterRole
// create (dry run) costs, in time and in Authorizer questions, through the in-process
// RBAC authorizer and through a SubjectAccessReview delegated to another server
// (uncached: every question a round trip).
func BenchmarkRBACEscalation(b *testing.B) {
	rules, err := json.Marshal([]rbacv1.PolicyRule{adminSizedRule()})
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name, user, rules string
		code              int
	}{
		{"admin-sized/system:masters-unchecked", "admin", string(rules), 201},
		{"admin-sized/every-permission", "frank", string(rules), 201},
		{"admin-sized/held-piece-by-piece", "holder", string(rules), 201},
		{"1024-pieces/none-held", "carol", squareRule(32), 403},
		{"10000-pieces/none-held-refused-unasked", "carol", squareRule(100), 403},
	}
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	cluster := apitest.NewServer(b, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Authenticator: anyone{}, Authorizer: sarCreators{fixtureRBAC(b)}}})
	for _, mode := range []struct {
		name string
		az   authz.Authorizer
	}{
		{"rbac", fixtureRBAC(b)},
		{"sar", &authz.SubjectAccessReview{Server: cluster.URL, Client: cluster.Client(), AllowTTL: -1, DenyTTL: -1}},
	} {
		srv, counter := escalationServer(b, mode.az)
		for _, c := range cases {
			body := clusterRoleJSON("bench", c.rules)
			b.Run(mode.name+"/"+c.name, func(b *testing.B) {
				before := counter.n.Load()
				b.ReportAllocs()
				for b.Loop() {
					send(b, srv, c.user, "POST", rbacAPI+"/clusterroles?dryRun=All", "", body, c.code)
				}
				b.ReportMetric(float64(counter.n.Load()-before)/float64(b.N)-1, "questions/op")
			})
		}
	}
}

// failing is an Authorizer that cannot decide, as a SubjectAccessReview whose server is down.
type failing struct{}

func (failing) Authorize(context.Context, authz.Attributes) (bool, string, error) {
	return false, "", fmt.Errorf("post https://10.0.0.1:6443/apis/authorization.k8s.io/v1/subjectaccessreviews: connection refused")
}

func TestRBACEscalation_AnAuthorizerThatCannotDecideIsA500WithoutItsError(t *testing.T) {
	srv, _ := escalationServer(t, authz.Union(fixtureRBAC(t), failing{}))
	_, st := send(t, srv, "carol", "POST", rbacAPI+"/clusterroles", "", clusterRoleJSON("x", `[{"verbs":["delete"],"apiGroups":[""],"resources":["pods"]}]`), http.StatusInternalServerError)
	if st["message"] != "Internal error occurred: authorization failed" || strings.Contains(fmt.Sprint(st), "10.0.0.1") {
		t.Errorf("Status %v, want kube's 500 without the Authorizer's error", st)
	}
	// Permissions held are still held: the failing Authorizer is not asked past them.
	send(t, srv, "carol", "POST", rbacAPI+"/clusterroles", "", clusterRoleJSON("y", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`), http.StatusCreated)
}
