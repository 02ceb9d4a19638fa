package strategies

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// AdmissionRegistration returns kube-apiserver v1.37.2's write rules of the
// admissionregistration.k8s.io/v1 kinds: the webhook configurations
// (pkg/registry/admissionregistration/{validating,mutating}webhookconfiguration) and the
// admission policies and their bindings (admissionPolicyStrategies). The objects are
// stored only; no webhook is called and no policy evaluated.
func AdmissionRegistration() map[scheme.GroupResource]registry.Strategy {
	m := admissionPolicyStrategies()
	m[admissionregistrationv1.ValidatingWebhookConfigurations] = validatingWebhookConfigurationStrategy()
	m[admissionregistrationv1.MutatingWebhookConfigurations] = mutatingWebhookConfigurationStrategy()
	return m
}

// validatingWebhookConfigurationStrategy is kube's webhookConfigurationStrategy over
// validating webhooks.
func validatingWebhookConfigurationStrategy() registry.StrategyFor[*admissionregistrationv1.ValidatingWebhookConfiguration] {
	return webhookConfigurationStrategy(func(c *admissionregistrationv1.ValidatingWebhookConfiguration) (*scheme.ObjectMeta, any, []webhook) {
		return &c.ObjectMeta, c.Webhooks, validatingWebhooks(c.Webhooks)
	})
}

// mutatingWebhookConfigurationStrategy is kube's webhookConfigurationStrategy over
// mutating webhooks (with their reinvocationPolicy).
func mutatingWebhookConfigurationStrategy() registry.StrategyFor[*admissionregistrationv1.MutatingWebhookConfiguration] {
	return webhookConfigurationStrategy(func(c *admissionregistrationv1.MutatingWebhookConfiguration) (*scheme.ObjectMeta, any, []webhook) {
		return &c.ObjectMeta, c.Webhooks, mutatingWebhooks(c.Webhooks)
	})
}

// webhookConfigurationStrategy is kube's strategy of either webhook configuration,
// read through parts (its metadata, its webhooks as stored and as validation reads
// them): generation 1 on create and bumped
// when the webhooks change (reflect.DeepEqual, as kube compares them), kube's
// ValidateValidatingWebhookConfiguration or ValidateMutatingWebhookConfiguration and
// their update form, and the reserved ".static.k8s.io" suffix refused on create and
// warned of on update.
func webhookConfigurationStrategy[C scheme.Object](parts func(C) (meta *scheme.ObjectMeta, stored any, hooks []webhook)) registry.StrategyFor[C] {
	return registry.StrategyFor[C]{
		RequireResourceVersion: true, // kube's AllowUnconditionalUpdate is false
		PrepareForCreate: func(_ context.Context, c C) {
			meta, _, _ := parts(c)
			meta.Generation = 1
		},
		PrepareForUpdate: func(_ context.Context, c, old C) {
			meta, stored, _ := parts(c)
			oldMeta, oldStored, _ := parts(old)
			bumpGenerationUnless(meta, oldMeta, reflect.DeepEqual(stored, oldStored))
		},
		Validate: func(_ context.Context, c C) validation.ErrorList {
			meta, _, hooks := parts(c)
			errs := validateWebhookConfiguration(meta, hooks, webhookCreateOptions)
			return append(errs, validateStaticSuffix(meta.Name)...)
		},
		ValidateUpdate: func(_ context.Context, c, old C) validation.ErrorList {
			meta, _, hooks := parts(c)
			_, _, oldHooks := parts(old)
			return validateWebhookConfiguration(meta, hooks, webhookUpdateOptions(hooks, oldHooks))
		},
		WarningsOnUpdate: func(_ context.Context, c, _ C) []string {
			meta, _, _ := parts(c)
			return staticSuffixWarnings(meta.Name)
		},
	}
}

// webhook is what validation reads of a validating or a mutating webhook; a validating
// webhook has no reinvocationPolicy.
type webhook struct {
	name                    string
	clientConfig            *admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	mutating                bool
}

func validatingWebhooks(hooks []admissionregistrationv1.ValidatingWebhook) []webhook {
	out := make([]webhook, len(hooks))
	for i := range hooks {
		h := &hooks[i]
		out[i] = webhook{name: h.Name, clientConfig: &h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy,
			matchPolicy: h.MatchPolicy, namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector,
			sideEffects: h.SideEffects, timeoutSeconds: h.TimeoutSeconds, admissionReviewVersions: h.AdmissionReviewVersions,
			matchConditions: h.MatchConditions}
	}
	return out
}

func mutatingWebhooks(hooks []admissionregistrationv1.MutatingWebhook) []webhook {
	out := make([]webhook, len(hooks))
	for i := range hooks {
		h := &hooks[i]
		out[i] = webhook{name: h.Name, clientConfig: &h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy,
			matchPolicy: h.MatchPolicy, namespaceSelector: h.NamespaceSelector, objectSelector: h.ObjectSelector,
			sideEffects: h.SideEffects, timeoutSeconds: h.TimeoutSeconds, admissionReviewVersions: h.AdmissionReviewVersions,
			matchConditions: h.MatchConditions, reinvocationPolicy: h.ReinvocationPolicy, mutating: true}
	}
	return out
}

// webhookOptions are kube's validationOptions of a webhook configuration: on create every
// rule applies; an update relaxes the ones the stored configuration already broke.
type webhookOptions struct {
	ignoreMatchConditions            bool
	requireNoSideEffects             bool
	requireRecognizedReviewVersion   bool
	requireUniqueWebhookNames        bool
	allowInvalidLabelValueInSelector bool
}

var webhookCreateOptions = webhookOptions{requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueWebhookNames: true}

// webhookUpdateOptions are kube's options of ValidateXWebhookConfigurationUpdate.
func webhookUpdateOptions(hooks, old []webhook) webhookOptions {
	opts := webhookOptions{
		ignoreMatchConditions:          len(hooks) == len(old),
		requireNoSideEffects:           true,
		requireRecognizedReviewVersion: true,
		requireUniqueWebhookNames:      true,
	}
	names := map[string]bool{}
	for i, h := range old {
		if opts.ignoreMatchConditions && !reflect.DeepEqual(hooks[i].matchConditions, h.matchConditions) {
			opts.ignoreMatchConditions = false
		}
		if h.sideEffects == nil || !slices.Contains(noSideEffectClasses, string(*h.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 && !slices.ContainsFunc(h.admissionReviewVersions, isAcceptedAdmissionReviewVersion) {
			opts.requireRecognizedReviewVersion = false
		}
		if names[h.name] {
			opts.requireUniqueWebhookNames = false
		}
		names[h.name] = true
		if len(validateLabelSelector(h.namespaceSelector, false, validation.NewPath("namespaceSelector"))) > 0 || len(validateLabelSelector(h.objectSelector, false, validation.NewPath("objectSelector"))) > 0 {
			opts.allowInvalidLabelValueInSelector = true
		}
	}
	return opts
}

// The values kube accepts, sorted as its sets.String List() gives them.
var (
	supportedFailurePolicies      = []string{"Fail", "Ignore"}
	supportedMatchPolicies        = []string{"Equivalent", "Exact"}
	supportedSideEffectClasses    = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	noSideEffectClasses           = []string{"None", "NoneOnDryRun"}
	supportedReinvocationPolicies = []string{"IfNeeded", "Never"}
	supportedWebhookOperations    = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedRuleScopes           = []string{"*", "Cluster", "Namespaced"}
	// acceptedAdmissionReviewVersions is kube's AcceptedAdmissionReviewVersions, in its order.
	acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}
)

func isAcceptedAdmissionReviewVersion(v string) bool {
	return slices.Contains(acceptedAdmissionReviewVersions, v)
}

// validateWebhookConfiguration is kube's validate{Validating,Mutating}WebhookConfiguration:
// the metadata, then per webhook its fields, its admissionReviewVersions and a name not
// used by an earlier webhook.
func validateWebhookConfiguration(meta *scheme.ObjectMeta, hooks []webhook, opts webhookOptions) validation.ErrorList {
	errs := validation.ValidateObjectMeta(meta, false, validation.NameIsDNSSubdomain, validation.NewPath("metadata"))
	names := map[string]bool{}
	for i := range hooks {
		p := validation.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&hooks[i], opts, p)...)
		errs = append(errs, validateAdmissionReviewVersions(hooks[i].admissionReviewVersions, opts.requireRecognizedReviewVersion, p.Child("admissionReviewVersions"))...)
		if name := hooks[i].name; opts.requireUniqueWebhookNames && name != "" {
			if names[name] {
				errs = append(errs, validation.Duplicate(p.Child("name"), name))
			}
			names[name] = true
		}
	}
	return errs
}

// validateWebhook is kube's validate{Validating,Mutating}Webhook.
func validateWebhook(h *webhook, opts webhookOptions, p *validation.Path) validation.ErrorList {
	errs := validateFullyQualifiedName(h.name, p.Child("name"))
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], supportedWebhookOperations, p.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !slices.Contains(supportedFailurePolicies, string(*h.failurePolicy)) {
		errs = append(errs, validation.NotSupported(p.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies))
	}
	if h.matchPolicy != nil && !slices.Contains(supportedMatchPolicies, string(*h.matchPolicy)) {
		errs = append(errs, validation.NotSupported(p.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies))
	}
	allowedSideEffects := supportedSideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	switch {
	case h.sideEffects == nil:
		errs = append(errs, validation.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(allowedSideEffects, ", ")))
	case !slices.Contains(allowedSideEffects, string(*h.sideEffects)):
		errs = append(errs, validation.NotSupported(p.Child("sideEffects"), *h.sideEffects, allowedSideEffects))
	}
	if h.timeoutSeconds != nil && (*h.timeoutSeconds > 30 || *h.timeoutSeconds < 1) {
		errs = append(errs, validation.Invalid(p.Child("timeoutSeconds"), *h.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateLabelSelector(h.namespaceSelector, opts.allowInvalidLabelValueInSelector, p.Child("namespaceSelector"))...)
	errs = append(errs, validateLabelSelector(h.objectSelector, opts.allowInvalidLabelValueInSelector, p.Child("objectSelector"))...)
	if h.mutating && h.reinvocationPolicy != nil && !slices.Contains(supportedReinvocationPolicies, string(*h.reinvocationPolicy)) {
		errs = append(errs, validation.NotSupported(p.Child("reinvocationPolicy"), *h.reinvocationPolicy, supportedReinvocationPolicies))
	}
	errs = append(errs, validateWebhookClientConfig(h.clientConfig, p.Child("clientConfig"))...)
	if !opts.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(h.matchConditions, p.Child("matchConditions"))...)
	}
	return errs
}

// validateFullyQualifiedName is apimachinery's IsFullyQualifiedName: a DNS subdomain of at
// least three dot-separated segments.
func validateFullyQualifiedName(name string, p *validation.Path) validation.ErrorList {
	if name == "" {
		return validation.ErrorList{validation.Required(p, "")}
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return validation.ErrorList{validation.Invalid(p, name, strings.Join(msgs, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return validation.ErrorList{validation.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

// validateAdmissionReviewVersions is kube's: at least one version, no duplicates, each a
// DNS-1035 label, and (unless the stored configuration already lacked one) one the API
// server understands.
func validateAdmissionReviewVersions(versions []string, requireRecognized bool, p *validation.Path) validation.ErrorList {
	if len(versions) == 0 {
		return validation.ErrorList{validation.Required(p, "must specify one of "+strings.Join(acceptedAdmissionReviewVersions, ", "))}
	}
	var errs validation.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, validation.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			errs = append(errs, validation.Invalid(p.Index(i), v, msg))
		}
		accepted = accepted || isAcceptedAdmissionReviewVersion(v)
	}
	if requireRecognized && !accepted {
		errs = append(errs, validation.Invalid(p, versions, "must include at least one of "+strings.Join(acceptedAdmissionReviewVersions, ", ")))
	}
	return errs
}

// validateRuleWithOperations is kube's: operations required, "*" alone, each one of the
// supported operations, then the rule with subresources allowed.
func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, supported []string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, validation.Required(p.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, "*") {
		errs = append(errs, validation.Invalid(p.Child("operations"), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(supported, string(op)) {
			errs = append(errs, validation.NotSupported(p.Child("operations").Index(i), op, supported))
		}
	}
	return append(errs, validateAdmissionRule(&r.Rule, p)...)
}

// validateAdmissionRule is kube's validateRule with subresources allowed.
func validateAdmissionRule(r *admissionregistrationv1.Rule, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, validation.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, validation.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, validation.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, validation.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, validation.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateRuleResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(supportedRuleScopes, string(*r.Scope)) {
		errs = append(errs, validation.NotSupported(p.Child("scope"), *r.Scope, supportedRuleScopes))
	}
	return errs
}

// validateRuleResources is kube's validateResources: resources and resource/subresource
// pairs where a wildcard excludes what it already covers.
func validateRuleResources(resources []string, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(resources) == 0 {
		errs = append(errs, validation.Required(p, ""))
	}
	wildcardSubresourcesOf := map[string]bool{} // x/*
	wildcardResourcesOf := map[string]bool{}    // */x
	doubleWildcard, singleWildcard, withoutSubresource := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, validation.Required(p.Index(i), ""))
			continue
		}
		doubleWildcard = doubleWildcard || rs == "*/*"
		singleWildcard = singleWildcard || rs == "*"
		res, sub, found := strings.Cut(rs, "/")
		if !found {
			// kube keeps only the last resource without a subresource's verdict.
			withoutSubresource = rs != "*"
			continue
		}
		if wildcardSubresourcesOf[res] {
			errs = append(errs, validation.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildcardResourcesOf[sub] {
			errs = append(errs, validation.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildcardSubresourcesOf[res] = true
		}
		if res == "*" {
			wildcardResourcesOf[sub] = true
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, validation.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && withoutSubresource {
		errs = append(errs, validation.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateWebhookClientConfig is kube's: exactly one of url (https, a host, no user,
// fragment or query) and service (name, namespace, a valid port, a path of DNS-subdomain
// segments). The caBundle is not checked on write, as kube does not.
func validateWebhookClientConfig(cc *admissionregistrationv1.WebhookClientConfig, p *validation.Path) validation.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return validation.ErrorList{validation.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return validation.ValidateWebhookURL(*cc.URL, p.Child("url"))
	default:
		var port int32 // the defaults set 443
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		return validation.ValidateWebhookService(cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port, p.Child("service"))
	}
}

// maxMatchConditions is kube's limit of match conditions per webhook or policy.
const maxMatchConditions = 64

// validateMatchConditions is kube's validateMatchConditions without compiling the CEL
// expressions (apikit's CEL module plugs into schema validation only): at most 64, each
// with a non-blank expression and a qualified name used once.
func validateMatchConditions(conditions []admissionregistrationv1.MatchCondition, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if len(conditions) > maxMatchConditions {
		errs = append(errs, validation.TooMany(p, len(conditions), maxMatchConditions))
	}
	names := map[string]bool{}
	for i, c := range conditions {
		cp := p.Index(i)
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, validation.Required(cp.Child("expression"), ""))
		}
		if c.Name == "" {
			errs = append(errs, validation.Required(cp.Child("name"), ""))
		} else {
			errs = append(errs, validateQualifiedName(c.Name, cp.Child("name"))...)
		}
		if c.Name != "" {
			if names[c.Name] {
				errs = append(errs, validation.Duplicate(cp.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
	}
	return errs
}

// staticConfigSuffix ends the names kube reserves for manifest-based admission
// configurations (ManifestBasedAdmissionControlConfig, on by default in v1.37).
const staticConfigSuffix = ".static.k8s.io"

func staticSuffixMessage() string {
	return fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix)
}

// validateStaticSuffix is kube's ValidateStaticSuffix, run on create.
func validateStaticSuffix(name string) validation.ErrorList {
	if strings.HasSuffix(name, staticConfigSuffix) {
		return validation.ErrorList{validation.Invalid(validation.NewPath("metadata", "name"), name, staticSuffixMessage())}
	}
	return nil
}

// staticSuffixWarnings is kube's WarningsForStaticSuffix, given on update.
func staticSuffixWarnings(name string) []string {
	if strings.HasSuffix(name, staticConfigSuffix) {
		return []string{"metadata.name: " + staticSuffixMessage()}
	}
	return nil
}
