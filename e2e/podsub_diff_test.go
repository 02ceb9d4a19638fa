package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

// The side-by-side check of the pod subresources and PDBs: the same requests sent to
// kube-apiserver (started as envtest starts it) and to apikit, answered with the same
// code, reason, message and causes, and leaving the same fields behind. Pods set
// schedulerName to one no scheduler serves and stay unbound unless a Binding binds
// them, so that deletes are immediate on both servers; the PDBs' statuses are left to
// kube's disruption controller, so only evictions whose answer does not depend on
// its timing are compared (two PDBs; a maxUnavailable 0 budget, which allows none
// whether or not the controller has run).

const podsubNS = "/api/v1/namespaces/podsub"

// podsubPod is a pod's JSON, unscheduled, labelled app=<app>.
func podsubPod(name, app string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"app":%q}},"spec":{"schedulerName":"no-scheduler","containers":[{"name":"app","image":"nginx:1.27"}]}}`, name, app)
}

// podsubStep is one request; keep, for a 2xx answer that is no Status, names the fields
// compared (dotted paths).
type podsubStep struct {
	name, method, path, body string
	ctype                    string
	keep                     []string
	// status, when set, is PUT to the object's /status after the step (a kubelet's
	// Running and Ready).
	running bool
}

func podsubSteps() []podsubStep {
	binding := func(name, kind, node string) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":%q,"annotations":{"scheduled-by":"test"}},"target":{"kind":%q,"name":%q}}`, name, kind, node)
	}
	eviction := func(name, opts string) string {
		return fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":%q}%s}`, name, opts)
	}
	pdb := func(name, app, bound string) string {
		return fmt.Sprintf(`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":%q},"spec":{%s,"selector":{"matchLabels":{"app":%q}}}}`, name, bound, app)
	}
	pods, pdbs := podsubNS+"/pods", "/apis/policy/v1/namespaces/podsub/poddisruptionbudgets"
	return []podsubStep{
		{name: "create bound", method: "POST", path: pods, body: podsubPod("bound", "b")},
		{name: "bind", method: "POST", path: pods + "/bound/binding", body: binding("bound", "Node", "node-1")},
		{name: "read the bound pod", method: "GET", path: pods + "/bound", keep: []string{"spec.nodeName", "metadata.annotations", "status.conditions"}},
		{name: "bind again", method: "POST", path: pods + "/bound/binding", body: binding("bound", "Node", "node-2")},
		{name: "bind a missing pod", method: "POST", path: pods + "/missing/binding", body: binding("missing", "Node", "node-1")},
		{name: "bind under another name", method: "POST", path: pods + "/bound/binding", body: binding("other", "Node", "node-1")},
		{name: "bind to a Pod", method: "POST", path: pods + "/bound/binding", body: binding("bound", "Pod", "x")},
		{name: "bind a Pod body", method: "POST", path: pods + "/bound/binding", body: podsubPod("bound", "b")},
		{name: "create legacy", method: "POST", path: pods, body: podsubPod("legacy", "l")},
		{name: "bindings", method: "POST", path: podsubNS + "/bindings", body: binding("legacy", "", "node-1")},
		{name: "get on pods/binding", method: "GET", path: pods + "/bound/binding"},

		{name: "create pending", method: "POST", path: pods, body: podsubPod("pending", "p")},
		{name: "evict pending", method: "POST", path: pods + "/pending/eviction", body: eviction("pending", "")},
		{name: "read the evicted pod", method: "GET", path: pods + "/pending"},
		{name: "evict a missing pod", method: "POST", path: pods + "/missing/eviction", body: eviction("missing", "")},
		{name: "evict under another name", method: "POST", path: pods + "/bound/eviction", body: eviction("other", "")},
		{name: "evict ignoring store read errors", method: "POST", path: pods + "/bound/eviction", body: eviction("bound", `,"deleteOptions":{"ignoreStoreReadErrorWithClusterBreakingPotential":true}`)},

		{name: "create guarded", method: "POST", path: pods, body: podsubPod("guarded", "g"), running: true},
		{name: "pdb none allowed", method: "POST", path: pdbs, body: pdb("none", "g", `"maxUnavailable":0`), keep: []string{"spec", "metadata.generation"}},
		{name: "evict under a budget allowing none", method: "POST", path: pods + "/guarded/eviction", body: eviction("guarded", "")},
		{name: "pdb second", method: "POST", path: pdbs, body: pdb("second", "g", `"minAvailable":"50%"`)},
		{name: "evict under two budgets", method: "POST", path: pods + "/guarded/eviction", body: eviction("guarded", "")},
		{name: "pdb both bounds", method: "POST", path: pdbs, body: pdb("both", "g", `"minAvailable":1,"maxUnavailable":1`)},
		{name: "pdb bad percent", method: "POST", path: pdbs, body: pdb("pct", "g", `"minAvailable":"120%"`)},
		{name: "pdb update without resourceVersion", method: "PUT", path: pdbs + "/none", body: pdb("none", "g", `"maxUnavailable":1`)},

		{name: "add an ephemeral container", method: "PATCH", path: pods + "/bound/ephemeralcontainers", ctype: "application/strategic-merge-patch+json",
			body: `{"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox","targetContainerName":"app"}]}}`, keep: []string{"spec.ephemeralContainers", "metadata.generation"}},
		{name: "remove it", method: "PUT", path: pods + "/bound/ephemeralcontainers", body: podsubPod("bound", "b")},
		{name: "delete on pods/ephemeralcontainers", method: "DELETE", path: pods + "/bound/ephemeralcontainers"},
	}
}

// podsubAnswer is what is compared of one answer.
type podsubAnswer struct {
	Code                    int
	Status, Reason, Message string
	StatusCode              float64
	Causes                  []string
	Kept                    map[string]any
}

func TestSideBySide_PodSubresourcesAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	answers := make([][]podsubAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if code, m := sv.do(t, hc, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"podsub"}}`); code != 201 {
			t.Fatalf("%s: namespace: %d %v", sv.name, code, m)
		}
		for _, st := range podsubSteps() {
			ctype := st.ctype
			if ctype == "" && st.body != "" {
				ctype = "application/json"
			}
			code, m := sv.do(t, hc, st.method, st.path, ctype, st.body)
			ans := podsubAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.Status, _ = m["status"].(string)
				ans.Reason, _ = m["reason"].(string)
				ans.Message, _ = m["message"].(string)
				ans.StatusCode, _ = m["code"].(float64)
				causes, _ := get(m, "details", "causes").([]any)
				for _, c := range causes {
					cm, _ := c.(map[string]any)
					msg := cm["message"]
					if cm["reason"] == "DisruptionBudget" {
						msg = "" // its text depends on whether kube's disruption controller has run
					}
					ans.Causes = append(ans.Causes, fmt.Sprintf("%v %v: %v", cm["reason"], cm["field"], msg))
				}
				slices.Sort(ans.Causes)
			} else if len(st.keep) > 0 {
				ans.Kept = map[string]any{}
				for _, k := range st.keep {
					ans.Kept[k] = normalizeKept(getDotted(m, k))
				}
			}
			if st.running && code == 201 {
				m["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
				b, _ := json.Marshal(m)
				if c, r := sv.do(t, hc, "PUT", st.path+"/"+get(m, "metadata", "name").(string)+"/status", "application/json", string(b)); c != 200 {
					t.Fatalf("%s: %s: status: %d %v", sv.name, st.name, c, r)
				}
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, st := range podsubSteps() {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", st.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d pod subresource and PDB requests answered as kube-apiserver does", equal, len(podsubSteps()))
}

// getDotted reads a dotted path of m.
func getDotted(m map[string]any, path string) any {
	var cur any = m
	for _, p := range splitDots(path) {
		mm, _ := cur.(map[string]any)
		cur = mm[p]
	}
	return cur
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := range len(s) {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// normalizeKept drops the times a server picks from kept fields.
func normalizeKept(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k == "lastTransitionTime" || k == "lastProbeTime" {
				continue
			}
			out[k] = normalizeKept(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeKept(e)
		}
		return out
	}
	return v
}
