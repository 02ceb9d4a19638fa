package strategies

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// admissionPolicyStrategies are kube-apiserver v1.37.2's write rules of the admission
// policies and their bindings (pkg/registry/admissionregistration/*admissionpolicy*):
// generation 1 on create and bumped when the spec changes, no unconditional update, a
// ValidatingAdmissionPolicy's status dropped on create and kept on update, and kube's
// validation of their structure. CEL expressions are checked for presence, not compiled
// (apikit's CEL module plugs into schema validation only), and the authorizer check of
// a policy's paramKind is not made.
func admissionPolicyStrategies() map[scheme.GroupResource]registry.Strategy {
	type vap = admissionregistrationv1.ValidatingAdmissionPolicy
	type vapb = admissionregistrationv1.ValidatingAdmissionPolicyBinding
	type map_ = admissionregistrationv1.MutatingAdmissionPolicy
	type mapb = admissionregistrationv1.MutatingAdmissionPolicyBinding
	return map[scheme.GroupResource]registry.Strategy{
		admissionregistrationv1.ValidatingAdmissionPolicies: registry.StrategyFor[*vap]{
			RequireResourceVersion: true,
			PrepareForCreate: func(_ context.Context, p *vap) {
				p.Status = admissionregistrationv1.ValidatingAdmissionPolicyStatus{}
				p.Generation = 1
			},
			PrepareForUpdate: func(_ context.Context, p, old *vap) {
				p.Status = old.Status
				bumpGenerationUnless(&p.ObjectMeta, &old.ObjectMeta, semanticEqual(p.Spec, old.Spec))
			},
			Validate: func(_ context.Context, p *vap) validation.ErrorList {
				return append(validateValidatingAdmissionPolicy(p), validateStaticSuffix(p.Name)...)
			},
			ValidateUpdate:   func(_ context.Context, p, _ *vap) validation.ErrorList { return validateValidatingAdmissionPolicy(p) },
			WarningsOnUpdate: func(_ context.Context, p, _ *vap) []string { return staticSuffixWarnings(p.Name) },
		},
		admissionregistrationv1.ValidatingAdmissionPolicyBindings: registry.StrategyFor[*vapb]{
			RequireResourceVersion: true,
			PrepareForCreate:       func(_ context.Context, b *vapb) { b.Generation = 1 },
			PrepareForUpdate: func(_ context.Context, b, old *vapb) {
				bumpGenerationUnless(&b.ObjectMeta, &old.ObjectMeta, semanticEqual(b.Spec, old.Spec))
			},
			Validate: func(_ context.Context, b *vapb) validation.ErrorList {
				return append(validateValidatingAdmissionPolicyBinding(b), validateStaticSuffix(b.Name)...)
			},
			ValidateUpdate: func(_ context.Context, b, _ *vapb) validation.ErrorList {
				return validateValidatingAdmissionPolicyBinding(b)
			},
			WarningsOnUpdate: func(_ context.Context, b, _ *vapb) []string { return staticSuffixWarnings(b.Name) },
		},
		admissionregistrationv1.MutatingAdmissionPolicies: registry.StrategyFor[*map_]{
			RequireResourceVersion: true,
			PrepareForCreate:       func(_ context.Context, p *map_) { p.Generation = 1 },
			PrepareForUpdate: func(_ context.Context, p, old *map_) {
				bumpGenerationUnless(&p.ObjectMeta, &old.ObjectMeta, semanticEqual(p.Spec, old.Spec))
			},
			Validate: func(_ context.Context, p *map_) validation.ErrorList {
				return append(validateMutatingAdmissionPolicy(p), validateStaticSuffix(p.Name)...)
			},
			ValidateUpdate:   func(_ context.Context, p, _ *map_) validation.ErrorList { return validateMutatingAdmissionPolicy(p) },
			WarningsOnUpdate: func(_ context.Context, p, _ *map_) []string { return staticSuffixWarnings(p.Name) },
		},
		admissionregistrationv1.MutatingAdmissionPolicyBindings: registry.StrategyFor[*mapb]{
			RequireResourceVersion: true,
			PrepareForCreate:       func(_ context.Context, b *mapb) { b.Generation = 1 },
			PrepareForUpdate: func(_ context.Context, b, old *mapb) {
				bumpGenerationUnless(&b.ObjectMeta, &old.ObjectMeta, semanticEqual(b.Spec, old.Spec))
			},
			Validate: func(_ context.Context, b *mapb) validation.ErrorList {
				return append(validateMutatingAdmissionPolicyBinding(b), validateStaticSuffix(b.Name)...)
			},
			ValidateUpdate: func(_ context.Context, b, _ *mapb) validation.ErrorList {
				return validateMutatingAdmissionPolicyBinding(b)
			},
			WarningsOnUpdate: func(_ context.Context, b, _ *mapb) []string { return staticSuffixWarnings(b.Name) },
		},
	}
}

// The values kube accepts of a policy's fields, sorted as kube lists them.
var (
	supportedPolicyReasons           = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	supportedValidationActions       = []string{"Audit", "Deny", "Warn"}
	supportedMutatingOperations      = []string{"*", "CONNECT", "CREATE", "UPDATE"}
	supportedPatchTypes              = []string{"ApplyConfiguration", "JSONPatch"}
	supportedParameterNotFoundAction = []string{"Deny", "Allow"}
)

const (
	maxAuditAnnotations                     = 20
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

// validatePolicyCommon is what kube checks alike of a validating and a mutating policy's
// spec: failurePolicy, paramKind, matchConstraints with resource rules, and the match
// conditions.
func validatePolicyCommon(failurePolicy *admissionregistrationv1.FailurePolicyType, paramKind *admissionregistrationv1.ParamKind,
	constraints *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch {
	case failurePolicy == nil:
		errs = append(errs, validation.Required(p.Child("failurePolicy"), ""))
	case !slices.Contains(supportedFailurePolicies, string(*failurePolicy)):
		errs = append(errs, validation.NotSupported(p.Child("failurePolicy"), *failurePolicy, supportedFailurePolicies))
	}
	if paramKind != nil {
		errs = append(errs, validateParamKind(paramKind, p.Child("paramKind"))...)
	}
	if constraints == nil {
		errs = append(errs, validation.Required(p.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(constraints, p.Child("matchConstraints"))...)
		if len(constraints.ResourceRules) == 0 {
			errs = append(errs, validation.Required(p.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	return append(errs, validateMatchConditions(conditions, p.Child("matchConditions"))...)
}

// validatePolicyVariables is kube's validateVariable, CEL compilation aside: a name that
// is a CEL identifier and an expression.
func validatePolicyVariables(variables []admissionregistrationv1.Variable, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, v := range variables {
		vp := p.Index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, validation.Required(vp.Child("name"), "name is not specified"))
		} else if !isCELIdentifier(v.Name) {
			errs = append(errs, validation.Invalid(vp.Child("name"), v.Name, "must be a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, validation.Required(vp.Child("expression"), "expression is not specified"))
		}
	}
	return errs
}

// validateValidatingAdmissionPolicy is kube's validateValidatingAdmissionPolicy, CEL
// compilation aside.
func validateValidatingAdmissionPolicy(pol *admissionregistrationv1.ValidatingAdmissionPolicy) validation.ErrorList {
	errs := validation.ValidateObjectMeta(pol, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	spec, p := &pol.Spec, validation.NewPath("spec")
	errs = append(errs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, spec.MatchConditions, p)...)
	errs = append(errs, validatePolicyVariables(spec.Variables, p.Child("variables"))...)
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, validation.Required(p.Child("validations"), msg), validation.Required(p.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		errs = append(errs, validatePolicyValidation(&spec.Validations[i], p.Child("validations").Index(i))...)
	}
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, validation.Invalid(p.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range spec.AuditAnnotations {
		ap := p.Child("auditAnnotations").Index(i)
		if pol.Name != "" {
			errs = append(errs, validateQualifiedName(pol.Name+"/"+a.Key, ap.Child("key"))...)
		} else {
			errs = append(errs, validation.Invalid(ap.Child("key"), a.Key, "requires metadata.name be non-empty"))
		}
		switch v := strings.TrimSpace(a.ValueExpression); {
		case v == "":
			errs = append(errs, validation.Required(ap.Child("valueExpression"), "valueExpression is not specified"))
		case len(v) > maxAuditAnnotationValueExpressionLength:
			errs = append(errs, validation.Required(ap.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
		}
		if keys[a.Key] {
			errs = append(errs, validation.Duplicate(ap.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

var policyMessageNewlines = regexp.MustCompile(`[\n\r]+`)

// validatePolicyValidation is kube's validateValidation, CEL compilation aside.
func validatePolicyValidation(v *admissionregistrationv1.Validation, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, validation.Required(p.Child("expression"), "expression is not specified"))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, validation.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, validation.Invalid(p.Child("message"), v.Message, "must be non-empty if specified"))
	case policyMessageNewlines.MatchString(msg):
		errs = append(errs, validation.Invalid(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedPolicyReasons, string(*v.Reason)) {
		errs = append(errs, validation.NotSupported(p.Child("reason"), *v.Reason, supportedPolicyReasons))
	}
	return errs
}

// validateMutatingAdmissionPolicy is kube's validateMutatingAdmissionPolicy, CEL
// compilation aside.
func validateMutatingAdmissionPolicy(pol *admissionregistrationv1.MutatingAdmissionPolicy) validation.ErrorList {
	errs := validation.ValidateObjectMeta(pol, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	spec, p := &pol.Spec, validation.NewPath("spec")
	errs = append(errs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, nil, p)...)
	if spec.MatchConstraints != nil {
		errs = append(errs, validateMutatingOperations(spec.MatchConstraints, p.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	errs = append(errs, validateMatchConditions(spec.MatchConditions, p.Child("matchConditions"))...)
	errs = append(errs, validatePolicyVariables(spec.Variables, p.Child("variables"))...)
	if len(spec.Mutations) == 0 {
		errs = append(errs, validation.Required(p.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, validatePolicyMutation(&spec.Mutations[i], p.Child("mutations").Index(i))...)
	}
	switch {
	case spec.ReinvocationPolicy == "":
		errs = append(errs, validation.Required(p.Child("reinvocationPolicy"), ""))
	case !slices.Contains(supportedReinvocationPolicies, string(spec.ReinvocationPolicy)):
		errs = append(errs, validation.NotSupported(p.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocationPolicies))
	}
	return errs
}

// validateMutatingOperations refuses DELETE in a mutating policy's rules, at the one path
// kube reports it at.
func validateMutatingOperations(m *admissionregistrationv1.MatchResources, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, r := range m.ResourceRules {
		for _, op := range r.Operations {
			if !slices.Contains(supportedMutatingOperations, string(op)) {
				errs = append(errs, validation.NotSupported(p, op, supportedMutatingOperations))
			}
		}
	}
	return errs
}

// validatePolicyMutation is kube's validateMutation, CEL compilation aside.
func validatePolicyMutation(m *admissionregistrationv1.Mutation, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, validation.Required(p.Child("patchType"), ""))
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, validation.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else if strings.TrimSpace(m.JSONPatch.Expression) == "" {
			errs = append(errs, validation.Required(p.Child("jsonPatch", "expression"), ""))
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, validation.Invalid(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, validation.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else if strings.TrimSpace(m.ApplyConfiguration.Expression) == "" {
			errs = append(errs, validation.Required(p.Child("applyConfiguration", "expression"), ""))
		}
		if m.JSONPatch != nil {
			errs = append(errs, validation.Invalid(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, validation.NotSupported(p.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return errs
}

// validateParamKind is kube's validateParamKind: an apiVersion group/version (a DNS
// subdomain group, a DNS-1035 version) and a kind that is a DNS-1035 label lowercased.
func validateParamKind(k *admissionregistrationv1.ParamKind, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	vp := p.Child("apiVersion")
	switch {
	case k.APIVersion == "":
		errs = append(errs, validation.Required(vp, ""))
	case strings.Count(k.APIVersion, "/") > 1:
		errs = append(errs, validation.Invalid(vp, k.APIVersion, "unexpected GroupVersion string: "+k.APIVersion))
	default:
		group, version, found := strings.Cut(k.APIVersion, "/")
		if !found {
			group, version = "", k.APIVersion
		}
		if k.APIVersion == "/" {
			group, version = "", ""
		}
		if group != "" {
			if msgs := validation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, validation.Invalid(vp, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, validation.Invalid(vp, k.APIVersion, "version must be specified"))
		} else if msgs := validation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, validation.Invalid(vp, version, strings.Join(msgs, ",")))
		}
	}
	if k.Kind == "" {
		errs = append(errs, validation.Required(p.Child("kind"), ""))
	} else if msgs := validation.IsDNS1035Label(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, validation.Invalid(p.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateMatchResources is kube's: a match policy and both selectors (the defaults set
// them), selectors validated strictly, and each resource rule.
func validateMatchResources(m *admissionregistrationv1.MatchResources, p *validation.Path) validation.ErrorList {
	if m == nil {
		return nil
	}
	var errs validation.ErrorList
	switch {
	case m.MatchPolicy == nil:
		errs = append(errs, validation.Required(p.Child("matchPolicy"), ""))
	case !slices.Contains(supportedMatchPolicies, string(*m.MatchPolicy)):
		errs = append(errs, validation.NotSupported(p.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, validation.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(m.NamespaceSelector, false, p.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, validation.Required(p.Child("objectSelector"), ""))
	} else {
		errs = append(errs, validateLabelSelector(m.ObjectSelector, false, p.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule is kube's validateNamedRuleWithOperations: resource names that are
// path segments, each once, and the rule.
func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		for _, msg := range validation.IsPathSegmentName(name) {
			errs = append(errs, validation.Invalid(p.Child("resourceNames").Index(i), name, msg))
		}
		if seen[name] {
			errs = append(errs, validation.Duplicate(p.Child("resourceNames").Index(i), name))
		}
		seen[name] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, supportedWebhookOperations, p)...)
}

// validateBindingCommon is what kube checks alike of both bindings: a policy name that
// is a DNS subdomain, the paramRef and the matchResources.
func validateBindingCommon(meta *scheme.ObjectMeta, policyName string, ref *admissionregistrationv1.ParamRef,
	match *admissionregistrationv1.MatchResources, p *validation.Path) validation.ErrorList {
	errs := validation.ValidateObjectMeta(meta, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	if policyName == "" {
		errs = append(errs, validation.Required(p.Child("policyName"), ""))
	} else {
		for _, msg := range validation.NameIsDNSSubdomain(policyName, false) {
			errs = append(errs, validation.Invalid(p.Child("policyName"), policyName, msg))
		}
	}
	errs = append(errs, validateParamRef(ref, p.Child("paramRef"))...)
	return append(errs, validateMatchResources(match, p.Child("matchResources"))...)
}

// validateValidatingAdmissionPolicyBinding is kube's: the common checks and the
// validation actions.
func validateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) validation.ErrorList {
	p := validation.NewPath("spec")
	errs := validateBindingCommon(&b.ObjectMeta, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources, p)
	return append(errs, validateValidationActions(b.Spec.ValidationActions, p.Child("validationActions"))...)
}

// validateMutatingAdmissionPolicyBinding is kube's: the common checks and no DELETE in
// the rules.
func validateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) validation.ErrorList {
	p := validation.NewPath("spec")
	errs := validateBindingCommon(&b.ObjectMeta, b.Spec.PolicyName, b.Spec.ParamRef, b.Spec.MatchResources, p)
	if b.Spec.MatchResources != nil {
		errs = append(errs, validateMutatingOperations(b.Spec.MatchResources, p.Child("matchResources", "resourceRules", "operations"))...)
	}
	return errs
}

// validateParamRef is kube's: name or selector (not both), and parameterNotFoundAction
// Deny or Allow.
func validateParamRef(r *admissionregistrationv1.ParamRef, p *validation.Path) validation.ErrorList {
	if r == nil {
		return nil
	}
	var errs validation.ErrorList
	const exclusive = "name and selector are mutually exclusive"
	if r.Name != "" {
		for _, msg := range validation.IsPathSegmentName(r.Name) {
			errs = append(errs, validation.Invalid(p.Child("name"), r.Name, msg))
		}
		if r.Selector != nil {
			errs = append(errs, validation.Forbidden(p.Child("name"), exclusive))
		}
	}
	if r.Selector != nil {
		errs = append(errs, validateLabelSelector(r.Selector, false, p.Child("selector"))...)
		if r.Name != "" {
			errs = append(errs, validation.Forbidden(p.Child("selector"), exclusive))
		}
	}
	if r.Name == "" && r.Selector == nil {
		errs = append(errs, validation.Required(p, "one of name or selector must be specified"))
	}
	switch {
	case r.ParameterNotFoundAction == nil || *r.ParameterNotFoundAction == "":
		errs = append(errs, validation.Required(p.Child("parameterNotFoundAction"), ""))
	case !slices.Contains(supportedParameterNotFoundAction, string(*r.ParameterNotFoundAction)):
		errs = append(errs, validation.NotSupported(p.Child("parameterNotFoundAction"), *r.ParameterNotFoundAction, supportedParameterNotFoundAction))
	}
	return errs
}

// validateValidationActions is kube's: each of Deny, Warn, Audit once, not Deny with
// Warn, at least one.
func validateValidationActions(actions []admissionregistrationv1.ValidationAction, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(supportedValidationActions, string(a)) {
			errs = append(errs, validation.NotSupported(p.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			errs = append(errs, validation.Duplicate(p.Index(i), a))
		}
		seen[a] = true
	}
	if seen["Deny"] && seen["Warn"] {
		errs = append(errs, validation.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		// kube's declarative validation covers this one and reports it without a detail.
		errs = append(errs, validation.Required(p, ""))
	}
	return errs
}

var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// celReserved are CEL's reserved words, which are no identifiers.
var celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else",
	"for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}

// isCELIdentifier is kube's: an identifier of CEL's grammar that is not reserved.
func isCELIdentifier(name string) bool {
	return celIdentifier.MatchString(name) && !slices.Contains(celReserved, name)
}
