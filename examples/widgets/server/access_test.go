package server_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/serving"
)

// testCA is a certificate authority that issues client certificates.
type testCA struct {
	cert tls.Certificate
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	cert, pemBytes, err := kubeconfig.SelfSignedCertificate(name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, pem: pemBytes}
}

// issue returns a client certificate for cn in groups.
func (ca *testCA) issue(t *testing.T, cn string, groups ...string) *tls.Certificate {
	t.Helper()
	cert, _, err := kubeconfig.ClientCertificate(ca.cert, cn, groups, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

// file writes the CA's PEM certificate to a new file and returns its path.
func (ca *testCA) file(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(path, ca.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// request is one request of an authentication table.
type request struct {
	name   string
	cert   *tls.Certificate // the client certificate presented, if any
	header http.Header
	plain  bool // over plain HTTP instead of TLS
	want   int
	// wantInBody is a part of the response body, such as the user a 403 names.
	wantInBody string
}

// send sends the GET of widgets that r describes to srv and checks the answer.
func (r request) send(t *testing.T, srv *server.Server) {
	t.Helper()
	code, body := r.do(t, srv, "GET")
	if code != r.want || !strings.Contains(body, r.wantInBody) {
		t.Errorf("%s: GET widgets = %d %s, want %d with %q", r.name, code, body, r.want, r.wantInBody)
	}
}

// do sends method on widgets as r describes and returns the status code and body.
func (r request) do(t *testing.T, srv *server.Server, method string) (int, string) {
	t.Helper()
	url, client := srv.TLSURL(), trustingClient(t, srv, r.cert)
	if r.plain {
		url, client = srv.URL(), &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url+widgetsPath, nil)
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func startWithServing(t *testing.T, configure func(o *serving.Options)) *server.Server {
	t.Helper()
	opts := serving.NewOptions()
	configure(opts)
	return start(t, server.Config{Storage: server.StorageMemory, Serving: opts})
}

func TestServer_ClientCAFileAuthenticatesClientCertificates(t *testing.T) {
	clients, other := newTestCA(t, "client CA"), newTestCA(t, "another CA")
	srv := startWithServing(t, func(o *serving.Options) { o.ClientCAFile = clients.file(t) })
	for _, r := range []request{
		{name: "a certificate of the client CA in system:masters", cert: clients.issue(t, "alice", "system:masters"), want: http.StatusOK},
		{name: "a certificate of the client CA without permissions is the user RBAC denies", cert: clients.issue(t, "bob"), want: http.StatusForbidden,
			wantInBody: `User \"bob\" cannot list resource \"widgets\" in API group \"toys.example.com\" in the namespace \"default\"`},
		{name: "a certificate of another CA", cert: other.issue(t, "alice", "system:masters"), want: http.StatusUnauthorized},
		{name: "no credentials", want: http.StatusUnauthorized},
	} {
		r.send(t, srv)
	}
}

func TestServer_RequestHeaderTrustsHeadersOnlyFromTheProxyCertificate(t *testing.T) {
	proxies, clients := newTestCA(t, "front-proxy CA"), newTestCA(t, "client CA")
	srv := startWithServing(t, func(o *serving.Options) {
		o.RequestHeader.ClientCAFile = proxies.file(t)
		o.RequestHeader.AllowedNames = []string{"front-proxy-client"}
		o.ClientCAFile = clients.file(t)
	})
	masters := http.Header{"X-Remote-User": {"alice"}, "X-Remote-Group": {"system:masters"}}
	for _, r := range []request{
		{name: "the proxy certificate naming a master", cert: proxies.issue(t, "front-proxy-client"), header: masters, want: http.StatusOK},
		{name: "the proxy certificate naming a user RBAC denies", cert: proxies.issue(t, "front-proxy-client"), header: http.Header{"X-Remote-User": {"carol"}},
			want: http.StatusForbidden, wantInBody: `User \"carol\" cannot list`},
		{name: "a proxy CA certificate with a name not allowed", cert: proxies.issue(t, "someone-else"), header: masters, want: http.StatusUnauthorized},
		{name: "forged headers from a client certificate are ignored: the certificate's user", cert: clients.issue(t, "dave"), header: masters,
			want: http.StatusForbidden, wantInBody: `User \"dave\" cannot list`},
		{name: "forged headers over TLS without a certificate", header: masters, want: http.StatusUnauthorized},
		{name: "forged headers over plain HTTP", header: masters, plain: true, want: http.StatusUnauthorized},
	} {
		r.send(t, srv)
	}
}

func TestServer_RBACObjectsInStorageAuthorizeUsers(t *testing.T) {
	clients := newTestCA(t, "client CA")
	srv := startWithServing(t, func(o *serving.Options) { o.ClientCAFile = clients.file(t) })
	bob := request{name: "bob", cert: clients.issue(t, "bob"), want: http.StatusForbidden}
	bob.send(t, srv) // before the binding

	const rbacPath = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
	role := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"widget-reader"},
		"rules":[{"apiGroups":["toys.example.com"],"resources":["widgets"],"verbs":["get","list","watch"]}]}`
	binding := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"bob-reads-widgets"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"widget-reader"},
		"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"bob"}]}`
	for path, body := range map[string]string{rbacPath + "roles": role, rbacPath + "rolebindings": binding} {
		if code, out := do(t, srv, "POST", path, srv.Token(), body); code != http.StatusCreated {
			t.Fatalf("POST %s = %d %s, want 201", path, code, out)
		}
	}
	// The authorizer follows storage through a watch: poll a bounded number of times.
	for i := 0; ; i++ {
		code, _ := bob.do(t, srv, "GET")
		if code == http.StatusOK {
			break
		}
		if i == 500 {
			t.Fatalf("bob still gets %d after the RoleBinding, want 200", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Reading is all the Role grants.
	if code, out := bob.do(t, srv, "DELETE"); code != http.StatusForbidden {
		t.Errorf("bob's DELETE of widgets = %d %s, want 403", code, out)
	}
}
