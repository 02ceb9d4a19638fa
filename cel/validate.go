package cel

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

// ruleValidator evaluates the compiled rules of a schema on objects; it is
// read-only and safe for concurrent use.
type ruleValidator struct {
	root       *node // nil when the schema has no rules
	rootSchema *openapi.Schema
	opts       options
}

// Validate evaluates every rule that applies to a value of obj, in the order
// kube-apiserver does, within the runtime cost budget. On update (old != nil) a rule
// sees the correlated old value as oldSelf, and as kube-apiserver's validation
// ratcheting does, the failures of rules that do not use oldSelf are dropped where
// the value did not change.
func (v *ruleValidator) Validate(ctx context.Context, obj, old map[string]any) validation.ErrorList {
	if v.root == nil || obj == nil {
		return nil
	}
	var r ratchet
	var oldObj any
	if old != nil {
		oldObj = old
		r.current = common.NewCorrelatedObject(obj, old, view(v.rootSchema))
	}
	errs, _ := v.root.validate(ctx, nil, obj, oldObj, r, v.opts.runtimeCostBudget, v.opts)
	return errs
}

// ratchet follows an object and its stored version together, to tell whether the
// value a rule failed on is unchanged (then the failure is not reported). current is
// nil where the values cannot be correlated; parent is then the nearest node above
// that could.
type ratchet struct {
	current, parent *common.CorrelatedObject
}

func (r ratchet) unchanged() bool {
	if r.current != nil {
		return r.current.CachedDeepEqual()
	}
	return r.parent.CachedDeepEqual()
}

func (r ratchet) key(k string) ratchet {
	if r.current == nil {
		return r
	}
	if r.parent == nil && (k == "apiVersion" || k == "kind") {
		return ratchet{} // both versions were converted to the same apiVersion and kind
	}
	return ratchet{current: r.current.Key(k), parent: r.current}
}

func (r ratchet) index(i int) ratchet {
	if r.current == nil {
		return r
	}
	return ratchet{current: r.current.Index(i), parent: r.current}
}

// validate evaluates the rules of n and the nodes below it on obj, whose stored
// version is old (nil when there is none), and returns the errors and the budget
// left; a negative budget means evaluation stopped.
func (n *node) validate(ctx context.Context, p *validation.Path, obj, old any, r ratchet, budget int64, o options) (validation.ErrorList, int64) {
	if n == nil || obj == nil {
		return nil, budget
	}
	errs, budget := n.validateRules(ctx, p, obj, old, r, budget, o)
	if budget < 0 {
		return errs, budget
	}
	for _, a := range n.allOf {
		var more validation.ErrorList
		// allOf failures are never ratcheted, as in kube
		more, budget = a.validate(ctx, p, obj, old, ratchet{parent: r.parent}, budget, o)
		errs = append(errs, more...)
		if budget < 0 {
			return errs, budget
		}
	}
	var more validation.ErrorList
	switch obj := obj.(type) {
	case []any:
		oldList, _ := old.([]any)
		more, budget = n.validateList(ctx, p, obj, oldList, r, budget, o)
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		more, budget = n.validateMap(ctx, p, obj, oldMap, r, budget, o)
	}
	return append(errs, more...), budget
}

func (n *node) validateMap(ctx context.Context, p *validation.Path, obj, old map[string]any, r ratchet, budget int64, o options) (validation.ErrorList, int64) {
	var errs validation.ErrorList
	correlatable := mapIsCorrelatable(n.schema.MapType)
	oldValue := func(k string) any {
		if correlatable && old != nil {
			return old[k]
		}
		return nil
	}
	if n.additionalProperties != nil {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			more, left := n.additionalProperties.validate(ctx, p.Key(k), obj[k], oldValue(k), r.key(k), budget, o)
			errs, budget = append(errs, more...), left
			if budget < 0 {
				return errs, budget
			}
		}
	}
	if n.properties != nil {
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			sub, ok := n.properties[k]
			if !ok {
				continue
			}
			more, left := sub.validate(ctx, p.Child(k), obj[k], oldValue(k), r.key(k), budget, o)
			errs, budget = append(errs, more...), left
			if budget < 0 {
				return errs, budget
			}
		}
	}
	return errs, budget
}

func (n *node) validateList(ctx context.Context, p *validation.Path, obj, old []any, r ratchet, budget int64, o options) (validation.ErrorList, int64) {
	if n.items == nil {
		return nil, budget
	}
	var errs validation.ErrorList
	// only list-type map items have old values: they are found by their keys
	oldItems := common.MakeMapList(view(n.schema), old)
	for i, item := range obj {
		more, left := n.items.validate(ctx, p.Index(i), item, oldItems.Get(item), r.index(i), budget, o)
		errs, budget = append(errs, more...), left
		if budget < 0 {
			return errs, budget
		}
	}
	return errs, budget
}

// errOutOfBudget is kube's detail when the rules of one object cost more than the
// runtime budget.
const errOutOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// validateRules evaluates the rules of n itself.
func (n *node) validateRules(ctx context.Context, p *validation.Path, obj, old any, r ratchet, budget int64, o options) (validation.ErrorList, int64) {
	if len(n.rules) == 0 {
		return nil, budget
	}
	typ := n.schema.Type
	if budget <= 0 {
		return validation.ErrorList{validation.Invalid(p, typ, errOutOfBudget)}, -1
	}
	act, optAct := n.activations(obj, old)
	var errs validation.ErrorList
	for _, cr := range n.rules {
		if cr.compileErr != "" {
			errs = append(errs, validation.Invalid(p, typ, "rule compile error: "+cr.compileErr))
			continue
		}
		if cr.program == nil {
			continue // an empty rule
		}
		optional := cr.rule.OptionalOldSelf != nil && *cr.rule.OptionalOldSelf
		if cr.usesOldSelf && old == nil && !optional {
			continue // a transition rule runs only when there is an old value
		}
		a := act
		if optional {
			a = optAct
		}
		result, details, err := cr.program.ContextEval(ctx, a)
		if details == nil || details.ActualCost() == nil {
			errs = append(errs, validation.Invalid(p, typ, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(cr.rule))))
			return errs, -1
		}
		if cost := *details.ActualCost(); cost > math.MaxInt64 || int64(cost) > budget {
			errs = append(errs, validation.Invalid(p, typ, errOutOfBudget))
			return errs, -1
		} else {
			budget -= int64(cost)
		}
		if err != nil {
			switch msg := err.Error(); {
			case strings.HasPrefix(msg, "no such overload"):
				errs = append(errs, validation.Invalid(p, typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(cr.rule))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				errs = append(errs, validation.Invalid(p, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(cr.rule))))
				return errs, -1
			default:
				errs = append(errs, validation.Invalid(p, typ, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(cr.rule))))
			}
			continue
		}
		if result == types.True {
			continue
		}

		errPath := p
		if cr.fieldPath != "" {
			errPath = errPath.Child(cr.fieldPath)
		}
		add := func(e *validation.Error) {
			// a failure on an unchanged value is ratcheted (kube turns it into a
			// warning, which the RuleValidator contract has no room for)
			if cr.usesOldSelf || !r.unchanged() {
				errs = append(errs, e)
			}
		}
		detail, ok := "", false
		if cr.messageExpression != nil {
			msg, left, msgErr := evalMessageExpression(ctx, cr.messageExpression, cr.rule.MessageExpression, a, budget)
			switch {
			case msgErr == nil:
				detail, ok, budget = msg, true, left
			case msgErr.stop:
				add(validation.Invalid(errPath, typ, msgErr.detail))
				return errs, -1
			default:
				budget = left // the message falls back to the rule's
			}
		}
		if !ok {
			detail = ruleMessage(cr.rule)
		}
		var value any = obj
		if typ == "object" || typ == "array" {
			value = omitted
		}
		add(errorForReason(errPath, value, detail, cr.rule.Reason))
	}
	return errs, budget
}

// omitted as a bad value leaves the value out of the message, as kube does for the
// objects and lists a rule fails on. The validation package keeps its marker
// unexported; TooMany with an unknown count is the one error that carries it.
var omitted = validation.TooMany(nil, -1, 0).BadValue

// errorForReason builds the error of a failed rule of the given reason.
func errorForReason(p *validation.Path, value any, detail string, reason *string) *validation.Error {
	if reason == nil {
		return validation.Invalid(p, value, detail)
	}
	switch *reason {
	case string(validation.ErrorTypeForbidden):
		return validation.Forbidden(p, detail)
	case string(validation.ErrorTypeRequired):
		return validation.Required(p, detail)
	case string(validation.ErrorTypeDuplicate):
		return validation.Duplicate(p, value)
	default:
		return validation.Invalid(p, value, detail)
	}
}

// messageError is a messageExpression that did not give a message; stop says the
// whole validation stops (budget or internal errors), otherwise the rule's message
// is used instead.
type messageError struct {
	detail string
	stop   bool
}

// evalMessageExpression evaluates a messageExpression and checks its result as kube
// does: a non-empty single line of at most 5 KiB, trimmed.
func evalMessageExpression(ctx context.Context, prog celgo.Program, src string, a interpreter.Activation, budget int64) (string, int64, *messageError) {
	result, details, err := prog.ContextEval(ctx, a)
	if details == nil || details.ActualCost() == nil {
		return "", -1, &messageError{detail: fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", src), stop: true}
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > budget {
		return "", -1, &messageError{detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", stop: true}
	}
	left := budget - int64(cost)
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			return "", -1, &messageError{detail: fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", src), stop: true}
		}
		return "", left, &messageError{detail: "messageExpression evaluation failed due to: " + err.Error()}
	}
	msg, ok := result.Value().(string)
	if !ok {
		return "", left, &messageError{detail: "messageExpression failed to convert to string"}
	}
	msg = strings.TrimSpace(msg)
	switch {
	case len(msg) > celconfig.MaxEvaluatedMessageExpressionSizeBytes:
		return "", left, &messageError{detail: fmt.Sprintf("messageExpression beyond allowable length of %d", celconfig.MaxEvaluatedMessageExpressionSizeBytes)}
	case strings.Contains(msg, "\n"):
		return "", left, &messageError{detail: "messageExpression should not contain line breaks"}
	case msg == "":
		return "", left, &messageError{detail: "messageExpression should evaluate to a non-empty string"}
	}
	return msg, left, nil
}

// ruleMessage is the detail of a failed rule without a messageExpression.
func ruleMessage(r rule) string {
	if r.Message == "" {
		return "failed rule: " + ruleErrorString(r)
	}
	return strings.TrimSpace(r.Message)
}

// ruleErrorString names a rule in errors: its message, or else the rule itself.
func ruleErrorString(r rule) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

// activation resolves self and oldSelf. hasOldSelf says oldSelf is defined, which
// for an optionalOldSelf rule it always is (an empty optional without an old value).
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case selfVar:
		return a.self, true
	case oldSelfVar:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// activations returns the activation of ordinary rules and of optionalOldSelf rules.
func (n *node) activations(obj, old any) (*activation, *activation) {
	self := common.UnstructuredToVal(obj, n.selfSchema)
	if !n.usesOldSelf {
		a := &activation{self: self}
		return a, a
	}
	a := &activation{self: self}
	opt := &activation{self: self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if old != nil {
		a.oldSelf, a.hasOldSelf = common.UnstructuredToVal(old, n.selfSchema), true
		opt.oldSelf = types.OptionalOf(a.oldSelf)
	}
	return a, opt
}
