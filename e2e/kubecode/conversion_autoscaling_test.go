package kubecode

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	kautoscalingv1 "k8s.io/api/autoscaling/v1"
	kautoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/autoscaling"

	autoscalingv1 "github.com/apikit-dev/apikit/builtin/autoscaling/v1"
	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// genHPAV2 is a random autoscaling/v2 HorizontalPodAutoscaler as JSON: every metric
// source type in spec and status, a behavior, conditions, cpu utilization metrics or not.
func genHPAV2(r *rand.Rand, i int) Object {
	sel := func() any {
		if r.IntN(2) == 0 {
			return nil
		}
		return Object{"matchLabels": Object{"k": fmt.Sprint(r.IntN(3))}}
	}
	q := func() string { return pick(r, []string{"1", "250m", "10", "1Gi", "0"}) }
	ident := func() Object {
		id := Object{"name": pick(r, []string{"qps", "hits", "lag"})}
		if s := sel(); s != nil {
			id["selector"] = s
		}
		return id
	}
	// target is what validation accepts for the source most of the time (kinds lists the
	// target types it takes), any mix of fields otherwise.
	target := func(kinds ...string) Object {
		if r.IntN(5) == 0 {
			t := Object{"type": pick(r, []string{"Utilization", "Value", "AverageValue"})}
			if r.IntN(2) == 0 {
				t["value"] = q()
			}
			if r.IntN(2) == 0 {
				t["averageValue"] = q()
			}
			if r.IntN(2) == 0 {
				t["averageUtilization"] = 1 + r.IntN(99)
			}
			return t
		}
		switch typ := pick(r, kinds); typ {
		case "Utilization":
			return Object{"type": typ, "averageUtilization": 1 + r.IntN(99)}
		case "Value":
			return Object{"type": typ, "value": q()}
		default:
			return Object{"type": typ, "averageValue": q()}
		}
	}
	current := func() Object {
		c := Object{}
		if r.IntN(2) == 0 {
			c["value"] = q()
		}
		if r.IntN(2) == 0 {
			c["averageValue"] = q()
		}
		if r.IntN(2) == 0 {
			c["averageUtilization"] = r.IntN(120)
		}
		return c
	}
	ref := func() Object { return Object{"apiVersion": "v1", "kind": "Service", "name": "svc"} }
	var metrics, statuses []any
	for range r.IntN(5) {
		res := pick(r, []string{"cpu", "memory"})
		switch pick(r, []string{"Resource", "Resource", "ContainerResource", "Pods", "Object", "External"}) {
		case "Resource":
			metrics = append(metrics, Object{"type": "Resource", "resource": Object{"name": res, "target": target("Utilization", "AverageValue")}})
			statuses = append(statuses, Object{"type": "Resource", "resource": Object{"name": res, "current": current()}})
		case "ContainerResource":
			metrics = append(metrics, Object{"type": "ContainerResource", "containerResource": Object{"name": res, "container": "app", "target": target("Utilization", "AverageValue")}})
			statuses = append(statuses, Object{"type": "ContainerResource", "containerResource": Object{"name": res, "container": "app", "current": current()}})
		case "Pods":
			metrics = append(metrics, Object{"type": "Pods", "pods": Object{"metric": ident(), "target": target("AverageValue")}})
			statuses = append(statuses, Object{"type": "Pods", "pods": Object{"metric": ident(), "current": current()}})
		case "Object":
			metrics = append(metrics, Object{"type": "Object", "object": Object{"describedObject": ref(), "metric": ident(), "target": target("Value", "AverageValue")}})
			statuses = append(statuses, Object{"type": "Object", "object": Object{"describedObject": ref(), "metric": ident(), "current": current()}})
		case "External":
			metrics = append(metrics, Object{"type": "External", "external": Object{"metric": ident(), "target": target("Value", "AverageValue")}})
			statuses = append(statuses, Object{"type": "External", "external": Object{"metric": ident(), "current": current()}})
		}
	}
	spec := Object{"scaleTargetRef": Object{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 10}
	if r.IntN(3) > 0 {
		spec["minReplicas"] = r.IntN(4)
	}
	if metrics != nil {
		spec["metrics"] = metrics
	}
	rules := func() any {
		if r.IntN(3) == 0 {
			return nil
		}
		ru := Object{"policies": []any{Object{"type": "Pods", "value": 1 + r.IntN(5), "periodSeconds": 15}}}
		if r.IntN(2) == 0 {
			ru["stabilizationWindowSeconds"] = r.IntN(600)
		}
		if r.IntN(2) == 0 {
			ru["selectPolicy"] = pick(r, []string{"Max", "Min", "Disabled"})
		}
		if r.IntN(2) == 0 {
			ru["tolerance"] = pick(r, []string{"0.1", "50m"})
		}
		return ru
	}
	if r.IntN(2) == 0 {
		b := Object{}
		if up := rules(); up != nil {
			b["scaleUp"] = up
		}
		if down := rules(); down != nil {
			b["scaleDown"] = down
		}
		spec["behavior"] = b
	}
	status := Object{"currentReplicas": r.IntN(5), "desiredReplicas": r.IntN(5)}
	if r.IntN(2) == 0 {
		status["currentMetrics"] = statuses
	}
	if r.IntN(2) == 0 {
		status["conditions"] = []any{Object{"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "ReadyForNewScale", "message": "ok"}}
	}
	if r.IntN(2) == 0 {
		status["observedGeneration"] = 3
	}
	meta := Object{"name": fmt.Sprintf("hpa-%d", i), "namespace": "ns1"}
	if r.IntN(2) == 0 {
		meta["annotations"] = Object{"example.com/a": "b", "autoscaling.alpha.kubernetes.io/metrics": "[]"}
	}
	return Object{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": spec, "status": status}
}

// kubeHPARoundTrip is k8s.io/kubernetes's conversion of a v2 HPA to v1 and that v1
// object back to v2, through its internal type, as kube-apiserver converts a stored
// object for a v1 client and that client's write for storage.
func kubeHPARoundTrip(t *testing.T, in []byte) (v1, v2 []byte) {
	t.Helper()
	var src kautoscalingv2.HorizontalPodAutoscaler
	if err := json.Unmarshal(in, &src); err != nil {
		t.Fatal(err)
	}
	var internal, back autoscaling.HorizontalPodAutoscaler
	var out1 kautoscalingv1.HorizontalPodAutoscaler
	var out2 kautoscalingv2.HorizontalPodAutoscaler
	for _, step := range []struct{ in, out any }{{&src, &internal}, {&internal, &out1}, {&out1, &back}, {&back, &out2}} {
		if err := legacyscheme.Scheme.Convert(step.in, step.out, nil); err != nil {
			t.Fatal(err)
		}
	}
	return mustJSON(t, &out1), mustJSON(t, &out2)
}

func apikitHPARoundTrip(t *testing.T, s *scheme.Scheme, in []byte) (v1, v2 []byte) {
	t.Helper()
	var src autoscalingv2.HorizontalPodAutoscaler
	if err := json.Unmarshal(in, &src); err != nil {
		t.Fatal(err)
	}
	o1, err := conversion.ToVersion(s, &src, autoscalingv1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := conversion.ToVersion(s, o1, autoscalingv2.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, o1), mustJSON(t, o2)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// asMap decodes JSON for a comparison that ignores apiVersion and kind (kube's typed
// conversion leaves them to the codec) and parses the round-trip annotations' JSON.
func asMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	return m
}

// TestHPAConversion_RoundTripAsKube converts generated autoscaling/v2
// HorizontalPodAutoscalers to autoscaling/v1 and back with k8s.io/kubernetes v1.37.2's
// conversion functions and with apikit's, and compares both results byte for byte in
// their annotations: targetCPUUtilizationPercentage, the other metrics, current
// metrics, behavior and conditions in kube's annotations, and the v2 object they give
// back.
func TestHPAConversion_RoundTripAsKube(t *testing.T) {
	s := newApikit(t).scheme
	r := rand.New(rand.NewPCG(seed(t), 7))
	const n = 400
	lossless := 0
	for i := range n {
		in := JSON(genHPAV2(r, i))
		k1, k2 := kubeHPARoundTrip(t, in)
		a1, a2 := apikitHPARoundTrip(t, s, in)
		if d := cmp.Diff(asMap(t, k1), asMap(t, a1)); d != "" {
			t.Errorf("case %d: v1 (-kube +apikit):\n%s\ninput %s", i, d, in)
			continue
		}
		if d := cmp.Diff(asMap(t, k2), asMap(t, a2)); d != "" {
			t.Errorf("case %d: v2 after v1 (-kube +apikit):\n%s\ninput %s", i, d, in)
			continue
		}
		var typed autoscalingv2.HorizontalPodAutoscaler
		if err := json.Unmarshal(in, &typed); err != nil {
			t.Fatal(err)
		}
		if cmp.Equal(asMap(t, mustJSON(t, &typed)), asMap(t, a2)) {
			lossless++
		}
	}
	// kube's round trip itself changes what v1 cannot hold apart: the cpu utilization
	// metric moves after the others, a second one becomes a Value target, a status's
	// resource metrics gain averageValue "0", mixed targets are retyped, and an input's
	// round-trip annotations go.
	t.Logf("%d generated v2 HPAs: v1 and back equal to kube's; %d came back exactly as they went", n, lossless)
	if lossless == 0 || lossless == n {
		t.Errorf("%d of %d came back unchanged: the generator does not cover both kinds of object", lossless, n)
	}
}

// BenchmarkHPAConversion converts one generated v2 HPA with every kind of metric,
// a behavior and a status to v1 and back, with kube's conversion and with apikit's.
func BenchmarkHPAConversion(b *testing.B) {
	s := newApikit(b).scheme
	r := rand.New(rand.NewPCG(1, 7))
	var in []byte
	for i := 0; ; i++ {
		o := genHPAV2(r, i)
		if len(sliceAt(o, "spec", "metrics")) >= 3 && o["spec"].(Object)["behavior"] != nil {
			in = JSON(o)
			break
		}
	}
	b.Run("kube", func(b *testing.B) {
		var src kautoscalingv2.HorizontalPodAutoscaler
		if err := json.Unmarshal(in, &src); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			var internal, back autoscaling.HorizontalPodAutoscaler
			var out1 kautoscalingv1.HorizontalPodAutoscaler
			var out2 kautoscalingv2.HorizontalPodAutoscaler
			for _, step := range []struct{ in, out any }{{&src, &internal}, {&internal, &out1}, {&out1, &back}, {&back, &out2}} {
				if err := legacyscheme.Scheme.Convert(step.in, step.out, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("apikit", func(b *testing.B) {
		var src autoscalingv2.HorizontalPodAutoscaler
		if err := json.Unmarshal(in, &src); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			o1, err := conversion.ToVersion(s, &src, autoscalingv1.SchemeGroupVersion)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := conversion.ToVersion(s, o1, autoscalingv2.SchemeGroupVersion); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// sliceAt returns the slice at path in o, nil when absent.
func sliceAt(o Object, path ...string) []any {
	var v any = o
	for _, p := range path {
		m, _ := v.(Object)
		v = m[p]
	}
	l, _ := v.([]any)
	return l
}
