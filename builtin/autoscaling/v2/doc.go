// Package v2 holds Kubernetes' autoscaling/v2 kinds (HorizontalPodAutoscaler), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/autoscaling/v2: import it as autoscalingv2.
package v2

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the autoscaling group's v2 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "autoscaling", Version: "v2"}

// Resource names of the autoscaling/v2 kinds.
var (
	HorizontalPodAutoscalers = scheme.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}
)
