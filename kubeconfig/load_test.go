package kubeconfig

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// apiServer is an https server that answers with what it saw of the caller's
// credentials: "<Authorization header>|<client certificate CN>".
func apiServer(t *testing.T) (*httptest.Server, []byte) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cn := ""
		if len(r.TLS.PeerCertificates) > 0 {
			cn = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		_, _ = w.Write([]byte(r.Header.Get("Authorization") + "|" + cn))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// clientPair returns the PEM certificate and key of a client called cn.
func clientPair(t *testing.T, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	cert, certPEM, err := SelfSignedCertificate(cn, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// kubeconfigFile writes a kubeconfig whose current context "c" joins cluster "k" (the
// cluster fields) and user "u" (the user fields) into dir.
func kubeconfigFile(t *testing.T, dir, clusterFields, userFields string) string {
	t.Helper()
	text := "apiVersion: v1\nkind: Config\ncurrent-context: c\n" +
		"clusters:\n- name: k\n  cluster:\n" + indent(clusterFields) +
		"users:\n- name: u\n  user:\n" + indent(userFields) +
		"contexts:\n- name: c\n  context: {cluster: k, user: u, namespace: ns}\n"
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func indent(fields string) string {
	if fields == "" {
		return "    {}\n"
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(fields), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

func writeIn(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_ClientReachesTheClusterWithTheUsersCredentials(t *testing.T) {
	srv, caPEM := apiServer(t)
	certPEM, keyPEM := clientPair(t, "proxy-client")
	tests := []struct {
		name          string
		cluster, user string
		files         map[string][]byte
		want          string
	}{
		{
			name:    "token with certificate-authority-data",
			cluster: "server: " + srv.URL + "\ncertificate-authority-data: " + b64(caPEM),
			user:    "token: s3cret",
			want:    "Bearer s3cret|",
		},
		{
			name:    "tokenFile and certificate-authority relative to the kubeconfig",
			cluster: "server: " + srv.URL + "/\ncertificate-authority: ca.crt",
			user:    "tokenFile: token",
			files:   map[string][]byte{"ca.crt": caPEM, "token": []byte("from-file\n")},
			want:    "Bearer from-file|",
		},
		{
			name:    "client certificate and key data",
			cluster: "server: " + srv.URL + "\ncertificate-authority-data: " + b64(caPEM),
			user:    "client-certificate-data: " + b64(certPEM) + "\nclient-key-data: " + b64(keyPEM),
			want:    "|proxy-client",
		},
		{
			name:    "client certificate and key files",
			cluster: "server: " + srv.URL + "\ncertificate-authority-data: " + b64(caPEM),
			user:    "client-certificate: tls.crt\nclient-key: tls.key",
			files:   map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM},
			want:    "|proxy-client",
		},
		{
			name:    "insecure-skip-tls-verify and no user credentials",
			cluster: "server: " + srv.URL + "\ninsecure-skip-tls-verify: true",
			want:    "|",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tt.files {
				writeIn(t, dir, name, data)
			}
			c, err := Load(kubeconfigFile(t, dir, tt.cluster, tt.user))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Server != srv.URL || c.Namespace != "ns" {
				t.Errorf("Server, Namespace = %q, %q; want %q, ns", c.Server, c.Namespace, srv.URL)
			}
			req, _ := http.NewRequestWithContext(context.Background(), "GET", c.Server+"/api", nil)
			resp, err := c.HTTP.Do(req)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("server saw %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoad_ClientWithoutTheCertificateAuthorityFailsTheHandshake(t *testing.T) {
	srv, _ := apiServer(t)
	c, err := Load(kubeconfigFile(t, t.TempDir(), "server: "+srv.URL, "token: s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := c.HTTP.Get(c.Server); err == nil {
		resp.Body.Close()
		t.Fatal("GET succeeded against a server whose certificate the kubeconfig does not trust")
	}
}

func TestLoad_ErrorsNameTheFileAndThePieceButNoSecret(t *testing.T) {
	certPEM, keyPEM := clientPair(t, "c")
	const secret = "TOPSECRET-token-value"
	tests := []struct {
		name          string
		cluster, user string
		raw           string // the whole file instead of cluster and user
		want          string
	}{
		{name: "no current-context", raw: "apiVersion: v1\nkind: Config\n", want: "no current-context"},
		{name: "unknown current-context", raw: "current-context: x\n", want: `current-context "x" is not among its contexts`},
		{name: "not YAML", raw: "current-context: [\n", want: "kubeconfig"},
		{name: "cluster without server", cluster: "insecure-skip-tls-verify: true", want: `cluster "k" has no server`},
		{name: "server that is not a URL", cluster: "server: 10.0.0.1:6443", want: "is not an http(s) URL"},
		{name: "missing certificate-authority file", cluster: "server: https://k\ncertificate-authority: nope.crt", want: "certificate-authority"},
		{name: "certificate-authority without PEM", cluster: "server: https://k\ncertificate-authority-data: " + b64([]byte("junk")), want: "no PEM certificate"},
		{name: "insecure and a CA at once", cluster: "server: https://k\ninsecure-skip-tls-verify: true\ncertificate-authority-data: " + b64(certPEM), want: "both insecure-skip-tls-verify"},
		{name: "certificate without key", cluster: "server: https://k", user: "client-certificate-data: " + b64(certPEM), want: "no client-key"},
		{name: "key without certificate", cluster: "server: https://k", user: "client-key-data: " + b64(keyPEM), want: "no client-certificate"},
		{name: "mismatched pair", cluster: "server: https://k", user: "client-certificate-data: " + b64(certPEM) + "\nclient-key-data: " + b64([]byte(secret)), want: "client certificate and key"},
		{name: "missing tokenFile", cluster: "server: https://k", user: "tokenFile: /no/such/token", want: "tokenFile"},
		{name: "exec plugin", cluster: "server: https://k", user: "exec: {command: aws}", want: "exec credential plugin"},
		{name: "auth-provider", cluster: "server: https://k", user: "auth-provider: {name: gcp}", want: "auth-provider"},
		{name: "basic auth", cluster: "server: https://k", user: "username: admin\npassword: " + secret, want: "basic authentication"},
		{name: "token to a plain http server", cluster: "server: http://k", user: "token: " + secret, want: "is not https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "kubeconfig")
			if tt.raw != "" {
				writeIn(t, dir, "kubeconfig", []byte(tt.raw))
			} else {
				path = kubeconfigFile(t, dir, tt.cluster, tt.user)
			}
			c, err := Load(path)
			if err == nil {
				t.Fatalf("Load = %+v, want an error containing %q", c, tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, path) {
				t.Errorf("Load error %q, want it to contain %q and the file name", msg, tt.want)
			}
			if strings.Contains(msg, secret) || strings.Contains(msg, "PRIVATE KEY") {
				t.Errorf("Load error %q carries a secret", msg)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Load of a missing file = %v, want an error naming it", err)
	}
}

func TestLoad_TokenFileIsReadAgainAfterRotation(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "token", []byte("first"))
	ts := &tokenSource{file: filepath.Join(dir, "token")}
	if got, err := ts.get(); err != nil || got != "first" {
		t.Fatalf("get = %q, %v; want first", got, err)
	}
	writeIn(t, dir, "token", []byte("second"))
	if got, _ := ts.get(); got != "first" {
		t.Errorf("get within the refresh interval = %q, want the cached first", got)
	}
	ts.read = ts.read.Add(-tokenFileRefresh) // as if the interval had passed
	if got, _ := ts.get(); got != "second" {
		t.Errorf("get after the refresh interval = %q, want second", got)
	}
}
