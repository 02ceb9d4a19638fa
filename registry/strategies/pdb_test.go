package strategies_test

import (
	"net/http"
	"testing"
)

const pdbsPath = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

func pdbBody(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": name}, "spec": spec}
}

// TestPDB_ValidatedAsKube holds kube's ValidatePodDisruptionBudgetSpec: each invalid
// spec is 422 with kube's cause (type, field, message).
func TestPDB_ValidatedAsKube(t *testing.T) {
	srv := podServer(t)
	sel := map[string]any{"matchLabels": map[string]any{"app": "web"}}
	tests := []struct {
		name                string
		spec                map[string]any
		wantField, wantType string
		wantMessage         string
	}{
		{"both bounds", map[string]any{"minAvailable": 1, "maxUnavailable": 1, "selector": sel}, "spec", "FieldValueInvalid",
			`Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`},
		{"negative minAvailable", map[string]any{"minAvailable": -1}, "spec.minAvailable", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"},
		{"percent over 100", map[string]any{"maxUnavailable": "101%"}, "spec.maxUnavailable", "FieldValueInvalid", `Invalid value: "101%": must not be greater than 100%`},
		{"not a percent", map[string]any{"minAvailable": "half"}, "spec.minAvailable", "FieldValueInvalid",
			`Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
		{"bad selector operator", map[string]any{"selector": map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "Near"}}}},
			"spec.selector.matchExpressions[0].operator", "FieldValueInvalid", `Invalid value: "Near": not a valid selector operator`},
		{"unknown eviction policy", map[string]any{"unhealthyPodEvictionPolicy": "Sometimes"}, "spec.unhealthyPodEvictionPolicy", "FieldValueNotSupported",
			`Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, srv, http.MethodPost, pdbsPath, pdbBody("bad", tt.spec), http.StatusUnprocessableEntity)
			causes, _ := out["details"].(map[string]any)["causes"].([]any)
			if len(causes) != 1 {
				t.Fatalf("causes %v, want one", causes)
			}
			c := causes[0].(map[string]any)
			if c["field"] != tt.wantField || c["reason"] != tt.wantType || c["message"] != tt.wantMessage {
				t.Errorf("cause %v\nwant field %s reason %s message %s", c, tt.wantField, tt.wantType, tt.wantMessage)
			}
		})
	}
}

// TestPDB_StatusOnlyThroughItsSubresource holds kube's PDB strategies: a create drops
// the status and is at generation 1; a spec change bumps the generation and keeps the
// status; /status keeps the spec and refuses negative counts.
func TestPDB_StatusOnlyThroughItsSubresource(t *testing.T) {
	srv := podServer(t)
	body := pdbBody("web", map[string]any{"minAvailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}})
	body["status"] = map[string]any{"disruptionsAllowed": 5}
	created := call(t, srv, http.MethodPost, pdbsPath, body, http.StatusCreated)
	if g := created["metadata"].(map[string]any)["generation"]; g != float64(1) {
		t.Errorf("generation %v, want 1", g)
	}
	if d := created["status"].(map[string]any)["disruptionsAllowed"]; d != float64(0) {
		t.Errorf("status.disruptionsAllowed %v, want 0: a create drops the status", d)
	}
	created["status"] = map[string]any{"disruptionsAllowed": 2, "currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3, "observedGeneration": 1}
	created["spec"].(map[string]any)["minAvailable"] = 2
	st := call(t, srv, http.MethodPut, pdbsPath+"/web/status", created, http.StatusOK)
	if m := st["spec"].(map[string]any)["minAvailable"]; m != float64(1) {
		t.Errorf("spec.minAvailable %v after /status, want the stored 1", m)
	}
	if d := st["status"].(map[string]any)["disruptionsAllowed"]; d != float64(2) {
		t.Errorf("status.disruptionsAllowed %v, want 2", d)
	}
	st["spec"].(map[string]any)["minAvailable"] = 2
	st["status"] = map[string]any{}
	up := call(t, srv, http.MethodPut, pdbsPath+"/web", st, http.StatusOK)
	if g := up["metadata"].(map[string]any)["generation"]; g != float64(2) {
		t.Errorf("generation %v after a spec change, want 2", g)
	}
	if d := up["status"].(map[string]any)["disruptionsAllowed"]; d != float64(2) {
		t.Errorf("status.disruptionsAllowed %v after an update, want the stored 2", d)
	}
	up["status"] = map[string]any{"disruptionsAllowed": -1}
	bad := call(t, srv, http.MethodPut, pdbsPath+"/web/status", up, http.StatusUnprocessableEntity)
	c := bad["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)
	if c["field"] != "status.disruptionsAllowed" || c["message"] != "Invalid value: -1: must be greater than or equal to 0" {
		t.Errorf("cause %v, want kube's negative disruptionsAllowed", c)
	}
}
