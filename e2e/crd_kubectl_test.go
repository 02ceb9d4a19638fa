package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/cel"
	"github.com/apikit-dev/apikit/examples/widgets/server"
)

// robotsCRDPath is apiextensions' testdata CRD: controller-gen's output for the Robot
// kind of fleet.example.com, with CEL rules, a list-map, defaults, status and scale.
const robotsCRDPath = "../apiextensions/testdata/crd/fleet.example.com_robots.yaml"

// robotsCRDFile is the testdata Robot CRD, served as it is.
func robotsCRDFile(t *testing.T) string {
	t.Helper()
	return robotsCRDPath
}

// robotYAML is a Robot with two arms (the list-map keyed by name).
func robotYAML(ns, name, model string, replicas int) string {
	return `apiVersion: fleet.example.com/v1
kind: Robot
metadata:
  name: ` + name + `
  namespace: ` + ns + `
spec:
  model: ` + model + `
  replicas: ` + itoa(replicas) + `
  serial: RB-1
  arms:
  - name: left
    length: 40
    tool: welder
  - name: right
    length: 120
    tool: gripper
`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// robotJSON reads a robot with kubectl get -o json.
func (es *exampleServer) robotJSON(t *testing.T, ns, name string) map[string]any {
	t.Helper()
	res := es.mustKubectl(t, "get", "robot", name, "-n", ns, "-o", "json")
	var obj map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &obj); err != nil {
		t.Fatalf("decoding robot %s: %v\n%s", name, err, res.Stdout)
	}
	return obj
}

// armsOf returns the arms of a robot as name=length/tool.
func armsOf(obj map[string]any) []string {
	spec, _ := obj["spec"].(map[string]any)
	arms, _ := spec["arms"].([]any)
	var out []string
	for _, a := range arms {
		m, _ := a.(map[string]any)
		tool, _ := m["tool"].(string)
		out = append(out, m["name"].(string)+"="+itoa(int(m["length"].(float64)))+"/"+tool)
	}
	return out
}

// waitEstablished runs kubectl wait --for condition=established on crd. A CRD that the
// server has not reconciled yet has "conditions": null, as kube-apiserver writes a new
// CRD's status, and kubectl wait fails on null rather than waiting (kube's establishing
// controller is usually faster than kubectl starts): such a failure is retried, a
// bounded number of times.
func waitEstablished(t *testing.T, es *exampleServer, crd string) {
	t.Helper()
	for range 50 {
		res := es.kubectl(t, "", "wait", "--for", "condition=established", "--timeout=30s", crd)
		if res.ExitCode == 0 {
			return
		}
		if !strings.Contains(res.Stderr, ".status.conditions accessor error: <nil>") {
			t.Fatalf("kubectl wait: exit %d, stderr %s", res.ExitCode, res.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s has no conditions after 50 tries of kubectl wait", crd)
}

// TestKubectl_CRDLifecycle drives the example server, built with CEL enabled, through a
// CRD's life with the real kubectl: apply the CRD, wait until established, then create,
// list, patch, apply server-side, scale, explain and violate a rule on custom objects,
// and delete the CRD with its objects.
func TestKubectl_CRDLifecycle(t *testing.T) {
	requireKubectl(t)
	es := startExampleServerWith(t, server.StorageMemory, func(c *server.Config) { c.Rules = cel.New() })
	const ns = "fleet"
	const crdName = "crd/robots.fleet.example.com"

	res := es.mustKubectl(t, "apply", "-f", robotsCRDFile(t))
	if got, want := strings.TrimSpace(res.Stdout), "customresourcedefinition.apiextensions.k8s.io/robots.fleet.example.com created"; got != want {
		t.Fatalf("apply CRD printed %q, want %q", got, want)
	}
	waitEstablished(t, es, crdName)

	t.Run("create with apply and get shows the printer columns", func(t *testing.T) {
		es.mustKubectl(t, "apply", "-f", writeTemp(t, "r1.yaml", robotYAML(ns, "r1", "T800", 3)))
		es.mustKubectl(t, "create", "-f", writeTemp(t, "r2.yaml", robotYAML(ns, "r2", "R2", 1)))
		res := es.mustKubectl(t, "get", "robots", "-n", ns)
		ls := lines(res.Stdout)
		if len(ls) != 3 {
			t.Fatalf("get robots printed %d lines, want a header and two rows:\n%s", len(ls), res.Stdout)
		}
		if got := strings.Fields(ls[0]); !slices.Equal(got, []string{"NAME", "MODEL", "REPLICAS", "READY", "AGE"}) {
			t.Errorf("header = %q, want the CRD's columns without priority ones: NAME MODEL REPLICAS READY AGE", got)
		}
		// READY (.status.replicas) is unset: a nil cell, which kubectl prints as nothing.
		if got := strings.Fields(ls[1]); len(got) != 4 || got[0] != "r1" || got[1] != "T800" || got[2] != "3" {
			t.Errorf("row = %q, want r1 T800 3 (READY empty) AGE", got)
		}
		res = es.mustKubectl(t, "get", "rb", "r1", "-n", ns, "-o", "wide")
		if got := strings.Fields(lines(res.Stdout)[0]); !slices.Equal(got, []string{"NAME", "MODEL", "REPLICAS", "READY", "COLOR", "AGE"}) {
			t.Errorf("-o wide header = %q, want the priority column COLOR too", got)
		}
		if got := strings.Fields(lines(res.Stdout)[1]); len(got) != 5 || got[3] != "silver" {
			t.Errorf("-o wide row = %q, want the defaulted color silver", got)
		}
		if arms := armsOf(es.robotJSON(t, ns, "r1")); !slices.Equal(arms, []string{"left=40/welder", "right=120/gripper"}) {
			t.Errorf("arms = %q", arms)
		}
	})

	t.Run("merge patch applies and strategic merge patch is 415 as for kube's custom resources", func(t *testing.T) {
		es.mustKubectl(t, "patch", "robot", "r1", "-n", ns, "--type=merge", "-p", `{"spec":{"replicas":4}}`)
		if got := es.robotJSON(t, ns, "r1")["spec"].(map[string]any)["replicas"]; got != float64(4) {
			t.Errorf("replicas after merge patch = %v, want 4", got)
		}
		// kube-apiserver serves no strategic merge patch for custom resources: list-maps
		// merge by key through server-side apply (next sub-test).
		res := es.kubectl(t, "", "patch", "robot", "r1", "-n", ns, "--type=strategic", "-p", `{"spec":{"arms":[{"name":"left","length":50}]}}`)
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "application/strategic-merge-patch+json is not supported") ||
			!strings.Contains(res.Stderr, "accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml") {
			t.Errorf("strategic merge patch of a robot: exit %d, stderr %q; want kube's 415", res.ExitCode, res.Stderr)
		}
		if arms := armsOf(es.robotJSON(t, ns, "r1")); !slices.Equal(arms, []string{"left=40/welder", "right=120/gripper"}) {
			t.Errorf("arms after the refused patch = %q, want them unchanged", arms)
		}
	})

	t.Run("server-side apply merges the list-map by key and reports conflicts", func(t *testing.T) {
		apply := func(manager, doc string, extra ...string) kubectlResult {
			args := append([]string{"apply", "--server-side", "--field-manager=" + manager, "-f", writeTemp(t, manager+".yaml", doc)}, extra...)
			return es.kubectl(t, "", args...)
		}
		base := "apiVersion: fleet.example.com/v1\nkind: Robot\nmetadata:\n  name: r3\n  namespace: " + ns + "\nspec:\n  model: T100\n"
		if res := apply("alice", base+"  arms:\n  - name: left\n    length: 20\n"); res.ExitCode != 0 {
			t.Fatalf("alice's apply: %s", res.Stderr)
		}
		if res := apply("bob", base+"  arms:\n  - name: right\n    length: 30\n"); res.ExitCode != 0 {
			t.Fatalf("bob's apply: %s", res.Stderr)
		}
		if arms := armsOf(es.robotJSON(t, ns, "r3")); !slices.Equal(arms, []string{"left=20/", "right=30/"}) {
			t.Errorf("arms after two managers applied one arm each = %q, want both, merged by name", arms)
		}
		res := apply("carol", base+"  arms:\n  - name: left\n    length: 25\n")
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "conflict") || !strings.Contains(res.Stderr, "alice") {
			t.Errorf("carol changing alice's arm: exit %d, stderr %q; want a conflict naming alice", res.ExitCode, res.Stderr)
		}
		if res := apply("carol", base+"  arms:\n  - name: left\n    length: 25\n", "--force-conflicts"); res.ExitCode != 0 {
			t.Fatalf("carol's forced apply: %s", res.Stderr)
		}
		if arms := armsOf(es.robotJSON(t, ns, "r3")); !slices.Equal(arms, []string{"left=25/", "right=30/"}) {
			t.Errorf("arms after the forced apply = %q", arms)
		}
	})

	t.Run("scale sets spec.replicas through /scale", func(t *testing.T) {
		es.mustKubectl(t, "scale", "robot", "r2", "-n", ns, "--replicas=7")
		if got := es.robotJSON(t, ns, "r2")["spec"].(map[string]any)["replicas"]; got != float64(7) {
			t.Errorf("replicas after scale = %v, want 7", got)
		}
	})

	t.Run("explain shows the schema's descriptions", func(t *testing.T) {
		res := es.mustKubectl(t, "explain", "robots.spec")
		for _, want := range []string{"RobotSpec is the desired state of a Robot.", "arms", "Arms are the robot's arms, identified by name.", "model", "-required-"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("explain robots.spec does not show %q:\n%s", want, res.Stdout)
			}
		}
	})

	t.Run("a CEL rule violation is 422 with the rule's message", func(t *testing.T) {
		tests := []struct {
			name, patch, want string
		}{
			{name: "cross-field rule", patch: `{"spec":{"minReplicas":5,"maxReplicas":2}}`, want: "minReplicas must not exceed maxReplicas"},
			{name: "transition rule", patch: `{"spec":{"model":"R2"}}`, want: "model is immutable"},
			{name: "messageExpression", patch: `{"spec":{"serial":"XX-12"}}`, want: "serial XX-12 must start with RB-"},
		}
		for _, tt := range tests {
			res := es.kubectl(t, "", "patch", "robot", "r1", "-n", ns, "--type=merge", "-p", tt.patch)
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, "is invalid") || !strings.Contains(res.Stderr, tt.want) {
				t.Errorf("%s: exit %d, stderr %q; want an Invalid error with %q", tt.name, res.ExitCode, res.Stderr, tt.want)
			}
		}
	})

	t.Run("deleting the CRD deletes its objects and the resource", func(t *testing.T) {
		es.mustKubectl(t, "delete", crdName, "--timeout=30s")
		res := es.kubectl(t, "", "get", "crd", "robots.fleet.example.com")
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, "NotFound") {
			t.Errorf("get the deleted CRD: exit %d, stderr %q; want NotFound", res.ExitCode, res.Stderr)
		}
		// The objects are gone before the CRD is; the resource leaves the handler when the
		// server sees the CRD go, a moment later (as in kube-apiserver).
		var code int
		var body []byte
		for range 100 {
			if code, _, body = es.do(t, "GET", "/apis/fleet.example.com/v1/namespaces/"+ns+"/robots", nil, nil); code == 404 {
				break
			}
			if !strings.Contains(string(body), `"items":[]`) {
				t.Fatalf("robots remain after deleting their CRD: %s", body)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if code != 404 {
			t.Errorf("list robots after deleting the CRD = %d %s, want 404", code, body)
		}
	})
}
