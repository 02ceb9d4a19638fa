package kubecode

import (
	"math/rand/v2"
)

// The HorizontalPodAutoscalers' generated manifests: a v2 HPA targeting a Deployment
// with cpu and pods metrics (sometimes a behavior), and a v1 HPA with a cpu target
// (sometimes kube's v2 metrics annotation), mutated validly and not as kube's
// autoscaling validation sees them.
func init() {
	kindBases["HorizontalPodAutoscaler"] = func(r *rand.Rand, o Object, name string, _ Object) {
		o["apiVersion"] = "autoscaling/v2"
		spec := Object{
			"scaleTargetRef": Object{"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
			"minReplicas":    1 + r.IntN(3),
			"maxReplicas":    10,
			"metrics": []any{
				Object{"type": "Resource", "resource": Object{"name": "cpu", "target": Object{"type": "Utilization", "averageUtilization": 60}}},
				Object{"type": "Pods", "pods": Object{"metric": Object{"name": "requests_per_second"}, "target": Object{"type": "AverageValue", "averageValue": "100"}}},
			},
		}
		if r.IntN(2) == 0 {
			spec["behavior"] = Object{"scaleDown": Object{"stabilizationWindowSeconds": 120,
				"policies": []any{Object{"type": "Percent", "value": 50, "periodSeconds": 60}}}}
		}
		o["spec"] = spec
	}
	kindBases["HorizontalPodAutoscalerV1"] = func(r *rand.Rand, o Object, name string, _ Object) {
		o["apiVersion"], o["kind"] = "autoscaling/v1", "HorizontalPodAutoscaler"
		o["spec"] = Object{
			"scaleTargetRef":                 Object{"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
			"minReplicas":                    1 + r.IntN(3),
			"maxReplicas":                    10,
			"targetCPUUtilizationPercentage": 50 + r.IntN(30),
		}
		if r.IntN(2) == 0 {
			at(o, "metadata", "annotations")["autoscaling.alpha.kubernetes.io/metrics"] =
				`[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`
		}
	}
	allKinds = append(allKinds, "HorizontalPodAutoscaler", "HorizontalPodAutoscalerV1")
	kindMutations = append(kindMutations, hpaMutations)
}

func hpaMutations() []Mutation {
	v2 := []string{"HorizontalPodAutoscaler"}
	v1 := []string{"HorizontalPodAutoscalerV1"}
	both := []string{"HorizontalPodAutoscaler", "HorizontalPodAutoscalerV1"}
	spec := func(o Object) Object { return at(o, "spec") }
	metrics := func(o Object) []any { return spec(o)["metrics"].([]any) }
	addMetric := func(o Object, m Object) { spec(o)["metrics"] = append(metrics(o), m) }
	objectMetric := func() Object {
		return Object{"type": "Object", "object": Object{"describedObject": Object{"apiVersion": "v1", "kind": "Service", "name": "front"},
			"metric": Object{"name": "hits"}, "target": Object{"type": "Value", "value": "5"}}}
	}
	behavior := func(o Object, which string, rules Object) {
		b, _ := spec(o)["behavior"].(Object)
		if b == nil {
			b = Object{}
			spec(o)["behavior"] = b
		}
		b[which] = rules
	}
	annotate := func(o Object, key, value string) { at(o, "metadata", "annotations")[key] = value }
	return []Mutation{
		// Valid.
		{Name: "hpa: omit minReplicas", Kinds: both, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "minReplicas") }},
		{Name: "hpa: omit metrics (cpu 80% default)", Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "metrics")
			// Scaling to zero needs an object or external metric.
			if spec(o)["minReplicas"] == 0 {
				spec(o)["minReplicas"] = 1
			}
		}},
		{Name: "hpa: omit the cpu target (cpu 80% default)", Kinds: v1, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "targetCPUUtilizationPercentage") }},
		{Name: "hpa: partial behavior (defaults fill it)", Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			behavior(o, "scaleUp", Object{"selectPolicy": "Min"})
		}},
		{Name: "hpa: empty behavior", Kinds: v2, Apply: func(_ *rand.Rand, o Object) { spec(o)["behavior"] = Object{} }},
		{Name: "hpa: tolerance", Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			behavior(o, "scaleDown", Object{"tolerance": "0.05", "policies": []any{Object{"type": "Pods", "value": 2, "periodSeconds": 30}}})
		}},
		{Name: "hpa: object metric", Kinds: v2, Apply: func(_ *rand.Rand, o Object) { addMetric(o, objectMetric()) }},
		{Name: "hpa: scale to zero with an external metric", Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["minReplicas"] = 0
			addMetric(o, Object{"type": "External", "external": Object{"metric": Object{"name": "queue", "selector": Object{"matchLabels": Object{"q": "jobs"}}},
				"target": Object{"type": "AverageValue", "averageValue": "30"}}})
		}},
		{Name: "hpa: container resource metric", Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			addMetric(o, Object{"type": "ContainerResource", "containerResource": Object{"name": "memory", "container": "app",
				"target": Object{"type": "AverageValue", "averageValue": "512Mi"}}})
		}},
		{Name: "hpa: a ReplicationController target needs no group", Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["scaleTargetRef"] = Object{"apiVersion": "v1", "kind": "ReplicationController", "name": "rc"}
		}},
		{Name: "hpa: v1 behavior and conditions annotations", Kinds: v1, Apply: func(_ *rand.Rand, o Object) {
			annotate(o, "autoscaling.alpha.kubernetes.io/behavior", `{"ScaleUp":{"StabilizationWindowSeconds":30,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":60}]}}`)
			annotate(o, "autoscaling.alpha.kubernetes.io/conditions", `[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Ready"}]`)
		}},
		{Name: "hpa: unparsable v1 annotations are ignored", Kinds: v1, Apply: func(_ *rand.Rand, o Object) {
			annotate(o, "autoscaling.alpha.kubernetes.io/metrics", "not json")
			annotate(o, "autoscaling.alpha.kubernetes.io/current-metrics", "[")
		}},
		{Name: "hpa: status in the body is reset", Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			o["status"] = Object{"currentReplicas": 4, "desiredReplicas": 5}
		}},
		// Invalid.
		{Name: "hpa: maxReplicas 0", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) { spec(o)["maxReplicas"] = 0 }},
		{Name: "hpa: maxReplicas below minReplicas", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) { spec(o)["minReplicas"] = 11 }},
		{Name: "hpa: negative minReplicas", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) { spec(o)["minReplicas"] = -1 }},
		{Name: "hpa: scale to zero without an object or external metric", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["minReplicas"] = 0
		}},
		{Name: "hpa: target without kind and name", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["scaleTargetRef"] = Object{"apiVersion": "apps/v1"}
		}},
		{Name: "hpa: target apiVersion without a group", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "scaleTargetRef")["apiVersion"] = "v1"
		}},
		{Name: "hpa: target name with a slash", Invalid: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "scaleTargetRef")["name"] = "a/b"
		}},
		{Name: "hpa: v1 cpu target 0", Invalid: true, Kinds: v1, Apply: func(_ *rand.Rand, o Object) { spec(o)["targetCPUUtilizationPercentage"] = 0 }},
		{Name: "hpa: unknown metric type", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) { addMetric(o, Object{"type": "Custom"}) }},
		{Name: "hpa: metric without its source", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) { addMetric(o, Object{"type": "External"}) }},
		{Name: "hpa: two sources in one metric", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			m := objectMetric()
			m["pods"] = Object{"metric": Object{"name": "x"}, "target": Object{"type": "AverageValue", "averageValue": "1"}}
			m["external"] = Object{"metric": Object{"name": "y"}, "target": Object{"type": "Value", "value": "1"}}
			addMetric(o, m)
		}},
		{Name: "hpa: resource target with utilization and value", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			at(metrics(o)[0].(Object), "resource", "target")["averageValue"] = "100m"
		}},
		{Name: "hpa: non-positive targets", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			at(metrics(o)[0].(Object), "resource", "target")["averageUtilization"] = 0
			at(metrics(o)[1].(Object), "pods", "target")["averageValue"] = "-1"
			at(metrics(o)[1].(Object), "pods", "target")["type"] = "Average"
		}},
		{Name: "hpa: pods metric without a name or averageValue", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			addMetric(o, Object{"type": "Pods", "pods": Object{"metric": Object{}, "target": Object{"type": "Value", "value": "3"}}})
		}},
		{Name: "hpa: object metric with a bad describedObject", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			m := objectMetric()
			at(m, "object")["describedObject"] = Object{"apiVersion": "a/b/c", "kind": "..", "name": ""}
			delete(at(m, "object", "target"), "value")
			addMetric(o, m)
		}},
		{Name: "hpa: container resource without a container", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			addMetric(o, Object{"type": "ContainerResource", "containerResource": Object{"name": "gpu",
				"target": Object{"type": "Utilization"}}})
		}},
		{Name: "hpa: bad behavior policies", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			behavior(o, "scaleUp", Object{"stabilizationWindowSeconds": 3601, "selectPolicy": "Avg",
				"policies": []any{Object{"type": "Nodes", "value": 0, "periodSeconds": 1801}, Object{"type": "Pods", "value": 1, "periodSeconds": 0}}})
		}},
		{Name: "hpa: empty policy list", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			behavior(o, "scaleDown", Object{"policies": []any{}})
		}},
		{Name: "hpa: negative stabilization and tolerance", Invalid: true, Kinds: v2, Apply: func(_ *rand.Rand, o Object) {
			behavior(o, "scaleUp", Object{"stabilizationWindowSeconds": -1, "tolerance": "-0.5"})
		}},
		{Name: "hpa: v1 annotation with a bad metric", Invalid: true, Kinds: v1, Apply: func(_ *rand.Rand, o Object) {
			annotate(o, "autoscaling.alpha.kubernetes.io/metrics", `[{"type":"Pods","pods":{"metricName":"","targetAverageValue":"0"}}]`)
		}},
		{Name: "hpa: v1 behavior annotation without policies", Invalid: true, Kinds: v1, Apply: func(_ *rand.Rand, o Object) {
			annotate(o, "autoscaling.alpha.kubernetes.io/behavior", `{"ScaleDown":{"StabilizationWindowSeconds":10}}`)
		}},
		// Updates.
		{Name: "hpa: new target kind, apiVersion held to the rule again", UpdateOnly: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "scaleTargetRef")["kind"] = "StatefulSet"
		}},
		{Name: "hpa: maxReplicas raised (generation bumps)", UpdateOnly: true, Kinds: both, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["maxReplicas"] = 20
		}},
	}
}
