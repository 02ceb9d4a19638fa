package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

const widgetsPath = "/apis/toys.example.com/v1/namespaces/default/widgets"

// do sends a request to srv with its client and returns the status code and body.
func do(t *testing.T, c *http.Client, method, url, body string, header http.Header) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, data
}

func widgetJSON(name string) string {
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"red"}}`
}

// waitForGoroutines waits, for a bounded time, until no more than baseline goroutines
// run, and fails t with every goroutine's stack if they do not end.
func waitForGoroutines(t *testing.T, baseline int) {
	t.Helper()
	var n int
	for range 500 {
		if n = runtime.NumGoroutine(); n <= baseline {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Errorf("%d goroutines remain, want at most %d:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
}

func TestNewServer_ServesUntilCleanupThenLeavesNothingRunning(t *testing.T) {
	baseline := runtime.NumGoroutine()
	var url string
	t.Run("server", func(t *testing.T) {
		srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
		url = srv.URL
		if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
			t.Errorf("URL = %q, want http://127.0.0.1:PORT", srv.URL)
		}
		if srv.Handler == nil || srv.Storage == nil {
			t.Fatalf("Handler = %v, Storage = %v; want both set", srv.Handler, srv.Storage)
		}
		if code, body := do(t, srv.Client(), "GET", srv.URL+"/healthz", "", nil); code != http.StatusOK {
			t.Errorf("GET /healthz = %d %s, want 200", code, body)
		}
		onDisk, err := os.ReadFile(srv.KubeconfigPath)
		if err != nil {
			t.Fatalf("reading KubeconfigPath: %v", err)
		}
		if !bytes.Equal(onDisk, srv.Kubeconfig) {
			t.Errorf("KubeconfigPath holds %q, want Kubeconfig %q", onDisk, srv.Kubeconfig)
		}
		// A watch in progress must not hold up the cleanup.
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+widgetsPath+"?watch=true", nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("starting a watch: %v", err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Errorf("watch = %d, want 200", resp.StatusCode)
		}
	})
	waitForGoroutines(t, baseline)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := c.Get(url + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /healthz after cleanup = %d, want a connection error", resp.StatusCode)
	}
}

// Every testing.TB is a apitest.TB (Ginkgo's GinkgoT() is checked in the envtest module).
var _ apitest.TB = testing.TB(nil)

func TestStart_ServesUntilCloseThenRemovesItsDirectoryAndLeavesNothingRunning(t *testing.T) {
	baseline := runtime.NumGoroutine()
	srv, err := apitest.Start(t.Context(), testapi.NewScheme(), apitest.Options{TLS: true, Token: "s3cret"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("w1"), nil); code != http.StatusCreated {
		t.Errorf("POST widget = %d %s, want 201", code, body)
	}
	onDisk, err := os.ReadFile(srv.KubeconfigPath)
	if err != nil || !bytes.Equal(onDisk, srv.Kubeconfig) {
		t.Errorf("KubeconfigPath holds %q, %v; want Kubeconfig %q", onDisk, err, srv.Kubeconfig)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(srv.KubeconfigPath)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Close, stat of the kubeconfig's directory = %v, want it removed", err)
	}
	waitForGoroutines(t, baseline)
}

func TestNewServer_StoresWhatClientsCreate(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("w1"), nil)
	if code != http.StatusCreated {
		t.Fatalf("POST widget = %d %s, want 201", code, body)
	}
	code, body = do(t, srv.Client(), "GET", srv.URL+widgetsPath+"/w1", "", nil)
	if code != http.StatusOK {
		t.Fatalf("GET widget = %d %s, want 200", code, body)
	}
	var got toys.WidgetV1
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("decoding widget: %v", err)
	}
	if got.Name != "w1" || got.Namespace != "default" || got.Spec.Color != "red" || got.UID == "" {
		t.Errorf("GET widget = %+v, want w1 in default, red, with a uid", got)
	}
	n, err := srv.Storage.Count(context.Background(), storage.Prefix(scheme.GroupResource{Group: testapi.Group, Resource: "widgets"}, ""))
	if err != nil || n != 1 {
		t.Errorf("Storage.Count(widgets) = %d, %v; want 1", n, err)
	}
}

func TestOptionsToken_RequestsWithoutTheTokenAreUnauthorized(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{Token: "s3cret"})
	plain := &http.Client{}
	t.Cleanup(plain.CloseIdleConnections)
	tests := []struct {
		name   string
		client *http.Client
		auth   string
		want   int
	}{
		{name: "no Authorization header is 401", client: plain, want: http.StatusUnauthorized},
		{name: "a wrong token is 401", client: plain, auth: "Bearer nope", want: http.StatusUnauthorized},
		{name: "basic auth is 401", client: plain, auth: "Basic czNjcmV0Og==", want: http.StatusUnauthorized},
		{name: "the token is accepted", client: plain, auth: "Bearer s3cret", want: http.StatusOK},
		{name: "Server.Client sends the token", client: srv.Client(), want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.auth != "" {
				h.Set("Authorization", tt.auth)
			}
			if code, body := do(t, tt.client, "GET", srv.URL+widgetsPath, "", h); code != tt.want {
				t.Errorf("GET widgets = %d %s, want %d", code, body, tt.want)
			}
		})
	}
	if got := summarize(t, srv.Kubeconfig).Token; got != "s3cret" {
		t.Errorf("kubeconfig token = %q, want s3cret", got)
	}
}

func TestOptionsStorage_ServesFromItAndLeavesItOpen(t *testing.T) {
	st := memory.New(memory.Options{})
	t.Cleanup(st.Close)
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{Storage: st})
	if srv.Storage != storage.Interface(st) {
		t.Fatalf("Storage = %T, want the store given", srv.Storage)
	}
	if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("kept"), nil); code != http.StatusCreated {
		t.Fatalf("POST widget = %d %s, want 201", code, body)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	key := storage.Key(scheme.GroupResource{Group: testapi.Group, Resource: "widgets"}, "default", "kept")
	if _, err := st.Get(context.Background(), key, storage.GetOptions{}); err != nil {
		t.Errorf("store after Close: Get(%s) = %v, want the widget", key, err)
	}
}

func TestClose_SecondCallReturnsFirstResult(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	first := srv.Close()
	if first != nil {
		t.Fatalf("first Close = %v, want nil", first)
	}
	if second := srv.Close(); !errors.Is(second, first) {
		t.Errorf("second Close = %v, want %v", second, first)
	}
}

// kubectl runs the real kubectl against kubeconfig and returns its output.
func kubectl(t *testing.T, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args = append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...)
	out, err := exec.CommandContext(ctx, "kubectl", args...).CombinedOutput()
	return string(out), err
}

func TestKubeconfig_KubectlUsesIt(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	servers := []struct {
		name string
		opts apitest.Options
	}{
		{name: "plain HTTP without authentication"},
		{name: "TLS with a token", opts: apitest.Options{TLS: true, Token: "kubectl-token"}},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := apitest.NewServer(t, testapi.NewScheme(), s.opts)
			tests := []struct {
				name string
				args []string
				want string
			}{
				{name: "config view shows the server", args: []string{"config", "view", "-o", "jsonpath={.clusters[0].cluster.server}"}, want: srv.URL},
				{name: "config view resolves the namespace", args: []string{"config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}"}, want: "default"},
				{name: "get lists an empty collection", args: []string{"get", "widgets"}, want: "No resources found in default namespace."},
			}
			for _, tt := range tests {
				out, err := kubectl(t, srv.KubeconfigPath, tt.args...)
				if err != nil || strings.TrimSpace(out) != tt.want {
					t.Errorf("%s: kubectl %v = %q, %v; want %q", tt.name, tt.args, out, err, tt.want)
				}
			}
			if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("via-http"), nil); code != http.StatusCreated {
				t.Fatalf("POST widget = %d %s, want 201", code, body)
			}
			out, err := kubectl(t, srv.KubeconfigPath, "get", "widgets", "-o", "name")
			if err != nil || strings.TrimSpace(out) != "widget.toys.example.com/via-http" {
				t.Errorf("kubectl get widgets -o name = %q, %v; want widget.toys.example.com/via-http", out, err)
			}
		})
	}
}

func TestOptionsTLS_ServesHTTPSToClientsTrustingItsCertificate(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{TLS: true})
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Errorf("URL = %q, want https://127.0.0.1:PORT", srv.URL)
	}
	if !strings.Contains(string(srv.CertificateAuthority), "BEGIN CERTIFICATE") {
		t.Errorf("CertificateAuthority = %q, want a PEM certificate", srv.CertificateAuthority)
	}
	if code, body := do(t, srv.Client(), "GET", srv.URL+"/healthz", "", nil); code != http.StatusOK {
		t.Errorf("GET /healthz with Client() = %d %s, want 200", code, body)
	}
	untrusting := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := untrusting.Get(srv.URL + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("GET without trusting the certificate = %d, want a TLS error", resp.StatusCode)
	}
}
