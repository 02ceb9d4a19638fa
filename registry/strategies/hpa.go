package strategies

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	autoscalingv2 "github.com/apikit-dev/apikit/builtin/autoscaling/v2"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Autoscaling returns kube-apiserver v1.37.2's write rules of HorizontalPodAutoscalers
// (pkg/registry/autoscaling/horizontalpodautoscaler and pkg/apis/autoscaling/validation),
// whichever version the client speaks: the hooks receive the group's hub, the v2 type,
// as kube's receive its internal type. Status is reset on create and kept on update,
// generation is 1 on create and bumped when the spec changes (HPAGeneration, beta and
// on in 1.37), minReplicas may be 0 with an Object or External metric (HPAScaleToZero,
// beta and on in 1.37), and the tolerances are kept (HPAConfigurableTolerance is GA).
func Autoscaling() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		autoscalingv2.HorizontalPodAutoscalers: registry.StrategyFor[*autoscalingv2.HorizontalPodAutoscaler]{
			PrepareForCreate: func(_ context.Context, h *autoscalingv2.HorizontalPodAutoscaler) {
				h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{}
				h.Generation = 1
			},
			PrepareForUpdate: func(_ context.Context, h, old *autoscalingv2.HorizontalPodAutoscaler) {
				h.Status = old.Status
				bumpGenerationUnless(&h.ObjectMeta, &old.ObjectMeta, semanticEqual(h.Spec, old.Spec))
			},
			Validate: func(_ context.Context, h *autoscalingv2.HorizontalPodAutoscaler) validation.ErrorList {
				errs := validation.ValidateObjectMeta(h, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
				return append(errs, validateHPASpec(&h.Spec, validation.NewPath("spec"), hpaValidationOptions(h, nil))...)
			},
			ValidateUpdate: func(_ context.Context, h, old *autoscalingv2.HorizontalPodAutoscaler) validation.ErrorList {
				return validateHPASpec(&h.Spec, validation.NewPath("spec"), hpaValidationOptions(h, old))
			},
			Status: &registry.StrategyFor[*autoscalingv2.HorizontalPodAutoscaler]{
				PrepareForUpdate: func(_ context.Context, h, old *autoscalingv2.HorizontalPodAutoscaler) { h.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, h, _ *autoscalingv2.HorizontalPodAutoscaler) validation.ErrorList {
					return validateHPAStatus(&h.Status)
				},
			},
		},
	}
}

// The bounds of kube's autoscaling validation.
const (
	hpaMaxPeriodSeconds              = 1800
	hpaMaxStabilizationWindowSeconds = 3600
)

// crossVersionRefOptions are kube's CrossVersionObjectReferenceValidationOptions.
type crossVersionRefOptions struct {
	allowEmptyAPIGroup, allowInvalidAPIVersion bool
}

type hpaOptions struct {
	minReplicasLowerBound int32
	scaleTargetRef        crossVersionRefOptions
	objectMetrics         crossVersionRefOptions
}

// hpaValidationOptions is validationOptionsForHorizontalPodAutoscaler with kube
// 1.37's gates: minReplicas may be 0; an update that keeps the target's apiVersion and
// kind, or an old object metric whose apiVersion is invalid, is not held to the
// apiVersion rule; a ReplicationController may be named without a group.
func hpaValidationOptions(h, old *autoscalingv2.HorizontalPodAutoscaler) hpaOptions {
	opts := hpaOptions{objectMetrics: crossVersionRefOptions{allowEmptyAPIGroup: true}}
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == h.Spec.ScaleTargetRef.APIVersion && old.Spec.ScaleTargetRef.Kind == h.Spec.ScaleTargetRef.Kind:
		opts.scaleTargetRef.allowInvalidAPIVersion = true
	case h.Spec.ScaleTargetRef.Kind == "ReplicationController":
		opts.scaleTargetRef.allowEmptyAPIGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && validateRefAPIVersion(m.Object.DescribedObject, opts.objectMetrics) != nil {
				opts.objectMetrics.allowInvalidAPIVersion = true
				break
			}
		}
	}
	return opts
}

// validateHPASpec is kube's validateHorizontalPodAutoscalerSpec as kube-apiserver 1.37
// reports it: the replicas bounds are checked by its declarative validation (+k8s:required
// and +k8s:minimum, beta and enforced), whose errors replace the handwritten ones
// ("Required value" without "must be set and greater than 0") and come after every
// handwritten error.
func validateHPASpec(spec *autoscalingv2.HorizontalPodAutoscalerSpec, p *validation.Path, opts hpaOptions) validation.ErrorList {
	var errs, declarative validation.ErrorList
	if spec.MinReplicas != nil && *spec.MinReplicas < opts.minReplicasLowerBound {
		declarative = append(declarative, validation.Invalid(p.Child("minReplicas"), *spec.MinReplicas, fmt.Sprintf("must be greater than or equal to %d", opts.minReplicasLowerBound)))
	}
	switch {
	case spec.MaxReplicas == 0:
		declarative = append(declarative, validation.Required(p.Child("maxReplicas"), ""))
	case spec.MaxReplicas < 0:
		declarative = append(declarative, validation.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to 1"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		errs = append(errs, validation.Invalid(p.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateCrossVersionRef(spec.ScaleTargetRef, p.Child("scaleTargetRef"), opts.scaleTargetRef)...)
	errs = append(errs, validateHPAMetrics(spec.Metrics, p.Child("metrics"), spec.MinReplicas, opts.objectMetrics)...)
	if b := spec.Behavior; b != nil {
		errs = append(errs, validateScalingRules(b.ScaleUp, p.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateScalingRules(b.ScaleDown, p.Child("behavior", "scaleDown"))...)
	}
	return append(errs, declarative...)
}

func validateCrossVersionRef(ref autoscalingv2.CrossVersionObjectReference, p *validation.Path, opts crossVersionRefOptions) validation.ErrorList {
	var errs validation.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, validation.Required(p.Child(f.name), ""))
			continue
		}
		for _, msg := range validation.IsPathSegmentName(f.value) {
			errs = append(errs, validation.Invalid(p.Child(f.name), f.value, msg))
		}
	}
	if err := validateRefAPIVersion(ref, opts); err != nil {
		errs = append(errs, validation.Invalid(p.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return errs
}

// validateRefAPIVersion is kube's ValidateAPIVersion: an apiVersion schema.ParseGroupVersion
// parses ("" and "/" parse as empty) that names a group unless opts allow none.
func validateRefAPIVersion(ref autoscalingv2.CrossVersionObjectReference, opts crossVersionRefOptions) error {
	if opts.allowInvalidAPIVersion {
		return nil
	}
	v := ref.APIVersion
	if strings.Count(v, "/") > 1 {
		return fmt.Errorf("unexpected GroupVersion string: %v", v)
	}
	group, _, hasGroup := strings.Cut(v, "/")
	if v == "/" || !hasGroup {
		group = ""
	}
	if !opts.allowEmptyAPIGroup && group == "" {
		return errors.New("apiVersion must specify API group")
	}
	return nil
}

func validateHPAMetrics(metrics []autoscalingv2.MetricSpec, p *validation.Path, minReplicas *int32, opts crossVersionRefOptions) validation.ErrorList {
	var errs validation.ErrorList
	objectOrExternal := false
	for i := range metrics {
		errs = append(errs, validateMetricSpec(&metrics[i], p.Index(i), opts)...)
		if t := metrics[i].Type; t == autoscalingv2.ObjectMetricSourceType || t == autoscalingv2.ExternalMetricSourceType {
			objectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !objectOrExternal {
		errs = append(errs, validation.Forbidden(p, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

var (
	selectPolicies    = []string{"Disabled", "Max", "Min"}
	scalingPolicyKind = []string{"Percent", "Pods"}
	metricSourceTypes = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}
)

func validateScalingRules(r *autoscalingv2.HPAScalingRules, p *validation.Path) validation.ErrorList {
	if r == nil {
		return nil
	}
	var errs validation.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		errs = append(errs, validation.Invalid(p.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w > hpaMaxStabilizationWindowSeconds {
		errs = append(errs, validation.Invalid(p.Child("stabilizationWindowSeconds"), *w, fmt.Sprintf("must be less than or equal to %v", hpaMaxStabilizationWindowSeconds)))
	}
	if sp := r.SelectPolicy; sp != nil && !slices.Contains(selectPolicies, string(*sp)) {
		errs = append(errs, validation.NotSupported(p.Child("selectPolicy"), string(*sp), selectPolicies))
	}
	pp := p.Child("policies")
	if len(r.Policies) == 0 {
		errs = append(errs, validation.Required(pp, "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		ip := pp.Index(i)
		if pol.Type != autoscalingv2.PodsScalingPolicy && pol.Type != autoscalingv2.PercentScalingPolicy {
			errs = append(errs, validation.NotSupported(ip.Child("type"), string(pol.Type), scalingPolicyKind))
		}
		if pol.Value <= 0 {
			errs = append(errs, validation.Invalid(ip.Child("value"), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, validation.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, "must be greater than zero"))
		}
		if pol.PeriodSeconds > hpaMaxPeriodSeconds {
			errs = append(errs, validation.Invalid(ip.Child("periodSeconds"), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", hpaMaxPeriodSeconds)))
		}
	}
	if r.Tolerance != nil && r.Tolerance.Sign() < 0 {
		errs = append(errs, validation.Invalid(p.Child("tolerance"), r.Tolerance.String(), isNegativeErrorMsg))
	}
	return errs
}

// validateMetricSpec is kube's validateMetricSpec: a known type, the source of that
// type set (validated, the first one set only), and no other source.
func validateMetricSpec(m *autoscalingv2.MetricSpec, p *validation.Path, opts crossVersionRefOptions) validation.ErrorList {
	var errs validation.ErrorList
	if m.Type == "" {
		errs = append(errs, validation.Required(p.Child("type"), "must specify a metric source type"))
	}
	if !slices.Contains(metricSourceTypes, string(m.Type)) {
		errs = append(errs, validation.NotSupported(p.Child("type"), string(m.Type), metricSourceTypes))
	}
	// present lists the sources set in kube's order of checking; only the first is validated.
	var present []string
	add := func(name string, set bool, validate func() validation.ErrorList) {
		if !set {
			return
		}
		present = append(present, name)
		if len(present) == 1 {
			errs = append(errs, validate()...)
		}
	}
	add("object", m.Object != nil, func() validation.ErrorList { return validateObjectSource(m.Object, p.Child("object"), opts) })
	add("external", m.External != nil, func() validation.ErrorList { return validateExternalSource(m.External, p.Child("external")) })
	add("pods", m.Pods != nil, func() validation.ErrorList { return validatePodsSource(m.Pods, p.Child("pods")) })
	add("resource", m.Resource != nil, func() validation.ErrorList {
		r := m.Resource
		var errs validation.ErrorList
		if r.Name == "" {
			errs = append(errs, validation.Required(p.Child("resource", "name"), "must specify a resource name"))
		}
		return append(errs, validateResourceTarget(&r.Target, p.Child("resource", "target"))...)
	})
	add("containerResource", m.ContainerResource != nil, func() validation.ErrorList {
		r, cp := m.ContainerResource, p.Child("containerResource")
		var errs validation.ErrorList
		if r.Name == "" {
			errs = append(errs, validation.Required(cp.Child("name"), "must specify a resource name"))
		} else {
			errs = append(errs, validateContainerResourceName(r.Name, cp.Child("name"))...)
		}
		if r.Container == "" {
			errs = append(errs, validation.Required(cp.Child("container"), "must specify a container"))
		} else {
			errs = append(errs, validateDNS1123Label(r.Container, cp.Child("container"))...)
		}
		return append(errs, validateResourceTarget(&r.Target, cp.Child("target"))...)
	})
	expected := ""
	set := map[autoscalingv2.MetricSourceType]struct {
		name string
		ok   bool
	}{
		autoscalingv2.ObjectMetricSourceType:            {"object", m.Object != nil},
		autoscalingv2.PodsMetricSourceType:              {"pods", m.Pods != nil},
		autoscalingv2.ResourceMetricSourceType:          {"resource", m.Resource != nil},
		autoscalingv2.ExternalMetricSourceType:          {"external", m.External != nil},
		autoscalingv2.ContainerResourceMetricSourceType: {"containerResource", m.ContainerResource != nil},
	}
	if src, ok := set[m.Type]; ok {
		if !src.ok {
			errs = append(errs, validation.Required(p.Child(src.name), "must populate information for the given metric source"))
		}
		expected = src.name
	}
	// kube's switch reports an unknown type a second time, a duplicate its declarative
	// validation's merge drops: the check above stands for both.
	if len(present) != 1 {
		// kube ranges over a set here; its order is the map's, so apikit sorts.
		var others []string
		for _, name := range present {
			if name != expected {
				others = append(others, name)
			}
		}
		slices.Sort(others)
		for _, name := range others {
			errs = append(errs, validation.Forbidden(p.Child(name), "must populate the given metric source only"))
		}
	}
	return errs
}

func validateObjectSource(src *autoscalingv2.ObjectMetricSource, p *validation.Path, opts crossVersionRefOptions) validation.ErrorList {
	errs := validateCrossVersionRef(src.DescribedObject, p.Child("describedObject"), opts)
	errs = append(errs, validateMetricIdentifier(src.Metric, p.Child("metric"))...)
	errs = append(errs, validateMetricTarget(&src.Target, p.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, validation.Required(p.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateExternalSource(src *autoscalingv2.ExternalMetricSource, p *validation.Path) validation.ErrorList {
	errs := validateMetricIdentifier(src.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(&src.Target, p.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, validation.Required(p.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		errs = append(errs, validation.Forbidden(p.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

func validatePodsSource(src *autoscalingv2.PodsMetricSource, p *validation.Path) validation.ErrorList {
	errs := validateMetricIdentifier(src.Metric, p.Child("metric"))
	errs = append(errs, validateMetricTarget(&src.Target, p.Child("target"))...)
	if src.Target.AverageValue == nil {
		errs = append(errs, validation.Required(p.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

// validateResourceTarget is the target part of a (container) resource source.
func validateResourceTarget(t *autoscalingv2.MetricTarget, p *validation.Path) validation.ErrorList {
	errs := validateMetricTarget(t, p)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, validation.Required(p.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, validation.Forbidden(p.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateMetricTarget(t *autoscalingv2.MetricTarget, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if t.Type == "" {
		errs = append(errs, validation.Required(p.Child("type"), "must specify a metric target type"))
	}
	if t.Type != autoscalingv2.UtilizationMetricType && t.Type != autoscalingv2.ValueMetricType && t.Type != autoscalingv2.AverageValueMetricType {
		errs = append(errs, validation.Invalid(p.Child("type"), string(t.Type), "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, validation.Invalid(p.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, validation.Invalid(p.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, validation.Invalid(p.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, p *validation.Path) validation.ErrorList {
	if id.Name == "" {
		return validation.ErrorList{validation.Required(p.Child("name"), "must specify a metric name")}
	}
	var errs validation.ErrorList
	for _, msg := range validation.IsPathSegmentName(id.Name) {
		errs = append(errs, validation.Invalid(p.Child("name"), id.Name, msg))
	}
	return errs
}

// validateHPAStatus is ValidateHorizontalPodAutoscalerStatusUpdate past the metadata.
func validateHPAStatus(st *autoscalingv2.HorizontalPodAutoscalerStatus) validation.ErrorList {
	var errs validation.ErrorList
	for i, c := range st.Conditions {
		if c.ObservedGeneration != nil {
			errs = append(errs, nonNegativeField(*c.ObservedGeneration, validation.NewPath("status", "conditions").Index(i).Child("observedGeneration"))...)
		}
	}
	errs = append(errs, nonNegativeField(int64(st.CurrentReplicas), validation.NewPath("status", "currentReplicas"))...)
	return append(errs, nonNegativeField(int64(st.DesiredReplicas), validation.NewPath("status", "desiredReplicas"))...)
}
