package strategies

import (
	"context"

	rbacv1 "github.com/apikit-dev/apikit/builtin/rbac/v1"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// RBAC returns kube-apiserver's rules on writes of the RBAC kinds, for
// rest.Options.Strategies. Its validation: rules name verbs and either resources (with
// api groups) or non-resource URLs, never both, and the latter only in ClusterRoles;
// bindings refer to a Role or ClusterRole of rbac.authorization.k8s.io and never change
// that reference; subjects are Users, Groups or ServiceAccounts; no
// metadata.generation, as kube's RBAC strategies set none. Its escalation checks
// (AuthorizeCreate and AuthorizeUpdate, on every create, update, patch and apply): a
// user grants only permissions the Handler's Authorizer allows the user, unless the
// user is in system:masters or allowed the verb escalate on the Role or ClusterRole
// written, or bind on the role a binding refers to; an aggregationRule takes every
// permission. The refusals are kube's 403 Forbidden, word for word (`user "carol"
// (groups=[...]) is attempting to grant RBAC permissions not currently held:` and the
// rules missing). Builtin includes them.
func RBAC() map[scheme.GroupResource]rest.Strategy {
	return map[scheme.GroupResource]rest.Strategy{
		rbacv1.Roles: withoutGeneration(rest.StrategyFor[*rbacv1.Role]{
			Validate:       func(_ context.Context, r *rbacv1.Role) validation.ErrorList { return validateRules(r.Rules, true) },
			ValidateUpdate: func(_ context.Context, r, _ *rbacv1.Role) validation.ErrorList { return validateRules(r.Rules, true) },
			AuthorizeCreate: func(ctx context.Context, r *rbacv1.Role) error {
				return authorizeRoleWrite(ctx, r.Namespace, r.Rules, false)
			},
			AuthorizeUpdate: func(ctx context.Context, r, old *rbacv1.Role) error {
				if onlyGCFieldsChanged(r, old) {
					return nil
				}
				return authorizeRoleWrite(ctx, r.Namespace, r.Rules, false)
			},
		}),
		rbacv1.ClusterRoles: withoutGeneration(rest.StrategyFor[*rbacv1.ClusterRole]{
			Validate: func(_ context.Context, r *rbacv1.ClusterRole) validation.ErrorList {
				return validateRules(r.Rules, false)
			},
			ValidateUpdate: func(_ context.Context, r, _ *rbacv1.ClusterRole) validation.ErrorList {
				return validateRules(r.Rules, false)
			},
			AuthorizeCreate: func(ctx context.Context, r *rbacv1.ClusterRole) error {
				return authorizeRoleWrite(ctx, "", r.Rules, hasAggregationRule(r))
			},
			AuthorizeUpdate: func(ctx context.Context, r, old *rbacv1.ClusterRole) error {
				if onlyGCFieldsChanged(r, old) {
					return nil
				}
				return authorizeRoleWrite(ctx, "", r.Rules, hasAggregationRule(r) || hasAggregationRule(old))
			},
		}),
		rbacv1.RoleBindings: withoutGeneration(rest.StrategyFor[*rbacv1.RoleBinding]{
			Validate: func(_ context.Context, b *rbacv1.RoleBinding) validation.ErrorList {
				return validateBinding(b.RoleRef, b.Subjects, true)
			},
			ValidateUpdate: func(_ context.Context, b, old *rbacv1.RoleBinding) validation.ErrorList {
				return append(validateBinding(b.RoleRef, b.Subjects, true), validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
			},
			AuthorizeCreate: func(ctx context.Context, b *rbacv1.RoleBinding) error {
				return authorizeBindingWrite(ctx, b.Namespace, b.RoleRef)
			},
			AuthorizeUpdate: func(ctx context.Context, b, old *rbacv1.RoleBinding) error {
				if onlyGCFieldsChanged(b, old) {
					return nil
				}
				return authorizeBindingWrite(ctx, b.Namespace, b.RoleRef)
			},
		}),
		rbacv1.ClusterRoleBindings: withoutGeneration(rest.StrategyFor[*rbacv1.ClusterRoleBinding]{
			Validate: func(_ context.Context, b *rbacv1.ClusterRoleBinding) validation.ErrorList {
				return validateBinding(b.RoleRef, b.Subjects, false)
			},
			ValidateUpdate: func(_ context.Context, b, old *rbacv1.ClusterRoleBinding) validation.ErrorList {
				return append(validateBinding(b.RoleRef, b.Subjects, false), validateRoleRefUnchanged(b.RoleRef, old.RoleRef)...)
			},
			AuthorizeCreate: func(ctx context.Context, b *rbacv1.ClusterRoleBinding) error {
				return authorizeBindingWrite(ctx, "", b.RoleRef)
			},
			AuthorizeUpdate: func(ctx context.Context, b, old *rbacv1.ClusterRoleBinding) error {
				if onlyGCFieldsChanged(b, old) {
					return nil
				}
				return authorizeBindingWrite(ctx, "", b.RoleRef)
			},
		}),
	}
}

// validateRules is kube's validatePolicyRule over rules, word for word.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) validation.ErrorList {
	var errs validation.ErrorList
	for i, rule := range rules {
		p := validation.NewPath("rules").Index(i)
		if len(rule.Verbs) == 0 {
			errs = append(errs, validation.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(rule.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, validation.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
				errs = append(errs, validation.Invalid(p.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(rule.APIGroups) == 0 {
			errs = append(errs, validation.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(rule.Resources) == 0 {
			errs = append(errs, validation.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
		if len(rule.ResourceNames) > 0 && len(rule.Resources) > 1 {
			errs = append(errs, validation.Required(p.Child("resourceNames"), "resource names cannot apply to multiple resources"))
		}
	}
	return errs
}

// validateBinding is kube's ValidateRoleBinding and ValidateClusterRoleBinding without
// the metadata checks, which the REST handler makes.
func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, namespaced bool) validation.ErrorList {
	var errs validation.ErrorList
	if ref.APIGroup != rbacv1.SchemeGroupVersion.Group {
		errs = append(errs, validation.NotSupported(validation.NewPath("roleRef", "apiGroup"), ref.APIGroup, []string{rbacv1.SchemeGroupVersion.Group}))
	}
	kinds := []string{rbacv1.ClusterRoleKind}
	if namespaced {
		kinds = []string{rbacv1.RoleKind, rbacv1.ClusterRoleKind}
	}
	if ref.Kind != rbacv1.ClusterRoleKind && (!namespaced || ref.Kind != rbacv1.RoleKind) {
		errs = append(errs, validation.NotSupported(validation.NewPath("roleRef", "kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, validation.Required(validation.NewPath("roleRef", "name"), ""))
	} else {
		for _, msg := range validation.NameIsPathSegment(ref.Name, false) {
			errs = append(errs, validation.Invalid(validation.NewPath("roleRef", "name"), ref.Name, msg))
		}
	}
	for i, s := range subjects {
		errs = append(errs, validateSubject(s, namespaced, validation.NewPath("subjects").Index(i))...)
	}
	return errs
}

// validateSubject is kube's validateRoleBindingSubject.
func validateSubject(s rbacv1.Subject, namespaced bool, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.Name == "" {
		errs = append(errs, validation.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range validation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, validation.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, validation.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, validation.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.Name == "" {
			errs = append(errs, validation.Invalid(p.Child("name"), s.Name, map[string]string{rbacv1.UserKind: "user", rbacv1.GroupKind: "group"}[s.Kind]+" name cannot be empty"))
		}
		if s.APIGroup != rbacv1.SchemeGroupVersion.Group {
			errs = append(errs, validation.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.SchemeGroupVersion.Group}))
		}
	default:
		errs = append(errs, validation.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}

// validateRoleRefUnchanged is kube's rule that a binding's roleRef never changes: a
// binding to another role is a new binding.
func validateRoleRefUnchanged(ref, old rbacv1.RoleRef) validation.ErrorList {
	if ref == old {
		return nil
	}
	return validation.ErrorList{validation.Invalid(validation.NewPath("roleRef"), ref, "cannot change roleRef")}
}
