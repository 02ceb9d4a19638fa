package storage

import (
	"slices"
	"sort"
	"strings"
)

// FieldRequirement is one term of a field selector: field Operator value, with Operator
// Equals or NotEquals ("==" parses as Equals, as in k8s.io/apimachinery).
type FieldRequirement struct {
	Field    string
	Operator Operator
	Value    string
}

// Matches reports whether the field values satisfy the requirement; a missing field has
// the value "".
func (r FieldRequirement) Matches(fields map[string]string) bool {
	if r.Operator == NotEquals {
		return fields[r.Field] != r.Value
	}
	return fields[r.Field] == r.Value
}

// String renders the requirement in selector syntax, escaping the value.
func (r FieldRequirement) String() string {
	return r.Field + string(r.Operator) + escapeFieldValue(r.Value)
}

// FieldSelector selects objects by field values (metadata.name, status.phase, ...). The
// zero value selects everything.
type FieldSelector struct {
	reqs []FieldRequirement
}

// Requirements returns the selector's terms; all must hold.
func (s FieldSelector) Requirements() []FieldRequirement { return slices.Clone(s.reqs) }

// Empty reports whether the selector selects everything.
func (s FieldSelector) Empty() bool { return len(s.reqs) == 0 }

// Matches reports whether the field values satisfy every requirement.
func (s FieldSelector) Matches(fields map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].Matches(fields) {
			return false
		}
	}
	return true
}

// RequiresExactMatch returns the value the selector demands of field with = or ==, if any.
func (s FieldSelector) RequiresExactMatch(field string) (string, bool) {
	for _, r := range s.reqs {
		if r.Field == field && r.Operator != NotEquals {
			return r.Value, true
		}
	}
	return "", false
}

// String renders the selector in the syntax ParseFieldSelector reads.
func (s FieldSelector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// FieldSelectorFromSet returns the selector that requires every field=value of set.
func FieldSelectorFromSet(set map[string]string) FieldSelector {
	reqs := make([]FieldRequirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, FieldRequirement{Field: k, Operator: Equals, Value: v})
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Field < reqs[j].Field })
	return FieldSelector{reqs: reqs}
}

// ParseFieldSelector parses Kubernetes field selector syntax: comma-separated terms
// "field=value", "field==value" or "field!=value", where a value escapes "\\", "," and "="
// with a backslash. Terms come out sorted by their text; a term with neither field nor
// value ("=", "!=") selects everything and is dropped. It accepts and rejects what
// k8s.io/apimachinery's fields.ParseSelector does, and an error's text is exactly
// ParseSelector's: the message kube-apiserver sends in its 400 Status. Errors match
// ErrInvalidSelector.
func ParseFieldSelector(selector string) (FieldSelector, error) {
	parts := splitFieldTerms(selector)
	sort.Strings(parts)
	var reqs []FieldRequirement
	for _, part := range parts {
		if part == "" {
			continue
		}
		lhs, op, rhs, ok := splitFieldTerm(part)
		if !ok {
			return FieldSelector{}, invalidSelector("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		value, err := unescapeFieldValue(rhs)
		if err != nil {
			return FieldSelector{}, err
		}
		if lhs == "" && value == "" {
			continue
		}
		if op == DoubleEquals {
			op = Equals
		}
		reqs = append(reqs, FieldRequirement{Field: lhs, Operator: op, Value: value})
	}
	return FieldSelector{reqs: reqs}, nil
}

// splitFieldTerms splits on commas that are not escaped by a backslash.
func splitFieldTerms(s string) []string {
	if s == "" {
		return nil
	}
	var terms []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitFieldTerm splits at the first operator, trying "!=", "==" and "=" at each position.
func splitFieldTerm(term string) (lhs string, op Operator, rhs string, ok bool) {
	for i := range term {
		rest := term[i:]
		for _, candidate := range [...]Operator{NotEquals, DoubleEquals, Equals} {
			if strings.HasPrefix(rest, string(candidate)) {
				return term[:i], candidate, term[i+len(candidate):], true
			}
		}
	}
	return "", "", "", false
}

func unescapeFieldValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	escaped := false
	for _, c := range s {
		if escaped {
			switch c {
			case '\\', ',', '=':
				b.WriteRune(c)
			default:
				return "", invalidSelector("invalid field selector: invalid escape sequence: %s", `\`+string(c))
			}
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case ',', '=':
			return "", invalidSelector("invalid field selector: unescaped character in value: %v", c)
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", invalidSelector("invalid field selector: invalid escape sequence: %s", `\`)
	}
	return b.String(), nil
}

var fieldEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

func escapeFieldValue(s string) string { return fieldEscaper.Replace(s) }
