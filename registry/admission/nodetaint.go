package admission

import (
	"context"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// TaintNodeNotReady is the taint of a node whose Ready condition is not true.
const TaintNodeNotReady = "node.kubernetes.io/not-ready"

// TaintNodesByCondition is kube's mutating admission plugin of that name
// (plugin/pkg/admission/nodetaint): a new Node gets the
// node.kubernetes.io/not-ready:NoSchedule taint unless it has one with that key and
// effect, so that nothing is scheduled to it before the node lifecycle controller
// sees it ready.
type TaintNodesByCondition struct{}

// Admit implements registry.MutatingAdmission.
func (TaintNodesByCondition) Admit(_ context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation != registry.OperationCreate || a.APIGroup != "" || a.Resource != corev1.Nodes.Resource || a.Subresource != "" {
		return nil
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil
	}
	for _, t := range n.Spec.Taints {
		// kube's MatchTaint: the same key and effect.
		if t.Key == TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return nil
		}
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
	return nil
}
