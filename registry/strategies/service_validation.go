package strategies

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/builtin"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// The values kube's service validation supports, sorted as its NotSupported lists them.
var (
	serviceProtocols          = []string{"SCTP", "TCP", "UDP"}
	serviceAffinities         = []string{"ClientIP", "None"}
	serviceTypes              = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
	serviceTrafficPolicies    = []string{"Cluster", "Local"}
	serviceIPFamilies         = []string{"IPv4", "IPv6"}
	serviceIPFamilyPolicies   = []string{"PreferDualStack", "RequireDualStack", "SingleStack"}
	loadBalancerIPModes       = []string{"Proxy", "VIP"}
	serviceTrafficDistributes = []string{"PreferClose", "PreferSameZone", "PreferSameNode"}
)

const (
	// maxClientIPAffinitySeconds is kube's MaxClientIPServiceAffinitySeconds, one day.
	maxClientIPAffinitySeconds   = 86400
	topologyAwareHintsAnnotation = "service.kubernetes.io/topology-aware-hints"
	topologyModeAnnotation       = "service.kubernetes.io/topology-mode"
	sourceRangesAnnotation       = "service.beta.kubernetes.io/load-balancer-source-ranges"
)

// initIPFamilyFields is kube's initIPFamilyFields on a single-stack IPv4 cluster: an
// unset ipFamilyPolicy is the stored one, RequireDualStack for a headless service
// without a selector, else SingleStack; ipFamilies follow the cluster IPs, or are
// [IPv4] (with IPv6 after it for a headless service without a selector that is not
// SingleStack). Its loose pre-validation's errors come alone, as kube answers them
// before it allocates.
func initIPFamilyFields(s, old *corev1.Service) validation.ErrorList {
	if s.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	spec := validation.NewPath("spec")
	if s.Spec.IPFamilyPolicy == nil {
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			s.Spec.IPFamilyPolicy = ptrTo(*old.Spec.IPFamilyPolicy)
		case s.Spec.ClusterIP == clusterIPNone && len(s.Spec.Selector) == 0:
			s.Spec.IPFamilyPolicy = ptrTo(corev1.IPFamilyPolicyRequireDualStack)
		default:
			s.Spec.IPFamilyPolicy = ptrTo(corev1.IPFamilyPolicySingleStack)
		}
	}
	if errs := validateClusterIPsRelatedFields(s, old); len(errs) > 0 {
		return errs
	}
	var errs validation.ErrorList
	single := *s.Spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack
	if old != nil && single {
		if slices.Equal(old.Spec.ClusterIPs, s.Spec.ClusterIPs) && len(s.Spec.ClusterIPs) > 1 {
			s.Spec.ClusterIPs = s.Spec.ClusterIPs[:1]
		}
		if slices.Equal(old.Spec.IPFamilies, s.Spec.IPFamilies) && len(s.Spec.IPFamilies) > 1 {
			s.Spec.IPFamilies = s.Spec.IPFamilies[:1]
		}
	}
	if single {
		if len(s.Spec.ClusterIPs) == 2 {
			errs = append(errs, validation.Invalid(spec.Child("ipFamilyPolicy"), string(*s.Spec.IPFamilyPolicy),
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(s.Spec.IPFamilies) == 2 {
			errs = append(errs, validation.Invalid(spec.Child("ipFamilyPolicy"), string(*s.Spec.IPFamilyPolicy),
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	for i, ip := range s.Spec.ClusterIPs {
		if ip == clusterIPNone {
			break
		}
		if i >= len(s.Spec.IPFamilies) {
			if fam := ipFamilyOf(ip); fam != corev1.IPv4Protocol {
				errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(i), s.Spec.ClusterIPs, fmt.Sprintf("%s is not configured on this cluster", fam)))
			} else {
				s.Spec.IPFamilies = append(s.Spec.IPFamilies, fam)
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if s.Spec.ClusterIP == clusterIPNone && len(s.Spec.Selector) == 0 {
		if len(s.Spec.IPFamilies) == 0 {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		}
		if len(s.Spec.IPFamilies) < 2 && !single {
			other := corev1.IPv6Protocol
			if s.Spec.IPFamilies[0] == corev1.IPv6Protocol {
				other = corev1.IPv4Protocol
			}
			s.Spec.IPFamilies = append(s.Spec.IPFamilies, other)
		}
		return nil
	}
	if *s.Spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, validation.Invalid(spec.Child("ipFamilyPolicy"), string(*s.Spec.IPFamilyPolicy), "this cluster is not configured for dual-stack services"))
	}
	for i, fam := range s.Spec.IPFamilies {
		if fam != corev1.IPv4Protocol {
			errs = append(errs, validation.Invalid(spec.Child("ipFamilies").Index(i), string(fam), "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if len(s.Spec.IPFamilies) == 0 {
		s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	return nil
}

// ipFamilyOf is the family of a valid IP address.
func ipFamilyOf(ip string) corev1.IPFamily {
	if p := net.ParseIP(ip); p != nil && p.To4() == nil {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}

// validateService is kube's validateService and ValidateServiceCreate's checks of a
// Service (the object meta is the Store's).
func validateService(s, old *corev1.Service) validation.ErrorList {
	var errs validation.ErrorList
	meta := validation.NewPath("metadata")
	hints, hintsSet := s.Annotations[topologyAwareHintsAnnotation]
	mode, modeSet := s.Annotations[topologyModeAnnotation]
	if hintsSet && modeSet && hints != mode {
		errs = append(errs, validation.Invalid(meta.Child("annotations").Key(topologyModeAnnotation), mode,
			fmt.Sprintf("must match annotations[%s] when both are specified", topologyAwareHintsAnnotation)))
	}
	spec := validation.NewPath("spec")
	headless := isHeadless(s)
	if len(s.Spec.Ports) == 0 && !headless && s.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, validation.Required(spec.Child("ports"), ""))
	}
	switch s.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		if headless {
			errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(0), s.Spec.ClusterIPs[0], "may not be set to 'None' for LoadBalancer services"))
		}
	case corev1.ServiceTypeNodePort:
		if headless {
			errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(0), s.Spec.ClusterIPs[0], "may not be set to 'None' for NodePort services"))
		}
	case corev1.ServiceTypeExternalName:
		if len(s.Spec.ClusterIPs) > 0 {
			errs = append(errs, validation.Forbidden(spec.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(s.Spec.IPFamilies) > 0 {
			errs = append(errs, validation.Forbidden(spec.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if s.Spec.IPFamilyPolicy != nil {
			errs = append(errs, validation.Forbidden(spec.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		if cname := strings.TrimSuffix(s.Spec.ExternalName, "."); cname != "" {
			errs = append(errs, validateDNS1123Subdomain(cname, spec.Child("externalName"))...)
		} else {
			errs = append(errs, validation.Required(spec.Child("externalName"), ""))
		}
	}
	names := map[string]bool{}
	for i := range s.Spec.Ports {
		errs = append(errs, validateServicePort(&s.Spec.Ports[i], len(s.Spec.Ports) > 1, names, spec.Child("ports").Index(i))...)
	}
	if s.Spec.Selector != nil {
		errs = append(errs, validation.ValidateLabels(s.Spec.Selector, spec.Child("selector"))...)
	}
	switch s.Spec.SessionAffinity {
	case "":
		errs = append(errs, validation.Required(spec.Child("sessionAffinity"), ""))
	case corev1.ServiceAffinityClientIP:
		errs = append(errs, validateClientIPAffinity(s.Spec.SessionAffinityConfig, spec.Child("sessionAffinityConfig"))...)
	case corev1.ServiceAffinityNone:
		if s.Spec.SessionAffinityConfig != nil {
			errs = append(errs, validation.Forbidden(spec.Child("sessionAffinityConfig"), "must not be set when session affinity is None"))
		}
	default:
		errs = append(errs, validation.NotSupported(spec.Child("sessionAffinity"), string(s.Spec.SessionAffinity), serviceAffinities))
	}
	errs = append(errs, validateClusterIPsRelatedFields(s, old)...)
	var oldExternal []string
	if old != nil {
		oldExternal = old.Spec.ExternalIPs
	}
	for i, ip := range s.Spec.ExternalIPs {
		p := spec.Child("externalIPs").Index(i)
		if e := svcLegacyIPOf(ip, oldExternal, p); len(e) > 0 {
			errs = append(errs, e...)
		} else {
			errs = append(errs, svcEndpointIP(ip, p)...)
		}
	}
	switch {
	case s.Spec.Type == "":
		errs = append(errs, validation.Required(spec.Child("type"), ""))
	case !slices.Contains(serviceTypes, string(s.Spec.Type)):
		errs = append(errs, validation.NotSupported(spec.Child("type"), string(s.Spec.Type), serviceTypes))
	}
	if s.Spec.Type == corev1.ServiceTypeClusterIP {
		for i, p := range s.Spec.Ports {
			if p.NodePort != 0 {
				errs = append(errs, validation.Forbidden(spec.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	type protoPort struct {
		proto corev1.Protocol
		port  int32
	}
	nodePorts := map[protoPort]bool{}
	for i, p := range s.Spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		k := protoPort{p.Protocol, p.NodePort}
		if nodePorts[k] {
			errs = append(errs, validation.Duplicate(spec.Child("ports").Index(i).Child("nodePort"), int64(p.NodePort)))
		}
		nodePorts[k] = true
	}
	ports := map[protoPort]bool{}
	for i, p := range s.Spec.Ports {
		k := protoPort{p.Protocol, p.Port}
		if ports[k] {
			errs = append(errs, validation.Duplicate(spec.Child("ports").Index(i), internalServicePort{Protocol: p.Protocol, Port: p.Port}))
		}
		ports[k] = true
	}
	if len(s.Spec.LoadBalancerSourceRanges) > 0 {
		// kube's path, capital L and all.
		p := spec.Child("LoadBalancerSourceRanges")
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, validation.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
		var existing []string
		if old != nil {
			for _, v := range old.Spec.LoadBalancerSourceRanges {
				existing = append(existing, strings.TrimSpace(v))
			}
		}
		for i, v := range s.Spec.LoadBalancerSourceRanges {
			errs = append(errs, svcLegacyCIDR(strings.TrimSpace(v), existing, p.Index(i))...)
		}
	} else if v, ok := s.Annotations[sourceRangesAnnotation]; ok {
		p := meta.Child("annotations").Key(sourceRangesAnnotation)
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			errs = append(errs, validation.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
		if old == nil || old.Annotations[sourceRangesAnnotation] != v {
			if v = strings.TrimSpace(v); v != "" {
				for _, c := range strings.Split(v, ",") {
					errs = append(errs, svcLegacyCIDR(strings.TrimSpace(c), nil, p)...)
				}
			}
		}
	}
	if s.Spec.AllocateLoadBalancerNodePorts != nil && s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, validation.Forbidden(spec.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.AllocateLoadBalancerNodePorts == nil {
		// kube's path has no "spec.".
		errs = append(errs, validation.Required(validation.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	errs = append(errs, validateLoadBalancerClass(s, nil)...)
	errs = append(errs, validateExternalTrafficPolicy(s)...)
	if s.Spec.InternalTrafficPolicy == nil {
		switch s.Spec.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			errs = append(errs, validation.Required(spec.Child("internalTrafficPolicy"), ""))
		}
	} else if !slices.Contains(serviceTrafficPolicies, string(*s.Spec.InternalTrafficPolicy)) {
		errs = append(errs, validation.NotSupported(spec.Child("internalTrafficPolicy"), string(*s.Spec.InternalTrafficPolicy), serviceTrafficPolicies))
	}
	if d := s.Spec.TrafficDistribution; d != nil && !slices.Contains(serviceTrafficDistributes, *d) {
		errs = append(errs, validation.NotSupported(spec.Child("trafficDistribution"), *d, serviceTrafficDistributes))
	}
	return errs
}

// internalServicePort renders a duplicate port as kube's does: its internal
// core.ServicePort, whose fields have no JSON names.
type internalServicePort struct {
	Name        string
	Protocol    corev1.Protocol
	AppProtocol *string
	Port        int32
	TargetPort  scheme.IntOrString
	NodePort    int32
}

func validateServicePort(p *corev1.ServicePort, requireName bool, names map[string]bool, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, validation.Required(path.Child("name"), ""))
	case p.Name != "":
		errs = append(errs, validateDNS1123Label(p.Name, path.Child("name"))...)
		if names[p.Name] {
			errs = append(errs, validation.Duplicate(path.Child("name"), p.Name))
		}
		names[p.Name] = true
	}
	if p.Port < 1 || p.Port > 65535 {
		errs = append(errs, validation.Invalid(path.Child("port"), int64(p.Port), portRangeError))
	}
	switch {
	case p.Protocol == "":
		errs = append(errs, validation.Required(path.Child("protocol"), ""))
	case !slices.Contains(serviceProtocols, string(p.Protocol)):
		errs = append(errs, validation.NotSupported(path.Child("protocol"), string(p.Protocol), serviceProtocols))
	}
	errs = append(errs, validatePortNumOrName(p.TargetPort, path.Child("targetPort"))...)
	if p.AppProtocol != nil {
		errs = append(errs, validateQualifiedName(*p.AppProtocol, path.Child("appProtocol"))...)
	}
	return errs
}

func validateClientIPAffinity(c *corev1.SessionAffinityConfig, path *validation.Path) validation.ErrorList {
	const when = "when session affinity type is ClientIP"
	switch {
	case c == nil:
		return validation.ErrorList{validation.Required(path, when)}
	case c.ClientIP == nil:
		return validation.ErrorList{validation.Required(path.Child("clientIP"), when)}
	case c.ClientIP.TimeoutSeconds == nil:
		return validation.ErrorList{validation.Required(path.Child("clientIP", "timeoutSeconds"), when)}
	}
	if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
		return validation.ErrorList{validation.Invalid(path.Child("clientIP", "timeoutSeconds"), int64(t),
			fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
	}
	return nil
}

// validateClusterIPsRelatedFields is kube's ValidateServiceClusterIPsRelatedFields.
func validateClusterIPsRelatedFields(s, old *corev1.Service) validation.ErrorList {
	if s.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	var errs validation.ErrorList
	spec := validation.NewPath("spec")
	ipsPath, famPath := spec.Child("clusterIPs"), spec.Child("ipFamilies")
	if s.Spec.ClusterIP != "" {
		if len(s.Spec.ClusterIPs) == 0 {
			errs = append(errs, validation.Required(ipsPath, ""))
		} else if s.Spec.ClusterIPs[0] != s.Spec.ClusterIP {
			errs = append(errs, validation.Invalid(ipsPath, s.Spec.ClusterIPs, "first value must match `clusterIP`"))
		}
	} else if len(s.Spec.ClusterIPs) != 0 {
		errs = append(errs, validation.Invalid(ipsPath, s.Spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}
	seen := map[corev1.IPFamily]bool{}
	for i, f := range s.Spec.IPFamilies {
		if !slices.Contains(serviceIPFamilies, string(f)) {
			errs = append(errs, validation.NotSupported(famPath.Index(i), string(f), serviceIPFamilies))
		}
		if seen[f] {
			errs = append(errs, validation.Duplicate(famPath.Index(i), string(f)))
		}
		seen[f] = true
	}
	if p := s.Spec.IPFamilyPolicy; p != nil && !slices.Contains(serviceIPFamilyPolicies, string(*p)) {
		errs = append(errs, validation.NotSupported(spec.Child("ipFamilyPolicy"), string(*p), serviceIPFamilyPolicies))
	}
	var existing []string
	if old != nil {
		existing = old.Spec.ClusterIPs
	}
	invalidIPs := false
	for i, ip := range s.Spec.ClusterIPs {
		if i == 0 && ip == clusterIPNone {
			if len(s.Spec.ClusterIPs) > 1 {
				invalidIPs = true
				errs = append(errs, validation.Invalid(ipsPath, s.Spec.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		e := svcLegacyIPOf(ip, existing, ipsPath.Index(i))
		invalidIPs = invalidIPs || len(e) > 0
		errs = append(errs, e...)
	}
	if len(s.Spec.ClusterIPs) > 2 {
		errs = append(errs, validation.Invalid(ipsPath, s.Spec.ClusterIPs, "may only hold up to 2 values"))
	}
	if invalidIPs {
		return errs
	}
	if len(s.Spec.ClusterIPs) > 1 && ipFamilyOf(s.Spec.ClusterIPs[0]) == ipFamilyOf(s.Spec.ClusterIPs[1]) {
		errs = append(errs, validation.Invalid(ipsPath, s.Spec.ClusterIPs, "may specify no more than one IP for each IP family"))
	}
	if !isHeadless(s) && len(s.Spec.ClusterIPs) > 0 && len(s.Spec.IPFamilies) > 0 {
		for i, ip := range s.Spec.ClusterIPs {
			if i >= len(s.Spec.IPFamilies) {
				break
			}
			v6 := ipFamilyOf(ip) == corev1.IPv6Protocol
			if s.Spec.IPFamilies[i] == corev1.IPv4Protocol && v6 {
				errs = append(errs, validation.Invalid(ipsPath.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%d]`", i)))
			}
			if s.Spec.IPFamilies[i] == corev1.IPv6Protocol && !v6 {
				errs = append(errs, validation.Invalid(ipsPath.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%d]`", i)))
			}
		}
	}
	return errs
}

// validateServiceUpdate is kube's ValidateServiceUpdate: the primary cluster IP and IP
// family may not change but to or from ExternalName, nor a load balancer's class, nor a
// health check node port it keeps needing.
func validateServiceUpdate(s, old *corev1.Service) validation.ErrorList {
	var errs validation.ErrorList
	spec := validation.NewPath("spec")
	if s.Spec.Type != corev1.ServiceTypeExternalName && old.Spec.Type != corev1.ServiceTypeExternalName && !(isHeadless(old) && isHeadless(s)) {
		n, o := s.Spec.ClusterIPs, old.Spec.ClusterIPs
		switch {
		case len(o) == len(n):
			for i := range o {
				if o[i] != n[i] {
					errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(i), n, "may not change once set"))
				}
			}
		case len(o) > len(n):
			if len(n) == 0 {
				errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(0), n, "primary clusterIP can not be unset"))
			}
			if len(o) > 0 && len(n) > 0 && n[0] != o[0] {
				errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(0), n, "may not change once set"))
			}
			if len(n) == 1 && policyOf(s) != corev1.IPFamilyPolicySingleStack {
				errs = append(errs, validation.Invalid(spec.Child("ipFamilyPolicy"), policyValue(s), "must be set to 'SingleStack' when releasing the secondary clusterIP"))
			}
		case len(o) > 0 && n[0] != o[0]:
			errs = append(errs, validation.Invalid(spec.Child("clusterIPs").Index(0), n, "may not change once set"))
		}
	}
	if s.Spec.Type != corev1.ServiceTypeExternalName && old.Spec.Type != corev1.ServiceTypeExternalName && isHeadless(s) == isHeadless(old) && !isHeadless(s) {
		n, o := s.Spec.IPFamilies, old.Spec.IPFamilies
		switch {
		case len(o) == len(n):
			for i := range o {
				if o[i] != n[i] {
					errs = append(errs, validation.Invalid(spec.Child("ipFamilies").Index(0), n, "may not change once set"))
				}
			}
		case len(o) > len(n):
			if len(s.Spec.ClusterIPs) == 0 {
				errs = append(errs, validation.Invalid(spec.Child("ipFamilies").Index(0), n, "primary ipFamily can not be unset"))
			}
			if len(n) > 0 && n[0] != o[0] {
				errs = append(errs, validation.Invalid(spec.Child("ipFamilies").Index(0), s.Spec.ClusterIPs, "may not change once set"))
			}
			if len(n) == 1 && policyOf(s) != corev1.IPFamilyPolicySingleStack {
				errs = append(errs, validation.Invalid(spec.Child("ipFamilyPolicy"), policyValue(s), "must be set to 'SingleStack' when releasing the secondary ipFamily"))
			}
		case len(o) > 0 && len(n) > 0 && n[0] != o[0]:
			errs = append(errs, validation.Invalid(spec.Child("ipFamilies").Index(0), s.Spec.ClusterIPs, "may not change once set"))
		}
	}
	errs = append(errs, validateLoadBalancerClass(s, old)...)
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(s) && s.Spec.HealthCheckNodePort != old.Spec.HealthCheckNodePort {
		errs = append(errs, validation.Forbidden(spec.Child("healthCheckNodePort"), "field is immutable"))
	}
	return append(errs, validateService(s, old)...)
}

// policyValue is ipFamilyPolicy as kube's messages echo a *string: null when unset.
func policyValue(s *corev1.Service) any {
	if s.Spec.IPFamilyPolicy == nil {
		return nil
	}
	return string(*s.Spec.IPFamilyPolicy)
}

// validateLoadBalancerClass is kube's validateLoadBalancerClassField.
func validateLoadBalancerClass(s, old *corev1.Service) validation.ErrorList {
	var errs validation.ErrorList
	p := validation.NewPath("spec", "loadBalancerClass")
	lb := s.Spec.Type == corev1.ServiceTypeLoadBalancer
	if old != nil && old.Spec.Type == corev1.ServiceTypeLoadBalancer && lb {
		a, b := old.Spec.LoadBalancerClass, s.Spec.LoadBalancerClass
		if (a == nil) != (b == nil) || (a != nil && *a != *b) {
			var v any
			if b != nil {
				v = *b
			}
			errs = append(errs, validation.Invalid(p, v, "may not change once set"))
		}
	}
	if c := s.Spec.LoadBalancerClass; c != nil {
		if lb {
			errs = append(errs, validateQualifiedName(*c, p)...)
		} else {
			errs = append(errs, validation.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
	}
	return errs
}

// validateExternalTrafficPolicy is kube's validateServiceExternalTrafficPolicy.
func validateExternalTrafficPolicy(s *corev1.Service) validation.ErrorList {
	var errs validation.ErrorList
	spec := validation.NewPath("spec")
	etp := string(s.Spec.ExternalTrafficPolicy)
	if !builtin.ServiceExternallyAccessible(s) {
		if etp != "" {
			errs = append(errs, validation.Invalid(spec.Child("externalTrafficPolicy"), etp, "may only be set for externally-accessible services"))
		}
	} else if etp == "" {
		errs = append(errs, validation.Required(spec.Child("externalTrafficPolicy"), ""))
	} else if !slices.Contains(serviceTrafficPolicies, etp) {
		errs = append(errs, validation.NotSupported(spec.Child("externalTrafficPolicy"), etp, serviceTrafficPolicies))
	}
	hc := s.Spec.HealthCheckNodePort
	switch {
	case !needsHealthCheckNodePort(s):
		if hc != 0 {
			errs = append(errs, validation.Invalid(spec.Child("healthCheckNodePort"), int64(hc), "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	case hc == 0:
		errs = append(errs, validation.Required(spec.Child("healthCheckNodePort"), ""))
	case hc < 1 || hc > 65535:
		errs = append(errs, validation.Invalid(spec.Child("healthCheckNodePort"), int64(hc), portRangeError))
	}
	return errs
}

// validateLoadBalancerStatus is kube's ValidateLoadBalancerStatus of a status write.
func validateLoadBalancerStatus(st, old *corev1.LoadBalancerStatus, spec *corev1.ServiceSpec) validation.ErrorList {
	var errs validation.ErrorList
	ingress := validation.NewPath("status", "loadBalancer", "ingress")
	if spec.Type != corev1.ServiceTypeLoadBalancer && len(st.Ingress) != 0 {
		return validation.ErrorList{validation.Forbidden(ingress, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var existing []string
	for _, ing := range old.Ingress {
		if ing.IP != "" {
			existing = append(existing, ing.IP)
		}
	}
	for i, ing := range st.Ingress {
		p := ingress.Index(i)
		if ing.IP != "" {
			errs = append(errs, svcLegacyIPOf(ing.IP, existing, p.Child("ip"))...)
		}
		switch {
		case ing.IPMode == nil:
			if ing.IP != "" {
				errs = append(errs, validation.Required(p.Child("ipMode"), "must be specified when `ip` is set"))
			}
		case ing.IP == "":
			errs = append(errs, validation.Forbidden(p.Child("ipMode"), "may not be specified when `ip` is not set"))
		case !slices.Contains(loadBalancerIPModes, string(*ing.IPMode)):
			errs = append(errs, validation.NotSupported(p.Child("ipMode"), string(*ing.IPMode), loadBalancerIPModes))
		}
		if ing.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
				errs = append(errs, validation.Invalid(p.Child("hostname"), ing.Hostname, msg))
			}
			if svcParseIPSloppy(ing.Hostname) != nil {
				errs = append(errs, validation.Invalid(p.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// svcLegacyIPOf is kube's IsValidIPForLegacyField: a value the old object already
// had passes as it is.
func svcLegacyIPOf(ip string, old []string, path *validation.Path) validation.ErrorList {
	if slices.Contains(old, ip) {
		return nil
	}
	return validateLegacyIP(ip, path)
}

// svcLegacyCIDR is kube's IsValidCIDRForLegacyField with StrictIPCIDRValidation.
func svcLegacyCIDR(v string, old []string, path *validation.Path) validation.ErrorList {
	if slices.Contains(old, v) {
		return nil
	}
	if _, _, err := net.ParseCIDR(v); err != nil && !svcSloppyCIDR(v) {
		return validation.ErrorList{validation.Invalid(path, v, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	}
	prefix, err := netip.ParsePrefix(v)
	switch {
	case err != nil:
		return validation.ErrorList{validation.Invalid(path, v, "must not have leading 0s in IP or prefix length")}
	case prefix.Addr().Is4In6():
		return validation.ErrorList{validation.Invalid(path, v, "must not have an IPv4-mapped IPv6 address")}
	case prefix.Addr() != prefix.Masked().Addr():
		return validation.ErrorList{validation.Invalid(path, v, "must not have bits set beyond the prefix length")}
	}
	return nil
}

// svcSloppyCIDR reports whether v is a CIDR that only k8s.io/utils' sloppy parser takes:
// an IPv4 address with leading zeros, or a prefix length with them.
func svcSloppyCIDR(v string) bool {
	addr, bits, ok := strings.Cut(v, "/")
	if !ok || bits == "" || len(bits) > 3 {
		return false
	}
	for _, c := range bits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return sloppyIPv4(addr) || net.ParseIP(addr) != nil
}

// svcParseIPSloppy is k8s.io/utils' ParseIPSloppy: net.ParseIP, with IPv4 leading zeros.
func svcParseIPSloppy(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	if sloppyIPv4(s) {
		parts := strings.Split(s, ".")
		b := make([]byte, 4)
		for i, p := range parts {
			n := 0
			for _, c := range p {
				n = n*10 + int(c-'0')
			}
			b[i] = byte(n)
		}
		return net.IPv4(b[0], b[1], b[2], b[3])
	}
	return nil
}

// svcEndpointIP is kube's ValidateEndpointIP: no unspecified, loopback or
// link-local address.
func svcEndpointIP(v string, path *validation.Path) validation.ErrorList {
	ip := svcParseIPSloppy(v)
	if ip == nil {
		return validation.ErrorList{validation.Invalid(path, v, "must be a valid IP address")}
	}
	var errs validation.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, validation.Invalid(path, v, fmt.Sprintf("may not be unspecified (%v)", v)))
	}
	if ip.IsLoopback() {
		errs = append(errs, validation.Invalid(path, v, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, validation.Invalid(path, v, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, validation.Invalid(path, v, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// svcIPWarnings is apimachinery's GetWarningsForIP: a non-standard form that kube still
// takes, or an IPv6 address not in canonical form.
func svcIPWarnings(path *validation.Path, v string) []string {
	ip := svcParseIPSloppy(v)
	if ip == nil {
		return nil
	}
	addr, err := netip.ParseAddr(v)
	if err != nil || addr.Is4In6() {
		return []string{fmt.Sprintf("%s: non-standard IP address %q is invalid: use %q", path, v, ip.String())}
	}
	if addr.Is6() && addr.String() != v {
		return []string{fmt.Sprintf("%s: IPv6 address %q should be in RFC 5952 canonical format (%q)", path, v, addr.String())}
	}
	return nil
}

// serviceWarnings is kube's GetWarningsForService.
func serviceWarnings(s, _ *corev1.Service) []string {
	var out []string
	if _, ok := s.Annotations[topologyAwareHintsAnnotation]; ok {
		out = append(out, fmt.Sprintf("annotation %s is deprecated, please use %s instead", topologyAwareHintsAnnotation, topologyModeAnnotation))
	}
	if len(s.Spec.ClusterIPs) > 0 && s.Spec.ClusterIPs[0] != clusterIPNone && s.Spec.ClusterIPs[0] != "" {
		for i, ip := range s.Spec.ClusterIPs {
			out = append(out, svcIPWarnings(validation.NewPath("spec", "clusterIPs").Index(i), ip)...)
		}
	}
	// The warnings' own notion of headless.
	headless := s.Spec.Type == corev1.ServiceTypeClusterIP && s.Spec.ClusterIP == clusterIPNone
	if headless {
		if s.Spec.LoadBalancerIP != "" {
			out = append(out, "spec.loadBalancerIP is ignored for headless services")
		}
		if len(s.Spec.ExternalIPs) > 0 {
			out = append(out, "spec.externalIPs is ignored for headless services")
		}
		if s.Spec.SessionAffinity != corev1.ServiceAffinityNone {
			out = append(out, "spec.SessionAffinity is ignored for headless services")
		}
	}
	for i, ip := range s.Spec.ExternalIPs {
		out = append(out, svcIPWarnings(validation.NewPath("spec", "externalIPs").Index(i), ip)...)
	}
	if len(s.Spec.ExternalIPs) > 0 && !headless && s.Spec.Type != corev1.ServiceTypeExternalName {
		out = append(out, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	if s.Spec.LoadBalancerIP != "" {
		out = append(out, svcIPWarnings(validation.NewPath("spec", "loadBalancerIP"), s.Spec.LoadBalancerIP)...)
	}
	if s.Spec.Type == corev1.ServiceTypeExternalName && len(s.Spec.ExternalIPs) > 0 {
		out = append(out, `spec.externalIPs is ignored when spec.type is "ExternalName"`)
	}
	if s.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.ExternalName != "" {
		out = append(out, `spec.externalName is ignored when spec.type is not "ExternalName"`)
	}
	if d := s.Spec.TrafficDistribution; d != nil && *d == "PreferClose" {
		out = append(out, `spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`)
	}
	return out
}
