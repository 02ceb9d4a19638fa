package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestConnect_DiscoveryLogsResizeAndKubectl checks the core/v1 connect subresources
// and pods/resize as clients meet them on the envtest-style server: discovery lists
// each with kube-apiserver v1.37.2's kind and verbs; client-go's GetLogs of a pod
// without a node reads an empty log and of a pod with two containers gets kube's 400;
// UpdateResize changes cpu and nothing else; kubectl logs and exec answer as they do
// against kube-apiserver without a kubelet.
func TestConnect_DiscoveryLogsResizeAndKubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/json")
	list, err := cs.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pods/attach":      "PodAttachOptions   create,get",
		"pods/exec":        "PodExecOptions   create,get",
		"pods/log":         "Pod   get",
		"pods/portforward": "PodPortForwardOptions   create,get",
		"pods/proxy":       "PodProxyOptions   create,delete,get,patch,update",
		"pods/resize":      "Pod   get,patch,update",
		"nodes/proxy":      "NodeProxyOptions   create,delete,get,patch,update",
		"services/proxy":   "ServiceProxyOptions   create,delete,get,patch,update",
	}
	expectDiscoveryEntries(t, list, want) // podsub_test.go

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pods := cs.CoreV1().Pods("default")
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	one, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "one"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: res}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "two"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "a", Image: "nginx"}, {Name: "b", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	logs, err := pods.GetLogs("one", &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil || len(logs) != 0 {
		t.Errorf("logs of a pod without a node: %q %v, want none", logs, err)
	}
	// Stream decodes a Status as kubectl logs reads it (DoRaw would not).
	_, err = pods.GetLogs("two", &corev1.PodLogOptions{}).Stream(ctx)
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "a container name must be specified for pod two, choose one of: [a b]") {
		t.Errorf("logs of a pod with two containers: %v, want kube's 400", err)
	}

	one.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("300m")
	one.Spec.Containers[0].Image = "dropped"
	got, err := pods.UpdateResize(ctx, "one", one, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Spec.Containers[0]; c.Resources.Limits.Cpu().String() != "300m" || c.Image != "nginx" || got.Generation != 2 {
		t.Errorf("resized: cpu %s image %s generation %d, want 300m, nginx, 2", c.Resources.Limits.Cpu(), c.Image, got.Generation)
	}

	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "local"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Spec: corev1.PodSpec{NodeName: "local",
		Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skip("no kubectl: ", err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, srv.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		wantExit   int
		wantStderr string
	}{
		{[]string{"logs", "one", "-n", "default"}, 0, ""},
		{[]string{"logs", "two", "-n", "default", "-c", "x"}, 1, "container x is not valid for pod two"},
		{[]string{"exec", "one", "-n", "default", "--", "ls"}, 1, "pod one does not have a host assigned"},
		{[]string{"exec", "bound", "-n", "default", "--", "ls"}, 1, "error dialing backend: this server does not connect to kubelets"},
		{[]string{"logs", "bound", "-n", "default"}, 1, "this server does not connect to kubelets"},
	} {
		r := psKubectl(t, kubeconfig, "", c.args...)
		if r.ExitCode != c.wantExit || !strings.Contains(r.Stderr, c.wantStderr) || r.Stdout != "" {
			t.Errorf("kubectl %s: exit %d %q %q, want exit %d and %q", strings.Join(c.args, " "), r.ExitCode, r.Stdout, r.Stderr, c.wantExit, c.wantStderr)
		}
		t.Logf("kubectl %s: exit %d %s", strings.Join(c.args, " "), r.ExitCode, r.Stderr)
	}
}
