package apitest_test

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestControllers_OrphanTheDependentsOfAJobDeletedWithoutOptions deletes a batch/v1 Job
// that owns a Pod, without options: kube's default policy for batch/v1 orphans the
// Pod, so once the collector ran the Job is gone and the Pod stays without its
// ownerReference; with propagationPolicy=Background the Pod goes with the Job.
func TestControllers_OrphanTheDependentsOfAJobDeletedWithoutOptions(t *testing.T) {
	for _, c := range []struct {
		name, query string
		wantPod     bool
	}{
		{name: "no options", wantPod: true},
		{name: "Background", query: "?propagationPolicy=Background"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, do := controllersServer(t)
			code, job := do(http.MethodPost, "/apis/batch/v1/namespaces/default/jobs", map[string]any{
				"metadata": map[string]any{"name": "pi"},
				"spec": map[string]any{"suspend": true, "template": map[string]any{"spec": map[string]any{"restartPolicy": "Never",
					"containers": []any{map[string]any{"name": "pi", "image": "perl:5.34"}}}}},
			})
			if code != http.StatusCreated {
				t.Fatalf("create job = %d %v", code, job)
			}
			uid := job["metadata"].(map[string]any)["uid"]
			code, pod := do(http.MethodPost, "/api/v1/namespaces/default/pods", map[string]any{
				"metadata": map[string]any{"name": "pi-1", "ownerReferences": []any{map[string]any{
					"apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": uid, "controller": true, "blockOwnerDeletion": true}}},
				"spec": map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "pi", "image": "perl:5.34"}}},
			})
			if code != http.StatusCreated {
				t.Fatalf("create pod = %d %v", code, pod)
			}
			if code, body := do(http.MethodDelete, "/apis/batch/v1/namespaces/default/jobs/pi"+c.query, nil); code != http.StatusOK {
				t.Fatalf("delete job = %d %v", code, body)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Controllers.WaitIdle(ctx); err != nil {
				t.Fatal(err)
			}
			if code, _ := do(http.MethodGet, "/apis/batch/v1/namespaces/default/jobs/pi", nil); code != http.StatusNotFound {
				t.Errorf("the Job once the collector is idle = %d, want 404", code)
			}
			code, pod = do(http.MethodGet, "/api/v1/namespaces/default/pods/pi-1", nil)
			if (code == http.StatusOK) != c.wantPod {
				t.Fatalf("the Pod once the collector is idle = %d, want it kept %v", code, c.wantPod)
			}
			if refs := pod["metadata"].(map[string]any)["ownerReferences"]; c.wantPod && refs != nil {
				t.Errorf("the orphaned Pod keeps ownerReferences %v", refs)
			}
		})
	}
}
