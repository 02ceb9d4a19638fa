package cel

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// The limits kube-apiserver applies to the rules of a CustomResourceDefinition.
const (
	// DefaultPerCallLimit is the most one evaluation of one expression may cost.
	DefaultPerCallLimit = celconfig.PerCallLimit
	// DefaultEstimatedCostLimit is the most the estimated cost of one expression
	// (times the number of times it may run) may be when the schema is compiled.
	DefaultEstimatedCostLimit = 10_000_000
	// DefaultEstimatedCRDCostLimit is the most the estimated costs of all the
	// expressions of a schema may add up to.
	DefaultEstimatedCRDCostLimit = 100_000_000
	// DefaultRuntimeCostBudget is the most the evaluation of all the rules on one
	// object may cost.
	DefaultRuntimeCostBudget = celconfig.RuntimeCELCostBudget
)

// The names rules see their value and its stored version by.
const (
	selfVar    = "self"
	oldSelfVar = "oldSelf"
)

// Option changes a limit of the compiler New returns.
type Option func(*options)

type options struct {
	perCallLimit          uint64
	estimatedCostLimit    uint64
	estimatedCRDCostLimit uint64
	runtimeCostBudget     int64
}

// WithPerCallLimit sets the most one evaluation of one expression may cost; an
// evaluation that goes over stops with kube's "call cost exceeds limit" error.
func WithPerCallLimit(limit uint64) Option {
	return func(o *options) { o.perCallLimit = limit }
}

// WithEstimatedCostLimit sets the most the estimated worst-case cost of one rule or
// messageExpression may be; Compile refuses a rule estimated above it.
func WithEstimatedCostLimit(limit uint64) Option {
	return func(o *options) { o.estimatedCostLimit = limit }
}

// WithEstimatedCRDCostLimit sets the most the estimated costs of all the expressions
// of a schema may add up to.
func WithEstimatedCRDCostLimit(limit uint64) Option {
	return func(o *options) { o.estimatedCRDCostLimit = limit }
}

// WithRuntimeCostBudget sets the most the evaluation of all the rules on one object
// may cost; past it, validation stops with kube's "running out of cost budget" error.
func WithRuntimeCostBudget(budget int64) Option {
	return func(o *options) { o.runtimeCostBudget = budget }
}

// New returns a structural.RuleCompiler with kube-apiserver's CEL environment
// (the base environment of its compatibility version, with the Kubernetes libraries:
// lists, regex, urls, quantity, ip, cidr, format, semver, ...) and the limits of a
// CustomResourceDefinition, which options change.
func New(opts ...Option) structural.RuleCompiler {
	o := options{
		perCallLimit:          DefaultPerCallLimit,
		estimatedCostLimit:    DefaultEstimatedCostLimit,
		estimatedCRDCostLimit: DefaultEstimatedCRDCostLimit,
		runtimeCostBudget:     DefaultRuntimeCostBudget,
	}
	for _, opt := range opts {
		opt(&o)
	}
	return &compiler{opts: o}
}

type compiler struct {
	opts options
}

// Compile checks and compiles every rule of s as kube-apiserver does when a
// CustomResourceDefinition is created: the rules themselves (rule, message,
// messageExpression, reason, fieldPath), their compilation against the type of the
// value they sit on, their estimated cost, and their use of oldSelf where no old
// value can be correlated.
func (c *compiler) Compile(s *structural.Schema, fldPath *validation.Path) (structural.RuleValidator, validation.ErrorList) {
	root := s.OpenAPI()
	if !root.HasRules() {
		return &ruleValidator{opts: c.opts}, nil
	}
	cc := &compilation{opts: c.opts, base: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	one := uint64(1)
	n := cc.walk(root, root, fldPath, walkState{
		decl:           common.SchemaDeclType(view(root), true),
		runtime:        true,
		isResourceRoot: true,
		cardinality:    &one,
	})
	errs := append(cc.schemaErrs, cc.celErrs...)
	if cc.totalCost > c.opts.estimatedCRDCostLimit {
		for _, e := range cc.mostExpensive {
			errs = append(errs, validation.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		errs = append(errs, validation.Forbidden(fldPath, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", cc.totalCost, c.opts.estimatedCRDCostLimit)))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &ruleValidator{root: n, rootSchema: root, opts: c.opts}, nil
}

// compilation is the state of one Compile: the errors so far and the running total
// of estimated costs.
type compilation struct {
	opts       options
	base       *environment.EnvSet
	schemaErrs validation.ErrorList // errors in the rules as written
	celErrs    validation.ErrorList // errors of compilation and cost

	totalCost     uint64
	mostExpensive []expensiveRule
}

type expensiveRule struct {
	path *validation.Path
	cost uint64
}

// observeCost adds an expression's estimated cost to the schema's total, and
// remembers the four most expensive of those that take 1% of the limit or more.
func (cc *compilation) observeCost(path *validation.Path, cost uint64) {
	if math.MaxUint64-cc.totalCost < cost {
		cc.totalCost = math.MaxUint64
	} else {
		cc.totalCost += cost
	}
	if cost < cc.opts.estimatedCRDCostLimit/100 {
		return
	}
	cc.mostExpensive = append(cc.mostExpensive, expensiveRule{path: path, cost: cost})
	sort.SliceStable(cc.mostExpensive, func(i, j int) bool { return cc.mostExpensive[i].cost > cc.mostExpensive[j].cost })
	if len(cc.mostExpensive) > 4 {
		cc.mostExpensive = cc.mostExpensive[:4]
	}
}

// walkState is what a schema node inherits from the nodes above it.
type walkState struct {
	// decl is the CEL type of the node's values.
	decl *apiservercel.DeclType
	// runtime is false where kube-apiserver's validator does not reach (a property
	// whose type CEL cannot express), so the node's rules never run.
	runtime bool
	// isResourceRoot is true at the root and at embedded resources, where self has
	// apiVersion, kind and metadata.name/generateName whatever the schema says.
	isResourceRoot bool
	// cardinality is how many times the node's value may occur in one object, or nil
	// when unbounded (under a list or map without maxItems/maxProperties).
	cardinality *uint64
	// uncorrelatable is the path of the highest list or map below which old values
	// cannot be matched to new ones, so oldSelf is refused; nil when they can.
	uncorrelatable *validation.Path
	// inAllOf is true under allOf, where kube-apiserver checks rules as written but
	// does not compile them until an object is validated.
	inAllOf bool
}

// node holds the compiled rules of one schema node and the nodes below it that have
// rules, in the shape kube-apiserver's validator walks an object.
type node struct {
	schema      *openapi.Schema // the structure: type, list and map types
	selfSchema  common.Schema   // the schema values are converted to CEL with
	rules       []compiledRule
	usesOldSelf bool

	properties           map[string]*node
	items                *node
	additionalProperties *node
	allOf                []*node
}

// compiledRule is one rule ready to run. program is nil for a rule that is empty
// or, under allOf, does not compile (compileErr says why).
type compiledRule struct {
	rule              rule
	program           celgo.Program
	compileErr        string
	usesOldSelf       bool
	messageExpression celgo.Program
	fieldPath         string // normalized, relative to the node
}

// walk compiles the rules of the schema vs (the schema as written, whose path is
// path) that applies to values shaped by ns (the same schema, or under allOf the
// schema the allOf belongs to), and of the schemas below, and returns the node
// that validates those values, or nil when no rules apply there.
func (cc *compilation) walk(vs, ns *openapi.Schema, path *validation.Path, w walkState) *node {
	schemaErrsBefore := len(cc.schemaErrs)
	n := &node{schema: ns}
	if w.isResourceRoot {
		n.selfSchema = view(withTypeAndObjectMeta(ns))
	} else {
		n.selfSchema = view(ns)
	}
	childCardinality := multiplyCardinality(w.cardinality, maxElements(vs))

	if vs.AdditionalProperties != nil && ns.AdditionalProperties != nil {
		child := w.below(nil, ns.AdditionalProperties.EmbeddedResource, childCardinality)
		if w.decl != nil {
			child.decl = w.decl.ElemType
		}
		n.additionalProperties = cc.walk(vs.AdditionalProperties, ns.AdditionalProperties, path.Child("additionalProperties"), child)
	}
	for _, name := range slices.Sorted(maps.Keys(vs.Properties)) {
		nsProp, ok := ns.Properties[name]
		if !ok {
			continue // only properties of the structure carry rules
		}
		var uncorrelatable *validation.Path
		if !mapIsCorrelatable(vs.MapType) {
			uncorrelatable = path
		}
		child := w.below(uncorrelatable, nsProp.EmbeddedResource, childCardinality)
		if escaped, ok := apiservercel.Escape(name); ok {
			child.decl = nil
			if w.decl != nil {
				if f, ok := w.decl.Fields[escaped]; ok {
					child.decl = f.Type
				}
			}
			if child.decl == nil {
				// kube's validator skips fields CEL has no type for; the rules are
				// still checked against the field's own type.
				child.runtime = false
				child.decl = common.SchemaDeclType(view(nsProp), nsProp.EmbeddedResource)
			}
		} else {
			child.decl = common.SchemaDeclType(view(nsProp), nsProp.EmbeddedResource)
		}
		if p := cc.walk(vs.Properties[name], nsProp, path.Child("properties").Key(name), child); p != nil {
			if n.properties == nil {
				n.properties = map[string]*node{}
			}
			n.properties[name] = p
		}
	}
	if vs.Items != nil && ns.Items != nil {
		var uncorrelatable *validation.Path
		if vs.ListType != "map" {
			uncorrelatable = path
		}
		child := w.below(uncorrelatable, ns.Items.EmbeddedResource, childCardinality)
		if w.decl != nil {
			child.decl = w.decl.ElemType
		}
		n.items = cc.walk(vs.Items, ns.Items, path.Child("items"), child)
	}
	for i, sub := range vs.AllOf {
		aw := w
		aw.inAllOf = true
		if a := cc.walk(sub, ns, path.Child("allOf").Index(i), aw); a != nil {
			n.allOf = append(n.allOf, a)
		}
	}

	cc.compileRules(n, vs, ns, path, w, len(cc.schemaErrs) > schemaErrsBefore)

	if !w.runtime || (len(n.rules) == 0 && n.items == nil && n.additionalProperties == nil && len(n.properties) == 0 && len(n.allOf) == 0) {
		return nil
	}
	return n
}

// below returns the state of a child node; its decl is for the caller to set.
func (w walkState) below(uncorrelatable *validation.Path, embedded bool, cardinality *uint64) walkState {
	child := walkState{
		runtime:        w.runtime,
		isResourceRoot: embedded,
		cardinality:    cardinality,
		uncorrelatable: w.uncorrelatable,
		inAllOf:        w.inAllOf,
	}
	if child.uncorrelatable == nil {
		child.uncorrelatable = uncorrelatable
	}
	return child
}

// compileRules checks the rules of vs as written, then (unless something below or
// here is already wrong, when CEL's errors would only confuse) compiles them against
// the type of the node's values and checks their estimated cost.
func (cc *compilation) compileRules(n *node, vs, ns *openapi.Schema, path *validation.Path, w walkState, errsBelow bool) {
	if _, ok := vs.Extensions[openapi.ExtValidations]; !ok {
		return
	}
	rulesPath := path.Child(openapi.ExtValidations)
	rules, err := rulesOf(vs)
	if err != nil {
		cc.schemaErrs = append(cc.schemaErrs, validation.Invalid(rulesPath, vs.Extensions[openapi.ExtValidations], err.Error()))
		return
	}
	before := len(cc.schemaErrs)
	for i, r := range rules {
		cc.schemaErrs = append(cc.schemaErrs, checkRule(r, vs, rulesPath.Index(i))...)
	}
	if errsBelow || len(cc.schemaErrs) > before {
		return
	}
	if w.decl == nil {
		if !w.inAllOf {
			cc.celErrs = append(cc.celErrs, validation.InternalError(rulesPath, fmt.Errorf("internal error: failed to construct type information for x-kubernetes-validations rules: %s", "unable to convert structural schema to CEL declarations")))
		}
		return
	}
	envs, err := newRuleEnvs(cc.base, w.decl)
	if err != nil {
		cc.celErrs = append(cc.celErrs, validation.InternalError(rulesPath, err))
		return
	}
	estimator := &library.CostEstimator{SizeEstimator: &sizeEstimator{root: w.decl}}
	perRuleCardinality := uint64(celconfig.MaxRequestSizeBytes / (w.decl.MinSerializedSize + 1))
	cardinality := perRuleCardinality
	if w.cardinality != nil {
		cardinality = *w.cardinality
	}
	for i, r := range rules {
		rp := rulesPath.Index(i)
		cr, res := compileRule(r, ns, envs, estimator, cc.opts.perCallLimit)
		n.rules = append(n.rules, cr)
		if cr.usesOldSelf {
			n.usesOldSelf = true
		}
		if w.inAllOf {
			continue // kube compiles rules under allOf only at validation
		}
		cost := multiplyCardinality(&res.maxCost, &cardinality)
		if *cost > cc.opts.estimatedCostLimit {
			cc.celErrs = append(cc.celErrs, validation.Forbidden(rp.Child("rule"), costErrorMessage("estimated rule cost", *cost, cc.opts.estimatedCostLimit)))
		}
		cc.observeCost(rp.Child("rule"), *cost)
		if cr.compileErr != "" {
			cc.celErrs = append(cc.celErrs, validation.Invalid(rp.Child("rule"), r, cr.compileErr))
		}
		if res.messageErr != "" {
			cc.celErrs = append(cc.celErrs, validation.Invalid(rp.Child("messageExpression"), r, res.messageErr))
		} else if cr.messageExpression != nil {
			if res.messageMaxCost > cc.opts.estimatedCostLimit {
				cc.celErrs = append(cc.celErrs, validation.Forbidden(rp.Child("messageExpression"), costErrorMessage("estimated messageExpression cost", res.messageMaxCost, cc.opts.estimatedCostLimit)))
			}
			cc.observeCost(rp.Child("messageExpression"), res.messageMaxCost)
		}
		if cr.usesOldSelf {
			if w.uncorrelatable != nil {
				cc.celErrs = append(cc.celErrs, validation.Invalid(rp.Child("rule"), r.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", w.uncorrelatable)))
			}
		} else if r.OptionalOldSelf != nil {
			cc.celErrs = append(cc.celErrs, validation.Invalid(rp.Child("optionalOldSelf"), *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
}

// newlines are the line breaks of CEL's grammar.
var newlines = regexp.MustCompile(`[\n\r]+`)

// checkRule checks one rule as written, with kube-apiserver's messages.
func checkRule(r rule, s *openapi.Schema, p *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	trimmedRule := strings.TrimSpace(r.Rule)
	trimmedMsg := strings.TrimSpace(r.Message)
	switch {
	case trimmedRule == "":
		errs = append(errs, validation.Required(p.Child("rule"), "rule is not specified"))
	case r.Message != "" && trimmedMsg == "":
		errs = append(errs, validation.Invalid(p.Child("message"), r.Message, "must be non-empty if specified"))
	case newlines.MatchString(trimmedMsg):
		errs = append(errs, validation.Invalid(p.Child("message"), r.Message, "must not contain line breaks"))
	case newlines.MatchString(trimmedRule) && trimmedMsg == "":
		errs = append(errs, validation.Required(p.Child("message"), "message must be specified if rule contains line breaks"))
	}
	if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
		errs = append(errs, validation.Required(p.Child("messageExpression"), "messageExpression must be non-empty if specified"))
	}
	if r.Reason != nil && !slices.Contains(supportedReasons, *r.Reason) {
		errs = append(errs, validation.NotSupported(p.Child("reason"), *r.Reason, supportedReasons))
	}
	if r.FieldPath != "" && strings.TrimSpace(r.FieldPath) == "" {
		errs = append(errs, validation.Invalid(p.Child("fieldPath"), r.FieldPath, "must be non-empty if specified"))
	}
	if newlines.MatchString(r.FieldPath) {
		errs = append(errs, validation.Invalid(p.Child("fieldPath"), r.FieldPath, "must not contain line breaks"))
	}
	if r.FieldPath != "" {
		if _, err := structural.RuleFieldPath(r.FieldPath, s); err != nil {
			errs = append(errs, validation.Invalid(p.Child("fieldPath"), r.FieldPath, "must be a valid path"))
		}
	}
	return errs
}

// ruleEnvs are the CEL environments of the rules of one node: self and oldSelf of
// the node's type, and self with an optional oldSelf for optionalOldSelf rules.
type ruleEnvs struct {
	oldSelf, optionalOldSelf *celgo.Env
}

// selfTypeCounter names the object type of self uniquely, as kube does, so that no
// rule can come to depend on the name.
var selfTypeCounter atomic.Uint64

func newRuleEnvs(base *environment.EnvSet, decl *apiservercel.DeclType) (ruleEnvs, error) {
	selfType := decl.MaybeAssignTypeName(fmt.Sprintf("selfType%d", selfTypeCounter.Add(1)))
	build := func(oldSelfType *types.Type) (*celgo.Env, error) {
		set, err := base.Extend(
			environment.VersionedOptions{
				IntroducedVersion: version.MajorMinor(1, 0),
				EnvOptions:        []celgo.EnvOption{celgo.Variable(selfVar, selfType.CelType())},
				DeclTypes:         []*apiservercel.DeclType{selfType},
			},
			environment.VersionedOptions{
				IntroducedVersion: version.MajorMinor(1, 24),
				EnvOptions:        []celgo.EnvOption{celgo.Variable(oldSelfVar, oldSelfType)},
			},
		)
		if err != nil {
			return nil, fmt.Errorf("building the CEL environment: %w", err)
		}
		return set.NewExpressionsEnv(), nil
	}
	var envs ruleEnvs
	var err error
	if envs.oldSelf, err = build(selfType.CelType()); err != nil {
		return ruleEnvs{}, err
	}
	if envs.optionalOldSelf, err = build(types.NewOptionalType(selfType.CelType())); err != nil {
		return ruleEnvs{}, err
	}
	return envs, nil
}

// compileResult is what Compile reports of a rule beyond the compiled rule itself.
type compileResult struct {
	maxCost        uint64
	messageErr     string
	messageMaxCost uint64
}

// compileRule compiles a rule and its messageExpression with kube's error details.
func compileRule(r rule, s *openapi.Schema, envs ruleEnvs, estimator *library.CostEstimator, perCallLimit uint64) (compiledRule, compileResult) {
	cr := compiledRule{rule: r}
	var res compileResult
	if strings.TrimSpace(r.Rule) == "" {
		return cr, res
	}
	env := envs.oldSelf
	if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
		env = envs.optionalOldSelf
	}
	programOpts := []celgo.ProgramOption{
		celgo.CostLimit(perCallLimit),
		celgo.CostTracking(estimator),
		celgo.InterruptCheckFrequency(celconfig.CheckFrequency),
	}
	ast, issues := env.Compile(r.Rule)
	if issues != nil {
		cr.compileErr = "compilation failed: " + issues.String()
		return cr, res
	}
	if ast.OutputType() != celgo.BoolType {
		cr.compileErr = "cel expression must evaluate to a bool"
		return cr, res
	}
	cr.usesOldSelf = referencesOldSelf(ast)
	prog, err := env.Program(ast, programOpts...)
	if err != nil {
		cr.compileErr = "program instantiation failed: " + err.Error()
		return cr, res
	}
	est, err := env.EstimateCost(ast, estimator)
	if err != nil {
		cr.compileErr = "cost estimation failed: " + err.Error()
		return cr, res
	}
	res.maxCost = est.Max
	cr.program = prog
	if r.MessageExpression != "" {
		res.messageErr = func() string {
			ast, issues := env.Compile(r.MessageExpression)
			if issues != nil {
				return "messageExpression compilation failed: " + issues.String()
			}
			if ast.OutputType() != celgo.StringType {
				return "messageExpression must evaluate to a string"
			}
			prog, err := env.Program(ast, programOpts...)
			if err != nil {
				return "messageExpression instantiation failed: " + err.Error()
			}
			est, err := env.EstimateCost(ast, estimator)
			if err != nil {
				return "cost estimation failed for messageExpression: " + err.Error()
			}
			cr.messageExpression = prog
			res.messageMaxCost = est.Max
			return ""
		}()
	}
	if r.FieldPath != "" {
		if p, err := structural.RuleFieldPath(r.FieldPath, s); err == nil && p != nil {
			cr.fieldPath = p.String()
		}
	}
	return cr, res
}

// referencesOldSelf reports whether a checked expression refers to oldSelf.
func referencesOldSelf(ast *celgo.Ast) bool {
	checked, err := celgo.AstToCheckedExpr(ast)
	if err != nil {
		return false
	}
	for _, ref := range checked.ReferenceMap {
		if ref.Name == oldSelfVar {
			return true
		}
	}
	return false
}

// sizeEstimator tells CEL's cost estimator the largest size a value reached from self
// may have: the maxItems, maxProperties and maxLength of the schema (or kube's
// estimates of them from the largest request).
type sizeEstimator struct {
	root *apiservercel.DeclType
}

func (e *sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 {
		return nil
	}
	t := e.root
	for _, step := range path[1:] { // path[0] is self
		switch step {
		case "@items", "@values":
			t = t.ElemType
		case "@keys":
			t = t.KeyType
		default:
			f, ok := t.Fields[step]
			if !ok {
				return nil
			}
			t = f.Type
		}
		if t == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.MaxElements)}
}

func (e *sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// costErrorMessage is kube's message for an estimated cost over its limit.
func costErrorMessage(costName string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100:
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", costName, f)
}

// maxElements is how many values a schema's children may have: its maxItems or
// maxProperties for lists and maps (nil when unbounded), one otherwise.
func maxElements(s *openapi.Schema) *uint64 {
	bound := func(limit *int64) *uint64 {
		if limit == nil {
			return nil
		}
		n := uint64(max(*limit, 0))
		return &n
	}
	one := uint64(1)
	switch s.Type {
	case "object":
		if s.AdditionalProperties != nil {
			return bound(s.MaxProperties)
		}
	case "array":
		return bound(s.MaxItems)
	}
	return &one
}

// multiplyCardinality multiplies two counts, nil meaning unbounded, saturating at
// the largest uint64 (a zero count stays zero).
func multiplyCardinality(a, b *uint64) *uint64 {
	if a == nil || b == nil {
		return nil
	}
	var n uint64
	switch {
	case *a == 0:
		n = 0
	case math.MaxUint64 / *a < *b:
		n = math.MaxUint64
	default:
		n = *a * *b
	}
	return &n
}

// mapIsCorrelatable reports whether the old values of a map's entries can be found
// by key: granular (the default) and atomic maps, as kube reads it.
func mapIsCorrelatable(mapType string) bool {
	return mapType == "" || mapType == "granular" || mapType == "atomic"
}
