package aggregator

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubectlPath is the kubectl the tests drive; kubectlTimeout bounds each run.
const (
	kubectlPath    = "/usr/bin/kubectl"
	kubectlTimeout = 60 * time.Second
)

// kubectlAs is kubectl with a kubeconfig that reaches only the aggregator, as userName,
// and a cache directory of its own.
type kubectlAs struct {
	kubeconfig, home string
}

// newKubectl skips the test when kubectl is missing, unless E2E_REQUIRE_CLIENTS is set
// (as CI sets it), so that CI never passes by skipping.
func newKubectl(t *testing.T, userName string) *kubectlAs {
	t.Helper()
	if _, err := exec.LookPath(kubectlPath); err != nil {
		if os.Getenv("E2E_REQUIRE_CLIENTS") != "" {
			t.Fatalf("kubectl not available: %v", err)
		}
		t.Skipf("kubectl not available: %v", err)
	}
	home := t.TempDir()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["aggregator"] = &clientcmdapi.Cluster{Server: env.aggregator.URL, CertificateAuthorityData: env.aggregator.CAPEM}
	cfg.AuthInfos[userName] = &clientcmdapi.AuthInfo{Token: env.tokens[userName]}
	cfg.Contexts["aggregator"] = &clientcmdapi.Context{Cluster: "aggregator", AuthInfo: userName}
	cfg.CurrentContext = "aggregator"
	k := &kubectlAs{kubeconfig: filepath.Join(home, "kubeconfig"), home: home}
	if err := clientcmd.WriteToFile(*cfg, k.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *kubectlAs) command(ctx context.Context, stdin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", k.kubeconfig, "--request-timeout=30s"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECACHEDIR="+filepath.Join(k.home, "cache"))
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return cmd
}

// run runs kubectl to its end and returns its output and whether it exited 0.
func (k *kubectlAs) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := k.command(ctx, stdin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && (!errors.As(err, &exitErr) || ctx.Err() != nil) {
		t.Fatalf("kubectl %s: %v; stderr: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String(), err == nil
}

// must runs kubectl and fails the test unless it exits 0.
func (k *kubectlAs) must(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	stdout, stderr, ok := k.run(t, stdin, args...)
	if !ok {
		t.Fatalf("kubectl %s failed: %s%s", strings.Join(args, " "), stdout, stderr)
	}
	return stdout
}

const widgetManifest = `apiVersion: toys.example.com/v1
kind: Widget
metadata:
  name: k1
  namespace: kubectl-crud
spec:
  color: red
`

func TestWidgets_KubectlCRUDAndWatchThroughTheAggregator(t *testing.T) {
	const ns = "kubectl-crud"
	kubectl := newKubectl(t, adminUser)
	if out := kubectl.must(t, "", "get", "apiservice", "v1.toys.example.com", "--no-headers"); !strings.Contains(out, "True") {
		t.Errorf("kubectl get apiservice = %q, want Available True", out)
	}
	if out := kubectl.must(t, "", "api-resources", "--api-group=toys.example.com", "--no-headers"); !strings.Contains(out, "widgets") {
		t.Errorf("kubectl api-resources (aggregated discovery) = %q, want widgets", out)
	}

	if out := kubectl.must(t, widgetManifest, "create", "-f", "-"); strings.TrimSpace(out) != "widget.toys.example.com/k1 created" {
		t.Errorf("create = %q", out)
	}
	if out := kubectl.must(t, "", "get", "widget", "k1", "-n", ns, "-o", "jsonpath={.spec.color} {.spec.replicas}"); out != "red 1" {
		t.Errorf("get = %q, want \"red 1\" (replicas defaulted)", out)
	}
	if out := kubectl.must(t, "", "get", "widgets", "-n", ns); !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "k1") {
		t.Errorf("get widgets (server-side Table) = %q", out)
	}
	// The watch lists k1 (ADDED), then follows it until the DELETED row, and the test
	// stops it: a proxied watch still open would hold up the aggregator's shutdown.
	watchCtx, stopWatch := context.WithTimeout(context.Background(), kubectlTimeout)
	defer stopWatch()
	watchCmd := kubectl.command(watchCtx, "", "get", "widgets", "-n", ns, "--watch", "--output-watch-events", "--request-timeout=0")
	var watchOut lockedBuffer
	watchCmd.Stdout, watchCmd.Stderr = &watchOut, &watchOut
	if err := watchCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stopWatch(); _ = watchCmd.Wait() }()
	waitForOutput(t, watchCtx, &watchOut, "k1")

	kubectl.must(t, "", "patch", "widget", "k1", "-n", ns, "--type=merge", "-p", `{"spec":{"color":"blue"}}`)
	if out := kubectl.must(t, "", "delete", "widget", "k1", "-n", ns); strings.TrimSpace(out) != `widget.toys.example.com "k1" deleted` {
		t.Errorf("delete = %q", out)
	}
	if _, stderr, ok := kubectl.run(t, "", "get", "widget", "k1", "-n", ns); ok || !strings.Contains(stderr, "NotFound") {
		t.Errorf("get after delete: ok=%v stderr %q, want NotFound", ok, stderr)
	}

	waitForOutput(t, watchCtx, &watchOut, "DELETED")
	var events []string
	for _, line := range strings.Split(watchOut.String(), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[1] == "k1" {
			events = append(events, f[0]+" "+f[2])
		}
	}
	if want := "ADDED red,MODIFIED blue,DELETED blue"; strings.Join(events, ",") != want {
		t.Errorf("watch rows (event color) = %q, want %s; output:\n%s", events, want, watchOut.String())
	}
}

func TestWidgets_KubectlShowsKubes403ForADeniedUser(t *testing.T) {
	kubectl := newKubectl(t, bobUser)
	manifest := strings.ReplaceAll(widgetManifest, "kubectl-crud", "kubectl-denied")
	_, stderr, ok := kubectl.run(t, manifest, "create", "-f", "-")
	want := `Error from server (Forbidden): error when creating "STDIN": widgets.toys.example.com is forbidden: User "bob" cannot create resource "widgets" in API group "toys.example.com" in the namespace "kubectl-denied"`
	if ok || strings.TrimSpace(stderr) != want {
		t.Errorf("kubectl create as bob: ok=%v stderr %q\nwant %q", ok, stderr, want)
	}
}

// waitForOutput waits until out contains want, failing the test when ctx ends first.
func waitForOutput(t *testing.T, ctx context.Context, out *lockedBuffer, want string) {
	t.Helper()
	for !strings.Contains(out.String(), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("kubectl printed %q, still waiting for %q: %v", out.String(), want, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// lockedBuffer is a bytes.Buffer a running command writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
