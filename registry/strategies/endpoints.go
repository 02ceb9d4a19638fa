package strategies

import (
	"context"
	"reflect"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// endpointsManagedBy is the label the endpoints controller sets on the Endpoints it
// writes, whose IPs kube does not warn about.
const endpointsManagedBy = "endpoints.kubernetes.io/managed-by"

// endpointsStrategy is kube's endpoint strategy (pkg/registry/core/endpoint): kube's
// ValidateEndpoints and warnings on non-standard IPs. The deprecation warning of every
// v1 Endpoints request is the resource's (builtin's Deprecations), as kube-apiserver
// emits it from the type's prerelease lifecycle.
func endpointsStrategy() registry.StrategyFor[*corev1.Endpoints] {
	return registry.StrategyFor[*corev1.Endpoints]{
		Validate: func(_ context.Context, e *corev1.Endpoints) validation.ErrorList {
			return validateEndpointsSubsets(e, nil)
		},
		ValidateUpdate: func(_ context.Context, e, old *corev1.Endpoints) validation.ErrorList {
			return validateEndpointsSubsets(e, old)
		},
		WarningsOnCreate: func(_ context.Context, e *corev1.Endpoints) []string { return endpointsWarnings(e) },
		WarningsOnUpdate: func(_ context.Context, e, _ *corev1.Endpoints) []string { return endpointsWarnings(e) },
	}
}

// validateEndpointsSubsets is kube's ValidateEndpoints: subsets with addresses, each a valid
// endpoint IP, hostname a DNS label, nodeName a DNS subdomain, ports named (when more
// than one) and in range. An update that leaves invalid subsets as they were stands.
func validateEndpointsSubsets(e, old *corev1.Endpoints) validation.ErrorList {
	var errs validation.ErrorList
	subsets := validation.NewPath("subsets")
	for i := range e.Subsets {
		ss := &e.Subsets[i]
		p := subsets.Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, validation.Required(p, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			errs = append(errs, validateEndpointsAddress(&ss.Addresses[j], p.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointsAddress(&ss.NotReadyAddresses[j], p.Child("notReadyAddresses").Index(j))...)
		}
		for j := range ss.Ports {
			errs = append(errs, validateEndpointsPort(&ss.Ports[j], len(ss.Ports) > 1, p.Child("ports").Index(j))...)
		}
	}
	if len(errs) > 0 && old != nil && reflect.DeepEqual(old.Subsets, e.Subsets) {
		return nil
	}
	return errs
}

func validateEndpointsAddress(a *corev1.EndpointAddress, path *validation.Path) validation.ErrorList {
	errs := validateLegacyIP(a.IP, path.Child("ip"))
	if a.Hostname != "" {
		errs = append(errs, validateDNS1123Label(a.Hostname, path.Child("hostname"))...)
	}
	if a.NodeName != nil {
		for _, msg := range validation.NameIsDNSSubdomain(*a.NodeName, false) {
			errs = append(errs, validation.Invalid(path.Child("nodeName"), *a.NodeName, msg))
		}
	}
	return append(errs, svcEndpointIP(a.IP, path.Child("ip"))...)
}

func validateEndpointsPort(p *corev1.EndpointPort, requireName bool, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, validation.Required(path.Child("name"), ""))
	case p.Name != "":
		errs = append(errs, validateDNS1123Label(p.Name, path.Child("name"))...)
	}
	if p.Port < 1 || p.Port > 65535 {
		errs = append(errs, validation.Invalid(path.Child("port"), int64(p.Port), portRangeError))
	}
	switch {
	case p.Protocol == "":
		errs = append(errs, validation.Required(path.Child("protocol"), ""))
	case !svcContains(serviceProtocols, string(p.Protocol)):
		errs = append(errs, validation.NotSupported(path.Child("protocol"), string(p.Protocol), serviceProtocols))
	}
	if p.AppProtocol != nil {
		errs = append(errs, validateQualifiedName(*p.AppProtocol, path.Child("appProtocol"))...)
	}
	return errs
}

func svcContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// endpointsWarnings is kube's: non-standard address IPs, unless the endpoints
// controller wrote the object.
func endpointsWarnings(e *corev1.Endpoints) []string {
	if e.Labels[endpointsManagedBy] == "endpoint-controller" {
		return nil
	}
	var out []string
	for i, ss := range e.Subsets {
		p := validation.NewPath("subsets").Index(i)
		for j, a := range ss.Addresses {
			out = append(out, svcIPWarnings(p.Child("addresses").Index(j).Child("ip"), a.IP)...)
		}
		for j, a := range ss.NotReadyAddresses {
			out = append(out, svcIPWarnings(p.Child("notReadyAddresses").Index(j).Child("ip"), a.IP)...)
		}
	}
	return out
}
