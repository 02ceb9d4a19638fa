// Package v1 holds the meta.k8s.io/v1 types that built-in kinds embed beyond what
// package scheme has (ObjectMeta, TypeMeta, ListMeta live there), laid out like
// k8s.io/apimachinery/pkg/apis/meta/v1: import it as metav1.
package v1

// LabelSelector is meta/v1 LabelSelector, as RBAC aggregation rules and the workload kinds
// carry it: every matchLabels pair and every
// matchExpressions requirement must hold; an empty selector matches everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one matchExpressions term: key, operator (In, NotIn,
// Exists, DoesNotExist) and values.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}
