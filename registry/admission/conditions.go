package admission

import (
	"context"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"
)

// MatchCondition is one of the matchConditions of an admission webhook or policy
// (admissionregistration.k8s.io/v1 MatchCondition): a CEL expression over object,
// oldObject, request and authorizer that must be true for the webhook to be called
// or the policy to apply.
type MatchCondition struct {
	Name       string
	Expression string
}

// ConditionCompiler compiles matchConditions. CEL lives outside the main module
// (package github.com/apikit-dev/apikit/cel implements this interface), so the webhook
// and policy plugins take a compiler from the host; without one, a configuration
// that has matchConditions fails its calls under its failurePolicy, as kube does with
// a condition it cannot evaluate.
type ConditionCompiler interface {
	// CompileConditions compiles conditions in order; an error names the first
	// condition that does not compile, as kube's validation words it.
	CompileConditions(conditions []MatchCondition) (ConditionMatcher, error)
}

// ConditionMatcher evaluates compiled matchConditions for one request.
type ConditionMatcher interface {
	// Match evaluates every condition, as kube's matchconditions.Matcher does: any
	// condition false makes the result a non-match naming it (errors of the others
	// are then ignored); otherwise an evaluation error is returned (the caller applies
	// its failurePolicy); otherwise the request matches.
	Match(ctx context.Context, in ConditionInput) MatchResult
}

// ConditionInput holds the variables of a CEL condition: object and oldObject as
// they are sent to a webhook (JSON-shaped maps of the request's version, or of the
// version the webhook asked for; nil where the operation has none), request the
// AdmissionRequest (admission.k8s.io/v1) as a JSON-shaped map, and the authorizer
// that `authorizer` checks the request's user against.
type ConditionInput struct {
	Object     map[string]any
	OldObject  map[string]any
	Request    map[string]any
	User       authn.User
	Authorizer authz.Authorizer
}

// MatchResult is the outcome of ConditionMatcher.Match.
type MatchResult struct {
	// Matches is true when no condition evaluated false and none failed.
	Matches bool
	// FailedCondition names the first condition that evaluated false.
	FailedCondition string
	// Err is an evaluation error (no condition false): the caller's failurePolicy decides.
	Err error
}
