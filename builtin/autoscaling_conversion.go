package builtin

import (
	"encoding/json"
	"maps"

	autoscalingv1 "github.com/apikit-dev/apikit/builtin/autoscaling/v1"
	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// The annotations in which an autoscaling/v1 HorizontalPodAutoscaler keeps what only
// v2 can say (k8s.io/kubernetes pkg/apis/autoscaling/annotations.go). The two tolerance
// annotations are never written in 1.37 (the tolerances travel in the behavior
// annotation), but kube drops them with the others.
const (
	hpaMetricSpecsAnnotation    = "autoscaling.alpha.kubernetes.io/metrics"
	hpaMetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	hpaBehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	hpaToleranceDownAnnotation  = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	hpaToleranceUpAnnotation    = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
	// hpaDefaultCPUUtilization is the target of the cpu metric an HPA without metrics gets.
	hpaDefaultCPUUtilization = 80
)

var hpaRoundTripAnnotations = []string{hpaMetricSpecsAnnotation, hpaBehaviorAnnotation, hpaToleranceDownAnnotation,
	hpaToleranceUpAnnotation, hpaMetricStatusesAnnotation, hpaConditionsAnnotation}

// registerAutoscalingConversions registers kube's conversions between the two
// versions' HorizontalPodAutoscalers and the hub (the v2 type): v1 <-> hub as
// pkg/apis/autoscaling/v1/conversion.go, and v2 <-> hub dropping the round-trip
// annotations as pkg/apis/autoscaling/v2/conversion.go, so no stored or v2 object
// carries them.
func registerAutoscalingConversions(s *scheme.Scheme) {
	conversion.Register(s, hpaV1ToHub)
	conversion.Register(s, hpaHubToV1)
	conversion.Register(s, func(in, out *autoscalingv2.HorizontalPodAutoscaler, sc conversion.Scope) error {
		if err := sc.AutoConvert(in, out); err != nil {
			return err
		}
		out.Annotations = dropHPARoundTripAnnotations(out.Annotations)
		return nil
	})
}

// dropHPARoundTripAnnotations returns the annotations without kube's round-trip ones,
// a copy when it removes any (DropRoundTripHorizontalPodAutoscalerAnnotations).
func dropHPARoundTripAnnotations(in map[string]string) map[string]string {
	found := false
	for _, k := range hpaRoundTripAnnotations {
		if _, ok := in[k]; ok {
			found = true
		}
	}
	if !found {
		return in
	}
	out := maps.Clone(in)
	for _, k := range hpaRoundTripAnnotations {
		delete(out, k)
	}
	return out
}

func isCPUUtilizationMetric(m *autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
		m.Resource.Target.AverageUtilization != nil
}

func cpuUtilizationMetric(target int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}
}

// hpaHubToV1 is Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler:
// the first cpu utilization metric becomes targetCPUUtilizationPercentage, and the other
// metrics, the current metrics, the behavior and the conditions go into annotations.
func hpaHubToV1(in *autoscalingv2.HorizontalPodAutoscaler, out *autoscalingv1.HorizontalPodAutoscaler, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Annotations = dropHPARoundTripAnnotations(out.Annotations)
	set := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		// AutoConvert's output shares no memory with in: its annotations are out's own.
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[key] = string(b)
		return nil
	}
	out.Spec.TargetCPUUtilizationPercentage = nil
	var other []hpaV1MetricSpec
	for i := range in.Spec.Metrics {
		m := &in.Spec.Metrics[i]
		if isCPUUtilizationMetric(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				v := *m.Resource.Target.AverageUtilization
				out.Spec.TargetCPUUtilizationPercentage = &v
			}
			continue
		}
		other = append(other, metricSpecToV1(m))
	}
	out.Status.CurrentCPUUtilizationPercentage = nil
	current := make([]hpaV1MetricStatus, len(in.Status.CurrentMetrics))
	for i := range in.Status.CurrentMetrics {
		m := &in.Status.CurrentMetrics[i]
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			// kube keeps the last one it meets.
			v := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &v
		}
		current[i] = metricStatusToV1(m)
	}
	if len(other) > 0 {
		if err := set(hpaMetricSpecsAnnotation, other); err != nil {
			return err
		}
	}
	if len(current) > 0 {
		if err := set(hpaMetricStatusesAnnotation, current); err != nil {
			return err
		}
	}
	if in.Spec.Behavior != nil {
		if err := set(hpaBehaviorAnnotation, behaviorToInternalJSON(in.Spec.Behavior)); err != nil {
			return err
		}
	}
	if len(in.Status.Conditions) > 0 {
		conds := make([]hpaV1Condition, len(in.Status.Conditions))
		for i, c := range in.Status.Conditions {
			conds[i] = hpaV1Condition{Type: string(c.Type), Status: string(c.Status), LastTransitionTime: c.LastTransitionTime,
				Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration}
		}
		if err := set(hpaConditionsAnnotation, conds); err != nil {
			return err
		}
	}
	return nil
}

// hpaV1ToHub is Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler:
// targetCPUUtilizationPercentage becomes a cpu Utilization metric after the metrics of
// the annotation, an HPA with no metric at all gets cpu at 80%, the behavior, current
// metrics and conditions come back from their annotations, and the annotations are
// dropped. An annotation that does not parse is ignored, as kube ignores it.
func hpaV1ToHub(in *autoscalingv1.HorizontalPodAutoscaler, out *autoscalingv2.HorizontalPodAutoscaler, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Spec.Metrics, out.Spec.Behavior, out.Status.CurrentMetrics, out.Status.Conditions = nil, nil, nil, nil
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationMetric(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	if in.Status.CurrentCPUUtilizationPercentage != nil {
		v := *in.Status.CurrentCPUUtilizationPercentage
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &v}}}}
	}
	if enc, ok := in.Annotations[hpaMetricSpecsAnnotation]; ok {
		var other []hpaV1MetricSpec
		if json.Unmarshal([]byte(enc), &other) == nil {
			metrics := make([]autoscalingv2.MetricSpec, 0, len(other)+1)
			for i := range other {
				metrics = append(metrics, metricSpecFromV1(&other[i]))
			}
			out.Spec.Metrics = append(metrics, out.Spec.Metrics...)
		}
	}
	if enc, ok := in.Annotations[hpaBehaviorAnnotation]; ok {
		var b hpaInternalBehavior
		if json.Unmarshal([]byte(enc), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = behaviorFromInternalJSON(&b)
		}
	}
	if enc, ok := in.Annotations[hpaMetricStatusesAnnotation]; ok {
		var current []hpaV1MetricStatus
		if json.Unmarshal([]byte(enc), &current) == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = metricStatusFromV1(&current[i])
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationMetric(hpaDefaultCPUUtilization)}
	}
	if enc, ok := in.Annotations[hpaConditionsAnnotation]; ok {
		var conds []hpaV1Condition
		if json.Unmarshal([]byte(enc), &conds) == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conds))
			for i, c := range conds {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type),
					Status: corev1.ConditionStatus(c.Status), LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
					ObservedGeneration: c.ObservedGeneration}
			}
		}
	}
	out.Annotations = dropHPARoundTripAnnotations(out.Annotations)
	return nil
}

// The shapes of k8s.io/api autoscaling/v1's MetricSpec, MetricStatus and
// HorizontalPodAutoscalerCondition (the v2beta1 forms), which kube's v1 conversion
// writes into the annotations as JSON: facts of the API that the generated v1 package
// does not carry because no v1 field holds them.
type hpaV1MetricSpec struct {
	Type              string                        `json:"type"`
	Object            *hpaV1ObjectMetricSource      `json:"object,omitempty"`
	Pods              *hpaV1PodsMetricSource        `json:"pods,omitempty"`
	Resource          *hpaV1ResourceMetricSource    `json:"resource,omitempty"`
	ContainerResource *hpaV1ContainerResourceSource `json:"containerResource,omitempty"`
	External          *hpaV1ExternalMetricSource    `json:"external,omitempty"`
}

type hpaV1ObjectMetricSource struct {
	Target       autoscalingv1.CrossVersionObjectReference `json:"target"`
	MetricName   string                                    `json:"metricName"`
	TargetValue  quantity.Quantity                         `json:"targetValue"`
	Selector     *metav1.LabelSelector                     `json:"selector,omitempty"`
	AverageValue *quantity.Quantity                        `json:"averageValue,omitempty"`
}

type hpaV1PodsMetricSource struct {
	MetricName         string                `json:"metricName"`
	TargetAverageValue quantity.Quantity     `json:"targetAverageValue"`
	Selector           *metav1.LabelSelector `json:"selector,omitempty"`
}

type hpaV1ResourceMetricSource struct {
	Name                     corev1.ResourceName `json:"name"`
	TargetAverageUtilization *int32              `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *quantity.Quantity  `json:"targetAverageValue,omitempty"`
}

type hpaV1ContainerResourceSource struct {
	Name                     corev1.ResourceName `json:"name"`
	TargetAverageUtilization *int32              `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *quantity.Quantity  `json:"targetAverageValue,omitempty"`
	Container                string              `json:"container"`
}

type hpaV1ExternalMetricSource struct {
	MetricName         string                `json:"metricName"`
	MetricSelector     *metav1.LabelSelector `json:"metricSelector,omitempty"`
	TargetValue        *quantity.Quantity    `json:"targetValue,omitempty"`
	TargetAverageValue *quantity.Quantity    `json:"targetAverageValue,omitempty"`
}

type hpaV1MetricStatus struct {
	Type              string                        `json:"type"`
	Object            *hpaV1ObjectMetricStatus      `json:"object,omitempty"`
	Pods              *hpaV1PodsMetricStatus        `json:"pods,omitempty"`
	Resource          *hpaV1ResourceMetricStatus    `json:"resource,omitempty"`
	ContainerResource *hpaV1ContainerResourceStatus `json:"containerResource,omitempty"`
	External          *hpaV1ExternalMetricStatus    `json:"external,omitempty"`
}

type hpaV1ObjectMetricStatus struct {
	Target       autoscalingv1.CrossVersionObjectReference `json:"target"`
	MetricName   string                                    `json:"metricName"`
	CurrentValue quantity.Quantity                         `json:"currentValue"`
	Selector     *metav1.LabelSelector                     `json:"selector,omitempty"`
	AverageValue *quantity.Quantity                        `json:"averageValue,omitempty"`
}

type hpaV1PodsMetricStatus struct {
	MetricName          string                `json:"metricName"`
	CurrentAverageValue quantity.Quantity     `json:"currentAverageValue"`
	Selector            *metav1.LabelSelector `json:"selector,omitempty"`
}

type hpaV1ResourceMetricStatus struct {
	Name                      corev1.ResourceName `json:"name"`
	CurrentAverageUtilization *int32              `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       quantity.Quantity   `json:"currentAverageValue"`
}

type hpaV1ContainerResourceStatus struct {
	Name                      corev1.ResourceName `json:"name"`
	CurrentAverageUtilization *int32              `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       quantity.Quantity   `json:"currentAverageValue"`
	Container                 string              `json:"container"`
}

type hpaV1ExternalMetricStatus struct {
	MetricName          string                `json:"metricName"`
	MetricSelector      *metav1.LabelSelector `json:"metricSelector,omitempty"`
	CurrentValue        quantity.Quantity     `json:"currentValue"`
	CurrentAverageValue *quantity.Quantity    `json:"currentAverageValue,omitempty"`
}

type hpaV1Condition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime scheme.Time `json:"lastTransitionTime,omitempty"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
	ObservedGeneration *int64      `json:"observedGeneration,omitempty"`
}

// hpaInternalBehavior is the JSON of kube's internal HorizontalPodAutoscalerBehavior,
// which its v1 conversion marshals as it is: Go field names, no omitempty.
type hpaInternalBehavior struct {
	ScaleUp   *hpaInternalRules `json:"ScaleUp"`
	ScaleDown *hpaInternalRules `json:"ScaleDown"`
}

type hpaInternalRules struct {
	StabilizationWindowSeconds *int32              `json:"StabilizationWindowSeconds"`
	SelectPolicy               *string             `json:"SelectPolicy"`
	Policies                   []hpaInternalPolicy `json:"Policies"`
	Tolerance                  *quantity.Quantity  `json:"Tolerance"`
}

type hpaInternalPolicy struct {
	Type          string `json:"Type"`
	Value         int32  `json:"Value"`
	PeriodSeconds int32  `json:"PeriodSeconds"`
}

func behaviorToInternalJSON(b *autoscalingv2.HorizontalPodAutoscalerBehavior) hpaInternalBehavior {
	rules := func(r *autoscalingv2.HPAScalingRules) *hpaInternalRules {
		if r == nil {
			return nil
		}
		out := &hpaInternalRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, Tolerance: r.Tolerance}
		if r.SelectPolicy != nil {
			p := string(*r.SelectPolicy)
			out.SelectPolicy = &p
		}
		if r.Policies != nil {
			out.Policies = make([]hpaInternalPolicy, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = hpaInternalPolicy{Type: string(p.Type), Value: p.Value, PeriodSeconds: p.PeriodSeconds}
			}
		}
		return out
	}
	return hpaInternalBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func behaviorFromInternalJSON(b *hpaInternalBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	rules := func(r *hpaInternalRules) *autoscalingv2.HPAScalingRules {
		if r == nil {
			return nil
		}
		out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, Tolerance: r.Tolerance}
		if r.SelectPolicy != nil {
			p := autoscalingv2.ScalingPolicySelect(*r.SelectPolicy)
			out.SelectPolicy = &p
		}
		if r.Policies != nil {
			out.Policies = make([]autoscalingv2.HPAScalingPolicy, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.HPAScalingPolicyType(p.Type), Value: p.Value, PeriodSeconds: p.PeriodSeconds}
			}
		}
		return out
	}
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func ref1(r autoscalingv2.CrossVersionObjectReference) autoscalingv1.CrossVersionObjectReference {
	return autoscalingv1.CrossVersionObjectReference{Kind: r.Kind, Name: r.Name, APIVersion: r.APIVersion}
}

func ref2(r autoscalingv1.CrossVersionObjectReference) autoscalingv2.CrossVersionObjectReference {
	return autoscalingv2.CrossVersionObjectReference{Kind: r.Kind, Name: r.Name, APIVersion: r.APIVersion}
}

func qval(q *quantity.Quantity) quantity.Quantity {
	if q == nil {
		return quantity.Quantity{}
	}
	return *q
}

func qptr(q quantity.Quantity) *quantity.Quantity { return &q }

func metricSpecToV1(m *autoscalingv2.MetricSpec) hpaV1MetricSpec {
	out := hpaV1MetricSpec{Type: string(m.Type)}
	if o := m.Object; o != nil {
		out.Object = &hpaV1ObjectMetricSource{Target: ref1(o.DescribedObject), MetricName: o.Metric.Name, TargetValue: qval(o.Target.Value),
			Selector: o.Metric.Selector, AverageValue: o.Target.AverageValue}
	}
	if p := m.Pods; p != nil {
		out.Pods = &hpaV1PodsMetricSource{MetricName: p.Metric.Name, TargetAverageValue: qval(p.Target.AverageValue), Selector: p.Metric.Selector}
	}
	if r := m.Resource; r != nil {
		out.Resource = &hpaV1ResourceMetricSource{Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
	}
	if r := m.ContainerResource; r != nil {
		out.ContainerResource = &hpaV1ContainerResourceSource{Name: r.Name, Container: r.Container,
			TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
	}
	if e := m.External; e != nil {
		out.External = &hpaV1ExternalMetricSource{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector,
			TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

// resourceTarget is the v2 target of a v1 (container) resource metric: Utilization
// when it has a utilization, AverageValue otherwise.
func resourceTarget(util *int32, avg *quantity.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg, AverageUtilization: util}
	if util != nil {
		t.Type = autoscalingv2.UtilizationMetricType
	}
	return t
}

func metricSpecFromV1(m *hpaV1MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(m.Type)}
	if o := m.Object; o != nil {
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: qptr(o.TargetValue), AverageValue: o.AverageValue}
		if o.AverageValue != nil {
			// kube keeps a v1 targetValue of 0 (which v1 cannot omit) out of an AverageValue target.
			t.Type, t.Value = autoscalingv2.AverageValueMetricType, nil
			if !o.TargetValue.IsZero() {
				t.Value = qptr(o.TargetValue)
			}
		}
		out.Object = &autoscalingv2.ObjectMetricSource{DescribedObject: ref2(o.Target), Target: t,
			Metric: autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector}}
	}
	if p := m.Pods; p != nil {
		out.Pods = &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: qptr(p.TargetAverageValue)}}
	}
	if r := m.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: r.Name, Target: resourceTarget(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if r := m.ContainerResource; r != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: r.Name, Container: r.Container,
			Target: resourceTarget(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if e := m.External; e != nil {
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: e.TargetValue, AverageValue: e.TargetAverageValue}
		if e.TargetValue == nil {
			t.Type = autoscalingv2.AverageValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector}, Target: t}
	}
	return out
}

func metricStatusToV1(m *autoscalingv2.MetricStatus) hpaV1MetricStatus {
	out := hpaV1MetricStatus{Type: string(m.Type)}
	if o := m.Object; o != nil {
		out.Object = &hpaV1ObjectMetricStatus{Target: ref1(o.DescribedObject), MetricName: o.Metric.Name, CurrentValue: qval(o.Current.Value),
			Selector: o.Metric.Selector}
		if o.Current.AverageValue != nil {
			out.Object.AverageValue = qptr(*o.Current.AverageValue)
		}
	}
	if p := m.Pods; p != nil {
		out.Pods = &hpaV1PodsMetricStatus{MetricName: p.Metric.Name, CurrentAverageValue: qval(p.Current.AverageValue), Selector: p.Metric.Selector}
	}
	if r := m.Resource; r != nil {
		out.Resource = &hpaV1ResourceMetricStatus{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization, CurrentAverageValue: qval(r.Current.AverageValue)}
	}
	if r := m.ContainerResource; r != nil {
		out.ContainerResource = &hpaV1ContainerResourceStatus{Name: r.Name, Container: r.Container,
			CurrentAverageUtilization: r.Current.AverageUtilization, CurrentAverageValue: qval(r.Current.AverageValue)}
	}
	if e := m.External; e != nil {
		out.External = &hpaV1ExternalMetricStatus{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, CurrentValue: qval(e.Current.Value),
			CurrentAverageValue: e.Current.AverageValue}
	}
	return out
}

func metricStatusFromV1(m *hpaV1MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(m.Type)}
	if o := m.Object; o != nil {
		out.Object = &autoscalingv2.ObjectMetricStatus{DescribedObject: ref2(o.Target),
			Current: autoscalingv2.MetricValueStatus{Value: qptr(o.CurrentValue), AverageValue: o.AverageValue},
			Metric:  autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector}}
	}
	if p := m.Pods; p != nil {
		out.Pods = &autoscalingv2.PodsMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Current: autoscalingv2.MetricValueStatus{AverageValue: qptr(p.CurrentAverageValue)}}
	}
	if r := m.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: r.Name,
			Current: autoscalingv2.MetricValueStatus{AverageValue: qptr(r.CurrentAverageValue), AverageUtilization: r.CurrentAverageUtilization}}
	}
	if r := m.ContainerResource; r != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: r.Name, Container: r.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: qptr(r.CurrentAverageValue), AverageUtilization: r.CurrentAverageUtilization}}
	}
	if e := m.External; e != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Current: autoscalingv2.MetricValueStatus{Value: qptr(e.CurrentValue), AverageValue: e.CurrentAverageValue}}
	}
	return out
}
