package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

func hpa(t *testing.T, change func(h *autoscalingv2.HorizontalPodAutoscaler)) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    3,
		}}
	if change != nil {
		change(h)
	}
	return defaulted(t, h)
}

func qty(s string) *quantity.Quantity {
	q := quantity.MustParse(s)
	return &q
}

func objectMetric(value *quantity.Quantity) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
		DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Service", Name: "front"},
		Metric:          autoscalingv2.MetricIdentifier{Name: "rps"},
		Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: value}}}
}

func cpuMetric(target autoscalingv2.MetricTarget) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "cpu", Target: target}}
}

func TestValidateHPA_KubesMessagesAndPaths(t *testing.T) {
	st := Autoscaling()[autoscalingv2.HorizontalPodAutoscalers].(registry.StrategyFor[*autoscalingv2.HorizontalPodAutoscaler])
	tests := []struct {
		name   string
		change func(h *autoscalingv2.HorizontalPodAutoscaler)
		want   []string
	}{
		{"a defaulted HPA is valid", nil, nil},
		{"the target needs a kind and a name", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1"}
		}, []string{"spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value"}},
		{"the target's names are path segments", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name = "..", "a/b"
		}, []string{`spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`, `spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`}},
		{"the target's apiVersion names a group", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.APIVersion = "v1" },
			[]string{`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`}},
		{"a ReplicationController needs no group", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "ReplicationController", Name: "rc"}
		}, nil},
		{"an apiVersion with two slashes does not parse", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.APIVersion = "a/b/c" },
			[]string{`spec.scaleTargetRef.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`}},
		{"maxReplicas is required (declarative, after the handwritten errors)", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 0 },
			[]string{"spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`", "spec.maxReplicas: Required value"}},
		{"maxReplicas is at least minReplicas", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr(int32(5)) },
			[]string{"spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"}},
		{"minReplicas is not negative", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr(int32(-1)) },
			[]string{"spec.minReplicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"scaling to zero needs an object or external metric", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptr(int32(0)) },
			[]string{"spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas"}},
		{"scaling to zero with an object metric is allowed (HPAScaleToZero is on in 1.37)", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.MinReplicas = ptr(int32(0))
			h.Spec.Metrics = []autoscalingv2.MetricSpec{objectMetric(qty("10"))}
		}, nil},
		{"an object metric needs a positive target", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{objectMetric(qty("-1"))}
		}, []string{`spec.metrics[0].object.target.value: Invalid value: "-1": must be positive`}},
		{"an object metric needs a value", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{objectMetric(nil)}
		}, []string{"spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue"}},
		{"a metric's type is known and its source set", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: "Pods"}, {Type: "Foo"}}
		}, []string{
			"spec.metrics[0].pods: Required value: must populate information for the given metric source",
			`spec.metrics[1].type: Unsupported value: "Foo": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`,
		}},
		{"only the metric's own source is set", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			m := objectMetric(qty("1"))
			m.Type = autoscalingv2.ResourceMetricSourceType
			m.Resource = &autoscalingv2.ResourceMetricSource{Name: "cpu", Target: autoscalingv2.MetricTarget{Type: "Utilization", AverageUtilization: ptr(int32(50))}}
			h.Spec.Metrics = []autoscalingv2.MetricSpec{m}
		}, []string{"spec.metrics[0].object: Forbidden: must populate the given metric source only"}},
		{"a resource target is a utilization or a value, not both", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{cpuMetric(autoscalingv2.MetricTarget{Type: "Utilization", AverageValue: qty("100m"), AverageUtilization: ptr(int32(0))})}
		}, []string{
			"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
			"spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization"}},
		{"a target type is one of three", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{cpuMetric(autoscalingv2.MetricTarget{Type: "Max", AverageUtilization: ptr(int32(5))})}
		},
			[]string{`spec.metrics[0].resource.target.type: Invalid value: "Max": must be either Utilization, Value, or AverageValue`}},
		{"a container resource names a container and a standard resource", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: "ContainerResource", ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
				Name: "gpu", Container: "", Target: autoscalingv2.MetricTarget{Type: "Utilization", AverageUtilization: ptr(int32(5))}}}}
		}, []string{
			`spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource type or fully qualified`,
			`spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource for containers`,
			"spec.metrics[0].containerResource.container: Required value: must specify a container"}},
		{"an external metric sets one target", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: "External", External: &autoscalingv2.ExternalMetricSource{
				Metric: autoscalingv2.MetricIdentifier{Name: "queue"}, Target: autoscalingv2.MetricTarget{Type: "Value", Value: qty("1"), AverageValue: qty("2")}}}}
		}, []string{"spec.metrics[0].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target"}},
		{"a pods metric needs a name and an average value", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: "Pods", Pods: &autoscalingv2.PodsMetricSource{Target: autoscalingv2.MetricTarget{Type: "AverageValue"}}}}
		}, []string{
			"spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
			"spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue"}},
		{"behavior policies are bounded", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			sel := autoscalingv2.ScalingPolicySelect("Avg")
			h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr(int32(3601)), SelectPolicy: &sel, Tolerance: qty("-0.1"),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: "Nodes", Value: 0, PeriodSeconds: 1801}},
			}}
		}, []string{
			"spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
			`spec.behavior.scaleUp.selectPolicy: Unsupported value: "Avg": supported values: "Disabled", "Max", "Min"`,
			`spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"`,
			"spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
			"spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
			`spec.behavior.scaleUp.tolerance: Invalid value: "-100m": must be greater than or equal to 0`}},
		{"an empty policy list is refused after defaulting", func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{}}}
		}, []string{"spec.behavior.scaleDown.policies: Required value: must specify at least one Policy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(st.Validate(context.Background(), hpa(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestHPAStrategy_GenerationStatusAndLenientUpdates(t *testing.T) {
	st := Autoscaling()[autoscalingv2.HorizontalPodAutoscalers].(registry.StrategyFor[*autoscalingv2.HorizontalPodAutoscaler])
	ctx := context.Background()
	created := hpa(t, nil)
	created.Status.CurrentReplicas = 7
	st.PrepareForCreate(ctx, created)
	if created.Generation != 1 || created.Status.CurrentReplicas != 0 {
		t.Errorf("after create: generation %d, status %+v; want 1 and an empty status", created.Generation, created.Status)
	}
	stored := func() *autoscalingv2.HorizontalPodAutoscaler {
		h := hpa(t, func(h *autoscalingv2.HorizontalPodAutoscaler) {
			h.Spec.ScaleTargetRef.APIVersion = "v1"
			h.Spec.Metrics = []autoscalingv2.MetricSpec{objectMetric(qty("1"))}
			h.Spec.Metrics[0].Object.DescribedObject.APIVersion = "a/b/c"
		})
		h.Generation, h.Status.CurrentReplicas = 3, 2
		return h
	}
	old := stored()
	tests := []struct {
		name    string
		change  func(h *autoscalingv2.HorizontalPodAutoscaler)
		wantGen int64
		want    []string
	}{
		{"no change keeps the generation and the invalid apiVersions", func(*autoscalingv2.HorizontalPodAutoscaler) {}, 3, nil},
		{"a spec change bumps it", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 4 }, 4, nil},
		{"a new target kind is held to the apiVersion rule", func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Kind = "StatefulSet" }, 4,
			[]string{`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := stored()
			h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
			tt.change(h)
			st.PrepareForUpdate(ctx, h, old)
			if h.Generation != tt.wantGen || h.Status.CurrentReplicas != 2 {
				t.Errorf("generation %d, status %+v; want %d and the old status", h.Generation, h.Status, tt.wantGen)
			}
			if d := cmp.Diff(tt.want, causes(st.ValidateUpdate(ctx, h, old))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	status := stored()
	status.Spec.MaxReplicas = 9
	status.Status.DesiredReplicas = -1
	st.Status.PrepareForUpdate(ctx, status, old)
	if status.Spec.MaxReplicas != old.Spec.MaxReplicas {
		t.Errorf("a status write changed the spec: maxReplicas %d", status.Spec.MaxReplicas)
	}
	if d := cmp.Diff([]string{"status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0"}, causes(st.Status.ValidateUpdate(ctx, status, old))); d != "" {
		t.Errorf("status errors (-want +got):\n%s", d)
	}
}
