package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	admissionregistrationv1 "github.com/apikit-dev/apikit/builtin/admissionregistration/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// deploymentReplicasPolicy is a valid validating admission policy as kube's defaults
// leave it.
func deploymentReplicasPolicy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	fail, equivalent := admissionregistrationv1.Fail, admissionregistrationv1.Equivalent
	return &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: scheme.ObjectMeta{Name: "replicas"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			ParamKind:     &admissionregistrationv1.ParamKind{APIVersion: "rules.example.com/v1", Kind: "ReplicaLimit"},
			MatchConstraints: &admissionregistrationv1.MatchResources{MatchPolicy: &equivalent,
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Variables:   []admissionregistrationv1.Variable{{Name: "replicas", Expression: "object.spec.replicas"}},
			Validations: []admissionregistrationv1.Validation{{Expression: "variables.replicas <= params.maxReplicas"}},
		}}
}

func TestValidateAdmissionPolicy_KubesMessagesAndPaths(t *testing.T) {
	type policy = admissionregistrationv1.ValidatingAdmissionPolicy
	tests := []struct {
		name   string
		change func(p *policy)
		want   []string
	}{
		{"a policy with params and a variable is valid", func(*policy) {}, nil},
		{"validations or audit annotations are required", func(p *policy) { p.Spec.Validations = nil }, []string{
			"spec.validations: Required value: validations or auditAnnotations must contain at least one item",
			"spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"}},
		{"matchConstraints needs resource rules", func(p *policy) { p.Spec.MatchConstraints.ResourceRules = nil }, []string{
			"spec.matchConstraints.resourceRules: Required value"}},
		{"a paramKind's kind is a label", func(p *policy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c", Kind: "Replica_Limit"}
		}, []string{
			`spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
			`spec.paramKind.kind: Invalid value: "Replica_Limit": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"a variable's name is a CEL identifier", func(p *policy) { p.Spec.Variables[0].Name = "if" }, []string{
			`spec.variables[0].name: Invalid value: "if": must be a valid CEL identifier`}},
		{"a message has no line breaks and a reason is known", func(p *policy) {
			reason := scheme.StatusReason("Conflict")
			p.Spec.Validations[0].Message, p.Spec.Validations[0].Reason = "too\nmany", &reason
		}, []string{
			`spec.validations[0].message: Invalid value: "too\nmany": must not contain line breaks`,
			`spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`}},
		{"audit annotation keys are unique", func(p *policy) {
			p.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "high", ValueExpression: "'x'"}, {Key: "high", ValueExpression: " "}}
		}, []string{
			"spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified",
			`spec.auditAnnotations[1].key: Duplicate value: "high"`}},
	}
	s := admissionPolicyStrategies()[admissionregistrationv1.ValidatingAdmissionPolicies].(registry.StrategyFor[*policy])
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := deploymentReplicasPolicy()
			tt.change(p)
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), p))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidateAdmissionPolicyBinding_KubesMessagesAndPaths(t *testing.T) {
	type binding = admissionregistrationv1.ValidatingAdmissionPolicyBinding
	deny := admissionregistrationv1.ParameterNotFoundActionType("Deny")
	tests := []struct {
		name string
		spec admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec
		want []string
	}{
		{"a binding to a named param is valid", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas",
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "limit", ParameterNotFoundAction: &deny},
			ValidationActions: []admissionregistrationv1.ValidationAction{"Deny", "Audit"}}, nil},
		{"policy name, param and actions are required", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ParamRef: &admissionregistrationv1.ParamRef{}}, []string{
			"spec.policyName: Required value",
			"spec.paramRef: Required value: one of name or selector must be specified",
			"spec.paramRef.parameterNotFoundAction: Required value",
			"spec.validationActions: Required value"}},
		{"name and selector exclude each other, Deny and Warn too", admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas",
			ParamRef:          &admissionregistrationv1.ParamRef{Name: "limit", Selector: &metav1.LabelSelector{}, ParameterNotFoundAction: &deny},
			ValidationActions: []admissionregistrationv1.ValidationAction{"Deny", "Warn", "Warn"}}, []string{
			"spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
			"spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
			`spec.validationActions[2]: Duplicate value: "Warn"`,
			`spec.validationActions: Invalid value: ["Deny","Warn","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`}},
	}
	s := admissionPolicyStrategies()[admissionregistrationv1.ValidatingAdmissionPolicyBindings].(registry.StrategyFor[*binding])
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &binding{ObjectMeta: scheme.ObjectMeta{Name: "replicas-binding"}, Spec: tt.spec}
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), b))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestAdmissionPolicy_StatusDroppedOnCreateKeptOnUpdateAndGenerationBumps(t *testing.T) {
	type policy = admissionregistrationv1.ValidatingAdmissionPolicy
	s := admissionPolicyStrategies()[admissionregistrationv1.ValidatingAdmissionPolicies].(registry.StrategyFor[*policy])
	p := deploymentReplicasPolicy()
	p.Status.ObservedGeneration = 9
	s.PrepareForCreate(context.Background(), p)
	if p.Status.ObservedGeneration != 0 || p.Generation != 1 {
		t.Fatalf("after create: status %+v, generation %d", p.Status, p.Generation)
	}
	p.Status.ObservedGeneration = 1
	next := deploymentReplicasPolicy()
	next.Spec.Validations[0].Message = "too many replicas"
	s.PrepareForUpdate(context.Background(), next, p)
	if next.Status.ObservedGeneration != 1 || next.Generation != 2 {
		t.Errorf("after a spec update: status %+v (want the stored one), generation %d (want 2)", next.Status, next.Generation)
	}
}
