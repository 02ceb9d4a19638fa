package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	celgo "github.com/google/cel-go/cel"
	celtypes "github.com/google/cel-go/common/types"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apikit-dev/apikit/cel/internal/kubeadmission"
)

// The expressions of a policy, as kube's policy plugin hands them to its CEL library.

type validationExpr struct {
	expression string
	message    string
	reason     *metav1.StatusReason
}

func (v *validationExpr) GetExpression() string      { return v.expression }
func (v *validationExpr) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.BoolType} }

type messageExpr struct{ expression string }

func (m *messageExpr) GetExpression() string      { return m.expression }
func (m *messageExpr) ReturnTypes() []*celgo.Type { return []*celgo.Type{celgo.StringType} }

type auditAnnotationExpr struct {
	key, valueExpression string
}

func (a *auditAnnotationExpr) GetExpression() string { return a.valueExpression }
func (a *auditAnnotationExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.StringType, celgo.NullType}
}

type variableExpr struct{ name, expression string }

func (v *variableExpr) GetExpression() string { return v.expression }
func (v *variableExpr) GetName() string       { return v.name }
func (v *variableExpr) ReturnTypes() []*celgo.Type {
	return []*celgo.Type{celgo.AnyType, celgo.DynType}
}

// validator holds a policy's compiled expressions.
type validator struct {
	failurePolicy    admissionregistrationv1.FailurePolicyType
	compileError     error
	matchConditions  plugincel.ConditionEvaluator // nil without matchConditions
	validations      plugincel.ConditionEvaluator
	messages         plugincel.ConditionEvaluator
	auditAnnotations plugincel.ConditionEvaluator
}

// compile compiles p's expressions as kube's compilePolicy does: variables composed
// for the other expressions, messageExpressions without the authorizer.
func compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) *validator {
	v := &validator{failurePolicy: admissionregistrationv1.Fail}
	if p.Spec.FailurePolicy != nil {
		v.failurePolicy = *p.Spec.FailurePolicy
	}
	hasParams := p.Spec.ParamKind != nil
	withAuthz := plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	withoutAuthz := plugincel.OptionalVariableDeclarations{HasParams: hasParams}
	c, err := plugincel.NewCompositedCompiler(kubeadmission.BaseEnv())
	if err != nil {
		v.compileError = err
		return v
	}
	variables := make([]plugincel.NamedExpressionAccessor, len(p.Spec.Variables))
	for i, vr := range p.Spec.Variables {
		variables[i] = &variableExpr{name: vr.Name, expression: vr.Expression}
	}
	c.CompileAndStoreVariables(variables, withAuthz, environment.StoredExpressions)
	if len(p.Spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(p.Spec.MatchConditions))
		for i, mc := range p.Spec.MatchConditions {
			conds[i] = &matchconditions.MatchCondition{Name: mc.Name, Expression: mc.Expression}
		}
		v.matchConditions = c.CompileCondition(conds, withAuthz, environment.StoredExpressions)
	}
	validations := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	messages := make([]plugincel.ExpressionAccessor, len(p.Spec.Validations))
	for i, val := range p.Spec.Validations {
		validations[i] = &validationExpr{expression: val.Expression, message: val.Message, reason: val.Reason}
		if val.MessageExpression != "" {
			messages[i] = &messageExpr{expression: val.MessageExpression}
		}
	}
	annotations := make([]plugincel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, aa := range p.Spec.AuditAnnotations {
		annotations[i] = &auditAnnotationExpr{key: aa.Key, valueExpression: aa.ValueExpression}
	}
	v.validations = c.CompileCondition(validations, withAuthz, environment.StoredExpressions)
	v.auditAnnotations = c.CompileCondition(annotations, withAuthz, environment.StoredExpressions)
	v.messages = c.CompileCondition(messages, withoutAuthz, environment.StoredExpressions)
	return v
}

// decision is the outcome of one validation (or of the policy, for its errors).
type decision struct {
	deny    bool
	message string
	reason  metav1.StatusReason
}

// annotation is the outcome of one auditAnnotation.
type annotation struct {
	key, value string
	err        string // the error, which denies under failurePolicy Fail
}

// errorDecision is the decision of an error: a denial under failurePolicy Fail,
// nothing under Ignore.
func (v *validator) errorDecision(message string) decision {
	return decision{deny: v.failurePolicy != admissionregistrationv1.Ignore, message: message}
}

// validate evaluates the policy for one binding and param, as kube's validator does.
func (v *validator) validate(ctx context.Context, matchedResource schema.GroupVersionResource, va *admission.VersionedAttributes,
	params runtime.Object, ns *corev1.Namespace, az authorizer.UnconditionalAuthorizer) ([]decision, []annotation) {
	if v.compileError != nil {
		return []decision{v.errorDecision(v.compileError.Error())}, nil
	}
	request := plugincel.CreateAdmissionRequest(va.Attributes, metav1.GroupVersionResource(matchedResource), metav1.GroupVersionKind(va.VersionedKind))
	if v.matchConditions != nil {
		// kube's matcher sees the request's own resource.
		matchRequest := plugincel.CreateAdmissionRequest(va.Attributes, metav1.GroupVersionResource(va.GetResource()), metav1.GroupVersionKind(va.VersionedKind))
		matches, err := v.match(ctx, va, matchRequest, params, az)
		if err != nil {
			return []decision{v.errorDecision(err.Error())}, nil
		}
		if !matches {
			return nil, nil
		}
	}
	nsObj := plugincel.CreateNamespaceObject(ns)
	results, remaining, err := v.validations.ForInput(ctx, va, request, plugincel.OptionalVariableBindings{VersionedParams: params, Authorizer: az}, nsObj, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return []decision{v.errorDecision(err.Error())}, nil
	}
	messages, _, msgErr := v.messages.ForInput(ctx, va, request, plugincel.OptionalVariableBindings{VersionedParams: params}, nsObj, remaining)
	decisions := make([]decision, len(results))
	for i, r := range results {
		d := &decisions[i]
		val, ok := r.ExpressionAccessor.(*validationExpr)
		switch {
		case !ok:
			*d = v.errorDecision("Invalid type sent to validator, expected ValidationCondition")
		case r.Error != nil:
			*d = v.errorDecision(r.Error.Error())
		case errors.Is(msgErr, apiservercel.ErrInternal) || errors.Is(msgErr, apiservercel.ErrOutOfBudget):
			*d = v.errorDecision(fmt.Sprintf("failed messageExpression: %s", msgErr))
		case r.EvalResult != celtypes.True:
			d.deny = true
			d.reason = metav1.StatusReasonInvalid
			if val.reason != nil {
				d.reason = *val.reason
			}
			var m *plugincel.EvaluationResult
			if i < len(messages) {
				m = &messages[i]
			}
			d.message = failureMessage(val, m)
		}
	}
	annotationResults, _, err := v.auditAnnotations.ForInput(ctx, va, request, plugincel.OptionalVariableBindings{VersionedParams: params}, ns, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return []decision{v.errorDecision(err.Error())}, nil
	}
	var annotations []annotation
	for _, r := range annotationResults {
		aa, ok := r.ExpressionAccessor.(*auditAnnotationExpr)
		if !ok {
			continue
		}
		switch {
		case r.Error != nil:
			if v.failurePolicy != admissionregistrationv1.Ignore {
				annotations = append(annotations, annotation{key: aa.key, err: r.Error.Error()})
			}
		case r.EvalResult.Type() == celtypes.StringType:
			if value := strings.TrimSpace(r.EvalResult.Value().(string)); value != "" {
				annotations = append(annotations, annotation{key: aa.key, value: value})
			}
		case r.EvalResult.Type() == celtypes.NullType:
		default:
			annotations = append(annotations, annotation{key: aa.key, err: fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. "+
				"Return type must be either string or null.", aa.valueExpression, r.EvalResult.Type())})
		}
	}
	return decisions, annotations
}

// failureMessage is the message of a failed validation: its messageExpression's
// string when that evaluated to one line of text within kube's limit, else its
// message, else "failed expression: ...".
func failureMessage(val *validationExpr, m *plugincel.EvaluationResult) string {
	var message string
	if m != nil && m.Error == nil && m.EvalResult != nil {
		if s, ok := m.EvalResult.Value().(string); ok {
			message = strings.TrimSpace(s)
			if len(message) > celconfig.MaxEvaluatedMessageExpressionSizeBytes || strings.Contains(message, "\n") {
				message = ""
			}
		}
	}
	if message == "" && val.message != "" {
		message = strings.TrimSpace(val.message)
	}
	if message == "" {
		message = fmt.Sprintf("failed expression: %v", strings.TrimSpace(val.expression))
	}
	return message
}

// match evaluates the policy's matchConditions as kube's matcher does with the
// policy's failurePolicy: an error is returned only under Fail.
func (v *validator) match(ctx context.Context, va *admission.VersionedAttributes, request *admissionv1.AdmissionRequest, params runtime.Object, az authorizer.UnconditionalAuthorizer) (bool, error) {
	results, _, err := v.matchConditions.ForInput(ctx, va, request, plugincel.OptionalVariableBindings{VersionedParams: params, Authorizer: az}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if err != nil {
		if v.failurePolicy == admissionregistrationv1.Ignore {
			return false, nil
		}
		return false, err
	}
	var errs []error
	for _, r := range results {
		if r.Error != nil {
			errs = append(errs, r.Error)
		}
		if r.EvalResult == celtypes.False {
			return false, nil
		}
	}
	if len(errs) > 0 {
		if v.failurePolicy == admissionregistrationv1.Ignore {
			return false, nil
		}
		return false, utilerrors.NewAggregate(errs)
	}
	return true, nil
}
