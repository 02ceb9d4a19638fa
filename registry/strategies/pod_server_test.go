package strategies_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func podServer(t *testing.T) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	return srv
}

// TestPodStrategy_CreateAndUpdateAsKubeAPIServer holds the pod strategy end to end: the
// stored pod is defaulted, Pending at generation 1 with its QoS class; an image change
// bumps the generation and keeps the status; any other spec change is kube's 422.
func TestPodStrategy_CreateAndUpdateAsKubeAPIServer(t *testing.T) {
	srv := podServer(t)
	const path = "/api/v1/namespaces/default/pods"
	pod := map[string]any{"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"containers": []any{map[string]any{
		"name": "app", "image": "nginx", "resources": map[string]any{"limits": map[string]any{"cpu": "1", "memory": "1Gi"}}}}},
		"status": map[string]any{"phase": "Running"}}
	created := call(t, srv, http.MethodPost, path, pod, http.StatusCreated)
	meta := created["metadata"].(map[string]any)
	spec := created["spec"].(map[string]any)
	ctr := spec["containers"].([]any)[0].(map[string]any)
	status := created["status"].(map[string]any)
	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"generation", meta["generation"], float64(1)},
		{"phase", status["phase"], "Pending"},
		{"qosClass", status["qosClass"], "Guaranteed"},
		{"restartPolicy", spec["restartPolicy"], "Always"},
		{"enableServiceLinks", spec["enableServiceLinks"], true},
		{"imagePullPolicy", ctr["imagePullPolicy"], "Always"},
		{"requests from limits", ctr["resources"].(map[string]any)["requests"].(map[string]any)["memory"], "1Gi"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	ctr["image"] = "nginx:1.27"
	created["status"] = map[string]any{"phase": "Failed"}
	updated := call(t, srv, http.MethodPut, path+"/web", created, http.StatusOK)
	if g := updated["metadata"].(map[string]any)["generation"]; g != float64(2) {
		t.Errorf("generation after an image change = %v, want 2", g)
	}
	if p := updated["status"].(map[string]any)["phase"]; p != "Pending" {
		t.Errorf("phase after an update = %v, want the stored Pending", p)
	}

	updated["spec"].(map[string]any)["restartPolicy"] = "Never"
	refused := call(t, srv, http.MethodPut, path+"/web", updated, http.StatusUnprocessableEntity)
	causes := refused["details"].(map[string]any)["causes"].([]any)
	if len(causes) != 1 {
		t.Fatalf("causes %v, want one", causes)
	}
	c := causes[0].(map[string]any)
	const want = "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
	msg, _ := c["message"].(string)
	if c["field"] != "spec" || c["reason"] != "FieldValueForbidden" || !strings.HasPrefix(msg, want) ||
		!strings.Contains(msg, "\n- \"RestartPolicy\": \"Always\",\n+ \"RestartPolicy\": \"Never\",\n") {
		t.Errorf("cause %v, want kube's forbidden update with its diff", c)
	}
}

func TestPodTemplateStrategy_ValidatesTheTemplateAndCountsGenerations(t *testing.T) {
	srv := podServer(t)
	const path = "/api/v1/namespaces/default/podtemplates"
	tmpl := map[string]any{"metadata": map[string]any{"name": "t"}, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx", "imagePullPolicy": "Sometimes"}}}}}
	refused := call(t, srv, http.MethodPost, path, tmpl, http.StatusUnprocessableEntity)
	cause := refused["details"].(map[string]any)["causes"].([]any)[0].(map[string]any)
	if cause["field"] != "template.spec.containers[0].imagePullPolicy" || cause["reason"] != "FieldValueNotSupported" {
		t.Errorf("cause %v, want the template's unsupported pull policy", cause)
	}
	ctr := tmpl["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	delete(ctr, "imagePullPolicy")
	created := call(t, srv, http.MethodPost, path, tmpl, http.StatusCreated)
	if g := created["metadata"].(map[string]any)["generation"]; g != float64(1) {
		t.Errorf("generation = %v, want 1", g)
	}
	created["metadata"].(map[string]any)["labels"] = map[string]any{"a": "b"}
	same := call(t, srv, http.MethodPut, path+"/t", created, http.StatusOK)
	if g := same["metadata"].(map[string]any)["generation"]; g != float64(1) {
		t.Errorf("generation after a label change = %v, want 1", g)
	}
	same["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:2"
	changed := call(t, srv, http.MethodPut, path+"/t", same, http.StatusOK)
	if g := changed["metadata"].(map[string]any)["generation"]; g != float64(2) {
		t.Errorf("generation after a template change = %v, want 2", g)
	}
}
