package strategies_test

import (
	"net/http"
	"testing"
)

// TestBinding_SetsTheNodeOnceAsKube holds pods/binding and the top-level bindings
// against kube's BindingREST: the first Binding of a pod sets spec.nodeName, merges
// its annotations and labels and sets PodScheduled True; a second is 409, a missing
// pod 404, an invalid target kube's plain 500, a name unlike the URL's 400, a dry run
// stores nothing.
func TestBinding_SetsTheNodeOnceAsKube(t *testing.T) {
	srv := podServer(t)
	const pods = "/api/v1/namespaces/default/pods"
	for _, name := range []string{"a", "b", "c", "gated"} {
		pod := map[string]any{"metadata": map[string]any{"name": name, "annotations": map[string]any{"keep": "1"}},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}
		if name == "gated" {
			pod["spec"].(map[string]any)["schedulingGates"] = []any{map[string]any{"name": "wait"}}
		}
		call(t, srv, http.MethodPost, pods, pod, http.StatusCreated)
	}
	binding := func(name, node string, extra ...func(map[string]any)) map[string]any {
		b := map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": name}, "target": map[string]any{"kind": "Node", "name": node}}
		for _, f := range extra {
			f(b)
		}
		return b
	}
	withMeta := func(b map[string]any) {
		b["metadata"].(map[string]any)["annotations"] = map[string]any{"scheduler": "mine", "pod.beta.kubernetes.io/init-containers": "[]"}
		b["metadata"].(map[string]any)["labels"] = map[string]any{"topology.kubernetes.io/zone": "z1"}
	}
	tests := []struct {
		name, path  string
		body        map[string]any
		wantCode    int
		wantReason  string
		wantMessage string
	}{
		{"pods/binding binds", pods + "/a/binding", binding("a", "node-1", withMeta), 201, "", ""},
		{"a bound pod is 409", pods + "/a/binding", binding("a", "node-2"), 409, "Conflict",
			`Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "node-1"`},
		{"bindings binds too", "/api/v1/namespaces/default/bindings", binding("b", "node-1"), 201, "", ""},
		{"bindings: a bound pod is 409", "/api/v1/namespaces/default/bindings", binding("b", "node-2"), 409, "Conflict",
			`Operation cannot be fulfilled on pods/binding "b": pod b is already assigned to node "node-1"`},
		{"a missing pod is 404", pods + "/nope/binding", binding("nope", "node-1"), 404, "NotFound", `pods "nope" not found`},
		{"a gated pod is 409", pods + "/gated/binding", binding("gated", "node-1"), 409, "Conflict",
			`Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates`},
		{"a name unlike the URL's is 400", pods + "/c/binding", binding("a", "node-1"), 400, "BadRequest", "name in URL does not match name in Binding object"},
		{"a target of another kind is kube's 500", pods + "/c/binding", binding("c", "n", func(b map[string]any) { b["target"].(map[string]any)["kind"] = "Pod" }),
			500, "", `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		{"a target without a name is kube's 500", pods + "/c/binding", binding("c", ""), 500, "", "target.name: Required value"},
		{"a uid precondition that fails is 409", pods + "/c/binding", binding("c", "node-1", func(b map[string]any) { b["metadata"].(map[string]any)["uid"] = "other" }), 409, "Conflict", ""},
		{"a body of another kind is 400", pods + "/c/binding", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "c"}}, 400, "BadRequest",
			`Pod in version "v1" cannot be handled as a Binding: converting (v1.Pod) to (core.Binding): unknown conversion`},
		{"a dry run stores nothing", pods + "/c/binding?dryRun=All", binding("c", "node-1"), 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, srv, http.MethodPost, tt.path, tt.body, tt.wantCode)
			if tt.wantCode == 201 {
				if out["kind"] != "Status" || out["status"] != "Success" || out["code"] != float64(201) {
					t.Errorf("answer %v, want a Success Status with code 201", out)
				}
				return
			}
			if out["reason"] != tt.wantReason && !(tt.wantReason == "" && out["reason"] == nil) {
				t.Errorf("reason %v, want %q: %v", out["reason"], tt.wantReason, out)
			}
			if tt.wantMessage != "" && out["message"] != tt.wantMessage {
				t.Errorf("message %q\nwant    %q", out["message"], tt.wantMessage)
			}
		})
	}
	a := call(t, srv, http.MethodGet, pods+"/a", nil, http.StatusOK)
	spec, meta := a["spec"].(map[string]any), a["metadata"].(map[string]any)
	if spec["nodeName"] != "node-1" {
		t.Errorf("nodeName %v, want node-1", spec["nodeName"])
	}
	ann, _ := meta["annotations"].(map[string]any)
	if ann["keep"] != "1" || ann["scheduler"] != "mine" || ann["pod.beta.kubernetes.io/init-containers"] != nil {
		t.Errorf("annotations %v, want the pod's and the Binding's without the init-container ones", ann)
	}
	if labels, _ := meta["labels"].(map[string]any); labels["topology.kubernetes.io/zone"] != "z1" {
		t.Errorf("labels %v, want the Binding's", labels)
	}
	var scheduled map[string]any
	for _, c := range a["status"].(map[string]any)["conditions"].([]any) {
		if c := c.(map[string]any); c["type"] == "PodScheduled" {
			scheduled = c
		}
	}
	if scheduled == nil || scheduled["status"] != "True" || scheduled["lastTransitionTime"] == nil {
		t.Errorf("PodScheduled %v, want True with a transition time", scheduled)
	}
	if g := meta["generation"]; g != float64(1) {
		t.Errorf("generation %v, want 1: a binding bypasses the pod strategy", g)
	}
	if c := call(t, srv, http.MethodGet, pods+"/c", nil, http.StatusOK); c["spec"].(map[string]any)["nodeName"] != nil {
		t.Errorf("dry run bound pod c to %v", c["spec"].(map[string]any)["nodeName"])
	}
}
