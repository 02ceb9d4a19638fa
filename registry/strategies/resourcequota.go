package strategies

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Quotas returns kube-apiserver v1.37.2's write rules of core/v1 resourcequotas and
// limitranges (pkg/registry/core/{resourcequota,limitrange} and ValidateResourceQuota,
// ValidateLimitRange): a quota's status is reset on create and kept on update, its
// status subresource keeps the spec; resource names, quantities, scopes and scope
// selectors as kube checks them; a limit range's items with their min <= default
// request <= default <= max rules; no generation on either kind.
func Quotas() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		corev1.ResourceQuotasResource: withoutGeneration(registry.StrategyFor[*corev1.ResourceQuota]{
			PrepareForCreate: func(_ context.Context, q *corev1.ResourceQuota) { q.Status = corev1.ResourceQuotaStatus{} },
			PrepareForUpdate: func(_ context.Context, q, old *corev1.ResourceQuota) { q.Status = old.Status },
			Validate: func(_ context.Context, q *corev1.ResourceQuota) validation.ErrorList {
				errs := validation.ValidateObjectMeta(q, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
				errs = append(errs, validateResourceQuotaSpec(&q.Spec, validation.NewPath("spec"))...)
				return uniqueErrors(append(errs, validateResourceQuotaStatus(&q.Status, validation.NewPath("status"))...))
			},
			ValidateUpdate: func(_ context.Context, q, old *corev1.ResourceQuota) validation.ErrorList {
				errs := validateResourceQuotaSpec(&q.Spec, validation.NewPath("spec"))
				if !sameScopes(q.Spec.Scopes, old.Spec.Scopes) {
					errs = append(errs, validation.Invalid(validation.NewPath("spec", "scopes"), q.Spec.Scopes, "field is immutable"))
				}
				return uniqueErrors(errs)
			},
			WarningsOnCreate: func(_ context.Context, q *corev1.ResourceQuota) []string { return quotaWarnings(q) },
			Status: &registry.StrategyFor[*corev1.ResourceQuota]{
				PrepareForUpdate: func(_ context.Context, q, old *corev1.ResourceQuota) { q.Spec = old.Spec },
				ValidateUpdate: func(_ context.Context, q, _ *corev1.ResourceQuota) validation.ErrorList {
					var errs validation.ErrorList
					if q.ResourceVersion == "" {
						errs = append(errs, validation.Required(validation.NewPath("resourceVersion"), ""))
					}
					return append(errs, validateResourceQuotaStatus(&q.Status, validation.NewPath("status"))...)
				},
			},
		}),
		corev1.LimitRanges: withoutGeneration(registry.StrategyFor[*corev1.LimitRange]{
			// kube's limitrange strategy names a limit range created without a name
			// (and without generateName) with a new UUID.
			PrepareForCreate: func(_ context.Context, lr *corev1.LimitRange) {
				if lr.Name == "" && lr.GenerateName == "" {
					lr.Name = string(scheme.NewUID())
				}
			},
			Validate: func(_ context.Context, lr *corev1.LimitRange) validation.ErrorList {
				errs := validation.ValidateObjectMeta(lr, true, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
				return append(errs, validateLimitRangeSpec(&lr.Spec)...)
			},
			ValidateUpdate: func(_ context.Context, lr, _ *corev1.LimitRange) validation.ErrorList {
				return validateLimitRangeSpec(&lr.Spec)
			},
		}),
	}
}

// The quota resource names kube knows (helper.standardQuotaResources).
var standardQuotaResources = []corev1.ResourceName{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
	"resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps",
	"services.nodeports", "services.loadbalancers"}

// isStandardQuotaResourceName is helper.IsStandardQuotaResourceName.
func isStandardQuotaResourceName(n corev1.ResourceName) bool {
	return slices.Contains(standardQuotaResources, n) || strings.HasPrefix(string(n), "hugepages-") || strings.HasPrefix(string(n), "requests.hugepages-")
}

// isInvalidQuotaResource is kube's detail for a domainless name quota does not track.
const isInvalidQuotaResource = "must be a standard resource for quota"

// validateQuotaResourceName is ValidateResourceQuotaResourceName.
func validateQuotaResourceName(n corev1.ResourceName, p *validation.Path) validation.ErrorList {
	errs := validateResourceName(n, p)
	if !strings.Contains(string(n), "/") && !isStandardQuotaResourceName(n) {
		errs = append(errs, validation.Invalid(p, string(n), isInvalidQuotaResource))
	}
	return errs
}

// validateQuotaResources checks each name and quantity of a hard or used list, in name
// order.
func validateQuotaResources(l corev1.ResourceList, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, n := range sortedResourceNames(l) {
		errs = append(errs, validateQuotaResourceName(n, p.Key(string(n)))...)
		errs = append(errs, validateResourceQuantityValue(n, l[n], p.Key(string(n)))...)
	}
	return errs
}

func validateResourceQuotaStatus(s *corev1.ResourceQuotaStatus, p *validation.Path) validation.ErrorList {
	errs := validateQuotaResources(s.Hard, p.Child("hard"))
	return append(errs, validateQuotaResources(s.Used, p.Child("used"))...)
}

func validateResourceQuotaSpec(spec *corev1.ResourceQuotaSpec, p *validation.Path) validation.ErrorList {
	errs := validateQuotaResources(spec.Hard, p.Child("hard"))
	errs = append(errs, validateQuotaScopes(spec, p)...)
	if spec.ScopeSelector != nil {
		errs = append(errs, validateQuotaScopeSelector(spec, p.Child("scopeSelector"))...)
	}
	return errs
}

// isStandardQuotaScope is helper.IsStandardResourceQuotaScope.
func isStandardQuotaScope(s corev1.ResourceQuotaScope) bool {
	switch s {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeBestEffort,
		corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeVolumeAttributesClass,
		corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return true
	}
	return false
}

// quotaScopeValidFor is helper.IsResourceQuotaScopeValidForResource: the pod scopes
// track pods and their compute resources (BestEffort only the count), the
// VolumeAttributesClass scope claims and their storage.
func quotaScopeValidFor(s corev1.ResourceQuotaScope, n corev1.ResourceName) bool {
	podCompute := []corev1.ResourceName{"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
	switch s {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return n == corev1.ResourcePods || slices.Contains(podCompute, n)
	case corev1.ResourceQuotaScopeBestEffort:
		return n == corev1.ResourcePods
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return n == corev1.ResourcePersistentVolumeClaims || n == corev1.ResourceRequestsStorage
	}
	return true
}

// validateQuotaScopes is validateResourceQuotaScopes; each error names the whole
// scopes list, as kube's does, and conflicting pairs give one error each.
func validateQuotaScopes(spec *corev1.ResourceQuotaSpec, p *validation.Path) validation.ErrorList {
	if len(spec.Scopes) == 0 {
		return nil
	}
	var errs validation.ErrorList
	fp := p.Child("scopes")
	hard := sortedResourceNames(spec.Hard)
	for _, s := range spec.Scopes {
		if !isStandardQuotaScope(s) {
			errs = append(errs, validation.Invalid(fp, spec.Scopes, "unsupported scope"))
		}
		for _, n := range hard {
			if isStandardQuotaResourceName(n) && !quotaScopeValidFor(s, n) {
				errs = append(errs, validation.Invalid(fp, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
	}
	errs = append(errs, conflictErrors(func(s corev1.ResourceQuotaScope) bool { return slices.Contains(spec.Scopes, s) }, fp, spec.Scopes)...)
	return errs
}

// conflictErrors is one "conflicting scopes" error per conflicting pair.
func conflictErrors(has func(corev1.ResourceQuotaScope) bool, p *validation.Path, scopes []corev1.ResourceQuotaScope) validation.ErrorList {
	var errs validation.ErrorList
	if has(corev1.ResourceQuotaScopeBestEffort) && has(corev1.ResourceQuotaScopeNotBestEffort) {
		errs = append(errs, validation.Invalid(p, scopes, "conflicting scopes"))
	}
	if has(corev1.ResourceQuotaScopeTerminating) && has(corev1.ResourceQuotaScopeNotTerminating) {
		errs = append(errs, validation.Invalid(p, scopes, "conflicting scopes"))
	}
	return errs
}

// validateQuotaScopeSelector is validateScopedResourceSelectorRequirement. kube names
// the spec's scopes list (not the selector's) in its conflicting-scopes error.
func validateQuotaScopeSelector(spec *corev1.ResourceQuotaSpec, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	fp := p.Child("matchExpressions")
	hard := sortedResourceNames(spec.Hard)
	var seen []corev1.ResourceQuotaScope
	for _, req := range spec.ScopeSelector.MatchExpressions {
		if !isStandardQuotaScope(req.ScopeName) {
			errs = append(errs, validation.Invalid(fp.Child("scopeName"), string(req.ScopeName), "unsupported scope"))
		}
		for _, n := range hard {
			if isStandardQuotaResourceName(n) && !quotaScopeValidFor(req.ScopeName, n) {
				// kube renders its internal ScopeSelector, which has no json tags.
				errs = append(errs, validation.Invalid(fp, badStruct(*spec.ScopeSelector), "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeTerminating,
			corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != corev1.ScopeSelectorOpExists {
				errs = append(errs, validation.Invalid(fp.Child("operator"), string(req.Operator),
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, validation.Required(fp.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				errs = append(errs, validation.Invalid(fp.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, validation.Invalid(fp.Child("operator"), string(req.Operator), "not a valid selector operator"))
		}
		seen = append(seen, req.ScopeName)
	}
	errs = append(errs, conflictErrors(func(s corev1.ResourceQuotaScope) bool { return slices.Contains(seen, s) }, fp, spec.Scopes)...)
	return errs
}

// sameScopes compares two scope lists as sets, as ValidateResourceQuotaUpdate does.
func sameScopes(a, b []corev1.ResourceQuotaScope) bool {
	set := func(l []corev1.ResourceQuotaScope) map[corev1.ResourceQuotaScope]bool {
		m := make(map[corev1.ResourceQuotaScope]bool, len(l))
		for _, s := range l {
			m[s] = true
		}
		return m
	}
	return maps.Equal(set(a), set(b))
}

// quotaWarnings is the resourcequota strategy's WarningsOnCreate: a request above its
// limit for cpu, memory, storage or ephemeral-storage (cpu and memory also by their bare
// names).
func quotaWarnings(q *corev1.ResourceQuota) []string {
	var warnings []string
	for _, name := range []corev1.ResourceName{"cpu", "memory", "storage", "ephemeral-storage"} {
		reqName := "requests." + name
		req, reqOK := q.Spec.Hard[reqName]
		if !reqOK && (name == "cpu" || name == "memory") {
			if req, reqOK = q.Spec.Hard[name]; reqOK {
				reqName = name
			}
		}
		limName := "limits." + name
		lim, limOK := q.Spec.Hard[limName]
		if reqOK && limOK && req.Cmp(lim) > 0 {
			warnings = append(warnings, fmt.Sprintf("ResourceQuota %s (%s) should be less than %s (%s)", reqName, req.String(), limName, lim.String()))
		}
	}
	return warnings
}
