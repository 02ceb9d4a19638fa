package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// The side-by-side check of the PodSecurity and Priority admission plugins: the same
// kubectl commands against kube-apiserver (as envtest starts it: the ServiceAccount
// plugin off, every other default plugin on) and against apikit with
// admission.Builtin(): namespaces labelled baseline and restricted, pods and a
// Deployment created in them, invalid labels, a tightened enforce level over existing
// pods, and pods naming a system and an unknown priority class. kubectl's exit code,
// its output and its warnings must be the same.

// psStep is one kubectl run: its arguments and the manifest on its standard input.
type psStep struct {
	name  string
	args  []string
	stdin string
}

const psNamespaces = `apiVersion: v1
kind: Namespace
metadata:
  name: ps-baseline
  labels: {pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: Namespace
metadata:
  name: ps-restricted
  labels: {pod-security.kubernetes.io/enforce: restricted}
---
apiVersion: v1
kind: Namespace
metadata:
  name: ps-warned
  labels: {pod-security.kubernetes.io/enforce: baseline, pod-security.kubernetes.io/warn: restricted, pod-security.kubernetes.io/warn-version: v1.24}
---
apiVersion: v1
kind: Namespace
metadata:
  name: ps-open
`

// psPod is a pod manifest named name in namespace with extra spec lines (indented
// two spaces) and container securityContext lines (indented six).
func psPod(name, namespace, spec, containerSecurity string) string {
	m := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + namespace + "\nspec:\n" + spec +
		"  containers:\n  - name: app\n    image: nginx:1.27\n"
	if containerSecurity != "" {
		m += "    securityContext:\n" + containerSecurity
	}
	return m
}

const psRestrictedPodSpec = "  securityContext:\n    runAsNonRoot: true\n    seccompProfile: {type: RuntimeDefault}\n"
const psRestrictedContainer = "      allowPrivilegeEscalation: false\n      capabilities: {drop: [ALL]}\n"

func psSteps() []psStep {
	create := func(name, manifest string) psStep {
		return psStep{name: name, args: []string{"create", "-f", "-"}, stdin: manifest}
	}
	return []psStep{
		{name: "namespaces", args: []string{"apply", "-f", "-"}, stdin: psNamespaces},
		create("bare pod under baseline", psPod("bare", "ps-baseline", "", "")),
		create("host network pod under baseline", psPod("hostnet", "ps-baseline", "  hostNetwork: true\n", "")),
		create("privileged pod under baseline", psPod("priv", "ps-baseline", "", "      privileged: true\n")),
		create("bare pod under restricted", psPod("bare", "ps-restricted", "", "")),
		create("restricted pod under restricted", psPod("tight", "ps-restricted", psRestrictedPodSpec, psRestrictedContainer)),
		create("root pod under restricted", psPod("root", "ps-restricted", psRestrictedPodSpec, psRestrictedContainer+"      runAsUser: 0\n")),
		create("bare pod warned of restricted v1.24", psPod("bare", "ps-warned", "", "")),
		create("deployment under restricted", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ps-restricted}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: nginx:1.27, ports: [{containerPort: 80, hostPort: 80}]}
`),
		{name: "an invalid enforce level", args: []string{"label", "namespace", "ps-open", "pod-security.kubernetes.io/enforce=strict"}},
		{name: "an invalid warn version", args: []string{"label", "namespace", "ps-open", "pod-security.kubernetes.io/warn-version=1.30"}},
		create("host PID pod, no policy", psPod("hostpid", "ps-open", "  hostPID: true\n", "")),
		create("host IPC pod, no policy", psPod("hostipc", "ps-open", "  hostIPC: true\n", "")),
		create("system-node-critical pod", psPod("critical", "ps-open", "  priorityClassName: system-node-critical\n", "")),
		{name: "its priority", args: []string{"get", "pod", "critical", "-n", "ps-open", "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}"}},
		create("pod of an unknown class", psPod("gold", "ps-open", "  priorityClassName: gold\n", "")),
		create("pod setting its priority", psPod("eager", "ps-open", "  priority: 100\n", "")),
		{name: "a plain pod's priority", args: []string{"get", "pod", "hostpid", "-n", "ps-open", "-o", "jsonpath={.spec.priority} {.spec.preemptionPolicy}"}},
		{name: "baseline over existing pods", args: []string{"label", "namespace", "ps-open", "pod-security.kubernetes.io/enforce=baseline"}},
		{name: "restricted over existing pods", args: []string{"label", "--overwrite", "namespace", "ps-open", "pod-security.kubernetes.io/enforce=restricted"}},
		{name: "loosened to privileged", args: []string{"label", "--overwrite", "namespace", "ps-open", "pod-security.kubernetes.io/enforce=privileged"}},
	}
}

// psKubectl runs kubectl with kubeconfig, bounded in time, in a private cache
// directory.
func psKubectl(t *testing.T, kubeconfig, stdin string, args ...string) kubectlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", kubeconfig, "--request-timeout=30s"}, args...)...)
	dir := filepath.Dir(kubeconfig)
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(dir, "kubecache"), "HOME="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader(stdin)
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
		t.Fatalf("kubectl %s: timed out", strings.Join(args, " "))
	}
	return res
}

// psKubectlNoise are the lines of kubectl's standard error that say nothing of the
// server's answer (client-side throttling notes).
var psKubectlNoise = regexp.MustCompile(`(?m)^I\d{4} .*\n`)

func TestSideBySide_PodSecurityAndPriorityAsKubeAPIServer(t *testing.T) {
	requireKubectl(t)
	// As envtest starts it: controller-runtime's envtest passes --allow-privileged=true,
	// without which kube's validation refuses a privileged container before admission.
	kcp := startKubeControlPlane(t, "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true")
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.Builtin()
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
	apikitConfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(apikitConfig, srv.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	steps := psSteps()
	answers := map[string][]kubectlResult{}
	for _, sv := range []struct{ name, kubeconfig string }{{"kube", kcp.Kubeconfig}, {"apikit", apikitConfig}} {
		for _, st := range steps {
			r := psKubectl(t, sv.kubeconfig, st.stdin, st.args...)
			r.Stderr = psKubectlNoise.ReplaceAllString(r.Stderr, "")
			answers[sv.name] = append(answers[sv.name], r)
		}
	}
	equal := 0
	for i, st := range steps {
		if d := cmp.Diff(answers["kube"][i], answers["apikit"][i], cmp.AllowUnexported(kubectlResult{})); d != "" {
			t.Errorf("%s: kubectl %s (-kube +apikit):\n%s", st.name, strings.Join(st.args, " "), d)
			continue
		}
		equal++
		t.Logf("%s: exit %d\n%s%s", st.name, answers["kube"][i].ExitCode, answers["kube"][i].Stdout, answers["kube"][i].Stderr)
	}
	t.Logf("%d of %d kubectl runs answered as kube-apiserver answers them", equal, len(steps))
}
