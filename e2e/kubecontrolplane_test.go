package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The side-by-side tests run the same requests against apikit and against the real
// kube-apiserver and kube-controller-manager of ../shared/bench/kube-control-plane, and
// compare what both answer. Building that control plane takes minutes, so they run
// only where it is built: KUBE_CONTROL_PLANE_BIN names the directory holding its
// kube-apiserver, kube-controller-manager and etcd (OUT=DIR ./build.sh), and
// KUBE_CONTROL_PLANE_DIR, if set, the directory of its start.sh and stop.sh (default
// ../../shared/bench/kube-control-plane from this module). Without it they skip.

// kubeControlPlane is a running real control plane.
type kubeControlPlane struct {
	// Kubeconfig is the path of its admin kubeconfig (user admin, group system:masters).
	Kubeconfig string
	// Config is the client-go configuration of that kubeconfig.
	Config *rest.Config
	// Dir is its state directory (logs, tokens.csv, serving certificate).
	Dir string
}

// startKubeControlPlane starts a real control plane for t, with kube-apiserver's extra
// flags (APISERVER_EXTRA of start.sh), and stops it when t ends. It skips t when
// KUBE_CONTROL_PLANE_BIN is not set.
func startKubeControlPlane(t testing.TB, apiserverExtra ...string) *kubeControlPlane {
	t.Helper()
	bin := os.Getenv("KUBE_CONTROL_PLANE_BIN")
	if bin == "" {
		t.Skip("KUBE_CONTROL_PLANE_BIN is not set: the side-by-side check against the real kube-apiserver needs its binaries (../shared/bench/kube-control-plane/build.sh)")
	}
	scripts := os.Getenv("KUBE_CONTROL_PLANE_DIR")
	if scripts == "" {
		scripts = filepath.Join("..", "..", "shared", "bench", "kube-control-plane")
	}
	scripts, err := filepath.Abs(scripts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(scripts, "start.sh"), dir)
	cmd.Env = append(os.Environ(), "BIN="+bin, "APISERVER_EXTRA="+strings.Join(apiserverExtra, " "))
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(scripts, "stop.sh"), "--keep", dir)
		if out, err := stop.CombinedOutput(); err != nil {
			t.Logf("stop.sh: %v: %s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("start.sh: %v: %s", err, out)
	}
	kubeconfig := ""
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if k, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
			kubeconfig = strings.TrimSpace(k)
		}
	}
	if kubeconfig == "" {
		t.Fatalf("start.sh printed no ready line: %s", out)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Timeout = 30 * time.Second
	return &kubeControlPlane{Kubeconfig: kubeconfig, Config: cfg, Dir: dir}
}
