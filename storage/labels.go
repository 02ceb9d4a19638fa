package storage

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
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

// RequiresExactMatch returns the value a selector demands of key with = or ==, if any.
func (s LabelSelector) RequiresExactMatch(key string) (string, bool) {
	for _, r := range s.reqs {
		if r.Key == key && (r.Operator == Equals || r.Operator == DoubleEquals || (r.Operator == In && len(r.Values) == 1)) {
			return r.Values[0], true
		}
	}
	return "", false
}

// LabelSelectorFromSet returns the selector that requires every key=value of set.
func LabelSelectorFromSet(set map[string]string) LabelSelector {
	reqs := make([]LabelRequirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, LabelRequirement{Key: k, Operator: Equals, Values: []string{v}})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	return LabelSelector{reqs: reqs}
}

// ParseLabelSelector parses Kubernetes label selector syntax:
//
//	<selector>    ::= <requirement> | <requirement> "," <selector>
//	<requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE {"," VALUE} ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
//
// KEY is a qualified name ([DNS subdomain "/"] name), VALUE a label value (possibly
// empty). A bare KEY means exists, !KEY does-not-exist. Errors wrap ErrInvalidSelector
// and carry the messages of k8s.io/apimachinery's labels.Parse.
func ParseLabelSelector(s string) (LabelSelector, error) {
	p := labelParser{items: lexLabels(s)}
	reqs, err := p.parse()
	if err != nil {
		return LabelSelector{}, NewErrorf(ErrInvalidSelector, "", "%s", err.Error())
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
	return LabelSelector{reqs: reqs}, nil
}

type labelToken int

const (
	tokError labelToken = iota
	tokEnd
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

// lexLabels splits a selector into tokens, ending with tokEnd.
func lexLabels(s string) []labelItem {
	var items []labelItem
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return append(items, labelItem{tokEnd, ""})
		}
		if isSpecial(s[i]) {
			// Longest run of special characters that is still a known symbol.
			j, last := i, labelItem{}
			for j < len(s) && isSpecial(s[j]) {
				if t, ok := labelSymbols[s[i:j+1]]; ok {
					last = labelItem{t, s[i : j+1]}
				} else if last.tok != tokError {
					break
				}
				j++
			}
			if last.tok == tokError {
				items = append(items, labelItem{tokError, fmt.Sprintf("error expected: keyword found '%s'", s[i:j])})
				i = j
				continue
			}
			items = append(items, last)
			i += len(last.lit)
			continue
		}
		j := i
		for j < len(s) && !isSpecial(s[j]) && !isSpace(s[j]) {
			j++
		}
		word := s[i:j]
		if t, ok := labelSymbols[word]; ok {
			items = append(items, labelItem{t, word})
		} else {
			items = append(items, labelItem{tokIdent, word})
		}
		i = j
	}
}

type labelParser struct {
	items []labelItem
	pos   int
}

// peek returns the current token; in a value context "in" and "notin" are identifiers.
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
		tok, lit := p.peek(true)
		switch tok {
		case tokIdent, tokNot:
			r, err := p.parseRequirement()
			if err != nil {
				return nil, fmt.Errorf("unable to parse requirement: %w", err)
			}
			reqs = append(reqs, r)
			t, l := p.next(true)
			switch t {
			case tokEnd:
				return reqs, nil
			case tokComma:
				if t2, l2 := p.peek(true); t2 != tokIdent && t2 != tokNot {
					return nil, fmt.Errorf("found '%s', expected: identifier after ','", l2)
				}
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or 'end of string'", l)
			}
		case tokEnd:
			return reqs, nil
		default:
			return nil, fmt.Errorf("found '%s', expected: !, identifier, or 'end of string'", lit)
		}
	}
}

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
	if errs := qualifiedNameErrors(key); len(errs) > 0 {
		return LabelRequirement{}, fmt.Errorf("key: Invalid value: %q: %s", key, strings.Join(errs, "; "))
	}
	if t, _ := p.peek(true); t == tokEnd || t == tokComma {
		if op != DoesNotExist {
			op = Exists
		}
		return LabelRequirement{Key: key, Operator: op}, nil
	}
	if op == DoesNotExist {
		// "!key" takes no operator; what follows is reported by the caller.
		return LabelRequirement{Key: key, Operator: op}, nil
	}
	tok, lit := p.next(false)
	switch tok {
	case tokIn:
		op = In
	case tokNotIn:
		op = NotIn
	case tokEquals:
		op = Equals
	case tokDoubleEquals:
		op = DoubleEquals
	case tokNotEquals:
		op = NotEquals
	case tokGreater:
		op = GreaterThan
	case tokLess:
		op = LessThan
	default:
		return LabelRequirement{}, fmt.Errorf("found '%s', expected: '=', '!=', '==', 'in', notin'", lit)
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
	for i, v := range values {
		if errs := labelValueErrors(v); len(errs) > 0 {
			return LabelRequirement{}, fmt.Errorf("values[%d][%s]: Invalid value: %q: %s", i, key, v, strings.Join(errs, "; "))
		}
		if op == GreaterThan || op == LessThan {
			if _, perr := strconv.ParseInt(v, 10, 64); perr != nil {
				return LabelRequirement{}, fmt.Errorf("values[%d]: Invalid value: %q: for 'Gt', 'Lt' operators, the value must be an integer", i, v)
			}
		}
	}
	return LabelRequirement{Key: key, Operator: op, Values: values}, nil
}

func (p *labelParser) parseValues() ([]string, error) {
	if tok, lit := p.next(true); tok != tokOpenPar {
		return nil, fmt.Errorf("found '%s' expected: '('", lit)
	}
	tok, lit := p.peek(true)
	switch tok {
	case tokIdent, tokComma:
		vals, err := p.parseIdentifierList()
		if err != nil {
			return nil, err
		}
		if t, _ := p.next(true); t != tokClosePar {
			return nil, fmt.Errorf("found '%s', expected: ')'", lit)
		}
		return vals, nil
	case tokClosePar:
		p.next(true)
		return []string{""}, nil
	default:
		return nil, fmt.Errorf("found '%s', expected: ',', ')' or identifier", lit)
	}
}

func (p *labelParser) parseIdentifierList() ([]string, error) {
	var vals []string
	for {
		tok, lit := p.next(true)
		switch tok {
		case tokIdent:
			vals = append(vals, lit)
			switch t2, l2 := p.peek(true); t2 {
			case tokComma:
				continue
			case tokClosePar:
				return vals, nil
			default:
				return nil, fmt.Errorf("found '%s', expected: ',' or ')'", l2)
			}
		case tokComma:
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			t2, _ := p.peek(true)
			if t2 == tokClosePar {
				return append(vals, ""), nil
			}
			if t2 == tokComma {
				p.next(true)
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
	if tok == tokIdent {
		return []string{lit}, nil
	}
	return nil, fmt.Errorf("found '%s', expected: identifier", lit)
}

const (
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
)

var (
	qualifiedNameRE    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRE       = regexp.MustCompile("^" + labelValueFmt + "$")
	dns1123SubdomainRE = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
)

const (
	qualifiedNameMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	nameExamples     = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" + qualifiedNameFmt + "')"
)

// qualifiedNameErrors validates a label key as Kubernetes' IsQualifiedName does.
func qualifiedNameErrors(v string) []string {
	var errs []string
	parts := strings.Split(v, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			if len(prefix) > 253 {
				errs = append(errs, "prefix part must be no more than 253 characters")
			}
			if !dns1123SubdomainRE.MatchString(prefix) {
				errs = append(errs, "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '"+dns1123SubdomainFmt+"')")
			}
		}
	default:
		return []string{"a qualified name " + qualifiedNameMsg + " " + nameExamples + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	switch {
	case name == "":
		errs = append(errs, "name part must be non-empty")
	case len(name) > 63:
		errs = append(errs, "name part must be no more than 63 characters")
	}
	if name != "" && !qualifiedNameRE.MatchString(name) {
		errs = append(errs, "name part "+qualifiedNameMsg+" "+nameExamples)
	}
	return errs
}

// labelValueErrors validates a label value as Kubernetes' IsValidLabelValue does.
func labelValueErrors(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !labelValueRE.MatchString(v) {
		errs = append(errs, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '"+labelValueFmt+"')")
	}
	return errs
}
