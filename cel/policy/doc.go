// Package policy evaluates Kubernetes admission policies as kube-apiserver v1.37.2
// does: ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) and their
// bindings, as a registry.ValidatingAdmission plugin.
//
// It is part of the cel module because the expressions compile, cost and evaluate
// with k8s.io/apiserver's admission CEL library (the environment, the variables
// object, oldObject, request, params, namespaceObject, variables and authorizer, and
// the runtime budgets), so that a policy behaves exactly as on a cluster. What kube's
// policy plugin decides around the expressions is apikit's own: matching by
// matchConstraints and a binding's matchResources (resourceRules,
// excludeResourceRules, namespaceSelector, objectSelector, matchPolicy Exact and
// Equivalent), params by paramKind and paramRef (name, namespace, selector,
// parameterNotFoundAction), matchConditions, validations with message,
// messageExpression and reason, the validationActions Deny, Warn and Audit,
// auditAnnotations and failurePolicy, with kube's texts
// ("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ...") and codes.
//
// # Enabling policies
//
// Add the plugin after kube's built-in validating plugins:
//
//	plugins := admission.Builtin()
//	opts := rest.Options{
//		Strategies:          strategies.Builtin(),
//		MutatingAdmission:   plugins.Mutating,
//		ValidatingAdmission: append(plugins.Validating, policy.NewValidating()),
//	}
//
// Policies, bindings and params are read from the server's own storage on every
// write, so a policy applies as soon as it is stored (kube-apiserver applies it once
// its informers have seen it).
package policy
