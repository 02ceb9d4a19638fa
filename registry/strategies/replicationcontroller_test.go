package strategies_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

// webRC is a ReplicationController as a user writes it: no selector, no labels and no
// replicas, which kube defaults from the template.
func webRC() map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ReplicationController",
		"metadata": map[string]any{"name": "web"},
		"spec": map[string]any{
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "a"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}},
			},
		},
	}
}

// TestReplicationController_DefaultsScaleStatusAsKube drives an RC as kube's
// replication manager does: the selector, labels and replicas defaulted, generation 1,
// the scale's selector the string of the selector map, a scale bumping the generation,
// a status write keeping the spec and refused past status.replicas.
func TestReplicationController_DefaultsScaleStatusAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/replicationcontrollers"

	rc := webRC()
	rc["status"] = map[string]any{"replicas": 9}
	rc = call(t, srv, http.MethodPost, path, rc, http.StatusCreated)
	labels := map[string]any{"app": "web", "tier": "a"}
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"metadata", "generation"}, float64(1)},
		{[]string{"metadata", "labels"}, labels},
		{[]string{"spec", "selector"}, labels},
		{[]string{"spec", "replicas"}, float64(1)},
		{[]string{"spec", "template", "spec", "restartPolicy"}, "Always"},
		{[]string{"status"}, map[string]any{"replicas": float64(0)}},
	} {
		if d := cmp.Diff(c.want, at(rc, c.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", c.path, d)
		}
	}

	sc := call(t, srv, http.MethodGet, path+"/web/scale", nil, http.StatusOK)
	if got := at(sc, "status", "selector"); got != "app=web,tier=a" {
		t.Errorf("scale status.selector = %v, want the selector map's string form", got)
	}
	sc["spec"] = map[string]any{"replicas": 3}
	call(t, srv, http.MethodPut, path+"/web/scale", sc, http.StatusOK)
	rc = call(t, srv, http.MethodGet, path+"/web", nil, http.StatusOK)
	if got, gen := at(rc, "spec", "replicas"), at(rc, "metadata", "generation"); got != float64(3) || gen != float64(2) {
		t.Errorf("after scaling: replicas %v generation %v, want 3 and 2", got, gen)
	}

	rc["status"] = map[string]any{"replicas": 3, "readyReplicas": 2, "observedGeneration": 2}
	rc["spec"].(map[string]any)["replicas"] = 7
	st := call(t, srv, http.MethodPut, path+"/web/status", rc, http.StatusOK)
	if got, ready := at(st, "spec", "replicas"), at(st, "status", "readyReplicas"); got != float64(3) || ready != float64(2) {
		t.Errorf("after the status write: replicas %v ready %v, want the spec kept (3) and the status taken (2)", got, ready)
	}
	st["status"] = map[string]any{"replicas": 1, "readyReplicas": 2, "availableReplicas": 2}
	refused := call(t, srv, http.MethodPut, path+"/web/status", st, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
	}, slices.Sorted(slices.Values(causesOf(refused)))); d != "" {
		t.Errorf("status causes (-want +got):\n%s", d)
	}
}

// TestReplicationController_RefusedAsKube holds kube's ValidateReplicationController
// messages for the rules of an RC's own.
func TestReplicationController_RefusedAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/replicationcontrollers"
	for _, c := range []struct {
		name   string
		mutate func(rc map[string]any)
		want   []string
	}{
		{"selector not matching the template labels", func(rc map[string]any) {
			rc["spec"].(map[string]any)["selector"] = map[string]any{"app": "db"}
		}, []string{"spec.template.metadata.labels: Invalid value: {\"app\":\"web\",\"tier\":\"a\"}: `selector` does not match template `labels`"}},
		{"no selector and no template labels", func(rc map[string]any) {
			delete(at(rc, "spec", "template", "metadata").(map[string]any), "labels")
		}, []string{"spec.selector: Required value"}},
		{"no template", func(rc map[string]any) {
			rc["spec"].(map[string]any)["selector"] = map[string]any{"app": "web"}
			delete(rc["spec"].(map[string]any), "template")
		}, []string{"spec.template: Required value"}},
		{"pods that do not always restart", func(rc map[string]any) {
			at(rc, "spec", "template", "spec").(map[string]any)["restartPolicy"] = "Never"
		}, []string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"a deadline", func(rc map[string]any) {
			at(rc, "spec", "template", "spec").(map[string]any)["activeDeadlineSeconds"] = 5
		}, []string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported"}},
		{"negative replicas", func(rc map[string]any) {
			rc["spec"].(map[string]any)["replicas"] = -1
		}, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := webRC()
			c.mutate(rc)
			refused := call(t, srv, http.MethodPost, path, rc, http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, causesOf(refused)); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}
