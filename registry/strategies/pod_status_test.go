package strategies_test

import (
	"net/http"
	"testing"
)

// TestPodStatus_WritesTheStatusKeepsTheSpec holds kube's pods/status strategy: the
// request's status is stored, its spec and owner references are not, and a QoS class
// or observedGeneration it leaves out keeps the stored one.
func TestPodStatus_WritesTheStatusKeepsTheSpec(t *testing.T) {
	srv := podServer(t)
	pod := map[string]any{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	created := call(t, srv, http.MethodPost, podsPath, pod, http.StatusCreated)
	created["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "changed"
	created["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u"}}
	created["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	out := call(t, srv, http.MethodPut, podsPath+"/p/status", created, http.StatusOK)
	st := out["status"].(map[string]any)
	if st["phase"] != "Running" || st["qosClass"] != "BestEffort" {
		t.Errorf("status %v, want Running with the stored qosClass", st)
	}
	if img := out["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]; img != "nginx" {
		t.Errorf("image %v after /status, want the stored nginx", img)
	}
	if refs := out["metadata"].(map[string]any)["ownerReferences"]; refs != nil {
		t.Errorf("ownerReferences %v after /status, want the stored none", refs)
	}
}
