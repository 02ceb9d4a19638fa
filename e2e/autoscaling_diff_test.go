package e2e

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for autoscaling/v1 and v2 HorizontalPodAutoscalers
// and discovery.k8s.io/v1 EndpointSlices: HPAs written at one version and read at the
// other, updated through the other, their status written, invalid ones refused, on
// kube-apiserver (started as envtest starts it) and on apikit, answered and stored alike.

// sideStep is one request of the transcript: a manifest POSTed, a GET, or a PUT of the
// object an earlier step answered (from, by that step's name) changed by update.
type sideStep struct {
	name, method, path, manifest string
	from                         string
	update                       func(map[string]any)
}

const (
	hpaV1s  = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaV2s  = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	slices1 = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
)

func hpaV2Manifest(name, spec string) string {
	return fmt.Sprintf("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n%s", name, spec)
}

func hpaV1Manifest(name, spec string) string {
	return fmt.Sprintf("apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n%s", name, spec)
}

func sliceManifest(name, body string) string {
	return fmt.Sprintf("apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: %s\n  labels: {kubernetes.io/service-name: web}\n%s", name, body)
}

func autoscalingSideSteps() []sideStep {
	const rich = `  minReplicas: 2
  maxReplicas: 9
  metrics:
  - type: Pods
    pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: "10"}}
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
  - type: External
    external: {metric: {name: queue, selector: {matchLabels: {q: jobs}}}, target: {type: Value, value: 30}}
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
`
	return []sideStep{
		{name: "v1 hpa created", method: "POST", path: hpaV1s, manifest: hpaV1Manifest("h1", "  maxReplicas: 5\n  targetCPUUtilizationPercentage: 50\n")},
		{name: "v1 hpa read at v2", method: "GET", path: hpaV2s + "/h1"},
		{name: "v1 hpa without a target", method: "POST", path: hpaV1s, manifest: hpaV1Manifest("h0", "  maxReplicas: 2\n")},
		{name: "v1 hpa without a target read at v2", method: "GET", path: hpaV2s + "/h0"},
		{name: "v2 hpa created", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("h2", rich)},
		{name: "v2 hpa read at v1", method: "GET", path: hpaV1s + "/h2"},
		{name: "v2 hpa updated at v1", method: "PUT", path: hpaV1s + "/h2", from: "v2 hpa read at v1", update: func(o map[string]any) {
			setPath(o, int64(12), "spec", "maxReplicas")
		}},
		{name: "v2 hpa read at v2 after the v1 update", method: "GET", path: hpaV2s + "/h2"},
		{name: "v2 hpa status written", method: "PUT", path: hpaV2s + "/h2/status", from: "v2 hpa read at v2 after the v1 update", update: func(o map[string]any) {
			o["status"] = map[string]any{"currentReplicas": int64(3), "desiredReplicas": int64(4), "currentMetrics": []any{
				map[string]any{"type": "Resource", "resource": map[string]any{"name": "cpu", "current": map[string]any{"averageUtilization": int64(55), "averageValue": "120m"}}},
			}, "conditions": []any{map[string]any{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "lastTransitionTime": "2026-01-02T03:04:05Z"}}}
		}},
		{name: "v2 hpa status read at v1", method: "GET", path: hpaV1s + "/h2"},
		{name: "v2 hpa without metrics", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("h3", "  maxReplicas: 3\n  behavior: {}\n")},
		{name: "v2 hpa scaling to zero on an object metric", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("h4",
			"  minReplicas: 0\n  maxReplicas: 3\n  metrics:\n  - type: Object\n    object: {describedObject: {apiVersion: v1, kind: Service, name: front}, metric: {name: hits}, target: {type: Value, value: 5}}\n")},
		{name: "v2 hpa with maxReplicas 0", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("bad1", "  maxReplicas: 0\n")},
		{name: "v2 hpa with minReplicas above maxReplicas", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("bad2", "  minReplicas: 5\n  maxReplicas: 2\n")},
		{name: "v2 hpa scaling to zero on cpu", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("bad3", "  minReplicas: 0\n  maxReplicas: 2\n")},
		{name: "v2 hpa with bad metrics", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("bad4",
			"  maxReplicas: 2\n  metrics:\n  - type: Pods\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 0, averageValue: -1}}\n  - type: Custom\n")},
		{name: "v2 hpa with bad behavior", method: "POST", path: hpaV2s, manifest: hpaV2Manifest("bad5",
			"  maxReplicas: 2\n  behavior:\n    scaleUp: {stabilizationWindowSeconds: 4000, selectPolicy: Avg, policies: [{type: Nodes, value: 0, periodSeconds: 2000}]}\n    scaleDown: {policies: []}\n")},
		{name: "v2 hpa with a bad target", method: "POST", path: hpaV2s, manifest: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: bad6}\nspec:\n  scaleTargetRef: {apiVersion: v1, kind: Deployment}\n  maxReplicas: 2\n"},
		{name: "v1 hpa with a cpu target 0", method: "POST", path: hpaV1s, manifest: hpaV1Manifest("bad7", "  maxReplicas: 2\n  targetCPUUtilizationPercentage: 0\n")},
		{name: "v1 hpa with a bad metric annotation", method: "POST", path: hpaV1s, manifest: "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: bad8\n  annotations:\n    autoscaling.alpha.kubernetes.io/metrics: '[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"\",\"targetAverageValue\":\"0\"}}]'\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 2\n"},
		{name: "endpointslice with kube's port defaults", method: "POST", path: slices1, manifest: sliceManifest("s1",
			"addressType: IPv4\nendpoints:\n- addresses: [10.0.0.1]\n  conditions: {ready: true}\n  nodeName: node-1\n  zone: a\n  hints: {forZones: [{name: a}]}\n  deprecatedTopology: {kubernetes.io/hostname: node-1}\nports:\n- {port: 80}\n- {name: dns, port: 53, protocol: UDP}\n")},
		{name: "endpointslice FQDN", method: "POST", path: slices1, manifest: sliceManifest("s2", "addressType: FQDN\nendpoints:\n- addresses: [db.example.com]\n")},
		{name: "endpointslice with bad addresses", method: "POST", path: slices1, manifest: sliceManifest("bad9",
			"addressType: IPv6\nendpoints:\n- addresses: [10.0.0.1, 'FD00::1', '::1']\n- addresses: []\nports:\n- {name: a, protocol: ICMP}\n- {name: a}\n")},
		{name: "endpointslice without addressType", method: "POST", path: slices1, manifest: sliceManifest("bad10", "endpoints: []\n")},
		{name: "endpointslice addressType changed", method: "PUT", path: slices1 + "/s1", from: "endpointslice with kube's port defaults", update: func(o map[string]any) {
			o["addressType"] = "IPv6"
			o["endpoints"] = []any{map[string]any{"addresses": []any{"fd00::1"}}}
		}},
		{name: "endpointslice endpoint moved", method: "PUT", path: slices1 + "/s1", from: "endpointslice with kube's port defaults", update: func(o map[string]any) {
			eps := o["endpoints"].([]any)
			eps[0].(map[string]any)["nodeName"] = "node-2"
		}},
	}
}

// TestSideBySide_AutoscalingAndEndpointSlicesAsKubeAPIServer sends the requests of
// autoscalingSideSteps to kube-apiserver and to apikit and compares the answers.
func TestSideBySide_AutoscalingAndEndpointSlicesAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	steps := autoscalingSideSteps()
	answers := make([][]appsDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]any{}
		for _, st := range steps {
			var body string
			switch {
			case st.manifest != "":
				b, err := yaml.YAMLToJSON([]byte(st.manifest))
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				body = string(b)
			case st.update != nil:
				obj := got[st.from]
				if obj == nil {
					t.Fatalf("%s: %s: step %q answered no object", sv.name, st.name, st.from)
				}
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				st.update(cp)
				b, _ := json.Marshal(cp)
				body = string(b)
			}
			ctype := ""
			if body != "" {
				ctype = "application/json"
			}
			code, m := sv.do(t, hc, st.method, st.path, ctype, body)
			ans := appsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.setRefusal(m)
			} else if code < 300 {
				got[st.name] = m
				cp := copyJSON(m)
				ans.Stored = normalizeStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, st := range steps {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", st.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d HPA and EndpointSlice requests answered as kube-apiserver answers them", equal, len(steps))
}
