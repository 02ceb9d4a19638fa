package policy

import (
	"fmt"
	"reflect"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apikit-dev/apikit/cel/internal/kubeadmission"
	"github.com/apikit-dev/apikit/validation"
)

// The CEL half of kube's validation of a ValidatingAdmissionPolicy
// (pkg/apis/admissionregistration/validation), which apikit's strategy leaves out: every
// expression compiles, to the type its field needs, in the environment of new
// expressions (those the old object already had, in that of stored expressions).

// maxAuditAnnotationValueExpressionLength is kube's limit of a valueExpression.
const maxAuditAnnotationValueExpressionLength = 5 * 1024

// envFor is the environment kube compiles expression in: that of stored expressions
// when it is one of preexisting (the old object's).
func envFor(expression string, preexisting map[string]bool) environment.Type {
	if preexisting[expression] {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// validateExpressions returns kube's errors of the expressions of p, old the stored
// policy of an update (nil on create).
func validateExpressions(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) validation.ErrorList {
	var errs validation.ErrorList
	spec := validation.NewPath("spec")
	pre := struct{ matchConditions, validations, messages, annotations map[string]bool }{map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}}
	ignoreMatchConditions := false
	if old != nil {
		for _, mc := range old.Spec.MatchConditions {
			pre.matchConditions[mc.Expression] = true
		}
		for _, v := range old.Spec.Validations {
			pre.validations[v.Expression] = true
			if v.MessageExpression != "" {
				pre.messages[v.MessageExpression] = true
			}
		}
		for _, a := range old.Spec.AuditAnnotations {
			pre.annotations[a.ValueExpression] = true
		}
		ignoreMatchConditions = reflect.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind) && reflect.DeepEqual(p.Spec.MatchConditions, old.Spec.MatchConditions)
	}
	var compiler plugincel.Compiler
	getCompiler := func() plugincel.Compiler {
		if compiler == nil {
			compiler = kubeadmission.Compiler()
			if len(p.Spec.Variables) > 0 {
				c, err := plugincel.NewCompositedCompiler(kubeadmission.BaseEnv())
				if err == nil {
					compiler = c
				}
			}
		}
		return compiler
	}
	compileInto := func(c plugincel.Compiler, path *validation.Path, accessor plugincel.ExpressionAccessor, decls plugincel.OptionalVariableDeclarations, env environment.Type) {
		if res := c.CompileCELExpression(accessor, decls, env); res.Error != nil {
			errs = append(errs, kubeadmission.ExpressionError(path, accessor.GetExpression(), res.Error))
		}
	}
	hasParams := p.Spec.ParamKind != nil
	if !ignoreMatchConditions {
		for i, mc := range p.Spec.MatchConditions {
			if e := strings.TrimSpace(mc.Expression); e != "" {
				compileInto(kubeadmission.Compiler(), spec.Child("matchConditions").Index(i).Child("expression"), &matchconditions.MatchCondition{Name: mc.Name, Expression: e},
					plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envFor(e, pre.matchConditions))
			}
		}
	}
	for i, v := range p.Spec.Variables {
		if strings.TrimSpace(v.Expression) == "" {
			continue
		}
		c, ok := getCompiler().(*plugincel.CompositedCompiler)
		if !ok {
			errs = append(errs, validation.InternalError(spec.Child("variables").Index(i), fmt.Errorf("variable composition is not allowed")))
			continue
		}
		vr := &variableExpr{name: v.Name, expression: v.Expression}
		if res := c.CompileAndStoreVariable(vr, plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envFor(v.Expression, pre.validations)); res.Error != nil {
			errs = append(errs, kubeadmission.ExpressionError(spec.Child("variables").Index(i).Child("expression"), v.Expression, res.Error))
		}
	}
	for i, v := range p.Spec.Validations {
		vp := spec.Child("validations").Index(i)
		if strings.TrimSpace(v.Expression) != "" {
			compileInto(getCompiler(), vp.Child("expression"), &validationExpr{expression: v.Expression},
				plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envFor(v.Expression, pre.validations))
		}
		if strings.TrimSpace(v.MessageExpression) != "" {
			compileInto(getCompiler(), vp.Child("messageExpression"), &messageExpr{expression: v.MessageExpression},
				plugincel.OptionalVariableDeclarations{HasParams: hasParams}, envFor(v.MessageExpression, pre.messages))
		}
	}
	for i, a := range p.Spec.AuditAnnotations {
		e := strings.TrimSpace(a.ValueExpression)
		if e == "" || len(e) > maxAuditAnnotationValueExpressionLength {
			continue
		}
		res := getCompiler().CompileCELExpression(&auditAnnotationExpr{key: a.Key, valueExpression: e},
			plugincel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}, envFor(a.ValueExpression, pre.annotations))
		if res.Error != nil {
			errs = append(errs, kubeadmission.ExpressionError(spec.Child("auditAnnotations").Index(i).Child("valueExpression"), a.ValueExpression, res.Error))
		}
	}
	return errs
}
