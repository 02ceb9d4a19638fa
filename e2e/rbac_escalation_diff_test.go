package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/authz"
)

// storeDefaultPolicy stores authz.DefaultPolicy in srv as its admin, as kube-apiserver
// stores its bootstrap policy: a binding's escalation check reads the role it refers to
// from storage.
func storeDefaultPolicy(t *testing.T, srv *apitest.Server) {
	t.Helper()
	for _, obj := range authz.DefaultPolicy() {
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		path := "/apis/rbac.authorization.k8s.io/v1/clusterroles"
		if _, ok := obj.(*rbacv1.ClusterRoleBinding); ok {
			path = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
		}
		resp, err := srv.Client().Post(srv.URL+path, "application/json", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("storing %s %s: %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), resp.Status)
		}
	}
}

// escalationFixture is who may do what in the side-by-side test, as the admin writes
// it (POST path and JSON body): carol may write RBAC objects and holds get/list pods;
// dave may create RoleBindings in default and holds get/list pods there; erin may write
// RBAC objects, escalate roles and bind cluster-admin; sam may write RBAC objects and
// holds get on every */scale and on the pod web.
var escalationFixture = []struct{ path, body string }{
	{"clusterroles", `{"metadata":{"name":"e2e-rbac-writer"},"rules":[{"verbs":["create","update","patch","get"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","clusterroles","rolebindings","clusterrolebindings"]}]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-pod-reader"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-escalator"},"rules":[{"verbs":["escalate"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","clusterroles"]},{"verbs":["bind"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"resourceNames":["cluster-admin"]}]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-scaler"},"rules":[{"verbs":["get"],"apiGroups":["*"],"resources":["*/scale"]},{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["web"]}]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-rolebinding-creator"},"rules":[{"verbs":["create"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["rolebindings"]}]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-agg"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"e2e-agg":"yes"}}]},"rules":[]}`},
	{"clusterroles", `{"metadata":{"name":"e2e-agg-piece","labels":{"e2e-agg":"yes"}},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},{"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]}]}`},
	{"clusterrolebindings", `{"metadata":{"name":"e2e-writers"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-rbac-writer"},"subjects":[{"kind":"User","name":"carol"},{"kind":"User","name":"erin"},{"kind":"User","name":"sam"}]}`},
	{"clusterrolebindings", `{"metadata":{"name":"e2e-carol-pods"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-pod-reader"},"subjects":[{"kind":"User","name":"carol"}]}`},
	{"clusterrolebindings", `{"metadata":{"name":"e2e-erin-escalates"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-escalator"},"subjects":[{"kind":"User","name":"erin"}]}`},
	{"clusterrolebindings", `{"metadata":{"name":"e2e-sam-scales"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-scaler"},"subjects":[{"kind":"User","name":"sam"}]}`},
	{"clusterrolebindings", `{"metadata":{"name":"e2e-admins"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"kind":"User","name":"root"}]}`},
	{"namespaces/default/rolebindings", `{"metadata":{"name":"e2e-dave-creates"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-rolebinding-creator"},"subjects":[{"kind":"User","name":"dave"}]}`},
	{"namespaces/default/rolebindings", `{"metadata":{"name":"e2e-dave-pods"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"e2e-pod-reader"},"subjects":[{"kind":"User","name":"dave"}]}`},
	{"namespaces/default/roles", `{"metadata":{"name":"e2e-carol-role"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`},
	{"namespaces/default/roles", `{"metadata":{"name":"e2e-everything"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`},
}

// escalationRequest is one write of the side-by-side test.
type escalationRequest struct {
	name, user, method, path, contentType, body string
	// codeOnly compares the status code alone: the answers differ by design.
	codeOnly bool
}

func escalationRequests() []escalationRequest {
	const rbac = "/apis/rbac.authorization.k8s.io/v1/"
	crb := func(name, kind, role, user string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"` + name + `"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"` + kind + `","name":"` + role + `"},"subjects":[{"kind":"User","name":"` + user + `"}]}`
	}
	rb := func(name, kind, role, user string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"` + name + `","namespace":"default"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"` + kind + `","name":"` + role + `"},"subjects":[{"kind":"User","name":"` + user + `"}]}`
	}
	cr := func(name, rules string, extra ...string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"` + name + `"},"rules":` + rules + strings.Join(extra, "") + `}`
	}
	role := func(name, rules string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"` + name + `","namespace":"default"},"rules":` + rules + `}`
	}
	var verbs, resources []string
	for i := range 40 {
		verbs, resources = append(verbs, fmt.Sprintf(`"v%d"`, i)), append(resources, fmt.Sprintf(`"r%d"`, i))
	}
	many := `[{"verbs":[` + strings.Join(verbs, ",") + `],"apiGroups":[""],"resources":[` + strings.Join(resources, ",") + `]}]`
	return []escalationRequest{
		{name: "binding cluster-admin to oneself", user: "carol", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-mine", "ClusterRole", "cluster-admin", "carol")},
		{name: "a */*/* ClusterRole", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`)},
		{name: "a ClusterRole beyond what is held", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-deleters", `[{"verbs":["get","list","delete","deletecollection"],"apiGroups":[""],"resources":["pods"]}]`)},
		{name: "a Role of two rules", user: "carol", method: "POST", path: rbac + "namespaces/default/roles", body: role("e2e-r1", `[{"verbs":["get","watch"],"apiGroups":[""],"resources":["secrets","pods"]},{"verbs":["watch"],"apiGroups":[""],"resources":["pods"]}]`)},
		{name: "a non-resource URL", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-metrics", `[{"verbs":["get"],"nonResourceURLs":["/metrics","/healthz"]}]`)},
		{name: "a ClusterRole of held permissions", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-readers", `[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]`)},
		{name: "widening a Role by PUT", user: "carol", method: "PUT", path: rbac + "namespaces/default/roles/e2e-carol-role", body: role("e2e-carol-role", `[{"verbs":["get","delete"],"apiGroups":[""],"resources":["pods"]}]`)},
		{name: "widening a Role by JSON patch", user: "carol", method: "PATCH", path: rbac + "namespaces/default/roles/e2e-carol-role", contentType: "application/json-patch+json",
			body: `[{"op":"add","path":"/rules/-","value":{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}}]`},
		{name: "widening a Role by apply", user: "carol", method: "PATCH", path: rbac + "namespaces/default/roles/e2e-carol-role?fieldManager=carol&force=true", contentType: "application/apply-patch+yaml",
			body: "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: e2e-carol-role, namespace: default}\nrules: [{verbs: [list], apiGroups: [''], resources: [secrets]}]\n"},
		{name: "creating a ClusterRole by PUT", user: "carol", method: "PUT", path: rbac + "clusterroles/e2e-put-star", body: cr("e2e-put-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`)},
		{name: "a label on a Role of permissions not held", user: "carol", method: "PATCH", path: rbac + "namespaces/default/roles/e2e-everything", contentType: "application/merge-patch+json", body: `{"metadata":{"labels":{"a":"b"}}}`},
		{name: "finalizers of a Role of permissions not held", user: "carol", method: "PATCH", path: rbac + "namespaces/default/roles/e2e-everything", contentType: "application/merge-patch+json", body: `{"metadata":{"finalizers":["example.com/keep"]}}`},
		{name: "an aggregationRule", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-carol-agg", `[]`, `,"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"e2e-agg":"yes"}}]}`)},
		{name: "binding an aggregated ClusterRole", user: "carol", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-agg", "ClusterRole", "e2e-agg", "bob")},
		{name: "*/scale", user: "sam", method: "POST", path: rbac + "clusterroles", body: cr("e2e-scale", `[{"verbs":["get"],"apiGroups":["apps"],"resources":["deployments/scale","*/scale","*","deployments"]}]`)},
		{name: "resourceNames", user: "sam", method: "POST", path: rbac + "clusterroles", body: cr("e2e-names", `[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["web","db"]},{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`)},
		{name: "binding cluster-admin in a namespace", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-mine", "ClusterRole", "cluster-admin", "dave")},
		{name: "binding in a namespace what is held there", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-readers", "ClusterRole", "e2e-pod-reader", "bob")},
		{name: "binding a Role of permissions not held", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-everything", "Role", "e2e-everything", "dave")},
		{name: "binding a ClusterRole that does not exist", user: "carol", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-nope", "ClusterRole", "e2e-nope", "carol")},
		{name: "binding a Role that does not exist", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-nope", "Role", "e2e-nope", "dave")},
		{name: "a ClusterRoleBinding of a Role", user: "carol", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-of-role", "Role", "e2e-carol-role", "carol")},
		{name: "a binding of a role without a name", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-no-name", "ClusterRole", "", "dave")},
		{name: "a binding of a role whose name is no path segment", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-dots", "Role", "../x", "dave")},
		{name: "a binding of an unknown kind", user: "dave", method: "POST", path: rbac + "namespaces/default/rolebindings", body: rb("e2e-of-foo", "Foo", "x", "dave")},
		{name: "escalate", user: "erin", method: "POST", path: rbac + "clusterroles", body: cr("e2e-erin-star", `[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]`)},
		{name: "bind", user: "erin", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-erin-admin", "ClusterRole", "cluster-admin", "erin")},
		{name: "bind another role", user: "erin", method: "POST", path: rbac + "clusterrolebindings", body: crb("e2e-erin-pods", "ClusterRole", "e2e-pod-reader", "erin")},
		// kube lists all 1,600 pieces; apikit refuses past 1,024 without asking.
		{name: "1,600 permissions", user: "carol", method: "POST", path: rbac + "clusterroles", body: cr("e2e-many", many), codeOnly: true},
	}
}

// escalationAnswer is what a server answered: the code and, for a failure, its Status.
type escalationAnswer struct {
	Code    int
	Reason  metav1.StatusReason
	Message string
}

func sendEscalationRequest(t *testing.T, cfg *rest.Config, r escalationRequest) escalationAnswer {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ct := r.contentType
	if ct == "" {
		ct = "application/json"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var code int
	path, query, _ := strings.Cut(r.path, "?")
	req := cs.RbacV1().RESTClient().Verb(r.method).AbsPath(path).SetHeader("Content-Type", ct).Body([]byte(r.body))
	values, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range values {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	res := req.Do(ctx).StatusCode(&code)
	ans := escalationAnswer{Code: code}
	var st apierrors.APIStatus
	if err := res.Error(); errors.As(err, &st) {
		ans.Code, ans.Reason, ans.Message = int(st.Status().Code), st.Status().Reason, st.Status().Message
	} else if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	return ans
}

// waitAllowed waits until cfg's user may do what review asks: kube-apiserver's RBAC
// authorizer and apikit's follow new bindings through watches.
func waitAllowed(t *testing.T, cfg *rest.Config, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		review, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}, metav1.CreateOptions{})
		if err == nil && review.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s may still not %+v: %v", cfg.Impersonate.UserName+cfg.BearerToken, attrs, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRBACEscalation_SameAnswersAsKubeAPIServer sends the same RBAC writes, as the same
// users holding the same rules, to apikit and to the real kube-apiserver, and compares
// the answers: code, reason and message.
func TestRBACEscalation_SameAnswersAsKubeAPIServer(t *testing.T) {
	kube := startKubeControlPlane(t)
	srv := newRBACServer(t)
	storeDefaultPolicy(t, srv)
	apikitAdmin := &rest.Config{Host: srv.URL, BearerToken: "admin", TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	as := func(user string) (apikitCfg, kubeCfg *rest.Config) {
		a := rest.CopyConfig(apikitAdmin)
		a.BearerToken = user
		k := rest.CopyConfig(kube.Config)
		k.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:authenticated"}}
		return a, k
	}
	for _, f := range escalationFixture {
		for _, cfg := range []*rest.Config{apikitAdmin, kube.Config} {
			if ans := sendEscalationRequest(t, cfg, escalationRequest{name: f.path, method: "POST", path: "/apis/rbac.authorization.k8s.io/v1/" + f.path, body: f.body}); ans.Code != http.StatusCreated {
				t.Fatalf("fixture %s at %s: %+v", f.body, cfg.Host, ans)
			}
		}
	}
	// kube-controller-manager's clusterrole-aggregation controller fills e2e-agg's rules
	// (apikit gathers them when a binding is checked); start.sh does not run it, so the
	// admin writes what it would.
	kcs, err := kubernetes.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	piece, err := kcs.RbacV1().ClusterRoles().Get(ctx, "e2e-agg-piece", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	agg, err := kcs.RbacV1().ClusterRoles().Get(ctx, "e2e-agg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(agg.Rules) == 0 {
		agg.Rules = piece.Rules
		if _, err := kcs.RbacV1().ClusterRoles().Update(ctx, agg, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rbacGroup := "rbac.authorization.k8s.io"
	for _, w := range []struct {
		user  string
		attrs authorizationv1.ResourceAttributes
	}{
		{"carol", authorizationv1.ResourceAttributes{Verb: "create", Group: rbacGroup, Resource: "clusterrolebindings"}},
		{"carol", authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods", Namespace: "default"}},
		{"dave", authorizationv1.ResourceAttributes{Verb: "create", Group: rbacGroup, Resource: "rolebindings", Namespace: "default"}},
		{"dave", authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", Namespace: "default"}},
		{"erin", authorizationv1.ResourceAttributes{Verb: "bind", Group: rbacGroup, Resource: "clusterroles", Name: "cluster-admin"}},
		{"erin", authorizationv1.ResourceAttributes{Verb: "escalate", Group: rbacGroup, Resource: "clusterroles"}},
		{"sam", authorizationv1.ResourceAttributes{Verb: "get", Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: "default"}},
	} {
		a, k := as(w.user)
		waitAllowed(t, a, w.attrs)
		waitAllowed(t, k, w.attrs)
	}
	for _, r := range escalationRequests() {
		t.Run(r.name, func(t *testing.T) {
			a, k := as(r.user)
			got, want := sendEscalationRequest(t, a, r), sendEscalationRequest(t, k, r)
			if r.codeOnly {
				got.Reason, got.Message, want.Reason, want.Message = "", "", "", ""
			}
			if got != want {
				t.Errorf("%s %s as %s:\napikit: %d %s %q\nkube:   %d %s %q", r.method, r.path, r.user, got.Code, got.Reason, got.Message, want.Code, want.Reason, want.Message)
			}
			t.Logf("%d %s %q", want.Code, want.Reason, want.Message)
		})
	}
}
