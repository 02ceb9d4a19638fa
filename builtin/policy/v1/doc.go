// Package v1 holds Kubernetes' policy/v1 kinds (PodDisruptionBudget, and Eviction, the body of pods/eviction), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/policy/v1: import it as policyv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the policy group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "policy", Version: "v1"}

// Resource names of the policy/v1 kinds.
var (
	PodDisruptionBudgets = scheme.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}
)
