package builtin_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func newHPAServer(t *testing.T) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	return srv
}

const (
	hpaV1Path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaV2Path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
)

func hpaTarget() map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
}

// jsonOf renders a decoded value as JSON for comparison.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHPA_V1AndV2AreOneResource creates HPAs at one version and reads them at the
// other as kube-apiserver serves them: v1's targetCPUUtilizationPercentage is v2's cpu
// Utilization metric, an HPA without metrics gets cpu at 80%, and what v1 cannot say
// (other metrics, behavior) travels in kube's annotations, so that a v2 object read at
// v1 and written back at v1 is unchanged at v2.
func TestHPA_V1AndV2AreOneResource(t *testing.T) {
	srv := newHPAServer(t)
	call(t, srv, http.MethodPost, hpaV1Path, map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "cpu50"}, "spec": map[string]any{"scaleTargetRef": hpaTarget(), "maxReplicas": 5, "targetCPUUtilizationPercentage": 50}}, http.StatusCreated)
	call(t, srv, http.MethodPost, hpaV1Path, map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "bare"}, "spec": map[string]any{"scaleTargetRef": hpaTarget(), "maxReplicas": 5}}, http.StatusCreated)
	v2spec := map[string]any{"scaleTargetRef": hpaTarget(), "minReplicas": 2, "maxReplicas": 9,
		"metrics": []any{
			map[string]any{"type": "Pods", "pods": map[string]any{"metric": map[string]any{"name": "qps"}, "target": map[string]any{"type": "AverageValue", "averageValue": "10"}}},
			map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": 70}}},
		},
		"behavior": map[string]any{"scaleDown": map[string]any{"stabilizationWindowSeconds": 60, "policies": []any{map[string]any{"type": "Pods", "value": 1, "periodSeconds": 30}}}}}
	created := call(t, srv, http.MethodPost, hpaV2Path, map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "rich"}, "spec": v2spec}, http.StatusCreated)

	for _, tt := range []struct {
		name, path string
		want       string
	}{
		{"cpu50", hpaV2Path + "/cpu50", `{"maxReplicas":5,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":50,"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}`},
		{"bare", hpaV2Path + "/bare", `{"maxReplicas":5,"metrics":[{"resource":{"name":"cpu","target":{"averageUtilization":80,"type":"Utilization"}},"type":"Resource"}],"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}`},
		{"bare", hpaV1Path + "/bare", `{"maxReplicas":5,"minReplicas":1,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":80}`},
		{"rich", hpaV1Path + "/rich", `{"maxReplicas":9,"minReplicas":2,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":70}`},
	} {
		got := call(t, srv, http.MethodGet, tt.path, nil, http.StatusOK)
		if s := jsonOf(t, got["spec"]); s != tt.want {
			t.Errorf("GET %s: spec\n%s\nwant\n%s", tt.path, s, tt.want)
		}
	}

	v1 := call(t, srv, http.MethodGet, hpaV1Path+"/rich", nil, http.StatusOK)
	ann, _ := v1["metadata"].(map[string]any)["annotations"].(map[string]any)
	for key, want := range map[string]string{
		"autoscaling.alpha.kubernetes.io/metrics":  `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`,
		"autoscaling.alpha.kubernetes.io/behavior": `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}],"Tolerance":null}}`,
	} {
		if ann[key] != want {
			t.Errorf("v1 annotation %s = %v, want %s", key, ann[key], want)
		}
	}
	call(t, srv, http.MethodPut, hpaV1Path+"/rich", v1, http.StatusOK)
	back := call(t, srv, http.MethodGet, hpaV2Path+"/rich", nil, http.StatusOK)
	if !reflect.DeepEqual(back["spec"], created["spec"]) {
		t.Errorf("v2 spec after a v1 round trip\n%s\nwant\n%s", jsonOf(t, back["spec"]), jsonOf(t, created["spec"]))
	}
	if md := back["metadata"].(map[string]any); md["annotations"] != nil {
		t.Errorf("v2 object carries annotations %v after a v1 write", md["annotations"])
	}
	if g := back["metadata"].(map[string]any)["generation"]; g != float64(1) {
		t.Errorf("generation %v after a write that keeps the spec, want 1", g)
	}
}

// TestHPA_TableColumnsAsKube reads HPAs as kubectl's Table at both versions: kube's
// REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS and AGE.
func TestHPA_TableColumnsAsKube(t *testing.T) {
	srv := newHPAServer(t)
	call(t, srv, http.MethodPost, hpaV2Path, map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"scaleTargetRef": hpaTarget(), "maxReplicas": 4,
			"metrics": []any{
				map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": 80}}},
				map[string]any{"type": "Resource", "resource": map[string]any{"name": "memory", "target": map[string]any{"type": "AverageValue", "averageValue": "1Gi"}}},
				map[string]any{"type": "Pods", "pods": map[string]any{"metric": map[string]any{"name": "qps"}, "target": map[string]any{"type": "AverageValue", "averageValue": "10"}}},
			}}}, http.StatusCreated)
	call(t, srv, http.MethodPut, hpaV2Path+"/web/status", map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"scaleTargetRef": hpaTarget(), "maxReplicas": 4},
		"status": map[string]any{"currentReplicas": 3, "desiredReplicas": 3, "currentMetrics": []any{
			map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "current": map[string]any{"averageUtilization": 50, "averageValue": "100m"}}},
		}}}, http.StatusOK)
	call(t, srv, http.MethodPost, hpaV1Path, map[string]any{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
		"metadata": map[string]any{"name": "v1"}, "spec": map[string]any{"scaleTargetRef": hpaTarget(), "maxReplicas": 2}}, http.StatusCreated)
	// kube prints the stored object whatever the version; apikit prints the object at
	// the version asked for, so a v1 read of "web" would list its cpu metric last (v1
	// keeps it apart from the annotation's): "v1" has only cpu.
	for path, want := range map[string][]any{
		hpaV2Path + "/web": {"web", "Deployment/web", "cpu: 50%/80%, memory: <unknown>/1Gi + 1 more...", "1", float64(4), float64(3)},
		hpaV1Path + "/v1":  {"v1", "Deployment/web", "cpu: <unknown>/80%", "1", float64(2), float64(0)},
		hpaV2Path + "/v1":  {"v1", "Deployment/web", "cpu: <unknown>/80%", "1", float64(2), float64(0)},
	} {
		table := callAccept(t, srv, path, "application/json;as=Table;g=meta.k8s.io;v=v1")
		var names []any
		for _, c := range table["columnDefinitions"].([]any) {
			names = append(names, c.(map[string]any)["name"])
		}
		if s := jsonOf(t, names); s != `["Name","Reference","Targets","MinPods","MaxPods","Replicas","Age"]` {
			t.Errorf("%s: columns %s", path, s)
		}
		cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
		if !reflect.DeepEqual(cells[:6], want) {
			t.Errorf("%s: cells %s, want %s", path, jsonOf(t, cells[:6]), jsonOf(t, want))
		}
	}
}
