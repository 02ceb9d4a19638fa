package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install" // autoscaling v1, v2 conversion, defaulting, declarative validation
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
)

// The HorizontalPodAutoscaler at both served versions: "HorizontalPodAutoscaler" is
// autoscaling/v2 (kube's storage and preferred version), "HorizontalPodAutoscalerV1"
// the same resource written and read at autoscaling/v1.
func init() {
	Kinds["HorizontalPodAutoscaler"] = Kind{schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		"horizontalpodautoscalers", horizontalpodautoscaler.Strategy, nil}
	Kinds["HorizontalPodAutoscalerV1"] = Kind{schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"},
		"horizontalpodautoscalers", horizontalpodautoscaler.Strategy, nil}
}
