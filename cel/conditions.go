package cel

import (
	"context"
	"fmt"

	celtypes "github.com/google/cel-go/common/types"
	apierrors "k8s.io/apimachinery/pkg/util/errors"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apikit-dev/apikit/cel/internal/kubeadmission"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/validation"
)

// NewConditionCompiler returns the admission.ConditionCompiler of the matchConditions
// of admission webhooks, as kube-apiserver compiles them: the base CEL environment of
// its compatibility version with the variables object, oldObject, request (typed as
// kube's AdmissionRequest), namespaceObject, authorizer and
// authorizer.requestResource, the expressions required to be bool, and every
// evaluation within kube's runtime budget for match conditions.
func NewConditionCompiler() admission.ConditionCompiler {
	return conditionCompiler{}
}

type conditionCompiler struct{}

var _ admission.ConditionCompiler = conditionCompiler{}

// CompileConditions compiles conditions; the error of the first that does not compile
// is kube's validation error of it (`matchConditions[0].expression: Invalid value:
// "...": compilation failed: ERROR: <input>:1:1: ...`).
func (conditionCompiler) CompileConditions(conditions []admission.MatchCondition) (admission.ConditionMatcher, error) {
	results := make([]plugincel.CompilationResult, len(conditions))
	for i, c := range conditions {
		results[i] = kubeadmission.Compiler().CompileCELExpression(&matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression},
			plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions)
		if err := results[i].Error; err != nil {
			return nil, kubeadmission.ExpressionError(validation.NewPath("matchConditions").Index(i).Child("expression"), c.Expression, err)
		}
	}
	return &conditionMatcher{eval: plugincel.NewCondition(results)}, nil
}

// conditionMatcher evaluates compiled matchConditions.
type conditionMatcher struct {
	eval plugincel.ConditionEvaluator
}

// Match evaluates the conditions over in, as kube's matchconditions matcher does
// before it applies a failurePolicy: a false condition is a non-match naming it,
// otherwise evaluation errors are the result's Err, otherwise the request matches.
func (m *conditionMatcher) Match(ctx context.Context, in admission.ConditionInput) admission.MatchResult {
	req, err := kubeadmission.Request(in.Request)
	if err != nil {
		return admission.MatchResult{Err: err}
	}
	va := kubeadmission.Attributes(req, in.Object, in.OldObject, &in.User)
	results, _, err := m.eval.ForInput(ctx, va, req, plugincel.OptionalVariableBindings{Authorizer: kubeadmission.Authorizer{A: in.Authorizer, Ctx: ctx}}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if err != nil {
		return admission.MatchResult{Err: err}
	}
	var errs []error
	for _, r := range results {
		mc, ok := r.ExpressionAccessor.(*matchconditions.MatchCondition)
		if !ok {
			errs = append(errs, fmt.Errorf("internal error converting ExpressionAccessor to MatchCondition"))
			continue
		}
		if r.Error != nil {
			errs = append(errs, r.Error)
		}
		if r.EvalResult == celtypes.False {
			return admission.MatchResult{FailedCondition: mc.Name}
		}
	}
	if len(errs) > 0 {
		return admission.MatchResult{Err: apierrors.NewAggregate(errs)}
	}
	return admission.MatchResult{Matches: true}
}
