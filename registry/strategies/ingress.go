package strategies

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Networking returns kube-apiserver v1.37.2's write rules of the networking.k8s.io/v1
// kinds: Ingresses (with their status subresource), IngressClasses and NetworkPolicies.
func Networking() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		networkingv1.Ingresses:       ingressStrategy(),
		networkingv1.IngressClasses:  ingressClassStrategy(),
		networkingv1.NetworkPolicies: networkPolicyStrategy(),
	}
}

// ingressClassAnnotation is the deprecated annotation that named an Ingress's class
// before spec.ingressClassName.
const ingressClassAnnotation = "kubernetes.io/ingress.class"

// ingressStrategy is kube-apiserver v1.37.2's write rules of Ingresses
// (pkg/registry/networking/ingress): status cleared on create and kept on update,
// generation 1 on create and bumped when the spec changes, kube's ValidateIngressCreate
// and ValidateIngressUpdate, the deprecated class annotation's warning, and the status
// subresource, which keeps the spec and validates the load-balancer status.
func ingressStrategy() registry.StrategyFor[*networkingv1.Ingress] {
	return registry.StrategyFor[*networkingv1.Ingress]{
		PrepareForCreate: func(_ context.Context, ing *networkingv1.Ingress) {
			ing.Status = networkingv1.IngressStatus{}
			ing.Generation = 1
		},
		PrepareForUpdate: func(_ context.Context, ing, old *networkingv1.Ingress) {
			ing.Status = old.Status
			bumpGenerationUnless(&ing.ObjectMeta, &old.ObjectMeta, semanticEqual(ing.Spec, old.Spec))
		},
		Validate: func(_ context.Context, ing *networkingv1.Ingress) validation.ErrorList {
			return validateIngressCreate(ing)
		},
		ValidateUpdate: func(_ context.Context, ing, old *networkingv1.Ingress) validation.ErrorList {
			opts := ingressOptions{
				allowInvalidSecretName:       ingressHasInvalidSecretName(old),
				allowInvalidWildcardHostRule: ingressHasInvalidWildcardRule(old),
			}
			return validateIngressSpec(&ing.Spec, validation.NewPath("spec"), opts)
		},
		WarningsOnCreate: func(_ context.Context, ing *networkingv1.Ingress) []string {
			if _, set := ing.Annotations[ingressClassAnnotation]; set && ing.Spec.IngressClassName == nil {
				return []string{fmt.Sprintf("annotation %q is deprecated, please use 'spec.ingressClassName' instead", ingressClassAnnotation)}
			}
			return nil
		},
		Status: &registry.StrategyFor[*networkingv1.Ingress]{
			PrepareForUpdate: func(_ context.Context, ing, old *networkingv1.Ingress) { ing.Spec = old.Spec },
			ValidateUpdate: func(_ context.Context, ing, old *networkingv1.Ingress) validation.ErrorList {
				return validateIngressLoadBalancerStatus(&ing.Status.LoadBalancer, &old.Status.LoadBalancer, validation.NewPath("status", "loadBalancer"))
			},
			WarningsOnUpdate: func(_ context.Context, ing, _ *networkingv1.Ingress) []string {
				var w []string
				p := validation.NewPath("status", "loadBalancer", "ingress")
				for i, in := range ing.Status.LoadBalancer.Ingress {
					if in.IP != "" {
						w = append(w, legacyIPWarnings(p.Index(i), in.IP)...)
					}
				}
				return w
			},
		},
	}
}

// ingressOptions are kube's IngressValidationOptions on an update: what the stored
// Ingress already had that today's rules refuse. (Its third option, a service name
// that is a DNS label rather than an RFC 1035 one, is always on in 1.37:
// RelaxedServiceNameValidation is GA and locked.)
type ingressOptions struct {
	allowInvalidSecretName       bool
	allowInvalidWildcardHostRule bool
}

// validateIngressCreate is kube's ValidateIngressCreate: metadata, the spec, and a
// class annotation that must agree with spec.ingressClassName.
func validateIngressCreate(ing *networkingv1.Ingress) validation.ErrorList {
	errs := validation.ValidateObjectMeta(ing, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	errs = append(errs, validateIngressSpec(&ing.Spec, validation.NewPath("spec"), ingressOptions{})...)
	if v, set := ing.Annotations[ingressClassAnnotation]; set && ing.Spec.IngressClassName != nil && v != *ing.Spec.IngressClassName {
		// kube's path starts at "annotations", not "metadata.annotations".
		errs = append(errs, validation.Invalid(validation.NewPath("annotations").Child(ingressClassAnnotation), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// validateIngressSpec is kube's ValidateIngressSpec.
func validateIngressSpec(spec *networkingv1.IngressSpec, p *validation.Path, opts ingressOptions) validation.ErrorList {
	var errs validation.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, validation.Invalid(p, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, p.Child("defaultBackend"))...)
	}
	errs = append(errs, validateIngressRules(spec.Rules, p.Child("rules"), opts)...)
	errs = append(errs, validateIngressTLS(spec.TLS, p.Child("tls"), opts)...)
	if spec.IngressClassName != nil {
		for _, msg := range validation.NameIsDNSSubdomain(*spec.IngressClassName, false) {
			errs = append(errs, validation.Invalid(p.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return errs
}

// validateIngressTLS is kube's validateIngressTLS: hosts DNS subdomains (or wildcard
// ones), a secret name a DNS subdomain unless the stored Ingress already had one that
// is not.
func validateIngressTLS(tls []networkingv1.IngressTLS, p *validation.Path, opts ingressOptions) validation.ErrorList {
	var errs validation.ErrorList
	for i, t := range tls {
		for j, host := range t.Hosts {
			hp := p.Index(i).Child("hosts").Index(j)
			msgs := validation.IsDNS1123Subdomain(host)
			if strings.Contains(host, "*") {
				msgs = isWildcardDNS1123Subdomain(host)
			}
			for _, msg := range msgs {
				errs = append(errs, validation.Invalid(hp, host, msg))
			}
		}
		if !opts.allowInvalidSecretName {
			for _, msg := range tlsSecretNameErrors(t.SecretName) {
				errs = append(errs, validation.Invalid(p.Index(i).Child("secretName"), t.SecretName, msg))
			}
		}
	}
	return errs
}

func tlsSecretNameErrors(name string) []string {
	if name == "" {
		return nil
	}
	return validation.NameIsDNSSubdomain(name, false)
}

// validateIngressRules is kube's validateIngressRules: a host is a DNS name (a wildcard
// one allowed), never an IP address, and each rule's paths are checked (not those of a
// wildcard rule the stored Ingress already had invalid).
func validateIngressRules(rules []networkingv1.IngressRule, p *validation.Path, opts ingressOptions) validation.ErrorList {
	var errs validation.ErrorList
	for i := range rules {
		r := &rules[i]
		wildcard := false
		if r.Host != "" {
			hp := p.Index(i).Child("host")
			if parseIPSloppy(r.Host) != nil {
				errs = append(errs, validation.Invalid(hp, r.Host, "must be a DNS name, not an IP address"))
			}
			msgs := validation.IsDNS1123Subdomain(r.Host)
			if strings.Contains(r.Host, "*") {
				msgs, wildcard = isWildcardDNS1123Subdomain(r.Host), true
			}
			for _, msg := range msgs {
				errs = append(errs, validation.Invalid(hp, r.Host, msg))
			}
		}
		if !wildcard || !opts.allowInvalidWildcardHostRule {
			errs = append(errs, validateIngressRuleValue(&r.IngressRuleValue, p.Index(i))...)
		}
	}
	return errs
}

func validateIngressRuleValue(v *networkingv1.IngressRuleValue, p *validation.Path) validation.ErrorList {
	if v.HTTP == nil {
		return nil
	}
	hp := p.Child("http")
	var errs validation.ErrorList
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, validation.Required(hp.Child("paths"), ""))
	}
	for i := range v.HTTP.Paths {
		errs = append(errs, validateHTTPIngressPath(&v.HTTP.Paths[i], hp.Child("paths").Index(i))...)
	}
	return errs
}

// The path types of an HTTPIngressPath (k8s.io/api's PathType*), in kube's sorted order.
const (
	pathTypeExact                  = "Exact"
	pathTypeImplementationSpecific = "ImplementationSpecific"
	pathTypePrefix                 = "Prefix"
)

var (
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

// validateHTTPIngressPath is kube's validateHTTPIngressPath: a pathType is required (v1
// has no default); Exact and Prefix paths are absolute and clean, an
// ImplementationSpecific one absolute when given; then the backend.
func validateHTTPIngressPath(path *networkingv1.HTTPIngressPath, p *validation.Path) validation.ErrorList {
	if path.PathType == nil {
		return validation.ErrorList{validation.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs validation.ErrorList
	pp := p.Child("path")
	switch t := string(*path.PathType); t {
	case pathTypeExact, pathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, validation.Invalid(pp, path.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, validation.Invalid(pp, path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range invalidPathSuffixes {
			if strings.HasSuffix(path.Path, suffix) {
				errs = append(errs, validation.Invalid(pp, path.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case pathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, validation.Invalid(pp, path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, validation.NotSupported(p.Child("pathType"), t, []string{pathTypeExact, pathTypeImplementationSpecific, pathTypePrefix}))
	}
	return append(errs, validateIngressBackend(&path.Backend, p.Child("backend"))...)
}

// validateIngressBackend is kube's validateIngressBackend: a resource or a service,
// not both; a service's name a DNS label and its port a name or a number, exactly one.
func validateIngressBackend(b *networkingv1.IngressBackend, p *validation.Path) validation.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return validation.ErrorList{validation.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		r := b.Resource
		rp := p.Child("resource")
		var errs validation.ErrorList
		if r.APIGroup != nil {
			errs = append(errs, validateDNS1123Subdomain(*r.APIGroup, rp.Child("apiGroup"))...)
		}
		errs = append(errs, requiredPathSegment(r.Kind, rp.Child("kind"))...)
		return append(errs, requiredPathSegment(r.Name, rp.Child("name"))...)
	case b.Service != nil:
		s := b.Service
		var errs validation.ErrorList
		if s.Name == "" {
			errs = append(errs, validation.Required(p.Child("service", "name"), ""))
		} else {
			for _, msg := range validation.NameIsDNSLabel(s.Name, false) {
				errs = append(errs, validation.Invalid(p.Child("service", "name"), s.Name, msg))
			}
		}
		switch hasName, hasNumber := s.Port.Name != "", s.Port.Number != 0; {
		case hasName && hasNumber:
			errs = append(errs, validation.Invalid(p, "", "cannot set both port name & port number"))
		case hasName:
			for _, msg := range isValidPortName(s.Port.Name) {
				errs = append(errs, validation.Invalid(p.Child("service", "port", "name"), s.Port.Name, msg))
			}
		case hasNumber:
			if n := s.Port.Number; n < 1 || n > 65535 {
				errs = append(errs, validation.Invalid(p.Child("service", "port", "number"), int64(n), portRangeError))
			}
		default:
			errs = append(errs, validation.Required(p, "port name or number is required"))
		}
		return errs
	}
	return validation.ErrorList{validation.Invalid(p, "", "resource or service backend is required")}
}

// validateIngressLoadBalancerStatus is kube's ValidateIngressLoadBalancerStatus: each
// ingress point's IP a valid one (or one the stored status already had), its hostname
// a DNS name and not an IP address.
func validateIngressLoadBalancerStatus(s, old *networkingv1.IngressLoadBalancerStatus, p *validation.Path) validation.ErrorList {
	var oldIPs []string
	for _, in := range old.Ingress {
		if in.IP != "" {
			oldIPs = append(oldIPs, in.IP)
		}
	}
	var errs validation.ErrorList
	for i, in := range s.Ingress {
		ip := p.Child("ingress").Index(i)
		if in.IP != "" {
			errs = append(errs, validateLegacyIPAddress(ip.Child("ip"), in.IP, oldIPs)...)
		}
		if in.Hostname != "" {
			errs = append(errs, validateDNS1123Subdomain(in.Hostname, ip.Child("hostname"))...)
			if parseIPSloppy(in.Hostname) != nil {
				errs = append(errs, validation.Invalid(ip.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

// ingressHasInvalidSecretName is kube's allowInvalidSecretName: a TLS secret name of
// the stored Ingress that today's rules refuse.
func ingressHasInvalidSecretName(old *networkingv1.Ingress) bool {
	for _, t := range old.Spec.TLS {
		if len(tlsSecretNameErrors(t.SecretName)) > 0 {
			return true
		}
	}
	return false
}

// ingressHasInvalidWildcardRule is kube's allowInvalidWildcardHostRule: a wildcard-host
// rule of the stored Ingress whose paths today's rules refuse.
func ingressHasInvalidWildcardRule(old *networkingv1.Ingress) bool {
	for i := range old.Spec.Rules {
		r := &old.Spec.Rules[i]
		if strings.Contains(r.Host, "*") && len(validateIngressRuleValue(&r.IngressRuleValue, nil)) > 0 {
			return true
		}
	}
	return false
}

// wildcardDNS1123SubdomainPattern is apimachinery's wildcardDNS1123SubdomainFmt.
const wildcardDNS1123SubdomainPattern = `\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`

var wildcardDNS1123Subdomain = regexp.MustCompile("^" + wildcardDNS1123SubdomainPattern + "$")

// isWildcardDNS1123Subdomain is apimachinery's IsWildcardDNS1123Subdomain ("*.example.com").
func isWildcardDNS1123Subdomain(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !wildcardDNS1123Subdomain.MatchString(v) {
		errs = append(errs, "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '"+wildcardDNS1123SubdomainPattern+"')")
	}
	return errs
}
