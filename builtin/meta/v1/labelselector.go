// Package v1 holds the meta.k8s.io/v1 types that built-in kinds embed beyond what
// package scheme has (ObjectMeta, TypeMeta, ListMeta live there), laid out like
// k8s.io/apimachinery/pkg/apis/meta/v1: import it as metav1.
package v1

// The protobuf tags are those of k8s.io/apimachinery's meta/v1 generated.proto, from
// which codec/protobuf.RegisterType derives the messages of the kinds that carry them.

// LabelSelector is meta/v1 LabelSelector, as RBAC aggregation rules and the workload kinds
// carry it: every matchLabels pair and every
// matchExpressions requirement must hold; an empty selector matches everything.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty" protobuf:"bytes,1,rep,name=matchLabels"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,2,rep,name=matchExpressions"`
}

// LabelSelectorRequirement is one matchExpressions term: key, operator (In, NotIn,
// Exists, DoesNotExist) and values.
type LabelSelectorRequirement struct {
	Key      string   `json:"key" protobuf:"bytes,1,opt,name=key"`
	Operator string   `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	Values   []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}
