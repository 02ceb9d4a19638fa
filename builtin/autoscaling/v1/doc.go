// Package v1 holds Kubernetes' autoscaling/v1 kinds (HorizontalPodAutoscaler), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/autoscaling/v1: import it as autoscalingv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the autoscaling group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "autoscaling", Version: "v1"}

// Resource names of the autoscaling/v1 kinds.
var (
	HorizontalPodAutoscalers = scheme.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}
)
