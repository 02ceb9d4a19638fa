package discovery_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kubectlServer serves only the discovery handler over HTTP and writes a kubeconfig for
// it. The returned function lists the requests seen so far ("GET /path Accept=...").
func kubectlServer(t *testing.T) (kubeconfig string, requests func() []string) {
	t.Helper()
	h := newWidgetsHandler(t)
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" Accept="+r.Header.Get("Accept"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	kubeconfig = filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: apikit
  cluster:
    server: %s
    insecure-skip-tls-verify: true
contexts:
- name: apikit
  context: {cluster: apikit, user: apikit, namespace: default}
current-context: apikit
users:
- name: apikit
  user: {}
`, srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func runKubectl(t *testing.T, kubeconfig string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := filepath.Dir(kubeconfig)
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestKubectl_DiscoveryOnlyCommandsWork drives the real kubectl against the discovery
// handler alone: discovery and OpenAPI suffice for these commands.
func TestKubectl_DiscoveryOnlyCommandsWork(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	kc, requests := kubectlServer(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"api-versions"}, []string{"toys.example.com/v1\n", "toys.example.com/v1alpha1\n"}},
		{[]string{"api-resources", "--api-group=toys.example.com"}, []string{"widgets", "wg", "toys.example.com/v1", "Widget", "warehouses"}},
		{[]string{"api-resources", "--categories=all", "-o", "name"}, []string{"widgets.toys.example.com"}},
		{[]string{"explain", "widgets.spec"}, []string{"KIND:       Widget", "color\t<string> -required-", "parts\t<[]WidgetPart>"}},
		{[]string{"explain", "widgets.spec.color"}, []string{"FIELD: color <string>"}},
		{[]string{"explain", "wg.spec.parts", "--api-version=toys.example.com/v1alpha1"}, []string{"VERSION:    v1alpha1"}},
		// Client-side dry run still validates: kubectl finds the fieldValidation parameter
		// in the v3 document and so never needs /openapi/v2 (which it asks for as protobuf).
		{[]string{"create", "--dry-run=client", "-o", "name", "-f", "testdata/widget.yaml"}, []string{"widget.toys.example.com/w1"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out := runKubectl(t, kc, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	aggregated := false
	for _, r := range requests() {
		if strings.HasPrefix(r, "GET /openapi/v2") {
			t.Errorf("kubectl fell back to /openapi/v2: %s", r)
		}
		if strings.HasPrefix(r, "GET /apis Accept=application/json;g=apidiscovery.k8s.io;v=v2;") {
			aggregated = true
		}
	}
	if !aggregated {
		t.Errorf("kubectl never asked for aggregated discovery; requests: %q", requests())
	}
}
