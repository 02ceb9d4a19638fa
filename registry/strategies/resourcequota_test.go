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

// TestResourceQuota_StatusAndScopesAsKube holds the quota strategy: a status in a create
// is dropped, the status subresource takes status.hard and status.used and keeps the
// spec, and the scopes may not change.
func TestResourceQuota_StatusAndScopesAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/resourcequotas"
	q := call(t, srv, http.MethodPost, path, map[string]any{
		"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"name": "q"},
		"spec":   map[string]any{"hard": map[string]any{"pods": "2", "requests.cpu": "0.0001"}, "scopes": []any{"NotBestEffort"}},
		"status": map[string]any{"hard": map[string]any{"pods": "9"}},
	}, http.StatusCreated)
	if d := cmp.Diff(map[string]any{"pods": "2", "requests.cpu": "1m"}, at(q, "spec", "hard")); d != "" {
		t.Errorf("spec.hard, rounded up to milli units (-want +got):\n%s", d)
	}
	if got := at(q, "status"); !cmp.Equal(got, map[string]any{}) {
		t.Errorf("created status = %v, want it reset", got)
	}
	q["status"] = map[string]any{"hard": map[string]any{"pods": "2"}, "used": map[string]any{"pods": "1"}}
	q["spec"] = map[string]any{"hard": map[string]any{"pods": "7"}, "scopes": []any{"NotBestEffort"}}
	st := call(t, srv, http.MethodPut, path+"/q/status", q, http.StatusOK)
	if at(st, "status", "used", "pods") != "1" || at(st, "spec", "hard", "pods") != "2" {
		t.Errorf("after the status write: used %v hard %v; want the status taken and the spec kept", at(st, "status", "used"), at(st, "spec", "hard"))
	}
	st["spec"] = map[string]any{"hard": map[string]any{"pods": "7"}, "scopes": []any{"Terminating"}}
	refused := call(t, srv, http.MethodPut, path+"/q", st, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{`spec.scopes: Invalid value: ["Terminating"]: field is immutable`}, causesOf(refused)); d != "" {
		t.Errorf("scope change causes (-want +got):\n%s", d)
	}
}

// TestLimitRange_DefaultsAndBoundsAsKube holds SetDefaults_LimitRangeItem (a Container
// item's default limit from max, its default request from the default or min) and
// ValidateLimitRange's messages.
func TestLimitRange_DefaultsAndBoundsAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/api/v1/namespaces/default/limitranges"
	lr := func(item map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "LimitRange", "metadata": map[string]any{"name": "l"},
			"spec": map[string]any{"limits": []any{item}}}
	}
	got := call(t, srv, http.MethodPost, path, lr(map[string]any{"type": "Container",
		"max": map[string]any{"cpu": "2"}, "min": map[string]any{"memory": "64Mi"}}), http.StatusCreated)
	want := map[string]any{"type": "Container", "max": map[string]any{"cpu": "2"}, "min": map[string]any{"memory": "64Mi"},
		"default": map[string]any{"cpu": "2"}, "defaultRequest": map[string]any{"cpu": "2", "memory": "64Mi"}}
	if d := cmp.Diff(want, at(got, "spec").(map[string]any)["limits"].([]any)[0]); d != "" {
		t.Errorf("defaulted item (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		name string
		item map[string]any
		want []string
	}{
		{"min above max", map[string]any{"type": "Pod", "min": map[string]any{"cpu": "3"}, "max": map[string]any{"cpu": "2"}},
			[]string{`spec.limits[0].min[cpu]: Invalid value: "3": min value 3 is greater than max value 2`}},
		{"default above max", map[string]any{"type": "Container", "max": map[string]any{"memory": "1Gi"}, "default": map[string]any{"memory": "2Gi"}},
			[]string{
				`spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than max value 1Gi`,
				`spec.limits[0].default[memory]: Invalid value: "1Gi": default value 2Gi is greater than max value 1Gi`,
			}},
		{"ratio above max/min", map[string]any{"type": "Container", "min": map[string]any{"cpu": "1"}, "max": map[string]any{"cpu": "2"}, "maxLimitRequestRatio": map[string]any{"cpu": "3"}},
			[]string{`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000`}},
		{"defaults on a pod item", map[string]any{"type": "Pod", "default": map[string]any{"cpu": "1"}},
			[]string{"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"}},
		{"claim item without storage", map[string]any{"type": "PersistentVolumeClaim"},
			[]string{"spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			refused := call(t, srv, http.MethodPost, path, lr(c.item), http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, slices.Sorted(slices.Values(causesOf(refused)))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}
