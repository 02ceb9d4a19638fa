// Package cel evaluates the validation rules of CustomResourceDefinition-style
// schemas (x-kubernetes-validations: CEL expressions) as kube-apiserver does, for
// apikit servers that serve kinds defined only by a schema.
//
// It is a module of its own (github.com/apikit-dev/apikit/cel) because CEL is heavy:
// it builds on cel.dev's cel-go and on k8s.io/apiserver's CEL support (the versioned
// base environment, the Kubernetes libraries and their costs, the conversion of
// schemas to CEL types and of objects to CEL values), so that a rule compiles, costs
// and evaluates exactly as on a real cluster. Servers that do not import it stay free
// of those dependencies, and refuse schemas with rules rather than ignore them.
//
// # Enabling CEL validation rules
//
// Pass the compiler New returns wherever a structural.RuleCompiler is asked for,
// for example to the REST handler:
//
//	import apikitcel "github.com/apikit-dev/apikit/cel"
//
//	h, err := rest.New(rest.Options{Scheme: s, Storage: store, Rules: apikitcel.New()})
//
// With it, a schema's rules are checked when the schema is compiled (syntax, types,
// messageExpression, fieldPath, reason, the use of oldSelf, and the estimated cost
// against kube's limits: per expression 10,000,000 and per schema 100,000,000), and
// evaluated on every create and update (with oldSelf for transition rules, within a
// runtime budget of 10,000,000 per object, and at most 1,000,000 per expression
// call). Errors carry kube-apiserver's field paths and messages. Options change the
// limits:
//
//	apikitcel.New(apikitcel.WithRuntimeCostBudget(1_000_000))
//
// On update, as kube-apiserver's validation ratcheting does, a rule that does not
// use oldSelf does not fail a value that has not changed since the stored object.
//
// # Admission expressions
//
// NewConditionCompiler returns the registry/admission.ConditionCompiler that
// admission webhooks' matchConditions need: kube's environment and variables (object,
// oldObject, request, authorizer, authorizer.requestResource), kube's compile errors,
// and the runtime budget of match conditions. ValidatingAdmissionPolicies are
// evaluated by the plugin of package github.com/apikit-dev/apikit/cel/policy.
package cel
