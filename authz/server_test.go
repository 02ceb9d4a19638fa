package authz_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// bearerNames authenticates "Bearer NAME" as NAME; "admin" is in system:masters.
type bearerNames struct{}

func (bearerNames) Authenticate(r *http.Request) (*authn.User, bool, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	u := &authn.User{Name: name, Groups: []string{"system:authenticated"}}
	if name == "admin" {
		u.Groups = append(u.Groups, "system:masters")
	}
	return u, true, nil
}

// newRBACServer serves toys.example.com and the built-in kinds (RBAC included) to
// users named by their bearer token, authorized by kube's default policy and rbac.
func newRBACServer(t *testing.T, rbac *authz.RBAC) (*apitest.Server, *scheme.Scheme) {
	t.Helper()
	s := testapi.NewScheme()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	defaults, err := authz.NewRBAC(authz.DefaultPolicy()...)
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Authenticator: bearerNames{}, Authorizer: authz.Union(defaults, rbac)}})
	if code, body := call(t, srv, "admin", "POST", "/api/v1/namespaces", `{"metadata":{"name":"default"}}`); code != http.StatusCreated {
		t.Fatalf("create namespace default: %d %v", code, body)
	}
	return srv, s
}

// call sends a request as user and returns the status code and the decoded JSON body.
func call(t *testing.T, srv *apitest.Server, user, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+user)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode, m
}

const widgets = "/apis/toys.example.com/v1/namespaces/default/widgets"

func TestRBAC_DenialIsKubes403ThroughTheHandler(t *testing.T) {
	rbac, err := authz.NewRBAC(
		clusterRole("widget-reader", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"toys.example.com"}, Resources: []string{"widgets"}}),
		binding("default", "bob-reads", rbacv1.ClusterRoleKind, "widget-reader", user("bob")),
		binding("default", "carol-reads", rbacv1.ClusterRoleKind, "missing", user("carol")),
	)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newRBACServer(t, rbac)
	for _, tt := range []struct {
		user, path, message string
	}{
		{"bob", widgets, `widgets.toys.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "toys.example.com" in the namespace "default"`},
		{"bob", "/apis/toys.example.com/v1/widgets", `widgets.toys.example.com is forbidden: User "bob" cannot list resource "widgets" in API group "toys.example.com" at the cluster scope`},
		{"carol", widgets + "/w", `widgets.toys.example.com "w" is forbidden: User "carol" cannot get resource "widgets" in API group "toys.example.com" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`},
		{"bob", "/metrics", `forbidden: User "bob" cannot get path "/metrics"`},
	} {
		code, body := call(t, srv, tt.user, "GET", tt.path, "")
		if code != http.StatusForbidden || body["message"] != tt.message || body["reason"] != "Forbidden" {
			t.Errorf("GET %s as %s: %d %v\nwant 403 %s", tt.path, tt.user, code, body["message"], tt.message)
		}
	}
	// bob's get is allowed (404: there is no widget w).
	if code, body := call(t, srv, "bob", "GET", widgets+"/w", ""); code != http.StatusNotFound {
		t.Errorf("GET a widget as bob: %d %v, want 404", code, body)
	}
}

func TestRBAC_WatchStorageFollowsBindingsCreatedThroughTheAPI(t *testing.T) {
	rbac, err := authz.NewRBAC()
	if err != nil {
		t.Fatal(err)
	}
	srv, s := newRBACServer(t, rbac)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rbac.WatchStorage(ctx, s, srv.Storage) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("WatchStorage = %v, want context.Canceled", err)
		}
	})
	if code, _ := call(t, srv, "bob", "GET", widgets, ""); code != http.StatusForbidden {
		t.Fatalf("bob's list before any binding: %d, want 403", code)
	}
	rbacPath := "/apis/rbac.authorization.k8s.io/v1"
	for _, c := range []struct{ path, body string }{
		{rbacPath + "/clusterroles", `{"metadata":{"name":"widget-reader"},"rules":[{"apiGroups":["toys.example.com"],"resources":["widgets"],"verbs":["list"]}]}`},
		{rbacPath + "/namespaces/default/rolebindings", `{"metadata":{"name":"bob"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"ClusterRole","name":"widget-reader"}}`},
	} {
		if code, body := call(t, srv, "admin", "POST", c.path, c.body); code != http.StatusCreated {
			t.Fatalf("POST %s: %d %v", c.path, code, body)
		}
	}
	waitFor(t, "bob's list to be allowed", func() bool { code, _ := call(t, srv, "bob", "GET", widgets, ""); return code == http.StatusOK })
	if code, _ := call(t, srv, "bob", "DELETE", rbacPath+"/namespaces/default/rolebindings/bob", ""); code != http.StatusForbidden {
		t.Errorf("bob deleted his own binding: %d, want 403", code)
	}
	if code, body := call(t, srv, "admin", "DELETE", rbacPath+"/namespaces/default/rolebindings/bob", ""); code != http.StatusOK {
		t.Fatalf("delete the binding: %d %v", code, body)
	}
	waitFor(t, "bob's list to be refused again", func() bool { code, _ := call(t, srv, "bob", "GET", widgets, ""); return code == http.StatusForbidden })
}

// waitFor polls cond until it holds, failing the test after a generous bound: the watch
// applies a change asynchronously.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRBAC_ObjectsAreValidatedAndDefaultedAsKubeDoes(t *testing.T) {
	srv, _ := newRBACServer(t, &authz.RBAC{})
	rb := "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings"
	code, body := call(t, srv, "admin", "POST", rb, `{"metadata":{"name":"b"},"subjects":[{"kind":"User","name":"bob"}],"roleRef":{"kind":"ClusterRole","name":"view"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create a binding: %d %v", code, body)
	}
	if got := body["roleRef"].(map[string]any)["apiGroup"]; got != "rbac.authorization.k8s.io" {
		t.Errorf("roleRef.apiGroup defaulted to %v", got)
	}
	if got := body["subjects"].([]any)[0].(map[string]any)["apiGroup"]; got != "rbac.authorization.k8s.io" {
		t.Errorf("a User subject's apiGroup defaulted to %v", got)
	}
	for _, tt := range []struct{ path, body, message string }{
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", `{"metadata":{"name":"r"},"rules":[{"nonResourceURLs":["/x"],"verbs":["get"]}]}`,
			`Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"r"},"rules":[{"resources":["pods"]}]}`,
			`ClusterRole.rbac.authorization.k8s.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group]`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", `{"metadata":{"name":"b"},"subjects":[{"kind":"ServiceAccount","name":"robot"}],"roleRef":{"kind":"Role","name":"r"}}`,
			`ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value]`},
	} {
		code, body := call(t, srv, "admin", "POST", tt.path, tt.body)
		if code != http.StatusUnprocessableEntity || body["message"] != tt.message {
			t.Errorf("POST %s: %d %v\nwant 422 %s", tt.path, code, body["message"], tt.message)
		}
	}
	code, body = call(t, srv, "admin", "PUT", rb+"/b", `{"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"edit"}}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body["message"].(string), "roleRef: Invalid value") || !strings.Contains(body["message"].(string), "cannot change roleRef") {
		t.Errorf("changing roleRef: %d %v, want 422 cannot change roleRef", code, body["message"])
	}
}

func TestAccessReviews_AnsweredByTheHandlersAuthorizer(t *testing.T) {
	rbac, err := authz.NewRBAC(
		clusterRole("widget-reader", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"toys.example.com"}, Resources: []string{"widgets"}},
			rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews", "localsubjectaccessreviews"}}),
		binding("default", "bob", rbacv1.ClusterRoleKind, "widget-reader", user("bob")),
		clusterBinding("reviewers", "widget-reader", user("bob")),
	)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newRBACServer(t, rbac)
	const (
		ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
		sar  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
		lsar = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	)
	listWidgets := `"resourceAttributes":{"namespace":"default","verb":"list","group":"toys.example.com","resource":"widgets"}`
	deleteWidgets := `"resourceAttributes":{"namespace":"default","verb":"delete","group":"toys.example.com","resource":"widgets"}`
	tests := []struct {
		name, as, path, body string
		code                 int
		status               map[string]any
		message              string
	}{
		{"self: allowed", "alice", ssar, `{"spec":{` + listWidgets + `}}`, 201, map[string]any{"allowed": false}, ""},
		{"self: allowed with the binding's reason", "bob", ssar, `{"spec":{` + listWidgets + `}}`, 201,
			map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "reviewers" of ClusterRole "widget-reader" to User "bob"`}, ""},
		{"self: not allowed", "bob", ssar, `{"spec":{` + deleteWidgets + `}}`, 201, map[string]any{"allowed": false}, ""},
		{"self: a path", "bob", ssar, `{"spec":{"nonResourceAttributes":{"path":"/apis/x","verb":"get"}}}`, 201,
			map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`}, ""},
		{"self: neither kind of attributes", "bob", ssar, `{"spec":{}}`, 422, nil,
			`SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{"about another user", "bob", sar, `{"spec":{"user":"alice",` + listWidgets + `}}`, 201, map[string]any{"allowed": false}, ""},
		{"about a group of system:masters", "bob", sar, `{"spec":{"user":"x","groups":["system:masters"],` + deleteWidgets + `}}`, 201,
			map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`}, ""},
		{"about nobody", "bob", sar, `{"spec":{` + listWidgets + `}}`, 422, nil,
			`SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`},
		{"about another user in a namespace", "bob", lsar, `{"spec":{"user":"bob",` + listWidgets + `}}`, 201,
			map[string]any{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "reviewers" of ClusterRole "widget-reader" to User "bob"`}, ""},
		{"about another namespace", "bob", lsar, `{"spec":{"user":"bob","resourceAttributes":{"namespace":"other","verb":"list"}}}`, 422, nil,
			`LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`},
		{"reviewing others needs permission", "alice", sar, `{"spec":{"user":"bob",` + listWidgets + `}}`, 403, nil,
			`subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(t, srv, tt.as, "POST", tt.path, tt.body)
			if code != tt.code {
				t.Fatalf("POST %s as %s: %d %v, want %d", tt.path, tt.as, code, body, tt.code)
			}
			if tt.message != "" && body["message"] != tt.message {
				t.Errorf("message %q\nwant    %q", body["message"], tt.message)
			}
			if tt.status == nil {
				return
			}
			status, _ := body["status"].(map[string]any)
			for k, want := range tt.status {
				if status[k] != want {
					t.Errorf("status.%s = %v, want %v (status %v)", k, status[k], want, status)
				}
			}
			if tt.status["reason"] == nil && status["reason"] != nil {
				t.Errorf("status.reason = %v, want none", status["reason"])
			}
		})
	}
}

func TestRBAC_ObjectsNamedLikeKubesSystemRolesAreCreatable(t *testing.T) {
	rbac, err := authz.NewRBAC()
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := newRBACServer(t, rbac)
	for _, tt := range []struct{ path, body string }{
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"system:controller:widgets"},"rules":[]}`},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", `{"metadata":{"name":"system:widgets"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:controller:widgets"},"subjects":[{"kind":"User","name":"bob"}]}`},
	} {
		if code, body := call(t, srv, "admin", "POST", tt.path, tt.body); code != http.StatusCreated {
			t.Errorf("POST %s: %d %v, want 201", tt.path, code, body["message"])
		}
	}
	// A name is still one path segment: a slash is refused as kube refuses it.
	code, body := call(t, srv, "admin", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"metadata":{"name":"a/b"},"rules":[]}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body["message"].(string), `may not contain '/'`) {
		t.Errorf("POST a ClusterRole named a/b: %d %v, want 422 naming the slash", code, body["message"])
	}
}
