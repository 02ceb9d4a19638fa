package strategies_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
)

const podsPath = "/api/v1/namespaces/default/pods"

// runPod creates a pod with labels app=name's app, then makes it Running (and Ready
// when ready) through pods/status, as a kubelet would.
func runPod(t *testing.T, srv *apitest.Server, name, app string, ready bool) {
	t.Helper()
	pod := map[string]any{"metadata": map[string]any{"name": name, "labels": map[string]any{"app": app}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	created := call(t, srv, http.MethodPost, podsPath, pod, http.StatusCreated)
	status := "False"
	if ready {
		status = "True"
	}
	created["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": status}}}
	call(t, srv, http.MethodPut, podsPath+"/"+name+"/status", created, http.StatusOK)
}

// newPDB creates a PDB selecting app and sets its status as the disruption
// controller would: observedGeneration current unless stale.
func newPDB(t *testing.T, srv *apitest.Server, name, app string, spec map[string]any, allowed, current, desired int, stale bool) {
	t.Helper()
	if spec == nil {
		spec = map[string]any{}
	}
	spec["selector"] = map[string]any{"matchLabels": map[string]any{"app": app}}
	spec["minAvailable"] = 1
	created := call(t, srv, http.MethodPost, pdbsPath, pdbBody(name, spec), http.StatusCreated)
	observed := 1
	if stale {
		observed = 0
	}
	created["status"] = map[string]any{"observedGeneration": observed, "disruptionsAllowed": allowed, "currentHealthy": current, "desiredHealthy": desired, "expectedPods": current}
	call(t, srv, http.MethodPut, pdbsPath+"/"+name+"/status", created, http.StatusOK)
}

func evictionOf(name string, deleteOptions map[string]any) map[string]any {
	e := map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": name}}
	if deleteOptions != nil {
		e["deleteOptions"] = deleteOptions
	}
	return e
}

// TestEviction_HonoursDisruptionBudgetsAsKube holds pods/eviction against kube's
// EvictionREST: each row sets up pods and PDBs, evicts one pod, and checks the answer
// (code, reason, message, DisruptionBudget cause) and whether the pod is gone.
func TestEviction_HonoursDisruptionBudgetsAsKube(t *testing.T) {
	tests := []struct {
		name        string
		setup       func(t *testing.T, srv *apitest.Server)
		pod, path   string
		body        map[string]any
		wantCode    int
		wantReason  string
		wantMessage string
		wantCause   string
		wantGone    bool
	}{
		{name: "no PDB: deleted", setup: func(t *testing.T, srv *apitest.Server) { runPod(t, srv, "p", "web", true) },
			pod: "p", wantCode: 201, wantGone: true},
		{name: "a PDB that allows one: deleted", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "budget", "web", nil, 1, 2, 1, false)
		}, pod: "p", wantCode: 201, wantGone: true},
		{name: "a PDB that allows none: 429", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "budget", "web", nil, 0, 1, 1, false)
		}, pod: "p", wantCode: 429, wantReason: "TooManyRequests", wantMessage: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCause: "The disruption budget budget needs 1 healthy pods and has 1 currently"},
		{name: "a PDB behind its spec: 429", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "budget", "web", nil, 1, 2, 1, true)
		}, pod: "p", wantCode: 429, wantReason: "TooManyRequests", wantMessage: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCause: "The disruption budget budget is still being processed by the server."},
		{name: "two PDBs: kube's 500 Failure Status", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "one", "web", nil, 1, 2, 1, false)
			newPDB(t, srv, "two", "web", nil, 1, 2, 1, false)
		}, pod: "p", wantCode: 500, wantMessage: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."},
		{name: "a PDB of other pods: deleted", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "budget", "db", nil, 0, 1, 1, false)
		}, pod: "p", wantCode: 201, wantGone: true},
		{name: "a pending pod: deleted without checking", setup: func(t *testing.T, srv *apitest.Server) {
			call(t, srv, http.MethodPost, podsPath, map[string]any{"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}, http.StatusCreated)
			newPDB(t, srv, "budget", "web", nil, 0, 1, 1, false)
		}, pod: "p", wantCode: 201, wantGone: true},
		{name: "an unready pod, AlwaysAllow: deleted", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", false)
			newPDB(t, srv, "budget", "web", map[string]any{"unhealthyPodEvictionPolicy": "AlwaysAllow"}, 0, 0, 1, false)
		}, pod: "p", wantCode: 201, wantGone: true},
		{name: "an unready pod, IfHealthyBudget unmet: 429", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", false)
			newPDB(t, srv, "budget", "web", map[string]any{"unhealthyPodEvictionPolicy": "IfHealthyBudget"}, 0, 0, 1, false)
		}, pod: "p", wantCode: 429, wantReason: "TooManyRequests", wantCause: "The disruption budget budget needs 1 healthy pods and has 0 currently"},
		{name: "a dry run: kept", setup: func(t *testing.T, srv *apitest.Server) {
			runPod(t, srv, "p", "web", true)
			newPDB(t, srv, "budget", "web", nil, 1, 2, 1, false)
		}, pod: "p", path: "?dryRun=All", wantCode: 201},
		{name: "a missing pod: 404", setup: func(*testing.T, *apitest.Server) {}, pod: "nope", wantCode: 404, wantReason: "NotFound", wantMessage: `pods "nope" not found`},
		{name: "a name unlike the URL's: 400", setup: func(t *testing.T, srv *apitest.Server) { runPod(t, srv, "p", "web", true) },
			pod: "p", body: evictionOf("q", nil), wantCode: 400, wantReason: "BadRequest", wantMessage: "name in URL does not match name in Eviction object"},
		{name: "a uid precondition that fails: 409", setup: func(t *testing.T, srv *apitest.Server) { runPod(t, srv, "p", "web", true) },
			pod: "p", body: evictionOf("p", map[string]any{"preconditions": map[string]any{"uid": "other"}}), wantCode: 409, wantReason: "Conflict"},
		{name: "ignoreStoreReadErrorWithClusterBreakingPotential: 422", setup: func(t *testing.T, srv *apitest.Server) { runPod(t, srv, "p", "web", true) },
			pod: "p", body: evictionOf("p", map[string]any{"ignoreStoreReadErrorWithClusterBreakingPotential": true}), wantCode: 422, wantReason: "Invalid",
			wantMessage: `Eviction.policy "p" is invalid: deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option`},
		{name: "contradicting dry runs: kube's 500", setup: func(t *testing.T, srv *apitest.Server) { runPod(t, srv, "p", "web", true) },
			pod: "p", path: "?dryRun=All", body: evictionOf("p", map[string]any{"dryRun": []any{"Other"}}), wantCode: 500,
			wantMessage: "Non-matching dry-run options in request and content: [All] and [Other]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := podServer(t)
			tt.setup(t, srv)
			body := tt.body
			if body == nil {
				body = evictionOf(tt.pod, nil)
			}
			out := call(t, srv, http.MethodPost, podsPath+"/"+tt.pod+"/eviction"+tt.path, body, tt.wantCode)
			if tt.wantCode == 201 && tt.wantMessage == "" && (out["status"] != "Success" || out["code"] != float64(201)) {
				t.Errorf("answer %v, want a Success Status", out)
			}
			if tt.wantReason != "" && out["reason"] != tt.wantReason {
				t.Errorf("reason %v, want %s: %v", out["reason"], tt.wantReason, out)
			}
			if tt.wantMessage != "" && out["message"] != tt.wantMessage {
				t.Errorf("message %q\nwant    %q", out["message"], tt.wantMessage)
			}
			if tt.wantCode == 500 && (out["status"] != "Failure" || out["code"] != float64(500)) {
				t.Errorf("answer %v, want a Failure Status with code 500", out)
			}
			if tt.wantCause != "" {
				causes, _ := out["details"].(map[string]any)["causes"].([]any)
				if len(causes) != 1 || causes[0].(map[string]any)["reason"] != "DisruptionBudget" || causes[0].(map[string]any)["message"] != tt.wantCause {
					t.Errorf("causes %v, want one DisruptionBudget cause %q", causes, tt.wantCause)
				}
			}
			if tt.pod == "nope" {
				return
			}
			want := http.StatusOK
			if tt.wantGone {
				want = http.StatusNotFound
			}
			call(t, srv, http.MethodGet, podsPath+"/"+tt.pod, nil, want)
		})
	}
}

// TestEviction_TakesADisruptionFromTheBudget holds kube's checkAndDecrement: an
// eviction under a PDB allowing one leaves it allowing none, with the pod in
// disruptedPods and DisruptionAllowed False; the next eviction is refused.
func TestEviction_TakesADisruptionFromTheBudget(t *testing.T) {
	srv := podServer(t)
	runPod(t, srv, "p1", "web", true)
	runPod(t, srv, "p2", "web", true)
	newPDB(t, srv, "budget", "web", nil, 1, 2, 1, false)
	call(t, srv, http.MethodPost, podsPath+"/p1/eviction", evictionOf("p1", nil), http.StatusCreated)
	pdb := call(t, srv, http.MethodGet, pdbsPath+"/budget", nil, http.StatusOK)
	st := pdb["status"].(map[string]any)
	if st["disruptionsAllowed"] != float64(0) {
		t.Errorf("disruptionsAllowed %v, want 0", st["disruptionsAllowed"])
	}
	if dp, _ := st["disruptedPods"].(map[string]any); dp["p1"] == nil {
		t.Errorf("disruptedPods %v, want p1", st["disruptedPods"])
	}
	conds, _ := st["conditions"].([]any)
	if len(conds) != 1 || fmt.Sprintf("%v %v %v", conds[0].(map[string]any)["type"], conds[0].(map[string]any)["status"], conds[0].(map[string]any)["reason"]) != "DisruptionAllowed False InsufficientPods" {
		t.Errorf("conditions %v, want DisruptionAllowed False InsufficientPods", conds)
	}
	refused := call(t, srv, http.MethodPost, podsPath+"/p2/eviction", evictionOf("p2", nil), http.StatusTooManyRequests)
	if refused["reason"] != "TooManyRequests" {
		t.Errorf("second eviction %v, want 429", refused)
	}
	call(t, srv, http.MethodGet, podsPath+"/p2", nil, http.StatusOK)
}
