package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// tokenIsName authenticates "Bearer NAME" as the user NAME; "admin" is in system:masters.
type tokenIsName struct{}

func (tokenIsName) Authenticate(r *http.Request) (*authn.User, bool, error) {
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

// newRBACServer serves the built-in kinds over TLS, authorized by kube's default policy
// and the RBAC objects stored through the API. Its kubeconfig's token is "admin".
func newRBACServer(t *testing.T) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	defaults, err := authz.NewRBAC(authz.DefaultPolicy()...)
	if err != nil {
		t.Fatal(err)
	}
	stored := &authz.RBAC{}
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(), Authenticator: tokenIsName{}, Authorizer: authz.Union(defaults, stored)}, Controllers: true, TLS: true, Token: "admin"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stored.WatchStorage(ctx, s, srv.Storage) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return srv
}

// canI runs kubectl auth can-i as user and returns its answer.
func canI(t *testing.T, es *exampleServer, user string, args ...string) string {
	t.Helper()
	res := es.kubectl(t, "", append([]string{"--token=" + user, "auth", "can-i"}, args...)...)
	answer := strings.TrimSpace(res.Stdout)
	if (answer == "yes") != (res.ExitCode == 0) || answer != "yes" && answer != "no" {
		t.Fatalf("kubectl auth can-i %v as %s: exit %d\nstdout: %s\nstderr: %s", args, user, res.ExitCode, res.Stdout, res.Stderr)
	}
	return answer
}

func TestRBAC_KubectlAuthCanIFollowsBindingsCreatedWithKubectl(t *testing.T) {
	requireKubectl(t)
	srv := newRBACServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	for _, c := range []struct {
		user string
		args []string
		want string
	}{
		{"admin", []string{"delete", "secrets", "-n", "default"}, "yes"},
		{"bob", []string{"list", "configmaps", "-n", "default"}, "no"},
		{"bob", []string{"create", "selfsubjectaccessreviews.authorization.k8s.io"}, "yes"},
	} {
		if got := canI(t, es, c.user, c.args...); got != c.want {
			t.Errorf("can-i %v as %s = %s, want %s", c.args, c.user, got, c.want)
		}
	}
	if res := es.kubectl(t, "", "--token=bob", "get", "configmaps", "-n", "default"); res.ExitCode == 0 ||
		!strings.Contains(res.Stderr, `configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"`) {
		t.Errorf("kubectl get configmaps as bob: exit %d, stderr %s; want kube's 403", res.ExitCode, res.Stderr)
	}
	es.mustKubectl(t, "create", "clusterrole", "cm-reader", "--verb=get,list", "--resource=configmaps")
	es.mustKubectl(t, "create", "rolebinding", "bob-reads", "-n", "default", "--clusterrole=cm-reader", "--user=bob")
	out := es.mustKubectl(t, "get", "rolebinding", "bob-reads", "-n", "default", "-o", "jsonpath={.roleRef.kind}/{.roleRef.name} {.subjects[0].name}")
	if out.Stdout != "ClusterRole/cm-reader bob" {
		t.Errorf("kubectl get rolebinding: %q", out.Stdout)
	}
	deadline := time.Now().Add(10 * time.Second)
	for canI(t, es, "bob", "list", "configmaps", "-n", "default") != "yes" {
		if time.Now().After(deadline) {
			t.Fatal("bob still may not list configmaps after the binding was created")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "configmaps", "-n", "kube-system"}, "no"},
		{[]string{"delete", "configmaps", "-n", "default"}, "no"},
	} {
		if got := canI(t, es, "bob", c.args...); got != c.want {
			t.Errorf("can-i %v as bob = %s, want %s", c.args, got, c.want)
		}
	}
	// Impersonation needs its own permission, which admin has and bob has not.
	if got := canI(t, es, "admin", "list", "configmaps", "-n", "default", "--as=bob"); got != "yes" {
		t.Errorf("can-i as admin impersonating bob = %s, want yes", got)
	}
	if got := canI(t, es, "admin", "list", "configmaps", "-n", "default", "--as=alice"); got != "no" {
		t.Errorf("can-i as admin impersonating alice = %s, want no", got)
	}
	res := es.kubectl(t, "", "--token=bob", "auth", "can-i", "list", "configmaps", "--as=alice")
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, `users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`) {
		t.Errorf("bob impersonating alice: exit %d, stderr %s; want kube's 403", res.ExitCode, res.Stderr)
	}
}

func TestRBAC_ClientGoSelfSubjectAccessReviews(t *testing.T) {
	srv := newRBACServer(t)
	for _, c := range []struct {
		user    string
		attrs   authorizationv1.SelfSubjectAccessReviewSpec
		allowed bool
	}{
		{"admin", authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "secrets", Namespace: "default"}}, true},
		{"bob", authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "delete", Resource: "secrets", Namespace: "default"}}, false},
		{"bob", authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/version"}}, true},
	} {
		cfg := &rest.Config{Host: srv.URL, BearerToken: c.user, TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
		for _, contentType := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
			cfg.ContentType = contentType
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(),
				&authorizationv1.SelfSubjectAccessReview{Spec: c.attrs}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s as %s: %v", contentType, c.user, err)
			}
			if got.Status.Allowed != c.allowed || got.Status.Denied {
				t.Errorf("%s as %s: %+v, want allowed %v", contentType, c.user, got.Status, c.allowed)
			}
		}
	}
}

// waitCanI polls kubectl auth can-i as user until it answers want: the RBAC authorizer
// follows storage through a watch, so a binding just created takes a moment to count.
func waitCanI(t *testing.T, es *exampleServer, user, want string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for canI(t, es, user, args...) != want {
		if time.Now().After(deadline) {
			t.Fatalf("kubectl auth can-i %v as %s still does not answer %s", args, user, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRBAC_KubectlCannotGrantWhatItDoesNotHold is issue 23's first attack through
// kubectl: users who may write RBAC objects but do not hold cluster-admin are refused
// with kube-apiserver's 403, until they are given the bind or escalate verb.
func TestRBAC_KubectlCannotGrantWhatItDoesNotHold(t *testing.T) {
	requireKubectl(t)
	srv := newRBACServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	storeDefaultPolicy(t, srv) // cluster-admin is stored, as kube's bootstrap policy
	es.mustKubectl(t, "create", "clusterrole", "rbac-writer", "--verb=create,update,patch,get",
		"--resource=clusterroles.rbac.authorization.k8s.io,clusterrolebindings.rbac.authorization.k8s.io,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io")
	es.mustKubectl(t, "create", "clusterrolebinding", "carol-writes", "--clusterrole=rbac-writer", "--user=carol")
	es.mustKubectl(t, "create", "clusterrole", "rolebinding-creator", "--verb=create", "--resource=rolebindings.rbac.authorization.k8s.io")
	es.mustKubectl(t, "create", "rolebinding", "dave-creates", "-n", "default", "--clusterrole=rolebinding-creator", "--user=dave")
	es.mustKubectl(t, "create", "role", "carol-role", "-n", "default", "--verb=get", "--resource=configmaps")
	waitCanI(t, es, "carol", "yes", "create", "clusterrolebindings")
	waitCanI(t, es, "dave", "yes", "create", "rolebindings", "-n", "default")

	notHeld := func(resource, name, user string, lines ...string) string {
		return fmt.Sprintf(`%s.rbac.authorization.k8s.io %q is forbidden: user %q (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n", resource, name, user) +
			strings.Join(lines, "\n")
	}
	everything := []string{`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`, `{NonResourceURLs:["*"], Verbs:["*"]}`}
	widened := writeTemp(t, "widened.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: carol-role, namespace: default}\n"+
		"rules: [{verbs: [get, delete], apiGroups: [''], resources: [configmaps]}]\n")
	for _, c := range []struct {
		name, user string
		args       []string
		want       string
	}{
		{"binding cluster-admin to oneself", "carol", []string{"create", "clusterrolebinding", "mine", "--clusterrole=cluster-admin", "--user=carol"},
			notHeld("clusterrolebindings", "mine", "carol", everything...)},
		{"a */*/* ClusterRole", "carol", []string{"create", "clusterrole", "star", "--verb=*", "--resource=*.*"},
			notHeld("clusterroles", "star", "carol", `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`)},
		{"widening one's Role by JSON patch", "carol", []string{"patch", "role", "carol-role", "-n", "default", "--type=json",
			`-p=[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]`},
			notHeld("roles", "carol-role", "carol", `{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "delete"]}`)},
		{"widening one's Role by server-side apply", "carol", []string{"apply", "--server-side", "--force-conflicts", "-f", widened},
			notHeld("roles", "carol-role", "carol", `{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "delete"]}`)},
		{"binding cluster-admin in a namespace", "dave", []string{"create", "rolebinding", "mine", "-n", "default", "--clusterrole=cluster-admin", "--user=dave"},
			notHeld("rolebindings", "mine", "dave", everything...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := es.kubectl(t, "", append([]string{"--token=" + c.user}, c.args...)...)
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, "(Forbidden)") && !strings.Contains(res.Stderr, "is forbidden") || !strings.Contains(res.Stderr, c.want) {
				t.Errorf("kubectl %v as %s: exit %d\nstderr: %s\nwant kube's 403:\n%s", c.args, c.user, res.ExitCode, res.Stderr, c.want)
			}
		})
	}
	if res := es.kubectl(t, "", "get", "clusterrolebinding", "mine"); res.ExitCode == 0 {
		t.Errorf("the refused binding was stored: %s", res.Stdout)
	}

	// The bind verb on cluster-admin lets carol bind it; escalate lets her write any role.
	es.mustKubectl(t, "create", "clusterrole", "admin-binder", "--verb=bind", "--resource=clusterroles.rbac.authorization.k8s.io", "--resource-name=cluster-admin")
	es.mustKubectl(t, "create", "clusterrole", "escalator", "--verb=escalate", "--resource=clusterroles.rbac.authorization.k8s.io")
	es.mustKubectl(t, "create", "clusterrolebinding", "carol-binds", "--clusterrole=admin-binder", "--user=carol")
	es.mustKubectl(t, "create", "clusterrolebinding", "carol-escalates", "--clusterrole=escalator", "--user=carol")
	waitCanI(t, es, "carol", "yes", "bind", "clusterroles/cluster-admin")
	waitCanI(t, es, "carol", "yes", "escalate", "clusterroles")
	es.mustKubectl(t, "--token=carol", "create", "clusterrolebinding", "mine", "--clusterrole=cluster-admin", "--user=carol")
	es.mustKubectl(t, "--token=carol", "create", "clusterrole", "star", "--verb=*", "--resource=*.*")
}
