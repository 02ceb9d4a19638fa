package strategies

import (
	"context"
	"regexp"
	"strings"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/validation"
)

// ingressClassStrategy is kube-apiserver v1.37.2's write rules of IngressClasses
// (pkg/registry/networking/ingressclass): generation 1 on create and bumped when the
// spec changes, kube's ValidateIngressClass and, on update, an immutable controller.
func ingressClassStrategy() registry.StrategyFor[*networkingv1.IngressClass] {
	return registry.StrategyFor[*networkingv1.IngressClass]{
		PrepareForCreate: func(_ context.Context, c *networkingv1.IngressClass) { c.Generation = 1 },
		PrepareForUpdate: func(_ context.Context, c, old *networkingv1.IngressClass) {
			bumpGenerationUnless(&c.ObjectMeta, &old.ObjectMeta, semanticEqual(c.Spec, old.Spec))
		},
		Validate: func(_ context.Context, c *networkingv1.IngressClass) validation.ErrorList {
			return validateIngressClass(c)
		},
		ValidateUpdate: func(_ context.Context, c, old *networkingv1.IngressClass) validation.ErrorList {
			errs := immutableField(c.Spec.Controller, old.Spec.Controller, validation.NewPath("spec", "controller"))
			return append(errs, validateIngressClass(c)...)
		},
	}
}

// maxIngressClassControllerLength is kube's maxLenIngressClassController.
const maxIngressClassControllerLength = 250

func validateIngressClass(c *networkingv1.IngressClass) validation.ErrorList {
	errs := validation.ValidateObjectMeta(c, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	p := validation.NewPath("spec")
	if len(c.Spec.Controller) > maxIngressClassControllerLength {
		// kube passes no value: its TooLong message leaves it out.
		errs = append(errs, validation.TooLong(p.Child("controller"), "", maxIngressClassControllerLength))
	}
	errs = append(errs, validateDomainPrefixedPath(p.Child("controller"), c.Spec.Controller)...)
	return append(errs, validateIngressClassParameters(c.Spec.Parameters, p.Child("parameters"))...)
}

// httpPathPattern is apimachinery's httpPathFmt, the path of a domain-prefixed path.
const httpPathPattern = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`

var httpPath = regexp.MustCompile("^" + httpPathPattern + "$")

// validateDomainPrefixedPath is apimachinery's IsDomainPrefixedPath ("acme.io/foo").
func validateDomainPrefixedPath(p *validation.Path, v string) validation.ErrorList {
	if v == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	host, path, found := strings.Cut(v, "/")
	if !found || host == "" || path == "" {
		return validation.ErrorList{validation.Invalid(p, v, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	var errs validation.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(host) {
		errs = append(errs, validation.Invalid(p, host, msg))
	}
	if !httpPath.MatchString(path) {
		return append(errs, validation.Invalid(p, path, "Invalid path (regex used for validation is '"+httpPathPattern+"')"))
	}
	return errs
}

// validateIngressClassParameters is kube's validateIngressClassParametersReference:
// apiGroup a DNS subdomain, kind and name path segments, and a scope of Cluster (no
// namespace) or Namespace (with one).
func validateIngressClassParameters(params *networkingv1.IngressClassParametersReference, p *validation.Path) validation.ErrorList {
	if params == nil {
		return nil
	}
	var errs validation.ErrorList
	if params.APIGroup != nil {
		errs = append(errs, validateDNS1123Subdomain(*params.APIGroup, p.Child("apiGroup"))...)
	}
	errs = append(errs, requiredPathSegment(params.Kind, p.Child("kind"))...)
	errs = append(errs, requiredPathSegment(params.Name, p.Child("name"))...)
	if params.Scope == nil {
		return append(errs, validation.Required(p.Child("scope"), ""))
	}
	switch scope := *params.Scope; scope {
	case ingressClassScopeNamespace:
		if params.Namespace == nil {
			errs = append(errs, validation.Required(p.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			for _, msg := range validation.NameIsDNSLabel(*params.Namespace, false) {
				errs = append(errs, validation.Invalid(p.Child("namespace"), *params.Namespace, msg))
			}
		}
	case ingressClassScopeCluster:
		if params.Namespace != nil {
			errs = append(errs, validation.Forbidden(p.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, validation.NotSupported(p.Child("scope"), scope, []string{ingressClassScopeCluster, ingressClassScopeNamespace}))
	}
	return errs
}

// The scopes of an IngressClass's parameters (k8s.io/api's
// IngressClassParametersReferenceScope*).
const (
	ingressClassScopeCluster   = "Cluster"
	ingressClassScopeNamespace = "Namespace"
)

// requiredPathSegment is kube's check of a reference's kind or name: required, and a
// path segment name.
func requiredPathSegment(v string, p *validation.Path) validation.ErrorList {
	if v == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	var errs validation.ErrorList
	for _, msg := range validation.IsPathSegmentName(v) {
		errs = append(errs, validation.Invalid(p, v, msg))
	}
	return errs
}
