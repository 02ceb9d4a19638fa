package strategies

import (
	"context"
	"reflect"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// networkPolicyStrategy is kube-apiserver v1.37.2's write rules of NetworkPolicies
// (pkg/registry/networking/networkpolicy): generation 1 on create and bumped when the
// spec changes, kube's ValidateNetworkPolicy and ValidateNetworkPolicyUpdate (where a
// CIDR the stored policy already has is accepted as it is, and so are selector values
// when the stored podSelector already had invalid ones), and the CIDR warnings.
func networkPolicyStrategy() registry.StrategyFor[*networkingv1.NetworkPolicy] {
	return registry.StrategyFor[*networkingv1.NetworkPolicy]{
		PrepareForCreate: func(_ context.Context, np *networkingv1.NetworkPolicy) { np.Generation = 1 },
		PrepareForUpdate: func(_ context.Context, np, old *networkingv1.NetworkPolicy) {
			// kube compares the specs with reflect.DeepEqual here, not semantically.
			bumpGenerationUnless(&np.ObjectMeta, &old.ObjectMeta, reflect.DeepEqual(np.Spec, old.Spec))
		},
		Validate: func(_ context.Context, np *networkingv1.NetworkPolicy) validation.ErrorList {
			errs := validation.ValidateObjectMeta(np, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
			return append(errs, validateNetworkPolicySpec(&np.Spec, networkPolicyOptions{}, validation.NewPath("spec"))...)
		},
		ValidateUpdate: func(_ context.Context, np, old *networkingv1.NetworkPolicy) validation.ErrorList {
			opts := networkPolicyOptions{
				allowInvalidSelectorValues: labelSelectorHasInvalidValues(&old.Spec.PodSelector),
				validOldCIDRs:              networkPolicyCIDRs(old),
			}
			return validateNetworkPolicySpec(&np.Spec, opts, validation.NewPath("spec"))
		},
		WarningsOnCreate: func(_ context.Context, np *networkingv1.NetworkPolicy) []string { return networkPolicyWarnings(np) },
		WarningsOnUpdate: func(_ context.Context, np, _ *networkingv1.NetworkPolicy) []string { return networkPolicyWarnings(np) },
	}
}

// networkPolicyOptions are kube's NetworkPolicyValidationOptions.
type networkPolicyOptions struct {
	allowInvalidSelectorValues bool
	validOldCIDRs              []string
}

// labelSelectorHasInvalidValues is kube's ValidationOptionsForNetworking test: the
// stored podSelector fails validation (any of its checks, as kube's does).
func labelSelectorHasInvalidValues(s *metav1.LabelSelector) bool {
	return len(validateLabelSelector(s, false, validation.NewPath("spec", "podSelector"))) > 0
}

// networkPolicyCIDRs are every cidr and except of the policy's ipBlocks, which an
// update may keep even where today's rules refuse them.
func networkPolicyCIDRs(np *networkingv1.NetworkPolicy) []string {
	var out []string
	add := func(peers []networkingv1.NetworkPolicyPeer) {
		for _, p := range peers {
			if p.IPBlock != nil {
				out = append(out, p.IPBlock.CIDR)
				out = append(out, p.IPBlock.Except...)
			}
		}
	}
	for _, r := range np.Spec.Ingress {
		add(r.From)
	}
	for _, r := range np.Spec.Egress {
		add(r.To)
	}
	return out
}

// validateNetworkPolicySpec is kube's ValidateNetworkPolicySpec.
func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, opts networkPolicyOptions, p *validation.Path) validation.ErrorList {
	errs := validateLabelSelector(&spec.PodSelector, opts.allowInvalidSelectorValues, p.Child("podSelector"))
	for i, rule := range spec.Ingress {
		rp := p.Child("ingress").Index(i)
		for j := range rule.Ports {
			errs = append(errs, validateNetworkPolicyPort(&rule.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range rule.From {
			errs = append(errs, validateNetworkPolicyPeer(&rule.From[j], opts, rp.Child("from").Index(j))...)
		}
	}
	for i, rule := range spec.Egress {
		rp := p.Child("egress").Index(i)
		for j := range rule.Ports {
			errs = append(errs, validateNetworkPolicyPort(&rule.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range rule.To {
			errs = append(errs, validateNetworkPolicyPeer(&rule.To[j], opts, rp.Child("to").Index(j))...)
		}
	}
	allowed := []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}
	if len(spec.PolicyTypes) > len(allowed) {
		// kube passes a pointer to the slice, which its message renders as the address's
		// dereferenced value; the detail is what clients read.
		return append(errs, validation.Invalid(p.Child("policyTypes"), policyTypeStrings(spec.PolicyTypes), "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			errs = append(errs, validation.NotSupported(p.Child("policyTypes").Index(i), string(t), allowed))
		}
	}
	return errs
}

func policyTypeStrings(ts []networkingv1.PolicyType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

// validateNetworkPolicyPort is kube's ValidateNetworkPolicyPort: a known protocol, a
// port number or name, and an endPort only after a numeric port, not below it.
func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if pr := port.Protocol; pr != nil && *pr != corev1.ProtocolTCP && *pr != corev1.ProtocolUDP && *pr != corev1.ProtocolSCTP {
		errs = append(errs, validation.NotSupported(p.Child("protocol"), string(*pr), []string{"TCP", "UDP", "SCTP"}))
	}
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, validation.Invalid(p.Child("endPort"), int64(*port.EndPort), "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == scheme.Int:
		if n := port.Port.IntVal; n < 1 || n > 65535 {
			errs = append(errs, validation.Invalid(p.Child("port"), int64(n), portRangeError))
		}
		if e := port.EndPort; e != nil {
			if *e < port.Port.IntVal {
				errs = append(errs, validation.Invalid(p.Child("endPort"), int64(*e), "must be greater than or equal to `port`"))
			}
			if *e < 1 || *e > 65535 {
				errs = append(errs, validation.Invalid(p.Child("endPort"), int64(*e), portRangeError))
			}
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, validation.Invalid(p.Child("endPort"), int64(*port.EndPort), "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range isValidPortName(port.Port.StrVal) {
			errs = append(errs, validation.Invalid(p.Child("port"), port.Port.StrVal, msg))
		}
	}
	return errs
}

// validateNetworkPolicyPeer is kube's ValidateNetworkPolicyPeer: at least one of
// podSelector, namespaceSelector and ipBlock, and ipBlock alone.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, opts networkPolicyOptions, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.PodSelector, opts.allowInvalidSelectorValues, p.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.NamespaceSelector, opts.allowInvalidSelectorValues, p.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		errs = append(errs, validateIPBlock(peer.IPBlock, opts, p.Child("ipBlock"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, validation.Required(p, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, validation.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

// validateIPBlock is kube's ValidateIPBlock: a cidr, and each except a valid CIDR
// strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, opts networkPolicyOptions, p *validation.Path) validation.ErrorList {
	if b.CIDR == "" {
		return validation.ErrorList{validation.Required(p.Child("cidr"), "")}
	}
	errs := validateLegacyCIDR(p.Child("cidr"), b.CIDR, opts.validOldCIDRs)
	cidr, ok := parseCIDRSloppy(b.CIDR)
	if !ok {
		return errs
	}
	cidrLen, _ := cidr.Mask.Size()
	for i, ex := range b.Except {
		ep := p.Child("except").Index(i)
		errs = append(errs, validateLegacyCIDR(ep, ex, opts.validOldCIDRs)...)
		exNet, ok := parseCIDRSloppy(ex)
		if !ok {
			continue
		}
		exLen, _ := exNet.Mask.Size()
		if !cidr.Contains(exNet.IP) || cidrLen >= exLen {
			errs = append(errs, validation.Invalid(ep, ex, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// networkPolicyWarnings are kube's networkPolicyWarnings: each ipBlock CIDR's warnings.
func networkPolicyWarnings(np *networkingv1.NetworkPolicy) []string {
	var w []string
	add := func(peers []networkingv1.NetworkPolicyPeer, p *validation.Path) {
		for j, peer := range peers {
			if peer.IPBlock == nil {
				continue
			}
			bp := p.Index(j).Child("ipBlock")
			w = append(w, cidrWarnings(bp.Child("cidr"), peer.IPBlock.CIDR)...)
			for k, ex := range peer.IPBlock.Except {
				w = append(w, cidrWarnings(bp.Child("except").Index(k), ex)...)
			}
		}
	}
	for i, r := range np.Spec.Ingress {
		add(r.From, validation.NewPath("spec", "ingress").Index(i).Child("from"))
	}
	for i, r := range np.Spec.Egress {
		add(r.To, validation.NewPath("spec", "egress").Index(i).Child("to"))
	}
	return w
}
