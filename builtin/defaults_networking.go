package builtin

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerNetworkingDefaults registers kube-apiserver v1.37.2's defaults of the
// networking.k8s.io/v1 kinds (k8s.io/kubernetes pkg/apis/networking/v1/defaults.go). An
// Ingress has none: its paths' pathType is required, not defaulted, in v1.
func registerNetworkingDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultNetworkPolicy)
	conversion.RegisterDefaults(s, defaultNetworkPolicyPort)
	conversion.RegisterDefaults(s, defaultIngressClass)
}

// defaultNetworkPolicy is SetDefaults_NetworkPolicy: policyTypes Ingress, plus Egress
// when the policy has egress rules, when none are given.
func defaultNetworkPolicy(np *networkingv1.NetworkPolicy) {
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) != 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

// defaultNetworkPolicyPort is SetDefaults_NetworkPolicyPort: the protocol TCP when unset.
func defaultNetworkPolicyPort(p *networkingv1.NetworkPolicyPort) {
	if p.Protocol == nil {
		tcp := corev1.ProtocolTCP
		p.Protocol = &tcp
	}
}

// defaultIngressClass is SetDefaults_IngressClass: parameters without a scope are
// cluster-scoped.
func defaultIngressClass(c *networkingv1.IngressClass) {
	if c.Spec.Parameters != nil && c.Spec.Parameters.Scope == nil {
		scope := "Cluster" // k8s.io/api IngressClassParametersReferenceScopeCluster
		c.Spec.Parameters.Scope = &scope
	}
}
