package strategies_test

import (
	"net/http"
	"testing"
)

// TestPodResize_OnlyCPUAndMemoryAsKube holds kube's pods/resize strategy: a change of
// a container's cpu is stored (generation bumped) while every other change of the
// request is dropped; removing a limit, adding, renaming a container, changing the
// QoS class or another resource is kube's 422 with its field and message.
func TestPodResize_OnlyCPUAndMemoryAsKube(t *testing.T) {
	srv := podServer(t)
	resources := func(reqCPU, limCPU string) map[string]any {
		return map[string]any{"requests": map[string]any{"cpu": reqCPU, "memory": "64Mi"}, "limits": map[string]any{"cpu": limCPU, "memory": "128Mi"}}
	}
	pod := map[string]any{"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx", "resources": resources("100m", "200m")}}}}
	created := call(t, srv, http.MethodPost, podsPath, pod, http.StatusCreated)
	const path = podsPath + "/p/resize"

	if got := call(t, srv, http.MethodGet, path, nil, http.StatusOK); got["kind"] != "Pod" {
		t.Errorf("GET %s: kind %v, want Pod", path, got["kind"])
	}
	ctr := created["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	ctr["resources"] = resources("150m", "300m")
	ctr["image"] = "ignored"
	created["metadata"].(map[string]any)["labels"] = map[string]any{"app": "ignored"}
	out := call(t, srv, http.MethodPut, path, created, http.StatusOK)
	octr := out["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if cpu := octr["resources"].(map[string]any)["limits"].(map[string]any)["cpu"]; cpu != "300m" {
		t.Errorf("cpu limit %v, want the resized 300m", cpu)
	}
	if img := octr["image"]; img != "nginx" {
		t.Errorf("image %v, want the stored nginx", img)
	}
	meta := out["metadata"].(map[string]any)
	if l := meta["labels"].(map[string]any)["app"]; l != "web" {
		t.Errorf("label %v, want the stored web", l)
	}
	if g := meta["generation"]; g != float64(2) {
		t.Errorf("generation %v, want 2", g)
	}

	tests := []struct {
		name        string
		change      func(spec map[string]any)
		wantField   string
		wantMessage string
	}{
		{"a limit removed", func(s map[string]any) {
			delete(container(s, 0)["resources"].(map[string]any)["limits"].(map[string]any), "memory")
		}, "spec.containers[0].resources.limits", "Forbidden: resource limits cannot be removed"},
		{"a container added", func(s map[string]any) {
			s["containers"] = append(s["containers"].([]any), map[string]any{"name": "d", "image": "nginx"})
		}, "spec.containers", "Forbidden: containers may not be added or removed on resize"},
		{"a container renamed", func(s map[string]any) { container(s, 0)["name"] = "renamed" },
			"spec.containers[0].name", "Forbidden: containers may not be renamed or reordered on resize"},
		{"the QoS class changed", func(s map[string]any) {
			container(s, 0)["resources"] = map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}, "limits": map[string]any{"cpu": "1", "memory": "1Gi"}}
		}, "spec", `Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing`},
		{"another resource changed", func(s map[string]any) {
			container(s, 0)["resources"].(map[string]any)["limits"].(map[string]any)["ephemeral-storage"] = "1Gi"
		}, "spec", "Forbidden: only cpu and memory resources are mutable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := call(t, srv, http.MethodGet, podsPath+"/p", nil, http.StatusOK)
			tt.change(body["spec"].(map[string]any))
			refused := call(t, srv, http.MethodPut, path, body, http.StatusUnprocessableEntity)
			expectCause(t, refused, tt.wantField, tt.wantMessage)
		})
	}
}

func container(spec map[string]any, i int) map[string]any {
	return spec["containers"].([]any)[i].(map[string]any)
}
