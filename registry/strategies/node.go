package strategies

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// nodeStrategy is kube-apiserver v1.37.2's Node strategy (pkg/registry/core/node): a
// create keeps the status a kubelet registers with (but no config source or config
// status, removed features), an update keeps the stored status, a /status write
// keeps the spec (v1's podCIDR and podCIDRs are reconciled by the Node's defaults, as
// kube's conversion does on decode); kube's ValidateNode and ValidateNodeUpdate, and
// its warnings.
func nodeStrategy() registry.StrategyFor[*corev1.Node] {
	return withoutGeneration(registry.StrategyFor[*corev1.Node]{
		PrepareForCreate: func(_ context.Context, n *corev1.Node) {
			n.Spec.ConfigSource = nil
			n.Status.Config = nil
			// InPlacePodVerticalScalingSchedulerPreemption is alpha (off).
			n.Spec.PodPreemptionPolicy = nil
		},
		PrepareForUpdate: func(_ context.Context, n, old *corev1.Node) {
			n.Status = old.Status
			if old.Spec.ConfigSource == nil {
				n.Spec.ConfigSource = nil
			}
			if old.Spec.PodPreemptionPolicy == nil {
				n.Spec.PodPreemptionPolicy = nil
			}
		},
		Validate: func(_ context.Context, n *corev1.Node) validation.ErrorList { return validateNode(n) },
		ValidateUpdate: func(_ context.Context, n, old *corev1.Node) validation.ErrorList {
			return append(validateNode(n), validateNodeUpdate(n, old)...)
		},
		WarningsOnCreate: func(_ context.Context, n *corev1.Node) []string { return nodeWarnings(n) },
		WarningsOnUpdate: func(_ context.Context, n, _ *corev1.Node) []string { return nodeWarnings(n) },
		Status: &registry.StrategyFor[*corev1.Node]{
			PrepareForUpdate: func(_ context.Context, n, old *corev1.Node) {
				n.Spec = old.Spec
				if old.Status.Config == nil {
					n.Status.Config = nil
				}
			},
			ValidateUpdate: func(_ context.Context, n, old *corev1.Node) validation.ErrorList { return validateNodeUpdate(n, old) },
		},
		KeepStatusOnCreate: true,
	})
}

var nodeDeclaredFeature = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$`)

// validateNode is kube's ValidateNode (the metadata part runs in the registry): the
// taints (reported under metadata.taints, as kube does), capacity and allocatable
// quantities, the swap capacity (under metadata.nodeSwapStatus), the declared
// features, and podCIDRs valid and at most one per IP family.
func validateNode(n *corev1.Node) validation.ErrorList {
	var errs validation.ErrorList
	meta := validation.NewPath("metadata")
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints, meta.Child("taints"))...)
	}
	errs = append(errs, validateNodeResources(n)...)
	if sw := n.Status.NodeInfo.Swap; sw != nil && sw.Capacity != nil {
		errs = append(errs, validatePositive(*sw.Capacity, meta.Child("nodeSwapStatus", "capacity"))...)
	}
	errs = append(errs, validateDeclaredFeatures(n.Status.DeclaredFeatures, validation.NewPath("status", "declaredFeatures"))...)
	if cidrs := n.Spec.PodCIDRs; len(cidrs) > 0 {
		p := validation.NewPath("spec", "podCIDRs")
		for i, c := range cidrs {
			errs = append(errs, validateLegacyCIDR(p.Index(i), c, nil)...)
		}
		if len(cidrs) > 1 {
			dual, err := dualStackCIDRs(cidrs)
			if err != nil {
				errs = append(errs, validation.InternalError(p, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
			}
			if !dual || len(cidrs) > 2 {
				errs = append(errs, validation.Invalid(p, cidrs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	return errs
}

// validateNodeTaints is kube's validateNodeTaints: key a qualified name, value a
// label value, a known effect, and each key and effect pair once.
func validateNodeTaints(taints []corev1.Taint, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range taints {
		ip := p.Index(i)
		errs = append(errs, validateLabelName(t.Key, ip.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, validation.Required(ip.Child("effect"), ""))
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, validation.NotSupported(ip.Child("effect"), t.Effect, []string{
				string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
		}
		if seen[t.Effect][t.Key] {
			dup := validation.Duplicate(ip, badStruct(t))
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

// validateNodeResources is kube's ValidateNodeResources: no negative (or, for the
// integer resources, fractional) capacity or allocatable, at kube's dotted paths.
func validateNodeResources(n *corev1.Node) validation.ErrorList {
	var errs validation.ErrorList
	for _, l := range []struct {
		name string
		list corev1.ResourceList
	}{{"capacity", n.Status.Capacity}, {"allocatable", n.Status.Allocatable}} {
		for _, r := range sortedResourceNames(l.list) {
			errs = append(errs, validateResourceQuantityValue(r, l.list[r], validation.NewPath("status", l.name, string(r)))...)
		}
	}
	return errs
}

// validateDeclaredFeatures is kube's validateNodeDeclaredFeatures (NodeDeclaredFeatures
// is GA): UpperCamelCase names, sorted, each once.
func validateDeclaredFeatures(features []string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, f := range features {
		switch {
		case len(f) > 253:
			errs = append(errs, validation.Invalid(p.Index(i), f, fmt.Sprintf("invalid feature name %q: must be no more than 253 characters", f)))
		case !nodeDeclaredFeature.MatchString(f):
			errs = append(errs, validation.Invalid(p.Index(i), f, fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)))
		}
		if i+1 < len(features) {
			switch next := features[i+1]; {
			case f == next:
				errs = append(errs, validation.Duplicate(p.Index(i+1), next))
			case f > next:
				errs = append(errs, validation.Invalid(p.Index(i+1), next, "list must be sorted alphabetically"))
			}
		}
	}
	return errs
}

// dualStackCIDRs is k8s.io/utils' IsDualStackCIDRStrings: both families present.
func dualStackCIDRs(cidrs []string) (bool, error) {
	v4, v6 := false, false
	for i, c := range cidrs {
		if _, ok := parseCIDRSloppy(c); !ok {
			// k8s.io/utils' ParseCIDRs, with its nil *net.IPNet.
			return false, fmt.Errorf("invalid CIDR[%d]: <nil> (invalid CIDR address: %s)", i, c)
		}
		addr, _, _ := strings.Cut(c, "/")
		if strings.Contains(addr, ":") {
			v6 = true
		} else {
			v4 = true
		}
	}
	return v4 && v6, nil
}

const podCIDRChangeMsg = `node updates may not change podCIDR except from "" to valid`

// validateNodeUpdate is kube's ValidateNodeUpdate (the metadata part runs in the
// registry): resources and declared features again, no duplicate address, podCIDRs
// set once, providerID set once, the external ID fixed, and the taints.
func validateNodeUpdate(n, old *corev1.Node) validation.ErrorList {
	errs := validateNodeResources(n)
	errs = append(errs, validateDeclaredFeatures(n.Status.DeclaredFeatures, validation.NewPath("status", "declaredFeatures"))...)
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, validation.Duplicate(validation.NewPath("status", "addresses").Index(i), badStruct(a)))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		p := validation.NewPath("spec", "podCIDRs")
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, validation.Forbidden(p, podCIDRChangeMsg))
		} else {
			for i, v := range old.Spec.PodCIDRs {
				if v != n.Spec.PodCIDRs[i] {
					errs = append(errs, validation.Forbidden(p, podCIDRChangeMsg))
				}
			}
		}
	}
	pp := validation.NewPath("spec", "providerID")
	switch {
	case old.Spec.ProviderID != "" && n.Spec.ProviderID != "" && old.Spec.ProviderID != n.Spec.ProviderID:
		errs = append(errs, validation.Invalid(pp, nil, "field cannot be modified once set"))
	case old.Spec.ProviderID != "" && n.Spec.ProviderID == "":
		errs = append(errs, validation.Invalid(pp, nil, "field cannot be cleared once set"))
	}
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints, validation.NewPath("metadata").Child("taints"))...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, validation.Forbidden(validation.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// nodeWarnings are kube's: the removed config source, the unused external ID, and
// podCIDRs in a non-standard form.
func nodeWarnings(n *corev1.Node) []string {
	var w []string
	if n.Spec.ConfigSource != nil {
		w = append(w, "spec.configSource: the feature is removed")
	}
	if n.Spec.DoNotUseExternalID != "" {
		w = append(w, "spec.externalID: this field is deprecated, and is unused by Kubernetes")
	}
	p := validation.NewPath("spec", "podCIDRs")
	for i, c := range n.Spec.PodCIDRs {
		w = append(w, cidrWarnings(p.Index(i), c)...)
	}
	return w
}
