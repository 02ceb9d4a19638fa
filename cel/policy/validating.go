package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	admissionauthorizer "k8s.io/apiserver/pkg/admission/plugin/authorizer"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/authz"
	apikitadmreg "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	"github.com/apikit-dev/apikit/cel/internal/kubeadmission"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// Validating is kube-apiserver v1.37.2's ValidatingAdmissionPolicy admission plugin:
// every create, update and delete is checked against the stored
// ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) through their
// ValidatingAdmissionPolicyBindings, read with registry.List on each write (so a policy
// applies as soon as it is stored) and compiled once per uid and resourceVersion.
// Policies are evaluated in name order, each binding of a policy in name order.
// The policy and binding resources themselves (and the mutating ones) are exempt, as
// on kube-apiserver; a ValidatingAdmissionPolicy written is instead refused with
// kube's 422 Invalid when an expression of it does not compile (the CEL half of
// kube's validation of the kind, which apikit's strategy cannot make). Use a *Validating as a registry.ValidatingAdmission, after
// kube's built-in validating plugins:
//
//	rest.Options{ValidatingAdmission: append(plugins.Validating, policy.NewValidating())}
type Validating struct {
	// Authorizer answers the expressions' `authorizer` checks; nil uses the one of the
	// request's context (the server's own, authz.WithAuthorizer).
	Authorizer authz.Authorizer

	mu       sync.Mutex
	policies map[string]*compiledPolicy  // by uid
	bindings map[string]*compiledBinding // by uid
}

// NewValidating returns the ValidatingAdmissionPolicy plugin.
func NewValidating() *Validating {
	return &Validating{}
}

var _ registry.ValidatingAdmission = (*Validating)(nil)

type compiledPolicy struct {
	resourceVersion string
	policy          *admissionregistrationv1.ValidatingAdmissionPolicy
	validator       *validator
}

type compiledBinding struct {
	resourceVersion string
	binding         *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// exempt are the resources kube's policy plugin never evaluates API policies on: the
// admission policy resources (no policy may lock them) and the reviews that are not
// stored.
var exempt = map[scheme.GroupResource]bool{
	apikitadmreg.ValidatingAdmissionPolicies:                               true,
	apikitadmreg.ValidatingAdmissionPolicyBindings:                         true,
	apikitadmreg.MutatingAdmissionPolicies:                                 true,
	apikitadmreg.MutatingAdmissionPolicyBindings:                           true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
}

// Validate evaluates the policies bound to the write a describes.
func (v *Validating) Validate(ctx context.Context, a registry.AdmissionAttributes, obj scheme.Object) error {
	gr := scheme.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	if gr == apikitadmreg.ValidatingAdmissionPolicies && a.Subresource == "" && a.Operation != registry.OperationDelete {
		return validatePolicyWrite(a, obj)
	}
	if exempt[gr] {
		return nil
	}
	pobjs, err := registry.List(ctx, apikitadmreg.ValidatingAdmissionPolicies, "")
	if err != nil || len(pobjs) == 0 {
		return err
	}
	bobjs, err := registry.List(ctx, apikitadmreg.ValidatingAdmissionPolicyBindings, "")
	if err != nil || len(bobjs) == 0 {
		return err
	}
	policies, bindings, err := v.compiled(a.Scheme, pobjs, bobjs)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	w, err := newWrite(ctx, a, obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return v.dispatch(ctx, w, policies, bindings)
}

// compiled returns the policies that have bindings, compiled, and their bindings by
// policy name, from the stored objects.
func (v *Validating) compiled(s *scheme.Scheme, pobjs, bobjs []scheme.Object) ([]*compiledPolicy, map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.policies == nil {
		v.policies, v.bindings = map[string]*compiledPolicy{}, map[string]*compiledBinding{}
	}
	seen := map[string]bool{}
	byPolicy := map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	for _, o := range bobjs {
		uid := string(o.GetUID())
		seen[uid] = true
		cb := v.bindings[uid]
		if cb == nil || cb.resourceVersion != o.GetResourceVersion() {
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := toKube(s, o, b); err != nil {
				return nil, nil, err
			}
			cb = &compiledBinding{resourceVersion: o.GetResourceVersion(), binding: b}
			v.bindings[uid] = cb
		}
		byPolicy[cb.binding.Spec.PolicyName] = append(byPolicy[cb.binding.Spec.PolicyName], cb.binding)
	}
	var out []*compiledPolicy
	for _, o := range pobjs {
		uid := string(o.GetUID())
		seen[uid] = true
		if len(byPolicy[o.GetName()]) == 0 {
			continue
		}
		cp := v.policies[uid]
		if cp == nil || cp.resourceVersion != o.GetResourceVersion() {
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := toKube(s, o, p); err != nil {
				return nil, nil, err
			}
			cp = &compiledPolicy{resourceVersion: o.GetResourceVersion(), policy: p, validator: compile(p)}
			v.policies[uid] = cp
		}
		out = append(out, cp)
	}
	// Forget what is no longer stored.
	for uid := range v.policies {
		if !seen[uid] {
			delete(v.policies, uid)
		}
	}
	for uid := range v.bindings {
		if !seen[uid] {
			delete(v.bindings, uid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].policy.Name < out[j].policy.Name })
	for _, bs := range byPolicy {
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	}
	return out, byPolicy, nil
}

// toKube converts the stored object o (internal version) to the kube type out.
func toKube(s *scheme.Scheme, o scheme.Object, out any) error {
	ext, err := conversion.ObjectToVersion(s, o, scheme.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"})
	if err != nil {
		return err
	}
	m, err := conversion.ObjectMap(ext)
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, out)
}

// denied is a decision that denies, with the policy and binding it comes from.
type denied struct {
	decision
	policy, binding string // binding "" for the policy's own errors
}

// dispatch is kube's policy dispatcher over the policies (in order) and their
// bindings.
func (v *Validating) dispatch(ctx context.Context, w *write, policies []*compiledPolicy, bindings map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding) error {
	var denials []denied
	var failures []validationFailure
	az := admissionauthorizer.NewCachingAuthorizer(kubeadmission.Authorizer{A: v.Authorizer, Ctx: ctx})
	configError := func(p *compiledPolicy, binding string, err error) {
		if p.validator.failurePolicy == admissionregistrationv1.Ignore {
			return
		}
		msg := fmt.Sprintf("failed to configure policy: %v", err)
		if binding != "" {
			msg = fmt.Sprintf("failed to configure binding: %v", err)
		}
		if p.validator.failurePolicy != admissionregistrationv1.Fail {
			msg = fmt.Sprintf("unrecognized failure policy: '%v'", p.validator.failurePolicy)
		}
		denials = append(denials, denied{decision: decision{deny: true, message: msg}, policy: p.policy.Name, binding: binding})
	}
	for _, p := range policies {
		def := p.policy
		ok, matchResource, matchKind, err := w.definitionMatches(def)
		if err != nil {
			configError(p, "", err)
			continue
		}
		if !ok {
			continue
		}
		paramGVK, paramRes, err := w.paramKind(def.Spec.ParamKind)
		if err != nil {
			configError(p, "", err)
			continue
		}
		annotations := newAnnotationCollector()
		for _, b := range bindings[def.Name] {
			if ok, err := w.bindingMatches(b); err != nil {
				configError(p, b.Name, err)
				continue
			} else if !ok {
				continue
			}
			params, err := w.collectParams(ctx, def.Spec.ParamKind, paramGVK, paramRes, b.Spec.ParamRef)
			if err != nil {
				configError(p, b.Name, err)
				continue
			}
			if len(params) == 0 {
				continue
			}
			va, err := w.versioned(matchKind)
			if err != nil {
				configError(p, b.Name, fmt.Errorf("failed to convert object version: %w", err))
				continue
			}
			ns, err := w.namespaceObject(ctx)
			if err != nil {
				return err
			}
			for _, param := range params {
				decisions, annos := p.validator.validate(ctx, matchResource, va, param, ns, az)
				for i, d := range decisions {
					if !d.deny {
						continue
					}
					for _, action := range b.Spec.ValidationActions {
						switch action {
						case admissionregistrationv1.Deny:
							denials = append(denials, denied{decision: d, policy: def.Name, binding: b.Name})
						case admissionregistrationv1.Audit:
							failures = append(failures, validationFailure{Message: d.message, Policy: b.Spec.PolicyName, Binding: b.Name,
								ExpressionIndex: i, ValidationActions: b.Spec.ValidationActions})
						case admissionregistrationv1.Warn:
							registry.AddWarning(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", def.Name, b.Name, d.message))
						}
					}
				}
				for _, an := range annos {
					if an.err != "" {
						denials = append(denials, denied{decision: decision{deny: true, message: an.err}, policy: def.Name, binding: b.Name})
						continue
					}
					annotations.add(an.key, an.value)
				}
			}
		}
		annotations.publish(ctx, def.Name)
	}
	publishFailures(ctx, failures)
	if len(denials) == 0 {
		return nil
	}
	d := denials[0]
	message := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	if d.binding != "" {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	}
	st := apierrors.NewForbidden(scheme.GroupResource{Group: w.resource.Group, Resource: w.resource.Resource}, w.deniedName, errors.New(message))
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	st.Reason = scheme.StatusReason(reason)
	st.Code = int32(reasonToCode(reason))
	if st.Details == nil {
		st.Details = &scheme.StatusDetails{}
	}
	st.Details.Causes = append(st.Details.Causes, scheme.StatusCause{Message: message})
	return st
}

// reasonToCode is kube's HTTP code of a validation's reason.
func reasonToCode(r metav1.StatusReason) int {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusUnprocessableEntity
	}
}

// definitionMatches is kube's DefinitionMatches.
func (w *write) definitionMatches(p *admissionregistrationv1.ValidatingAdmissionPolicy) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
	c := p.Spec.MatchConstraints
	switch {
	case c == nil:
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, errors.New("policy contained no match constraints, a required field")
	case c.NamespaceSelector == nil:
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, fmt.Errorf(errNilSelector, "namespace")
	case c.ObjectSelector == nil:
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, fmt.Errorf(errNilSelector, "object")
	}
	return matches(c, &w.request)
}

// bindingMatches is kube's BindingMatches.
func (w *write) bindingMatches(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) (bool, error) {
	m := b.Spec.MatchResources
	switch {
	case m == nil:
		return true, nil
	case m.NamespaceSelector == nil:
		return false, fmt.Errorf(errNilSelector, "namespace")
	case m.ObjectSelector == nil:
		return false, fmt.Errorf(errNilSelector, "object")
	}
	ok, _, _, err := matches(m, &w.request)
	return ok, err
}

// annotationCollector gathers a policy's audit annotations over its bindings.
type annotationCollector struct {
	keys   []string
	values map[string][]string
}

func newAnnotationCollector() *annotationCollector {
	return &annotationCollector{values: map[string][]string{}}
}

// maxAuditAnnotationValueLength is kube's limit of an audit annotation's value.
const maxAuditAnnotationValueLength = 10 * 1024

func (c *annotationCollector) add(key, value string) {
	if len(value) > maxAuditAnnotationValueLength {
		value = value[:maxAuditAnnotationValueLength]
	}
	vs, ok := c.values[key]
	if !ok {
		c.keys = append(c.keys, key)
	}
	for _, v := range vs {
		if v == value {
			return
		}
	}
	c.values[key] = append(vs, value)
}

func (c *annotationCollector) publish(ctx context.Context, policy string) {
	for _, k := range c.keys {
		rest.AddAuditAnnotation(ctx, policy+"/"+k, strings.Join(c.values[k], ", "))
	}
}

// validationFailure is the JSON of one entry of kube's
// validation.policy.admission.k8s.io/validation_failure audit annotation.
type validationFailure struct {
	Message           string                                     `json:"message"`
	Policy            string                                     `json:"policy"`
	Binding           string                                     `json:"binding"`
	ExpressionIndex   int                                        `json:"expressionIndex"`
	ValidationActions []admissionregistrationv1.ValidationAction `json:"validationActions"`
}

// maxValidationFailures is how many failures kube's annotation lists at most.
const maxValidationFailures = 50

func publishFailures(ctx context.Context, failures []validationFailure) {
	if len(failures) == 0 {
		return
	}
	if len(failures) > maxValidationFailures {
		failures = failures[:maxValidationFailures]
	}
	b, err := json.Marshal(failures)
	if err != nil {
		return
	}
	rest.AddAuditAnnotation(ctx, "validation.policy.admission.k8s.io/validation_failure", string(b))
}

// validatePolicyWrite refuses a ValidatingAdmissionPolicy whose expressions do not
// compile with kube's 422 Invalid, the CEL half of kube's validation of the kind.
func validatePolicyWrite(a registry.AdmissionAttributes, obj scheme.Object) error {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	if err := toKube(a.Scheme, obj, p); err != nil {
		return apierrors.NewInternalError(err)
	}
	var old *admissionregistrationv1.ValidatingAdmissionPolicy
	if a.OldObject != nil {
		old = &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := toKube(a.Scheme, a.OldObject, old); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	if errs := validateExpressions(p, old); len(errs) > 0 {
		return errs.ToStatus(scheme.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}, obj.GetName())
	}
	return nil
}
