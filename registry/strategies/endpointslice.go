package strategies

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	discoveryv1 "github.com/apikit-dev/apikit/builtin/discovery/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Discovery returns kube-apiserver v1.37.2's write rules of discovery.k8s.io/v1
// EndpointSlices (pkg/registry/discovery/endpointslice and pkg/apis/discovery/validation):
// generation 1 on create and bumped by any change but to metadata other than labels,
// deprecatedTopology dropped from what a v1 client writes, kube's validation with an
// immutable addressType (invalid endpoints an update leaves as they were are not
// re-checked), and the warnings for FQDN slices and IPs in non-standard forms.
func Discovery() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		discoveryv1.EndpointSlices: registry.StrategyFor[*discoveryv1.EndpointSlice]{
			PrepareForCreate: func(_ context.Context, e *discoveryv1.EndpointSlice) {
				e.Generation = 1
				dropEndpointTopology(e)
			},
			PrepareForUpdate: func(_ context.Context, e, old *discoveryv1.EndpointSlice) {
				same := e.AddressType == old.AddressType && semanticEqual(e.Endpoints, old.Endpoints) && semanticEqual(e.Ports, old.Ports) &&
					semanticEqual(e.Labels, old.Labels)
				bumpGenerationUnless(&e.ObjectMeta, &old.ObjectMeta, same)
				if !semanticEqual(e.Endpoints, old.Endpoints) {
					dropEndpointTopology(e)
				}
			},
			Validate: func(_ context.Context, e *discoveryv1.EndpointSlice) validation.ErrorList {
				return validateEndpointSlice(e, nil)
			},
			ValidateUpdate: func(_ context.Context, e, old *discoveryv1.EndpointSlice) validation.ErrorList {
				return validateEndpointSlice(e, old)
			},
			WarningsOnCreate: func(_ context.Context, e *discoveryv1.EndpointSlice) []string {
				var w []string
				if e.AddressType == addressTypeFQDN {
					w = append(w, "spec.addressType: FQDN endpoints are deprecated")
				}
				return append(w, endpointIPWarnings(e)...)
			},
			WarningsOnUpdate: func(_ context.Context, e, _ *discoveryv1.EndpointSlice) []string { return endpointIPWarnings(e) },
		},
	}
}

const (
	addressTypeIPv4 = "IPv4"
	addressTypeIPv6 = "IPv6"
	addressTypeFQDN = "FQDN"
	// The limits of kube's EndpointSlice validation (its ports limit is 20000, not the
	// 100 its documentation says).
	maxSliceEndpoints    = 1000
	maxEndpointAddresses = 100
	maxSlicePorts        = 20000
	maxTopologyLabels    = 16
	maxZoneHints         = 8
	maxNodeHints         = 8
)

var (
	addressTypes       = []string{addressTypeFQDN, addressTypeIPv4, addressTypeIPv6}
	endpointProtocols  = []string{"SCTP", "TCP", "UDP"}
	endpointSliceOwner = []string{"endpointslice-controller.k8s.io", "endpointslicemirroring-controller.k8s.io"}
)

// dropEndpointTopology is dropTopologyOnV1 for a v1 request: deprecatedTopology goes.
// (kube moves its hostname to nodeName only when the old object had it there, which a
// slice written at v1, the only version served, never has.)
func dropEndpointTopology(e *discoveryv1.EndpointSlice) {
	for i := range e.Endpoints {
		e.Endpoints[i].DeprecatedTopology = nil
	}
}

// validateEndpointSlice is kube's ValidateEndpointSlice (and, with old, its update) as
// kube-apiserver 1.37 reports it: addressType (required, immutable, one of three) and
// each endpoint's address count are checked by its declarative validation (beta and
// enforced), whose errors replace the handwritten ones and come after all of them.
// Endpoint errors an update leaves as they were are not reported.
func validateEndpointSlice(e, old *discoveryv1.EndpointSlice) validation.ErrorList {
	errs := validation.ValidateObjectMeta(e, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	var declarative validation.ErrorList
	at := validation.NewPath("addressType")
	if e.AddressType == "" {
		declarative = append(declarative, validation.Required(at, ""))
	}
	if old != nil && e.AddressType != old.AddressType {
		declarative = append(declarative, validation.Immutable(at, nil))
	}
	if e.AddressType != "" && !slices.Contains(addressTypes, string(e.AddressType)) {
		declarative = append(declarative, validation.NotSupported(at, string(e.AddressType), addressTypes))
	}
	errs = append(errs, validateEndpointPorts(e.Ports, validation.NewPath("ports"))...)
	if old == nil || !semanticEqual(old.Endpoints, e.Endpoints) {
		hv, dv := validateEndpoints(e.Endpoints, string(e.AddressType), validation.NewPath("endpoints"))
		errs = append(errs, hv...)
		declarative = append(declarative, dv...)
	}
	return append(errs, declarative...)
}

// validateEndpoints returns the handwritten errors of the endpoints and, apart, the
// declarative ones (each endpoint's address count, on every endpoint, past the 1000 the
// handwritten check stops at).
func validateEndpoints(endpoints []discoveryv1.Endpoint, addressType string, p *validation.Path) (errs, declarative validation.ErrorList) {
	for i := range endpoints {
		ap := p.Index(i).Child("addresses")
		if n := len(endpoints[i].Addresses); n == 0 {
			declarative = append(declarative, validation.Required(ap, ""))
		} else if n > maxEndpointAddresses {
			declarative = append(declarative, validation.TooMany(ap, n, maxEndpointAddresses))
		}
	}
	if len(endpoints) > maxSliceEndpoints {
		return validation.ErrorList{validation.TooMany(p, len(endpoints), maxSliceEndpoints)}, declarative
	}
	for i := range endpoints {
		ep, ip := &endpoints[i], p.Index(i)
		ap := ip.Child("addresses")
		for j, addr := range ep.Addresses {
			errs = append(errs, validateEndpointAddress(addr, addressType, ap, ap.Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*ep.NodeName) {
				errs = append(errs, validation.Invalid(ip.Child("nodeName"), *ep.NodeName, msg))
			}
		}
		tp := ip.Child("deprecatedTopology")
		if len(ep.DeprecatedTopology) > maxTopologyLabels {
			errs = append(errs, validation.TooMany(tp, len(ep.DeprecatedTopology), maxTopologyLabels))
		}
		errs = append(errs, validation.ValidateLabels(ep.DeprecatedTopology, tp)...)
		if ep.Hostname != nil {
			errs = append(errs, validateDNS1123Label(*ep.Hostname, ip.Child("hostname"))...)
		}
		if ep.Hints != nil {
			errs = append(errs, validateEndpointHints(ep.Hints, ip.Child("hints"))...)
		}
	}
	return errs, declarative
}

// validateEndpointAddress checks one address of the slice's type. kube reports the
// wrong family on the addresses list, not on the address.
func validateEndpointAddress(addr, addressType string, list, p *validation.Path) validation.ErrorList {
	switch addressType {
	case addressTypeIPv4:
		if errs := validateLegacyIP(addr, p); len(errs) > 0 {
			return errs
		}
		var errs validation.ErrorList
		if a, err := netip.ParseAddr(addr); err == nil && !a.Is4() {
			errs = append(errs, validation.Invalid(list, addr, "must be an IPv4 address"))
		}
		return append(errs, validateEndpointIP(addr, p)...)
	case addressTypeIPv6:
		errs := validateLegacyIP(addr, p)
		if len(errs) > 0 {
			return errs
		}
		if a, _ := netip.ParseAddr(addr); a.String() != addr {
			return validation.ErrorList{validation.Invalid(p, addr, fmt.Sprintf("must be in canonical form (%q)", a.String()))}
		}
		if a, _ := netip.ParseAddr(addr); !a.Is6() {
			errs = append(errs, validation.Invalid(list, addr, "must be an IPv6 address"))
		}
		return append(errs, validateEndpointIP(addr, p)...)
	case addressTypeFQDN:
		return validateFQDN(addr, p)
	}
	return nil
}

// validateEndpointIP is kube's ValidateEndpointIP: no unspecified, loopback or
// link-local address.
func validateEndpointIP(addr string, p *validation.Path) validation.ErrorList {
	ip := net.ParseIP(addr)
	if ip == nil {
		return validation.ErrorList{validation.Invalid(p, addr, "must be a valid IP address")}
	}
	var errs validation.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, validation.Invalid(p, addr, fmt.Sprintf("may not be unspecified (%v)", addr)))
	}
	if ip.IsLoopback() {
		errs = append(errs, validation.Invalid(p, addr, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, validation.Invalid(p, addr, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, validation.Invalid(p, addr, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

// validateFQDN is apimachinery's IsFullyQualifiedDomainName: a DNS subdomain of at
// least two labels, a trailing dot allowed.
func validateFQDN(name string, p *validation.Path) validation.ErrorList {
	if name == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	name = strings.TrimSuffix(name, ".")
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return validation.ErrorList{validation.Invalid(p, name, strings.Join(msgs, ","))}
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return validation.ErrorList{validation.Invalid(p, name, "should be a domain with at least two segments separated by dots")}
	}
	for _, l := range labels {
		if msgs := validation.IsDNS1123Label(l); len(msgs) > 0 {
			return validation.ErrorList{validation.Invalid(p, l, strings.Join(msgs, ","))}
		}
	}
	return nil
}

func validateEndpointPorts(ports []discoveryv1.EndpointPort, p *validation.Path) validation.ErrorList {
	if len(ports) > maxSlicePorts {
		return validation.ErrorList{validation.TooMany(p, len(ports), maxSlicePorts)}
	}
	var errs validation.ErrorList
	names := make([]string, 0, len(ports))
	for i, port := range ports {
		ip := p.Index(i)
		// Defaulting names every port; a port written without defaults is "".
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			errs = append(errs, validateDNS1123Label(name, ip.Child("name"))...)
		}
		if slices.Contains(names, name) {
			errs = append(errs, validation.Duplicate(ip.Child("name"), name))
		} else {
			names = append(names, name)
		}
		if port.Protocol == nil {
			errs = append(errs, validation.Required(ip.Child("protocol"), ""))
		} else if !slices.Contains(endpointProtocols, string(*port.Protocol)) {
			errs = append(errs, validation.NotSupported(ip.Child("protocol"), string(*port.Protocol), endpointProtocols))
		}
		if port.AppProtocol != nil {
			errs = append(errs, validateQualifiedName(*port.AppProtocol, ip.Child("appProtocol"))...)
		}
	}
	return errs
}

func validateEndpointHints(h *discoveryv1.EndpointHints, p *validation.Path) validation.ErrorList {
	zp := p.Child("forZones")
	if len(h.ForZones) > maxZoneHints {
		return validation.ErrorList{validation.TooMany(zp, len(h.ForZones), maxZoneHints)}
	}
	var errs validation.ErrorList
	var zones []string
	for i, z := range h.ForZones {
		np := zp.Index(i).Child("name")
		if slices.Contains(zones, z.Name) {
			errs = append(errs, validation.Duplicate(np, z.Name))
		} else {
			zones = append(zones, z.Name)
		}
		for _, msg := range validation.IsValidLabelValue(z.Name) {
			errs = append(errs, validation.Invalid(np, z.Name, msg))
		}
	}
	fp := p.Child("forNodes")
	if len(h.ForNodes) > maxNodeHints {
		return append(errs, validation.TooMany(fp, len(h.ForNodes), maxNodeHints))
	}
	var nodes []string
	for i, n := range h.ForNodes {
		np := fp.Index(i).Child("name")
		if slices.Contains(nodes, n.Name) {
			errs = append(errs, validation.Duplicate(np, n.Name))
		} else {
			nodes = append(nodes, n.Name)
		}
		for _, msg := range validation.IsDNS1123Subdomain(n.Name) {
			errs = append(errs, validation.Invalid(np, n.Name, msg))
		}
	}
	return errs
}

// endpointIPWarnings is warnOnBadIPs: the IPs of a slice that no EndpointSlice
// controller manages, in forms kube accepts but does not recommend.
func endpointIPWarnings(e *discoveryv1.EndpointSlice) []string {
	if slices.Contains(endpointSliceOwner, e.Labels["endpointslice.kubernetes.io/managed-by"]) {
		return nil
	}
	var w []string
	for i := range e.Endpoints {
		for j, addr := range e.Endpoints[i].Addresses {
			w = append(w, ipWarnings(validation.NewPath("endpoints").Index(i).Child("addresses").Index(j), addr)...)
		}
	}
	return w
}
