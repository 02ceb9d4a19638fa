package cel

import (
	"encoding/json"
	"fmt"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// The reasons a rule may give for its failure, sorted as kube lists them when it
// refuses another.
var supportedReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// rule is one entry of x-kubernetes-validations. Its fields and their order are those
// of apiextensions' internal ValidationRule, without JSON tags, because kube-apiserver
// echoes that struct, JSON-encoded, as the bad value of a rule that does not compile.
type rule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

// ruleJSON is the wire form of a rule in a schema.
type ruleJSON struct {
	Rule              string  `json:"rule"`
	Message           string  `json:"message,omitempty"`
	MessageExpression string  `json:"messageExpression,omitempty"`
	Reason            *string `json:"reason,omitempty"`
	FieldPath         string  `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty"`
}

// ruleView is the common.ValidationRule view of a rule.
type ruleView struct{ r rule }

func (v ruleView) Rule() string              { return v.r.Rule }
func (v ruleView) Message() string           { return v.r.Message }
func (v ruleView) MessageExpression() string { return v.r.MessageExpression }
func (v ruleView) FieldPath() string         { return v.r.FieldPath }

// rulesOf decodes the rules of s. The extension holds decoded JSON ([]any of
// map[string]any) when the schema was read from JSON or YAML, or any value that
// encodes to the same JSON when a program built it, so it goes through JSON once.
func rulesOf(s *openapi.Schema) ([]rule, error) {
	raw, ok := s.Extensions[openapi.ExtValidations]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", openapi.ExtValidations, err)
	}
	var wire []ruleJSON
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", openapi.ExtValidations, err)
	}
	rules := make([]rule, len(wire))
	for i, w := range wire {
		rules[i] = rule(w)
	}
	return rules, nil
}
