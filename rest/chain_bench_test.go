package rest_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz/rbacfile"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage/memory"
)

// benchRBAC lets the benchmark's client certificate user read and create widgets in
// the default namespace, beside kube's default policy.
const benchRBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-editor}
rules:
- apiGroups: [toys.example.com]
  resources: [widgets]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bench-edits-widgets, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-editor}
subjects:
- {kind: User, name: bench}
`

// BenchmarkHandler_ProductionChain serves GET, LIST and POST over HTTPS with keep-alive
// connections, from a bare Handler (anonymous, AlwaysAllow) and from the production
// chain kube-apiserver runs: client-certificate authentication against a CA, RBAC
// (kube's default policy plus a binding), an audit log at Metadata (JSON lines to
// io.Discard) and metrics; and that chain without the audit log; side by side in one
// run. For stable counts, run it under callgrind (see e2e/cgbench.sh). ns/op is the inverse of requests
// per second of one client.
func BenchmarkHandler_ProductionChain(b *testing.B) {
	ca, clientCert := benchPKI(b)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	defaults, err := authz.NewRBAC(authz.DefaultPolicy()...)
	if err != nil {
		b.Fatal(err)
	}
	rbac, err := rbacfile.Load(strings.NewReader(benchRBAC))
	if err != nil {
		b.Fatal(err)
	}
	chains := []struct {
		name string
		mod  func(*rest.Options)
	}{
		{"bare", func(o *rest.Options) { o.AllowAnonymous, o.Authorizer = true, authz.AlwaysAllow{} }},
		{"x509-rbac-metrics", func(o *rest.Options) {
			o.Authenticator = authn.X509{ClientCA: func() *x509.CertPool { return pool }}
			o.Authorizer = authz.Union(defaults, rbac)
			o.Metrics = metrics.NewRegistry()
		}},
		{"production", func(o *rest.Options) {
			o.Authenticator = authn.X509{ClientCA: func() *x509.CertPool { return pool }}
			o.Authorizer = authz.Union(defaults, rbac)
			o.Audit = &audit.Config{Policy: &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelMetadata}}}, Sink: audit.NewWriterSink(io.Discard)}
			o.Metrics = metrics.NewRegistry()
		}},
		// The policy most clusters run: no RequestReceived events, one event a request.
		{"production-omit-requestreceived", func(o *rest.Options) {
			o.Authenticator = authn.X509{ClientCA: func() *x509.CertPool { return pool }}
			o.Authorizer = authz.Union(defaults, rbac)
			o.Audit = &audit.Config{Policy: &audit.Policy{
				OmitStages: []audit.Stage{audit.StageRequestReceived},
				Rules:      []audit.PolicyRule{{Level: audit.LevelMetadata}},
			}, Sink: audit.NewWriterSink(io.Discard)}
			o.Metrics = metrics.NewRegistry()
		}},
	}
	type served struct {
		url    string
		client *http.Client
	}
	servers := make([]served, len(chains))
	for i, c := range chains {
		store := memory.New(memory.Options{})
		b.Cleanup(store.Close)
		opts := rest.Options{Scheme: testapi.NewScheme(), Storage: store}
		c.mod(&opts)
		h, err := rest.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(h)
		srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12}
		srv.StartTLS()
		b.Cleanup(srv.Close)
		client := srv.Client()
		client.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{clientCert}
		servers[i] = served{srv.URL, client}
		for j := range 10 {
			benchRequest(b, client, "POST", srv.URL+widgetsPath, widgetJSON("w"+strconv.Itoa(j), "blue"), http.StatusCreated)
		}
	}
	created := 0
	for _, op := range benchOps {
		for i, c := range chains {
			b.Run(op.name+"/chain="+c.name, func(b *testing.B) {
				s := servers[i]
				b.ReportAllocs()
				for b.Loop() {
					body := ""
					if op.method == "POST" {
						created++
						body = widgetJSON("c"+strconv.Itoa(created), "blue")
					}
					benchRequest(b, s.client, op.method, s.url+op.path, body, op.want)
				}
			})
		}
	}
}

func benchRequest(b *testing.B, c *http.Client, method, url, body string, want int) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != want {
		b.Fatalf("%s %s: %d %s %v", method, url, resp.StatusCode, data, err)
	}
}

// benchPKI returns a CA certificate and a client certificate it signed for user
// "bench" in group "benchers".
func benchPKI(b *testing.B) (*x509.Certificate, tls.Certificate) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bench-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		b.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "bench", Organization: []string{"benchers"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		b.Fatal(err)
	}
	return ca, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
