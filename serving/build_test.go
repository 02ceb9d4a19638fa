package serving

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/kubeconfig"
)

// reviews makes the fake kube-apiserver answer TokenReviews (tokens maps a token to its
// user and groups) and SubjectAccessReviews (allowed: "user verb resource" triples).
func (f *fakeKubeAPIServer) reviews(tokens map[string][]string, allowed ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens, f.allowed = tokens, allowed
}

// serveReview answers the POST of a TokenReview or SubjectAccessReview; it reports
// whether r was one.
func (f *fakeKubeAPIServer) serveReview(w http.ResponseWriter, r *http.Request) bool {
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			Token              string `json:"token"`
			User               string `json:"user"`
			ResourceAttributes *struct {
				Verb, Resource string
			} `json:"resourceAttributes"`
		} `json:"spec"`
		Status map[string]any `json:"status"`
	}
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews", "/apis/authorization.k8s.io/v1/subjectaccessreviews":
	default:
		return false
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if review.Kind == "TokenReview" {
		user, ok := f.tokens[review.Spec.Token]
		review.Status = map[string]any{"authenticated": ok}
		if ok {
			review.Status["user"] = map[string]any{"username": user[0], "groups": user[1:]}
		}
	} else {
		triple := review.Spec.User
		if ra := review.Spec.ResourceAttributes; ra != nil {
			triple += " " + ra.Verb + " " + ra.Resource
		}
		review.Status = map[string]any{"allowed": slices.Contains(f.allowed, triple)}
	}
	_ = json.NewEncoder(w).Encode(review)
	return true
}

// tlsRequest is a request over TLS from a client presenting cert (none when nil).
func tlsRequest(cert *tls.Certificate, header http.Header) *http.Request {
	r := httptest.NewRequest("GET", "https://aggregated.example/apis/toys.example.com/v1/widgets", nil)
	if cert != nil {
		r.TLS.PeerCertificates = append(r.TLS.PeerCertificates, cert.Leaf)
	}
	for k, vs := range header {
		r.Header[k] = vs
	}
	return r
}

func mustCert(t *testing.T) func(tls.Certificate, []byte, error) *tls.Certificate {
	return func(c tls.Certificate, _ []byte, err error) *tls.Certificate {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return &c
	}
}

func TestBuild_DelegatesToTheKubeAPIServer(t *testing.T) {
	must := mustCert(t)
	clientCA, proxyCA := must(kubeconfig.SelfSignedCertificate("client CA", time.Hour)), must(kubeconfig.SelfSignedCertificate("front-proxy CA", time.Hour))
	pemOf := func(c *tls.Certificate) []byte { return certPEM(c) }
	kube := newFakeKubeAPIServer(t, kubeAuthenticationData(pemOf(clientCA), pemOf(proxyCA)))
	kube.reviews(map[string][]string{"erin-token": {"erin", "devs"}}, "erin get widgets")
	path := kube.kubeconfigFor(t, kube.token)

	o := NewOptions()
	o.DefaultCertificate = must(kubeconfig.SelfSignedCertificate("server", time.Hour, "127.0.0.1"))
	o.AuthenticationKubeconfig, o.AuthorizationKubeconfig = path, path
	o.Logger = quietLogger()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, err := o.Build(ctx, Host{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}

	proxy := must(kubeconfig.ClientCertificate(*proxyCA, "front-proxy-client", nil, time.Hour))
	gina := must(kubeconfig.ClientCertificate(*clientCA, "gina", []string{"designers"}, time.Hour))
	asFrank := http.Header{"X-Remote-User": {"frank"}, "X-Remote-Group": {"ops"}}
	for _, tt := range []struct {
		name     string
		r        *http.Request
		wantUser string // "" for unauthenticated
	}{
		{name: "the ConfigMap's front proxy names the user", r: tlsRequest(proxy, asFrank), wantUser: "frank"},
		{name: "a client certificate of the ConfigMap's client CA", r: tlsRequest(gina, nil), wantUser: "gina"},
		{name: "headers from a client certificate are not the proxy's", r: tlsRequest(gina, asFrank), wantUser: "gina"},
		{name: "a bearer token TokenReview accepts", r: tlsRequest(nil, http.Header{"Authorization": {"Bearer erin-token"}}), wantUser: "erin"},
		{name: "a bearer token TokenReview refuses", r: tlsRequest(nil, http.Header{"Authorization": {"Bearer nope"}})},
		{name: "nothing", r: tlsRequest(nil, nil)},
	} {
		if got := userName(cfg, tt.r); got != tt.wantUser {
			t.Errorf("%s: user %q, want %q", tt.name, got, tt.wantUser)
		}
	}

	erin := &authn.User{Name: "erin", Groups: []string{"devs", "system:authenticated"}}
	for _, tt := range []struct {
		name string
		a    authz.Attributes
		want bool
	}{
		{name: "SubjectAccessReview allows", a: authz.Attributes{User: erin, Verb: "get", Resource: "widgets", ResourceRequest: true}, want: true},
		{name: "SubjectAccessReview denies", a: authz.Attributes{User: erin, Verb: "delete", Resource: "widgets", ResourceRequest: true}},
		{name: "an always-allowed path", a: authz.Attributes{User: erin, Verb: "get", Path: "/healthz"}, want: true},
		{name: "system:masters", a: authz.Attributes{User: &authn.User{Name: "root", Groups: []string{"system:masters"}}, Verb: "delete", Resource: "widgets", ResourceRequest: true}, want: true},
	} {
		if got, _, _ := cfg.Authorizer.Authorize(context.Background(), tt.a); got != tt.want {
			t.Errorf("%s: allowed = %v, want %v", tt.name, got, tt.want)
		}
	}
	if cfg.AllowAnonymous {
		t.Error("AllowAnonymous is on without -anonymous-auth")
	}
}

func TestBuild_FlagsWinOverTheConfigMap(t *testing.T) {
	must := mustCert(t)
	fileCA, mapCA := must(kubeconfig.SelfSignedCertificate("file CA", time.Hour)), must(kubeconfig.SelfSignedCertificate("ConfigMap CA", time.Hour))
	kube := newFakeKubeAPIServer(t, kubeAuthenticationData(certPEM(mapCA), certPEM(mapCA)))
	caFile := t.TempDir() + "/ca.crt"
	writeFile(t, caFile, certPEM(fileCA))

	o := NewOptions()
	o.DefaultCertificate = fileCA
	o.AuthenticationKubeconfig = kube.kubeconfigFor(t, kube.token)
	o.ClientCAFile = caFile
	o.RequestHeader.ClientCAFile = caFile
	o.RequestHeader.UsernameHeaders = []string{"X-Proxy-User"}
	o.Logger = quietLogger()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg, err := o.Build(ctx, Host{Authorizer: authz.AlwaysAllow{}})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	for _, tt := range []struct {
		name     string
		r        *http.Request
		wantUser string
	}{
		{name: "a client certificate of the -client-ca-file CA", r: tlsRequest(must(kubeconfig.ClientCertificate(*fileCA, "hal", nil, time.Hour)), nil), wantUser: "hal"},
		{name: "a client certificate of the ConfigMap's CA", r: tlsRequest(must(kubeconfig.ClientCertificate(*mapCA, "ian", nil, time.Hour)), nil)},
		{name: "the flags' header from the flags' proxy CA", r: tlsRequest(must(kubeconfig.ClientCertificate(*fileCA, "proxy", nil, time.Hour)), http.Header{"X-Proxy-User": {"jo"}}), wantUser: "jo"},
	} {
		if got := userName(cfg, tt.r); got != tt.wantUser {
			t.Errorf("%s: user %q, want %q", tt.name, got, tt.wantUser)
		}
	}
	if kube.reads != 0 {
		t.Errorf("the ConfigMap was read %d times although both CAs were given as files", kube.reads)
	}
}

func TestBuild_RefusesAServerNobodyCouldUse(t *testing.T) {
	must := mustCert(t)
	tests := []struct {
		name    string
		set     func(o *Options)
		host    Host
		wantErr string
	}{
		{name: "no authenticator and no anonymous access", set: func(*Options) {}, host: Host{Authorizer: authz.AlwaysAllow{}}, wantErr: "no authentication configured"},
		{name: "no authorizer at all", set: func(o *Options) { o.AnonymousAuth, o.AlwaysAllowPaths, o.AlwaysAllowGroups = true, nil, nil }, wantErr: "no authorization configured"},
		{name: "an empty requestheader header name", set: func(o *Options) {
			o.RequestHeader.ClientCAFile, o.RequestHeader.GroupHeaders = writeCA(t), []string{" "}
		}, wantErr: "empty group header"},
		{name: "a missing token file", set: func(o *Options) { o.TokenAuthFile = "/no/such/tokens.csv" }, wantErr: "-token-auth-file"},
		{name: "an unreadable authentication kubeconfig", set: func(o *Options) { o.AuthenticationKubeconfig = "/no/such/kubeconfig" }, wantErr: "-authentication-kubeconfig"},
		{name: "an unreadable authorization kubeconfig", set: func(o *Options) { o.AnonymousAuth, o.AuthorizationKubeconfig = true, "/no/such/kubeconfig" }, wantErr: "-authorization-kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOptions()
			o.DefaultCertificate = must(kubeconfig.SelfSignedCertificate("server", time.Hour))
			o.Logger = quietLogger()
			tt.set(o)
			_, err := o.Build(context.Background(), tt.host)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Build = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	o := &Options{AnonymousAuth: true, DefaultCertificate: must(kubeconfig.SelfSignedCertificate("server", time.Hour)), Logger: quietLogger()}
	cfg, err := o.Build(context.Background(), Host{Authorizer: authz.AlwaysAllow{}})
	if err != nil || cfg.Authenticator != nil || !cfg.AllowAnonymous {
		t.Errorf("Build of anonymous-only options = %+v, %v; want no authenticator and anonymous access", cfg, err)
	}
}

// writeCA writes a CA certificate to a file and returns its path.
func writeCA(t *testing.T) string {
	t.Helper()
	path := t.TempDir() + "/ca.crt"
	writeFile(t, path, newCertFiles(t, "ca").cert)
	return path
}

// userName is the name of the user cfg authenticates r as, "" for none.
func userName(cfg *Config, r *http.Request) string {
	if user, ok, _ := cfg.Authenticator.Authenticate(r); ok && user != nil {
		return user.Name
	}
	return ""
}
