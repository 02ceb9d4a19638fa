package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/apikit-dev/apikit/validation"
)

// Policy decides the Level and omitted Stages of each request: the first rule that
// matches wins; no match is LevelNone. It is audit.k8s.io/v1 Policy.
type Policy struct {
	Kind       string         `json:"kind,omitempty"`
	APIVersion string         `json:"apiVersion,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	Rules      []PolicyRule   `json:"rules"`
	// OmitStages are left out of every event, whatever rule matched.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields drops metadata.managedFields from recorded bodies, unless a rule
	// says otherwise.
	OmitManagedFields bool `json:"omitManagedFields,omitempty"`
}

// PolicyRule matches requests; an empty list matches everything. A rule with Resources
// or Namespaces matches only resource requests, one with NonResourceURLs only the
// others.
type PolicyRule struct {
	Level Level `json:"level"`
	// Users are user names; UserGroups match when the user is in any of them.
	Users      []string `json:"users,omitempty"`
	UserGroups []string `json:"userGroups,omitempty"`
	// Verbs are API verbs (get, list, watch, create, update, patch, delete,
	// deletecollection) or lowercased HTTP methods of non-resource requests.
	Verbs     []string         `json:"verbs,omitempty"`
	Resources []GroupResources `json:"resources,omitempty"`
	// Namespaces match a resource request's namespace; "" is a cluster-scoped one.
	Namespaces []string `json:"namespaces,omitempty"`
	// NonResourceURLs are paths; "*" matches all, a trailing "*" a prefix.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	// OmitStages are left out of the events of requests this rule matches, in addition
	// to the Policy's.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields, when set, overrides the Policy's.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources match the resources of one API group ("" the core group, "*" any).
type GroupResources struct {
	Group string `json:"group,omitempty"`
	// Resources are resource names, "resource/subresource", "*" (any, with or without
	// subresource), "*/subresource" or "resource/*"; empty means every resource of
	// Group.
	Resources []string `json:"resources,omitempty"`
	// ResourceNames are object names; empty means any.
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// LoadPolicyFile reads a policy file (YAML or JSON) with ParsePolicy.
func LoadPolicyFile(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit: reading policy: %w", err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%w: from file %s", err, path)
	}
	return p, nil
}

// ParsePolicy reads an audit.k8s.io/v1 Policy in YAML or JSON and validates it as
// kube-apiserver's --audit-policy-file: apiVersion must be audit.k8s.io/v1 and kind
// Policy; levels and stages must be known ones; a rule may not name both resources (or
// namespaces) and non-resource URLs; a non-resource URL starts with "/" and has "*"
// only at its end; resourceNames need resources; a policy needs at least one rule.
// Unknown fields are ignored, as kube-apiserver falls back to lenient decoding.
func ParsePolicy(data []byte) (*Policy, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("audit: decoding policy: %w", err)
	}
	var p Policy
	dec := json.NewDecoder(bytes.NewReader(js))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("audit: decoding policy: %w", err)
	}
	if p.APIVersion != APIVersion || p.Kind != "Policy" {
		return nil, fmt.Errorf("audit: policy is %s %s, want audit.k8s.io/v1 Policy", p.APIVersion, p.Kind)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Rules) == 0 {
		return nil, errors.New("audit: loaded illegal policy with 0 rules")
	}
	return &p, nil
}

var validStages = []string{string(StageRequestReceived), string(StageResponseStarted), string(StageResponseComplete), string(StagePanic)}

// Validate checks the policy as kube-apiserver's ValidatePolicy does.
func (p *Policy) Validate() error {
	var errs validation.ErrorList
	errs = append(errs, validateStages(p.OmitStages, validation.NewPath("omitStages"))...)
	for i, r := range p.Rules {
		path := validation.NewPath("rules").Index(i)
		switch r.Level {
		case LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse:
		case "":
			errs = append(errs, validation.Required(path.Child("level"), ""))
		default:
			errs = append(errs, validation.NotSupported(path.Child("level"), string(r.Level), []string{string(LevelNone), string(LevelMetadata), string(LevelRequest), string(LevelRequestResponse)}))
		}
		for j, u := range r.NonResourceURLs {
			if u == "*" {
				continue
			}
			if !strings.HasPrefix(u, "/") {
				errs = append(errs, validation.Invalid(path.Child("nonResourceURLs").Index(j), u, "non-resource URL rules must begin with a '/' character"))
			}
			if u != "" && strings.Contains(u[:len(u)-1], "*") {
				errs = append(errs, validation.Invalid(path.Child("nonResourceURLs").Index(j), u, "non-resource URL wildcards '*' must be the final character of the rule"))
			}
		}
		for _, gr := range r.Resources {
			if gr.Group != "" && gr.Group != "*" {
				if msgs := validation.IsDNS1123Subdomain(gr.Group); len(msgs) > 0 {
					errs = append(errs, validation.Invalid(path.Child("resources").Child("group"), gr.Group, strings.Join(msgs, ",")))
				}
			}
			if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
				errs = append(errs, validation.Invalid(path.Child("resources").Child("resourceNames"), strings.Join(gr.ResourceNames, ","), "using resourceNames requires at least one resource"))
			}
		}
		errs = append(errs, validateStages(r.OmitStages, path.Child("omitStages"))...)
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			errs = append(errs, validation.Invalid(path.Child("nonResourceURLs"), strings.Join(r.NonResourceURLs, ","), "rules cannot apply to both regular resources and non-resource URLs"))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("audit: invalid policy: %w", errs.Err())
	}
	return nil
}

func validateStages(stages []Stage, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, s := range stages {
		if !slices.Contains(validStages, string(s)) {
			errs = append(errs, validation.Invalid(path.Index(i), string(s), "allowed stages are "+strings.Join(validStages, ",")))
		}
	}
	return errs
}

// Attributes describe a request to a policy: kube's authorizer.Attributes, the fields
// a rule looks at.
type Attributes struct {
	// User is nil for a request that failed authentication.
	User            *UserInfo
	Verb            string
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	Path            string
	ResourceRequest bool
}

// RequestConfig is what a policy decided for one request.
type RequestConfig struct {
	Level             Level
	OmitStages        []Stage
	OmitManagedFields bool
}

// Omits tells whether stage is left out.
func (c RequestConfig) Omits(stage Stage) bool { return slices.Contains(c.OmitStages, stage) }

// Evaluator applies a Policy to requests. It is safe for concurrent use.
type Evaluator struct {
	policy Policy
	// omit are the stages each rule omits: its own and the policy's.
	omit [][]Stage
}

// NewEvaluator returns the evaluator of p, which it does not modify or keep.
func NewEvaluator(p *Policy) *Evaluator {
	e := &Evaluator{policy: *p, omit: make([][]Stage, len(p.Rules))}
	for i, r := range p.Rules {
		var stages []Stage
		for _, s := range slices.Concat(p.OmitStages, r.OmitStages) {
			if !slices.Contains(stages, s) {
				stages = append(stages, s)
			}
		}
		e.omit[i] = stages
	}
	return e
}

// Evaluate returns the level, omitted stages and managed-fields choice of the first rule
// that matches a, or LevelNone with the policy's defaults.
func (e *Evaluator) Evaluate(a *Attributes) RequestConfig {
	for i := range e.policy.Rules {
		r := &e.policy.Rules[i]
		if ruleMatches(r, a) {
			omitMF := e.policy.OmitManagedFields
			if r.OmitManagedFields != nil {
				omitMF = *r.OmitManagedFields
			}
			return RequestConfig{Level: r.Level, OmitStages: e.omit[i], OmitManagedFields: omitMF}
		}
	}
	return RequestConfig{Level: LevelNone, OmitStages: e.policy.OmitStages, OmitManagedFields: e.policy.OmitManagedFields}
}

func ruleMatches(r *PolicyRule, a *Attributes) bool {
	if len(r.Users) > 0 && (a.User == nil || !slices.Contains(r.Users, a.User.Username)) {
		return false
	}
	if len(r.UserGroups) > 0 {
		if a.User == nil || !slices.ContainsFunc(a.User.Groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
			return false
		}
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		return ruleMatchesResource(r, a)
	}
	if len(r.NonResourceURLs) > 0 {
		return !a.ResourceRequest && slices.ContainsFunc(r.NonResourceURLs, func(spec string) bool { return pathMatches(a.Path, spec) })
	}
	return true
}

func pathMatches(path, spec string) bool {
	return spec == "*" || spec == path || strings.HasSuffix(spec, "*") && strings.HasPrefix(path, strings.TrimRight(spec, "*"))
}

func ruleMatchesResource(r *PolicyRule, a *Attributes) bool {
	if !a.ResourceRequest {
		return false
	}
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, a.Namespace) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined = a.Resource + "/" + a.Subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != a.APIGroup && gr.Group != "*" {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, a.Name) {
			continue
		}
		for _, res := range gr.Resources {
			switch {
			case res == combined || res == "*":
				return true
			case a.Subresource != "" && strings.HasPrefix(res, "*/") && a.Subresource == res[2:]:
				return true
			case strings.HasSuffix(res, "/*") && a.Resource == strings.TrimSuffix(res, "/*"):
				return true
			}
		}
	}
	return false
}
