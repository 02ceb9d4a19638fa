package builtin

import (
	"fmt"
	"strings"

	autoscalingv1 "github.com/apikit-dev/apikit/builtin/autoscaling/v1"
	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// autoscalingInternal is the hub of the autoscaling group's HorizontalPodAutoscaler:
// the autoscaling/v2 Go type, which expresses everything kube's internal type does
// (v2 is kube's storage version and round-trips to internal losslessly), so the write
// rules of registry/strategies see one type whichever version a client speaks.
var autoscalingInternal = scheme.GroupVersion{Group: autoscalingv2.SchemeGroupVersion.Group, Version: scheme.InternalVersion}

// AddAutoscalingToScheme registers autoscaling/v2 and autoscaling/v1
// HorizontalPodAutoscalers as kube-apiserver v1.37.2 serves them: one resource
// (horizontalpodautoscalers, short name hpa, category all, with /status) at both
// versions over one storage at v2, the preferred version, converting through the v2
// type as hub with kube's v1 conversion (targetCPUUtilizationPercentage as a cpu
// Utilization metric, the rest of v2 kept in v1 objects' annotations), kube's
// defaults of both versions and protobuf messages. AddToScheme calls it.
func AddAutoscalingToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(autoscalingv2.SchemeGroupVersion, &autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv2.HorizontalPodAutoscalerList{})
	s.AddKnownTypes(autoscalingv1.SchemeGroupVersion, &autoscalingv1.HorizontalPodAutoscaler{}, &autoscalingv1.HorizontalPodAutoscalerList{})
	// Registered after v2, so that a hub object (no apiVersion) is the v2 kind's first
	// registration and converts to v2 as itself.
	s.AddKnownTypes(autoscalingInternal, &autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv2.HorizontalPodAutoscalerList{})
	s.SetVersionPriority(autoscalingv2.SchemeGroupVersion.Group, "v2", "v1")
	if err := s.AddResource(hpaResource(s)); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerAutoscalingConversions(s)
	registerAutoscalingDefaults(s)
	if err := protobuf.RegisterTypes(s, autoscalingv2.SchemeGroupVersion, &autoscalingv2.HorizontalPodAutoscaler{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	if err := protobuf.RegisterTypes(s, autoscalingv1.SchemeGroupVersion, &autoscalingv1.HorizontalPodAutoscaler{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	return nil
}

// hpaResource is horizontalpodautoscalers with the columns of kube's printer, which
// prints the internal object whatever version was asked for: a v1 object is converted
// to v2 first, so that its TARGETS shows the metrics its annotations hold.
func hpaResource(s *scheme.Scheme) scheme.Resource {
	cell := func(f func(h *autoscalingv2.HorizontalPodAutoscaler) any) func(scheme.Object) any {
		return func(obj scheme.Object) any {
			h := hpaAsV2(s, obj)
			if h == nil {
				return nil
			}
			return f(h)
		}
	}
	return scheme.Resource{Group: autoscalingv2.SchemeGroupVersion.Group, Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers",
		ShortNames: []string{"hpa"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true,
		StorageVersion: autoscalingv2.SchemeGroupVersion.Version,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Reference", Type: "string", Description: "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
				Cell: cell(func(h *autoscalingv2.HorizontalPodAutoscaler) any {
					return h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
				})},
			{Name: "Targets", Type: "string", Description: "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
				Cell: cell(func(h *autoscalingv2.HorizontalPodAutoscaler) any {
					return formatHPAMetrics(h.Spec.Metrics, h.Status.CurrentMetrics)
				})},
			{Name: "MinPods", Type: "string", Description: "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
				Cell: cell(func(h *autoscalingv2.HorizontalPodAutoscaler) any {
					if h.Spec.MinReplicas == nil {
						return "<unset>"
					}
					return fmt.Sprint(*h.Spec.MinReplicas)
				})},
			{Name: "MaxPods", Type: "string", Description: "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
				Cell: cell(func(h *autoscalingv2.HorizontalPodAutoscaler) any { return int64(h.Spec.MaxReplicas) })},
			{Name: "Replicas", Type: "string", Description: "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
				Cell: cell(func(h *autoscalingv2.HorizontalPodAutoscaler) any { return int64(h.Status.CurrentReplicas) })},
			ageColumn,
		}}
}

// hpaAsV2 returns a HorizontalPodAutoscaler of either version as v2, nil for anything else.
func hpaAsV2(s *scheme.Scheme, obj scheme.Object) *autoscalingv2.HorizontalPodAutoscaler {
	switch h := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		return h
	case *autoscalingv1.HorizontalPodAutoscaler:
		out := &autoscalingv2.HorizontalPodAutoscaler{}
		if err := conversion.Convert(s, h, out); err != nil {
			return nil
		}
		return out
	}
	return nil
}

// formatHPAMetrics is kube's TARGETS cell: "current/target" per metric ("cpu: 50%/80%",
// "<unknown>/80%" before the controller reports), the first two and "+ N more...".
func formatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	const max = 2
	var list []string
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, formatHPAMetric(&spec, st))
	}
	if len(list) > max {
		return strings.Join(list[:max], ", ") + fmt.Sprintf(" + %d more...", len(list)-max)
	}
	return strings.Join(list, ", ")
}

func formatHPAMetric(spec *autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		if spec.External == nil {
			return "<unknown type>"
		}
		if spec.External.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				current = st.External.Current.AverageValue.String()
			}
			return current + "/" + spec.External.Target.AverageValue.String() + " (avg)"
		}
		current := unknown
		if st != nil && st.External != nil {
			current = quantityString(st.External.Current.Value)
		}
		return current + "/" + quantityString(spec.External.Target.Value)
	case autoscalingv2.PodsMetricSourceType:
		if spec.Pods == nil {
			return "<unknown type>"
		}
		current := unknown
		if st != nil && st.Pods != nil {
			current = quantityString(st.Pods.Current.AverageValue)
		}
		return current + "/" + quantityString(spec.Pods.Target.AverageValue)
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object == nil {
			return "<unknown type>"
		}
		if spec.Object.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				current = st.Object.Current.AverageValue.String()
			}
			return current + "/" + spec.Object.Target.AverageValue.String() + " (avg)"
		}
		current := unknown
		if st != nil && st.Object != nil {
			current = quantityString(st.Object.Current.Value)
		}
		return current + "/" + quantityString(spec.Object.Target.Value)
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			return "<unknown type>"
		}
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return string(spec.Resource.Name) + ": " + formatResourceTarget(&spec.Resource.Target, cur)
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			return "<unknown type>"
		}
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return string(spec.ContainerResource.Name) + ": " + formatResourceTarget(&spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// formatResourceTarget renders a (container) resource metric: raw average values, or
// utilization percentages with "<auto>" for a target without one.
func formatResourceTarget(target *autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil {
			current = quantityString(cur.AverageValue)
		}
		return current + "/" + target.AverageValue.String()
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return current + "/" + want
}

// quantityString is (*resource.Quantity).String: "<nil>" for a nil quantity.
func quantityString(q *quantity.Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}
