package strategies_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestEphemeralContainers_OnlyAddedAsKube holds kube's pods/ephemeralcontainers
// strategy: an added ephemeral container is stored (generation bumped) while every
// other change of the request is dropped; removing or changing one is kube's 422, and
// the new one is validated as kube validates ephemeral containers.
func TestEphemeralContainers_OnlyAddedAsKube(t *testing.T) {
	srv := podServer(t)
	pod := map[string]any{"metadata": map[string]any{"name": "p", "labels": map[string]any{"app": "web"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	created := call(t, srv, http.MethodPost, podsPath, pod, http.StatusCreated)
	const path = podsPath + "/p/ephemeralcontainers"

	got := call(t, srv, http.MethodGet, path, nil, http.StatusOK)
	if got["kind"] != "Pod" {
		t.Errorf("GET %s: kind %v, want Pod", path, got["kind"])
	}
	spec := created["spec"].(map[string]any)
	spec["ephemeralContainers"] = []any{map[string]any{"name": "debug", "image": "busybox", "targetContainerName": "c"}}
	spec["containers"].([]any)[0].(map[string]any)["image"] = "ignored"
	created["metadata"].(map[string]any)["labels"] = map[string]any{"app": "ignored"}
	out := call(t, srv, http.MethodPut, path, created, http.StatusOK)
	ospec, meta := out["spec"].(map[string]any), out["metadata"].(map[string]any)
	eph, _ := ospec["ephemeralContainers"].([]any)
	if len(eph) != 1 || eph[0].(map[string]any)["name"] != "debug" || eph[0].(map[string]any)["terminationMessagePolicy"] != "File" {
		t.Errorf("ephemeralContainers %v, want debug, defaulted", eph)
	}
	if img := ospec["containers"].([]any)[0].(map[string]any)["image"]; img != "nginx" {
		t.Errorf("image %v, want the stored nginx", img)
	}
	if l := meta["labels"].(map[string]any)["app"]; l != "web" {
		t.Errorf("label %v, want the stored web", l)
	}
	if g := meta["generation"]; g != float64(2) {
		t.Errorf("generation %v, want 2", g)
	}

	tests := []struct {
		name        string
		ephemeral   []any
		wantField   string
		wantMessage string
	}{
		{"removed", []any{}, "spec.ephemeralContainers", "Forbidden: existing ephemeral containers \"debug\" may not be removed\n"},
		{"changed", []any{map[string]any{"name": "debug", "image": "alpine", "targetContainerName": "c", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}},
			"spec.ephemeralContainers", "Forbidden: existing ephemeral containers \"debug\" may not be changed\n"},
		{"named like a container", append(eph, map[string]any{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}),
			"spec.ephemeralContainers[1].name", `Duplicate value: "c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := call(t, srv, http.MethodGet, podsPath+"/p", nil, http.StatusOK)
			body["spec"].(map[string]any)["ephemeralContainers"] = tt.ephemeral
			refused := call(t, srv, http.MethodPut, path, body, http.StatusUnprocessableEntity)
			expectCause(t, refused, tt.wantField, tt.wantMessage)
		})
	}
}

// expectCause fails t unless the 422 Status has a cause of field whose message starts
// with message.
func expectCause(t *testing.T, status map[string]any, field, message string) {
	t.Helper()
	causes, _ := status["details"].(map[string]any)["causes"].([]any)
	for _, c := range causes {
		c := c.(map[string]any)
		if msg, _ := c["message"].(string); c["field"] == field && strings.HasPrefix(msg, message) {
			return
		}
	}
	t.Errorf("causes %v, want %s %q", causes, field, message)
}
