package server_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/apikit-dev/apikit/kubeconfig"
	"github.com/apikit-dev/apikit/serving"
)

func TestServer_AnswersPlainHTTPAndTLSOnOnePort(t *testing.T) {
	srv := start(t, server.Config{Storage: server.StorageMemory, Token: "tok"})
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CertificateAuthority()) {
		t.Fatalf("CertificateAuthority() = %q, want a PEM certificate", srv.CertificateAuthority())
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	untrusting := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	plain := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	tests := []struct {
		name    string
		client  *http.Client
		url     string
		path    string // widgetsPath with the token when empty, else without
		want    int
		wantErr bool
	}{
		{name: "plain HTTP refuses the bearer token, which only travels over TLS", client: plain, url: srv.URL(), want: http.StatusUnauthorized},
		{name: "plain HTTP serves the public health check", client: plain, url: srv.URL(), path: "/healthz", want: http.StatusOK},
		{name: "TLS trusting the server's certificate", client: trusting, url: srv.TLSURL(), want: http.StatusOK},
		{name: "TLS to localhost", client: trusting, url: strings.Replace(srv.TLSURL(), "127.0.0.1", "localhost", 1), want: http.StatusOK},
		{name: "TLS without trusting the certificate fails", client: untrusting, url: srv.TLSURL(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			path := tt.path
			if path == "" {
				path = widgetsPath
			}
			req, _ := http.NewRequestWithContext(ctx, "GET", tt.url+path, nil)
			if tt.path == "" {
				req.Header.Set("Authorization", "Bearer tok")
			}
			resp, err := tt.client.Do(req)
			if tt.wantErr {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("GET %s succeeded with %d, want an error", tt.url, resp.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("GET %s: %v", tt.url, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s = %d %s, want %d", tt.url, resp.StatusCode, body, tt.want)
			}
		})
	}
}

func TestServer_SilentConnectionDoesNotBlockOthers(t *testing.T) {
	srv := start(t, server.Config{Storage: server.StorageMemory, Token: "tok"})
	silent, err := net.Dial("tcp", strings.TrimPrefix(srv.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if code, body := do(t, srv, "GET", widgetsPath, "tok", ""); code != http.StatusOK {
		t.Errorf("GET beside a silent connection = %d %s, want 200", code, body)
	}
}

func TestServer_KubectlUsesTheKubeconfig(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	path := filepath.Join(t.TempDir(), "widgets.kubeconfig")
	srv := start(t, server.Config{Storage: server.StorageBolt, DataDir: t.TempDir(), KubeconfigPath: path})
	kubectl := func(t *testing.T, kubeconfig string, args ...string) (string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args = append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...)
		out, err := exec.CommandContext(ctx, "kubectl", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if code, body := do(t, srv, "POST", widgetsPath, srv.Token(), widgetJSON("from-http", "green")); code != http.StatusCreated {
		t.Fatalf("POST widget = %d %s, want 201", code, body)
	}
	out, err := kubectl(t, path, "get", "widgets", "-o", "name")
	if err != nil || out != "widget.toys.example.com/from-http" {
		t.Errorf("kubectl get widgets -o name = %q, %v; want widget.toys.example.com/from-http", out, err)
	}

	// The same kubeconfig without the token is refused.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noToken := filepath.Join(t.TempDir(), "no-token.kubeconfig")
	if err := os.WriteFile(noToken, []byte(strings.ReplaceAll(string(data), srv.Token(), "wrong")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := kubectl(t, noToken, "get", "widgets"); err == nil || !strings.Contains(out, "Unauthorized") && !strings.Contains(out, "provide credentials") {
		t.Errorf("kubectl with a wrong token = %q, %v; want an Unauthorized failure", out, err)
	}
}

func TestServer_ServesTheCertificateOfTLSCertFile(t *testing.T) {
	cert, caPEM, err := kubeconfig.SelfSignedCertificate("from files", time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, data := range map[string][]byte{certFile: caPEM, keyFile: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := startWithServing(t, func(o *serving.Options) { o.TLSCertFile, o.TLSPrivateKeyFile = certFile, keyFile })
	if srv.CertificateAuthority() != nil {
		t.Errorf("CertificateAuthority() = %q, want nil when the certificate comes from files", srv.CertificateAuthority())
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", srv.TLSURL()+widgetsPath, nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET trusting only the file's certificate: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS.PeerCertificates[0].Subject.CommonName != "from files" {
		t.Errorf("GET = %d from %q, want 200 from the file's certificate", resp.StatusCode, resp.TLS.PeerCertificates[0].Subject.CommonName)
	}
}
