package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/scheme"
)

func webPolicy(change func(np *networkingv1.NetworkPolicy)) *networkingv1.NetworkPolicy {
	port := scheme.FromInt32(8080)
	np := &networkingv1.NetworkPolicy{ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr(corev1.ProtocolTCP), Port: &port}},
				From:  []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.0.1.0/24"}}}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		}}
	if change != nil {
		change(np)
	}
	return np
}

func ingressPort(np *networkingv1.NetworkPolicy) *networkingv1.NetworkPolicyPort {
	return &np.Spec.Ingress[0].Ports[0]
}
func ipBlock(np *networkingv1.NetworkPolicy) *networkingv1.IPBlock {
	return np.Spec.Ingress[0].From[0].IPBlock
}

func TestValidateNetworkPolicy_KubesMessagesAndPaths(t *testing.T) {
	const from = "spec.ingress[0].from[0]"
	tests := []struct {
		name   string
		change func(np *networkingv1.NetworkPolicy)
		want   []string
	}{
		{"a policy with an ipBlock and a port is valid", nil, nil},
		{"a peer names something", func(np *networkingv1.NetworkPolicy) { np.Spec.Ingress[0].From[0] = networkingv1.NetworkPolicyPeer{} },
			[]string{from + ": Required value: must specify a peer"}},
		{"an ipBlock stands alone", func(np *networkingv1.NetworkPolicy) {
			np.Spec.Ingress[0].From[0].PodSelector = &metav1.LabelSelector{}
		}, []string{from + ": Forbidden: may not specify both ipBlock and another peer"}},
		{"a cidr is required", func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "" }, []string{from + ".ipBlock.cidr: Required value"}},
		{"a cidr parses", func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "10.0.0.0" }, []string{
			from + `.ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"a cidr has no leading zeros", func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "010.0.0.0/16" }, []string{
			from + `.ipBlock.cidr: Invalid value: "010.0.0.0/16": must not have leading 0s in IP or prefix length`}},
		{"a cidr has no host bits", func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "10.0.0.1/16" }, []string{
			from + `.ipBlock.cidr: Invalid value: "10.0.0.1/16": must not have bits set beyond the prefix length`}},
		{"a cidr is not IPv4-mapped", func(np *networkingv1.NetworkPolicy) {
			ipBlock(np).CIDR = "::ffff:10.0.0.0/112"
			ipBlock(np).Except = nil
		}, []string{
			from + `.ipBlock.cidr: Invalid value: "::ffff:10.0.0.0/112": must not have an IPv4-mapped IPv6 address`}},
		{"an except is strictly inside the cidr", func(np *networkingv1.NetworkPolicy) { ipBlock(np).Except = []string{"10.0.0.0/16", "10.1.0.0/24"} }, []string{
			from + ".ipBlock.except[0]: Invalid value: \"10.0.0.0/16\": must be a strict subset of `cidr`",
			from + ".ipBlock.except[1]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`"}},
		{"an unknown protocol is refused", func(np *networkingv1.NetworkPolicy) { ingressPort(np).Protocol = ptr(corev1.Protocol("ICMP")) }, []string{
			`spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"`}},
		{"an endPort is not below the port", func(np *networkingv1.NetworkPolicy) { ingressPort(np).EndPort = ptr(int32(80)) }, []string{
			"spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`"}},
		{"an endPort needs a numeric port", func(np *networkingv1.NetworkPolicy) {
			p := scheme.FromString("http")
			ingressPort(np).Port, ingressPort(np).EndPort = &p, ptr(int32(9000))
		}, []string{"spec.ingress[0].ports[0].endPort: Invalid value: 9000: may not be specified when `port` is non-numeric"}},
		{"an endPort needs a port", func(np *networkingv1.NetworkPolicy) {
			ingressPort(np).Port, ingressPort(np).EndPort = nil, ptr(int32(9000))
		}, []string{
			"spec.ingress[0].ports[0].endPort: Invalid value: 9000: may not be specified when `port` is not specified"}},
		{"a port is in range", func(np *networkingv1.NetworkPolicy) { p := scheme.FromInt32(70000); ingressPort(np).Port = &p }, []string{
			"spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"policyTypes are Ingress or Egress", func(np *networkingv1.NetworkPolicy) { np.Spec.PolicyTypes = []networkingv1.PolicyType{"ingress"} }, []string{
			`spec.policyTypes[0]: Unsupported value: "ingress": supported values: "Ingress", "Egress"`}},
		{"at most two policyTypes", func(np *networkingv1.NetworkPolicy) {
			np.Spec.PolicyTypes = []networkingv1.PolicyType{"Ingress", "Egress", "Ingress"}
		}, []string{`spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes`}},
		{"the pod selector is a valid selector", func(np *networkingv1.NetworkPolicy) { np.Spec.PodSelector.MatchLabels["app"] = "not valid!" }, []string{
			`spec.podSelector.matchLabels: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
	}
	s := networkPolicyStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), webPolicy(tt.change)))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestNetworkPolicyUpdate_KeepsStoredCIDRsAndBumpsGenerationOnSpecChange(t *testing.T) {
	s := networkPolicyStrategy()
	ctx := context.Background()
	// Stored before strict CIDR validation: a leading zero.
	old := webPolicy(func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "010.0.0.0/16"; ipBlock(np).Except = nil })
	old.Generation = 3
	same := webPolicy(func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "010.0.0.0/16"; ipBlock(np).Except = nil })
	s.PrepareForUpdate(ctx, same, old)
	if errs := s.ValidateUpdate(ctx, same, old); len(errs) > 0 {
		t.Errorf("an update keeping the stored CIDR is refused: %v", causes(errs))
	}
	if same.Generation != 3 {
		t.Errorf("generation %d after an update without a spec change, want 3", same.Generation)
	}
	changed := webPolicy(func(np *networkingv1.NetworkPolicy) { ipBlock(np).CIDR = "011.0.0.0/16"; ipBlock(np).Except = nil })
	s.PrepareForUpdate(ctx, changed, old)
	want := []string{`spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "011.0.0.0/16": must not have leading 0s in IP or prefix length`}
	if d := cmp.Diff(want, causes(s.ValidateUpdate(ctx, changed, old))); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
	if changed.Generation != 4 {
		t.Errorf("generation %d after a spec change, want 4", changed.Generation)
	}
}

func TestNetworkPolicyWarnings_AmbiguousAndNonCanonicalCIDRs(t *testing.T) {
	np := webPolicy(func(np *networkingv1.NetworkPolicy) {
		ipBlock(np).CIDR, ipBlock(np).Except = "2001:DB8::/32", []string{"010.0.0.0/8"}
	})
	want := []string{
		`spec.ingress[0].from[0].ipBlock.cidr: IPv6 CIDR value "2001:DB8::/32" should be in RFC 5952 canonical format ("2001:db8::/32")`,
		`spec.ingress[0].from[0].ipBlock.except[0]: non-standard CIDR value "010.0.0.0/8" is invalid: use "10.0.0.0/8"`,
	}
	if d := cmp.Diff(want, networkPolicyStrategy().WarningsOnCreate(context.Background(), np)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}
