package strategies_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// appsScheme is the built-in scheme, which serves the apps/v1 kinds as kube-apiserver
// does (status, and scale read from the replicas and the selector object).
func appsScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// webDeployment is a Deployment as a user writes it, with the pod fields that kube's
// pod defaults would fill in written out.
func webDeployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"team": "a"}},
		"spec": map[string]any{
			"selector": map[string]any{
				"matchLabels":      map[string]any{"app": "web"},
				"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"b", "a"}}},
			},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "a"}},
				"spec": map[string]any{
					"restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
					"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}},
				},
			},
		},
	}
}

func at(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

// causesOf renders a Status's causes as "field: message".
func causesOf(st map[string]any) []string {
	var out []string
	list, _ := at(st, "details", "causes").([]any)
	for _, c := range list {
		cm := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v: %v", cm["field"], cm["message"]))
	}
	return out
}

// TestDeployment_DefaultsScaleStatusAndImmutableSelectorAsKube drives a Deployment
// through the HTTP API as a controller does: created with kube's defaults and
// generation 1, scaled through /scale (whose selector is the string form and whose
// negative replicas are refused as kube's Scale validation refuses them), its status
// written through /status without its spec, its selector change refused.
func TestDeployment_DefaultsScaleStatusAndImmutableSelectorAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	const path = "/apis/apps/v1/namespaces/default/deployments"

	d := call(t, srv, http.MethodPost, path, webDeployment(), http.StatusCreated)
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"metadata", "generation"}, float64(1)},
		{[]string{"spec", "replicas"}, float64(1)},
		{[]string{"spec", "strategy"}, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": "25%", "maxSurge": "25%"}}},
		{[]string{"spec", "revisionHistoryLimit"}, float64(10)},
		{[]string{"spec", "progressDeadlineSeconds"}, float64(600)},
		{[]string{"status"}, map[string]any{}},
	} {
		if d := cmp.Diff(c.want, at(d, c.path...)); d != "" {
			t.Errorf("created %v (-want +got):\n%s", c.path, d)
		}
	}

	sc := call(t, srv, http.MethodGet, path+"/web/scale", nil, http.StatusOK)
	if got := at(sc, "status", "selector"); got != "app=web,tier in (a,b)" {
		t.Errorf("scale status.selector = %v, want the selector's string form", got)
	}
	if got := at(sc, "spec", "replicas"); got != float64(1) {
		t.Errorf("scale spec.replicas = %v, want 1", got)
	}

	stale := at(sc, "metadata", "resourceVersion")
	sc["spec"] = map[string]any{"replicas": 3}
	scaled := call(t, srv, http.MethodPut, path+"/web/scale", sc, http.StatusOK)
	if got := at(scaled, "spec", "replicas"); got != float64(3) {
		t.Errorf("scaled to %v, want 3", got)
	}
	d = call(t, srv, http.MethodGet, path+"/web", nil, http.StatusOK)
	if got, gen := at(d, "spec", "replicas"), at(d, "metadata", "generation"); got != float64(3) || gen != float64(2) {
		t.Errorf("after scaling: replicas %v generation %v, want 3 and 2", got, gen)
	}
	call(t, srv, http.MethodPut, path+"/web/scale", map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": "web", "resourceVersion": stale}, "spec": map[string]any{"replicas": 4}}, http.StatusConflict)
	refused := call(t, srv, http.MethodPut, path+"/web/scale", map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"replicas": -1}}, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}, causesOf(refused)); d != "" {
		t.Errorf("negative scale causes (-want +got):\n%s", d)
	}
	if k, g := at(refused, "details", "kind"), at(refused, "details", "group"); k != "Scale" || g != "autoscaling" {
		t.Errorf("negative scale refused for %v.%v, want Scale.autoscaling", k, g)
	}

	// A status write keeps the spec and the labels, and takes the annotations, as
	// kube's deployment status strategy does; the generation stays.
	d["status"] = map[string]any{"replicas": 3, "readyReplicas": 2, "availableReplicas": 2, "observedGeneration": 2}
	d["spec"].(map[string]any)["replicas"] = 7
	d["metadata"].(map[string]any)["labels"] = map[string]any{"team": "b"}
	d["metadata"].(map[string]any)["annotations"] = map[string]any{"note": "x"}
	st := call(t, srv, http.MethodPut, path+"/web/status", d, http.StatusOK)
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"spec", "replicas"}, float64(3)},
		{[]string{"metadata", "labels"}, map[string]any{"team": "a"}},
		{[]string{"metadata", "annotations"}, map[string]any{"note": "x"}},
		{[]string{"metadata", "generation"}, float64(2)},
		{[]string{"status", "readyReplicas"}, float64(2)},
	} {
		if d := cmp.Diff(c.want, at(st, c.path...)); d != "" {
			t.Errorf("after the status write %v (-want +got):\n%s", c.path, d)
		}
	}
	st["status"] = map[string]any{"replicas": 3, "readyReplicas": 5}
	refused = call(t, srv, http.MethodPut, path+"/web/status", st, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{
		"status.readyReplicas: Invalid value: 5: cannot be greater than status.replicas",
	}, causesOf(refused)); d != "" {
		t.Errorf("status causes (-want +got):\n%s", d)
	}

	d = call(t, srv, http.MethodGet, path+"/web", nil, http.StatusOK)
	d["spec"].(map[string]any)["selector"] = map[string]any{"matchLabels": map[string]any{"app": "web"}}
	refused = call(t, srv, http.MethodPut, path+"/web", d, http.StatusUnprocessableEntity)
	if d := cmp.Diff([]string{`spec.selector: Invalid value: {"matchLabels":{"app":"web"}}: field is immutable`}, causesOf(refused)); d != "" {
		t.Errorf("selector change causes (-want +got):\n%s", d)
	}
}

// TestStatefulSet_NameIsOneDNSLabelErrorAsKube holds that a StatefulSet's name is checked
// once, as a DNS label: a name that is no DNS subdomain either gets kube's one cause, not
// a second one from the generic DNS subdomain rule.
func TestStatefulSet_NameIsOneDNSLabelErrorAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	ss := map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "-web"},
		"spec": map[string]any{
			"serviceName": "web",
			"selector":    map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}},
			},
		},
	}
	refused := call(t, srv, http.MethodPost, "/apis/apps/v1/namespaces/default/statefulsets", ss, http.StatusUnprocessableEntity)
	want := []string{`metadata.name: Invalid value: "-web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}
	if d := cmp.Diff(want, causesOf(refused)); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
	ss["metadata"] = map[string]any{"name": "web"}
	call(t, srv, http.MethodPost, "/apis/apps/v1/namespaces/default/statefulsets", ss, http.StatusCreated)
}
