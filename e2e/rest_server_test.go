package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/examples/widgets/server"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The resources of the example server, as client-go addresses them.
var (
	gvrWidgets    = schema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "widgets"}
	gvrWarehouses = schema.GroupVersionResource{Group: "toys.example.com", Version: "v1", Resource: "warehouses"}
)

// kubectlPath is the kubectl binary the kubectl tests drive.
const kubectlPath = "/usr/bin/kubectl"

// kubectlTimeout bounds every kubectl invocation.
const kubectlTimeout = 60 * time.Second

// storageBackends are the storage backends every server-level test and benchmark runs
// against, in the order of their sub-test names (storage=memory, storage=bolt).
var storageBackends = []string{server.StorageMemory, server.StorageBolt}

// exampleServer is one in-process example widget server (examples/widgets/server) on a
// loopback port, with its kubeconfig written to a file.
type exampleServer struct {
	srv *server.Server
	// URL is the server's https base URL: the server takes bearer tokens only over TLS.
	URL   string
	Token string
	// Client trusts the server's certificate; raw requests with the token go through it.
	Client         *http.Client
	KubeconfigPath string
	// requests records "METHOD URI" (URI: path and query) of every request the clients of
	// restConfig sent.
	requests *requestLog
}

// requestLog records the requests sent to the server, as "METHOD URI".
type requestLog struct {
	mu   sync.Mutex
	uris []string
}

func (l *requestLog) add(uri string) {
	l.mu.Lock()
	l.uris = append(l.uris, uri)
	l.mu.Unlock()
}

// matching returns the recorded requests that contain every one of parts.
func (l *requestLog) matching(parts ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
next:
	for _, u := range l.uris {
		for _, p := range parts {
			if !strings.Contains(u, p) {
				continue next
			}
		}
		out = append(out, u)
	}
	return out
}

// startExampleServer starts the example server with the given storage backend (bolt in a
// t.TempDir()), writes its kubeconfig into t.TempDir() and stops the server on cleanup.
func startExampleServer(tb testing.TB, storageName string) *exampleServer {
	tb.Helper()
	return startExampleServerWith(tb, storageName, nil)
}

// startExampleServerWith is startExampleServer with configure, when not nil, changing
// the server's configuration before it starts.
func startExampleServerWith(tb testing.TB, storageName string, configure func(*server.Config)) *exampleServer {
	tb.Helper()
	dir := tb.TempDir()
	cfg := server.Config{
		Addr:           "127.0.0.1:0",
		Storage:        storageName,
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if storageName == server.StorageBolt {
		cfg.DataDir = filepath.Join(dir, "data")
	}
	if os.Getenv("E2E_SERVER_LOG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if configure != nil {
		configure(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatalf("starting the example server (%s): %v", storageName, err)
	}
	es := newExampleServer(tb, srv, cfg.KubeconfigPath)
	srv.Start()
	tb.Cleanup(func() {
		if err := srv.Close(); err != nil {
			tb.Errorf("stopping the example server: %v", err)
		}
	})
	return es
}

// newExampleServer describes srv, whose kubeconfig is at kubeconfigPath, to the tests.
func newExampleServer(tb testing.TB, srv *server.Server, kubeconfigPath string) *exampleServer {
	tb.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.CertificateAuthority()) {
		tb.Fatalf("the example server's certificate authority is not PEM: %q", srv.CertificateAuthority())
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	tb.Cleanup(transport.CloseIdleConnections)
	return &exampleServer{
		srv:            srv,
		URL:            srv.TLSURL(),
		Token:          srv.Token(),
		Client:         &http.Client{Transport: transport},
		KubeconfigPath: kubeconfigPath,
		requests:       &requestLog{},
	}
}

// restConfig returns a client-go configuration for the server, built from its kubeconfig
// file the way kubectl builds it, with client-side rate limiting off and every request
// URI recorded in es.requests.
func (es *exampleServer) restConfig(tb testing.TB) *rest.Config {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", es.KubeconfigPath)
	if err != nil {
		tb.Fatalf("loading the kubeconfig: %v", err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	cfg.Timeout = 30 * time.Second
	log := es.requests
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &recordingRoundTripper{next: rt, log: log} })
	return cfg
}

// do sends a raw request with the server's bearer token and returns status, headers and body.
func (es *exampleServer) do(tb testing.TB, method, path string, header http.Header, body []byte) (int, http.Header, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, es.URL+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Authorization", "Bearer "+es.Token)
	resp, err := es.Client.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, resp.Header, data
}

// recordingRoundTripper records each request's method and URI in log.
type recordingRoundTripper struct {
	next http.RoundTripper
	log  *requestLog
}

func (rt *recordingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.log.add(r.Method + " " + r.URL.RequestURI())
	return rt.next.RoundTrip(r)
}

// WrappedRoundTripper lets client-go reach the transport underneath.
func (rt *recordingRoundTripper) WrappedRoundTripper() http.RoundTripper { return rt.next }

// kubectlResult is the outcome of one kubectl run.
type kubectlResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// requireKubectl skips the test when kubectl is not installed.
func requireKubectl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(kubectlPath); err != nil {
		skipWithoutClient(t, "kubectl not available: %v", err)
	}
}

// skipWithoutClient skips a test whose real client is not installed, or fails it when
// E2E_REQUIRE_CLIENTS is set (as .ci/run does), so that CI never passes by skipping.
func skipWithoutClient(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("E2E_REQUIRE_CLIENTS") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// kubectl runs kubectl against es with a bounded timeout. stdin, when not empty, is the
// standard input.
func (es *exampleServer) kubectl(t *testing.T, stdin string, args ...string) kubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	full := append([]string{"--kubeconfig", es.KubeconfigPath, "--request-timeout=30s"}, args...)
	cmd := exec.CommandContext(ctx, kubectlPath, full...)
	// A private cache directory: discovery and OpenAPI caches of other servers that
	// happened to use the same port must not leak in.
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(filepath.Dir(es.KubeconfigPath), "kubecache"), "HOME="+filepath.Dir(es.KubeconfigPath))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	res := kubectlResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("kubectl %s: timed out after %s; stderr: %s", strings.Join(args, " "), kubectlTimeout, res.Stderr)
	}
	return res
}

// mustKubectl runs kubectl and fails the test unless it exits 0.
func (es *exampleServer) mustKubectl(t *testing.T, args ...string) kubectlResult {
	t.Helper()
	res := es.kubectl(t, "", args...)
	if res.ExitCode != 0 {
		t.Fatalf("kubectl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// writeTemp writes content to a new file in t.TempDir() and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	// Not t.TempDir(): its name follows the test's, and kubectl -f splits paths at commas.
	dir, err := os.MkdirTemp("", "apikit-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
