package storage

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/validation"
)

// Operator is a selector operator, spelled as in k8s.io/apimachinery's selection package.
type Operator string

// The operators of label and field selectors. Field selectors use only Equals,
// DoubleEquals and NotEquals.
const (
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	In           Operator = "in"
	NotEquals    Operator = "!="
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// LabelRequirement is one term of a label selector: a key, an operator and its values
// (sorted and de-duplicated; one for =, ==, !=, gt, lt; none for exists and !).
type LabelRequirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// Matches reports whether the labels satisfy the requirement.
func (r LabelRequirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case Equals, DoubleEquals, In:
		return ok && slices.Contains(r.Values, v)
	case NotEquals, NotIn:
		return !ok || !slices.Contains(r.Values, v)
	case Exists:
		return ok
	case DoesNotExist:
		return !ok
	case GreaterThan, LessThan:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String renders the requirement in selector syntax.
func (r LabelRequirement) String() string {
	switch r.Operator {
	case Exists:
		return r.Key
	case DoesNotExist:
		return "!" + r.Key
	case In, NotIn:
		return r.Key + " " + string(r.Operator) + " (" + strings.Join(r.Values, ",") + ")"
	case GreaterThan:
		return r.Key + ">" + strings.Join(r.Values, ",")
	case LessThan:
		return r.Key + "<" + strings.Join(r.Values, ",")
	}
	return r.Key + string(r.Operator) + strings.Join(r.Values, ",")
}

// LabelSelector selects objects by their labels. The zero value selects everything.
type LabelSelector struct {
	reqs []LabelRequirement
}

// Requirements returns the selector's terms, sorted by key; all must hold.
func (s LabelSelector) Requirements() []LabelRequirement { return slices.Clone(s.reqs) }

// Empty reports whether the selector selects everything.
func (s LabelSelector) Empty() bool { return len(s.reqs) == 0 }

// Matches reports whether labels satisfy every requirement.
func (s LabelSelector) Matches(labels map[string]string) bool {
	for i := range s.reqs {
		if !s.reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// String renders the selector in the syntax ParseLabelSelector reads.
func (s LabelSelector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// RequiresExactMatch returns the value a selector demands of key with =, == or an "in"
// of one value. As in k8s.io/apimachinery, the first requirement on key decides.
func (s LabelSelector) RequiresExactMatch(key string) (string, bool) {
	for _, r := range s.reqs {
		if r.Key != key {
			continue
		}
		if (r.Operator == Equals || r.Operator == DoubleEquals || r.Operator == In) && len(r.Values) == 1 {
			return r.Values[0], true
		}
		return "", false
	}
	return "", false
}

// LabelSelectorFromSet returns the selector that requires every key=value of set.
func LabelSelectorFromSet(set map[string]string) LabelSelector {
	reqs := make([]LabelRequirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, LabelRequirement{Key: k, Operator: Equals, Values: []string{v}})
	}
	sort.Sort(byKey(reqs))
	return LabelSelector{reqs: reqs}
}

// MetaOperator is the operator of a meta/v1 LabelSelector's matchExpressions term (In,
// NotIn, Exists, DoesNotExist), with kube's error for any other, as
// metav1.LabelSelectorAsSelector converts it.
func MetaOperator(op string) (Operator, error) {
	switch op {
	case "In":
		return In, nil
	case "NotIn":
		return NotIn, nil
	case "Exists":
		return Exists, nil
	case "DoesNotExist":
		return DoesNotExist, nil
	}
	return "", fmt.Errorf("%q is not a valid label selector operator", op)
}

// NewLabelSelector returns the selector of reqs, all of which must hold, as
// k8s.io/apimachinery's labels.NewSelector().Add(reqs...) builds it: each requirement's
// values sorted and de-duplicated, the requirements sorted by key. It checks nothing:
// reqs come from objects that validation has passed (a meta/v1 LabelSelector).
func NewLabelSelector(reqs ...LabelRequirement) LabelSelector {
	out := make([]LabelRequirement, len(reqs))
	for i, r := range reqs {
		r.Values = slices.Compact(slices.Sorted(slices.Values(r.Values)))
		out[i] = r
	}
	sort.Sort(byKey(out))
	return LabelSelector{reqs: out}
}

// byKey orders requirements by key with sort.Sort, the unstable sort k8s.io/apimachinery
// uses: on the same input it leaves requirements of one key in the same order, so
// String() renders a selector exactly as kube does.
type byKey []LabelRequirement

func (b byKey) Len() int           { return len(b) }
func (b byKey) Less(i, j int) bool { return b[i].Key < b[j].Key }
func (b byKey) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

// ParseLabelSelector parses Kubernetes label selector syntax:
//
//	<selector>    ::= <requirement> | <requirement> "," <selector>
//	<requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE {"," VALUE} ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//
// KEY is a label key ([DNS subdomain "/"] name), VALUE a label value (possibly empty). A
// bare KEY means exists, !KEY does-not-exist. It accepts and rejects what
// k8s.io/apimachinery's labels.Parse does, and an error's text is exactly labels.Parse's:
// the message kube-apiserver sends in its 400 Status. Errors match ErrInvalidSelector.
func ParseLabelSelector(s string) (LabelSelector, error) {
	p := labelParser{items: lexLabels(s)}
	reqs, err := p.parse()
	if err != nil {
		return LabelSelector{}, err
	}
	sort.Sort(byKey(reqs))
	return LabelSelector{reqs: reqs}, nil
}

// invalidSelector is a selector that does not parse. Its detail is k8s.io/apimachinery's
// message alone, which is what kube-apiserver puts in the 400 Status.
func invalidSelector(format string, args ...any) error {
	return NewErrorf(ErrInvalidSelector, "", format, args...)
}

type labelToken int

const (
	tokEnd labelToken = iota
	tokClosePar
	tokComma
	tokNot
	tokDoubleEquals
	tokEquals
	tokGreater
	tokIdent
	tokIn
	tokLess
	tokNotEquals
	tokNotIn
	tokOpenPar
)

var labelSymbols = map[string]labelToken{
	")": tokClosePar, ",": tokComma, "!": tokNot, "==": tokDoubleEquals, "=": tokEquals,
	">": tokGreater, "in": tokIn, "<": tokLess, "!=": tokNotEquals, "notin": tokNotIn, "(": tokOpenPar,
}

type labelItem struct {
	tok labelToken
	lit string
}

func isSpecial(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '>', '<':
		return true
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// lexLabels splits a selector into tokens, ending with tokEnd. A NUL byte behaves as in
// apimachinery's lexer, which reads 0 as the end of input: where a token would start it
// ends the input; right after a token it is skipped.
func lexLabels(s string) []labelItem {
	var items []labelItem
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) || s[i] == 0 {
			return append(items, labelItem{tokEnd, ""})
		}
		var it labelItem
		if isSpecial(s[i]) {
			// Every special character is a symbol; two make one where they spell one.
			n := 1
			if i+2 <= len(s) {
				if _, ok := labelSymbols[s[i:i+2]]; ok {
					n = 2
				}
			}
			it = labelItem{labelSymbols[s[i:i+n]], s[i : i+n]}
			i += n
		} else {
			j := i
			for j < len(s) && s[j] != 0 && !isSpecial(s[j]) && !isSpace(s[j]) {
				j++
			}
			word := s[i:j]
			it = labelItem{tokIdent, word}
			if t, ok := labelSymbols[word]; ok {
				it.tok = t
			}
			i = j
		}
		items = append(items, it)
		if i < len(s) && s[i] == 0 {
			i++
		}
	}
}

// labelParser reads tokens with one of lookahead. Where a value may stand, "in" and
// "notin" are identifiers, so "in in (in)" selects label in with value in.
type labelParser struct {
	items []labelItem
	pos   int
}

func (p *labelParser) peek(values bool) (labelToken, string) {
	it := p.items[p.pos]
	if values && (it.tok == tokIn || it.tok == tokNotIn) {
		return tokIdent, it.lit
	}
	return it.tok, it.lit
}

func (p *labelParser) next(values bool) (labelToken, string) {
	t, l := p.peek(values)
	if p.pos < len(p.items)-1 {
		p.pos++
	}
	return t, l
}

func (p *labelParser) parse() ([]LabelRequirement, error) {
	var reqs []LabelRequirement
	for {
		switch tok, lit := p.peek(true); tok {
		case tokIdent, tokNot:
			r, err := p.parseRequirement()
			if err != nil {
				return nil, invalidSelector("unable to parse requirement: %s", err)
			}
			reqs = append(reqs, r)
			switch t, l := p.next(true); t {
			case tokEnd:
				return reqs, nil
			case tokComma:
				if t2, l2 := p.peek(true); t2 != tokIdent && t2 != tokNot {
					return nil, invalidSelector("found '%s', expected: identifier after ','", l2)
				}
			default:
				return nil, invalidSelector("found '%s', expected: ',' or 'end of string'", l)
			}
		case tokEnd:
			return reqs, nil
		default:
			return nil, invalidSelector("found '%s', expected: !, identifier, or 'end of string'", lit)
		}
	}
}

// binaryOperators maps the tokens of the operators that take values to them;
// binaryOperatorList names them in the order and spelling of apimachinery's "expected:"
// message.
var binaryOperators = map[labelToken]Operator{
	tokIn: In, tokNotIn: NotIn, tokEquals: Equals, tokDoubleEquals: DoubleEquals,
	tokNotEquals: NotEquals, tokGreater: GreaterThan, tokLess: LessThan,
}

const binaryOperatorList = "in, notin, =, ==, !=, gt, lt"

func (p *labelParser) parseRequirement() (LabelRequirement, error) {
	var op Operator
	tok, key := p.next(true)
	if tok == tokNot {
		op = DoesNotExist
		tok, key = p.next(true)
	}
	if tok != tokIdent {
		return LabelRequirement{}, fmt.Errorf("found '%s', expected: identifier", key)
	}
	if errs := validation.IsQualifiedName(key); len(errs) > 0 {
		// apimachinery validates the key under an unset field path, which prints as <nil>.
		return LabelRequirement{}, fmt.Errorf("<nil>: Invalid value: %q: %s", key, strings.Join(errs, "; "))
	}
	if op == DoesNotExist {
		// "!key" takes no values; what follows it is the caller's to judge.
		return LabelRequirement{Key: key, Operator: op}, nil
	}
	if t, _ := p.peek(true); t == tokEnd || t == tokComma {
		return LabelRequirement{Key: key, Operator: Exists}, nil
	}
	tok, lit := p.next(false)
	op, ok := binaryOperators[tok]
	if !ok {
		return LabelRequirement{}, fmt.Errorf("found '%s', expected: %s", lit, binaryOperatorList)
	}
	var values []string
	var err error
	if op == In || op == NotIn {
		values, err = p.parseValues()
	} else {
		values, err = p.parseExactValue()
	}
	if err != nil {
		return LabelRequirement{}, err
	}
	slices.Sort(values)
	values = slices.Compact(values)
	if err := valueErrors(key, op, values); err != "" {
		return LabelRequirement{}, errors.New(err)
	}
	return LabelRequirement{Key: key, Operator: op, Values: values}, nil
}

// valueErrors checks the values of a requirement as apimachinery's NewRequirement does,
// and words what is wrong the way its aggregated field errors print: one message alone,
// several distinct ones as "[m1, m2]". The result is "" when the values are valid.
func valueErrors(key string, op Operator, values []string) string {
	var msgs []string
	add := func(m string) {
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if op == GreaterThan || op == LessThan {
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				add(fmt.Sprintf("values[%d]: Invalid value: %q: for 'Gt', 'Lt' operators, the value must be an integer", i, v))
			}
		}
	}
	for i, v := range values {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			add(fmt.Sprintf("values[%d][%s]: Invalid value: %q: %s", i, key, v, strings.Join(errs, "; ")))
		}
	}
	switch len(msgs) {
	case 0:
		return ""
	case 1:
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// parseValues reads "(" VALUE {"," VALUE} ")", where any VALUE may be empty: "()" and
// "(a,,b)" hold the empty value.
func (p *labelParser) parseValues() ([]string, error) {
	if tok, lit := p.next(true); tok != tokOpenPar {
		return nil, fmt.Errorf("found '%s' expected: '('", lit)
	}
	switch tok, lit := p.peek(true); tok {
	case tokIdent, tokComma:
		vals, err := p.parseValueList()
		if err != nil {
			return nil, err
		}
		p.next(true) // the ")" that ended the list
		return vals, nil
	case tokClosePar:
		p.next(true)
		return []string{""}, nil
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", lit)
	}
}

// parseValueList reads values up to (not including) the closing parenthesis.
func (p *labelParser) parseValueList() ([]string, error) {
	var vals []string
	for {
		switch tok, lit := p.next(true); tok {
		case tokIdent:
			vals = append(vals, lit)
			switch t2, l2 := p.peek(true); t2 {
			case tokComma:
			case tokClosePar:
				return vals, nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", l2)
			}
		case tokComma:
			// A comma with no value before it, or none after it, stands for "".
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			switch t2, _ := p.peek(true); t2 {
			case tokClosePar:
				return append(vals, ""), nil
			case tokComma:
				vals = append(vals, "")
			}
		default:
			return nil, fmt.Errorf("found '%s', expected: ',', or identifier", lit)
		}
	}
}

func (p *labelParser) parseExactValue() ([]string, error) {
	if t, _ := p.peek(true); t == tokEnd || t == tokComma {
		return []string{""}, nil
	}
	tok, lit := p.next(true)
	if tok != tokIdent {
		return nil, fmt.Errorf("found '%s', expected: identifier", lit)
	}
	return []string{lit}, nil
}
