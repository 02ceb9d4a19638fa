package builtin

import (
	autoscalingv1 "github.com/apikit-dev/apikit/builtin/autoscaling/v1"
	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerAutoscalingDefaults registers kube-apiserver v1.37.2's defaults of both
// versions' HorizontalPodAutoscalers (k8s.io/kubernetes pkg/apis/autoscaling/{v1,v2}/
// defaults.go). v1's default cpu metric is applied by its conversion, which sees the
// metrics its annotation holds.
func registerAutoscalingDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultHPAV2)
	conversion.RegisterDefaults(s, func(h *autoscalingv1.HorizontalPodAutoscaler) {
		if h.Spec.MinReplicas == nil {
			h.Spec.MinReplicas = int32Ptr(1)
		}
	})
}

// defaultHPAV2 is v2's SetDefaults_HorizontalPodAutoscaler: one min replica, cpu at 80%
// utilization when no metric is set, and a behavior's unset scaling rules filled in.
func defaultHPAV2(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = int32Ptr(1)
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationMetric(hpaDefaultCPUUtilization)}
	}
	defaultHPABehavior(h.Spec.Behavior)
}

// defaultHPABehavior is SetDefaults_HorizontalPodAutoscalerBehavior: the fields a scaling
// rule leaves unset take those of kube's defaults (scale up: no stabilization, the max
// of 4 pods and 100% per 15 s; scale down: 100% per 15 s, the stabilization window left
// to the controller's flag).
func defaultHPABehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior) {
	if b == nil {
		return
	}
	b.ScaleUp = mergeScalingRules(b.ScaleUp, autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: int32Ptr(0),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	})
	b.ScaleDown = mergeScalingRules(b.ScaleDown, autoscalingv2.HPAScalingRules{
		Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	})
}

// mergeScalingRules is copyHPAScalingRules onto a fresh default (selectPolicy Max):
// every field from is set in wins, a non-nil empty policies list included.
func mergeScalingRules(from *autoscalingv2.HPAScalingRules, to autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	to.SelectPolicy = &maxPolicy
	if from == nil {
		return &to
	}
	if from.SelectPolicy != nil {
		to.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		to.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		to.Policies = from.Policies
	}
	if from.Tolerance != nil {
		to.Tolerance = from.Tolerance
	}
	return &to
}
