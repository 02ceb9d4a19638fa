package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/kubernetes/pkg/apis/policy/install" // policy/v1 conversion, defaulting, declarative validation
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
)

// policy/v1's kinds: PodDisruptionBudget (Eviction is the body of pods/eviction, which
// no store creates).
func init() {
	Kinds["PodDisruptionBudget"] = Kind{schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
		"poddisruptionbudgets", poddisruptionbudget.Strategy, nil}
}
