package table

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// JSONPath is a compiled JSONPath expression of the kind CRDs use for printer columns
// (".spec.color", ".status.conditions[?(@.type==\"Ready\")].status"), evaluated on the
// unstructured form of an object (map[string]any, []any, string, bool, int64, float64,
// nil). It implements the subset of k8s.io/client-go/util/jsonpath that a single
// template action can express, with missing keys allowed as kube-apiserver's table
// printer allows them:
//
//   - fields: .a.b, .a['b.c'], .a["b"], escaped dots (.metadata.labels.app\.io/name);
//   - the root: "." or "$" (and "{...}" around the whole expression is accepted);
//   - wildcards .* and [*], recursive descent ..name;
//   - list subscripts: [0], [-1] (from the end), slices [1:3], [::2], unions [0,2] and
//     ['a','b'];
//   - filters on lists: [?(@.type=="Ready")] with ==, !=, <, >, <=, >= against a quoted
//     string, an integer, a float, true/false or another @-path, and [?(@.field)] for
//     existence.
//
// A path that leads nowhere (a missing key, an index out of range, a field of a scalar)
// finds nothing; it is not an error. Comparing values of different kinds in a filter, or
// filtering something that is not a list, is an error, as in client-go. Map keys are
// visited in sorted order by wildcards and recursive descent, so results are
// deterministic. A JSONPath is safe for concurrent use.
type JSONPath struct {
	expr  string
	steps []step
}

// stepKind is what one step of a path does.
type stepKind int

const (
	stepField     stepKind = iota // a map key (or several, for a union)
	stepWildcard                  // every map value or list element
	stepRecursive                 // the value and every container below it
	stepIndex                     // list indices (a union of one or more)
	stepSlice                     // a list slice start:end:step
	stepFilter                    // list elements a predicate accepts
)

type step struct {
	kind    stepKind
	keys    []string // stepField
	indices []int    // stepIndex
	slice   [3]*int  // stepSlice: start, end, step; nil when omitted
	filter  *filter  // stepFilter
}

// filter is the predicate of [?(left op right)]; op "exists" has no right side.
type filter struct {
	left  operand
	op    string
	right operand
}

// operand is a filter side: a path relative to @, or a literal.
type operand struct {
	path    []step
	isPath  bool
	literal any // string, int64, float64 or bool
}

// ParseJSONPath compiles a JSONPath expression. Errors say what is wrong and where.
func ParseJSONPath(expr string) (*JSONPath, error) {
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if s == "" {
		return nil, fmt.Errorf("jsonpath %q: empty expression", expr)
	}
	p := &pathParser{src: s}
	if p.peek() == '$' {
		p.pos++
	}
	steps, err := p.parseSteps(false)
	if err != nil {
		return nil, fmt.Errorf("jsonpath %q: %w", expr, err)
	}
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("jsonpath %q: unexpected %q at offset %d", expr, p.src[p.pos:], p.pos)
	}
	return &JSONPath{expr: expr, steps: steps}, nil
}

// MustParseJSONPath is ParseJSONPath that panics on error, for expressions fixed in code.
func MustParseJSONPath(expr string) *JSONPath {
	j, err := ParseJSONPath(expr)
	if err != nil {
		panic(err)
	}
	return j
}

// String returns the expression the path was parsed from.
func (j *JSONPath) String() string { return j.expr }

// Find evaluates the path on data and returns every value it reaches, in document order.
// An empty result means the path leads nowhere.
func (j *JSONPath) Find(data any) ([]any, error) {
	return evalSteps(j.steps, []any{data})
}

// pathParser is a cursor over the expression text.
type pathParser struct {
	src string
	pos int
}

func (p *pathParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *pathParser) skipSpaces() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

// parseSteps reads steps until the end of the text or, inside a filter, until a character
// that cannot continue a path (a space, an operator, a closing parenthesis).
func (p *pathParser) parseSteps(inFilter bool) ([]step, error) {
	var steps []step
	for p.pos < len(p.src) {
		switch c := p.peek(); c {
		case '.':
			p.pos++
			switch p.peek() {
			case '.':
				p.pos++
				steps = append(steps, step{kind: stepRecursive})
				if c := p.peek(); c == '[' || c == '*' {
					continue
				}
				if p.pos >= len(p.src) || !isNameStart(p.peek()) {
					return nil, fmt.Errorf("recursive descent at offset %d needs a field name", p.pos)
				}
				steps = append(steps, step{kind: stepField, keys: []string{p.parseName()}})
			case '*':
				p.pos++
				steps = append(steps, step{kind: stepWildcard})
			case 0, '[':
				// "." alone is the root; ".[0]" indexes the root.
			default:
				if inFilter && !isNameStart(p.peek()) {
					return steps, nil
				}
				if !isNameStart(p.peek()) {
					return nil, fmt.Errorf("unexpected %q at offset %d", p.peek(), p.pos)
				}
				steps = append(steps, step{kind: stepField, keys: []string{p.parseName()}})
			}
		case '[':
			st, err := p.parseBracket()
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
		case '*':
			if len(steps) > 0 && steps[len(steps)-1].kind == stepRecursive {
				p.pos++
				steps = append(steps, step{kind: stepWildcard})
				continue
			}
			return nil, fmt.Errorf("unexpected '*' at offset %d", p.pos)
		default:
			if inFilter {
				return steps, nil
			}
			return nil, fmt.Errorf("unexpected %q at offset %d", c, p.pos)
		}
	}
	return steps, nil
}

func isNameStart(c byte) bool {
	switch c {
	case 0, '.', '[', ']', ' ', '(', ')', '=', '!', '<', '>', ',', '\'', '"', '*', '@', '}', '{':
		return false
	}
	return true
}

// parseName reads a field name up to the next unescaped '.', '[' or a character that ends
// a path; "\." stands for a literal dot.
func (p *pathParser) parseName() string {
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '.' {
			b.WriteByte('.')
			p.pos += 2
			continue
		}
		if !isNameStart(c) {
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String()
}

// parseBracket reads one [...] subscript.
func (p *pathParser) parseBracket() (step, error) {
	start := p.pos
	p.pos++ // '['
	p.skipSpaces()
	var st step
	switch c := p.peek(); {
	case c == '*':
		p.pos++
		st = step{kind: stepWildcard}
	case c == '?':
		f, err := p.parseFilter()
		if err != nil {
			return step{}, err
		}
		st = step{kind: stepFilter, filter: f}
	case c == '\'' || c == '"':
		var keys []string
		for {
			p.skipSpaces()
			k, err := p.parseQuoted()
			if err != nil {
				return step{}, err
			}
			keys = append(keys, k)
			p.skipSpaces()
			if p.peek() != ',' {
				break
			}
			p.pos++
		}
		st = step{kind: stepField, keys: keys}
	default:
		var err error
		st, err = p.parseIndexOrSlice()
		if err != nil {
			return step{}, err
		}
	}
	p.skipSpaces()
	if p.peek() != ']' {
		return step{}, fmt.Errorf("unterminated subscript starting at offset %d", start)
	}
	p.pos++
	return st, nil
}

// parseQuoted reads a string in single or double quotes; a backslash escapes the next
// character.
func (p *pathParser) parseQuoted() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", fmt.Errorf("expected a quoted string at offset %d", p.pos)
	}
	start := p.pos
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
		case c == q:
			p.pos++
			return b.String(), nil
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", fmt.Errorf("unterminated string starting at offset %d", start)
}

// parseIndexOrSlice reads "i", "i,j,..." or "start:end:step" (each part optional).
func (p *pathParser) parseIndexOrSlice() (step, error) {
	end := strings.IndexByte(p.src[p.pos:], ']')
	if end < 0 {
		return step{}, fmt.Errorf("unterminated subscript at offset %d", p.pos-1)
	}
	body := p.src[p.pos : p.pos+end]
	at := p.pos
	p.pos += end
	if strings.Contains(body, ":") {
		parts := strings.Split(body, ":")
		if len(parts) > 3 {
			return step{}, fmt.Errorf("slice %q at offset %d has more than three parts", body, at)
		}
		var st step
		st.kind = stepSlice
		for i, part := range parts {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			n, err := strconv.Atoi(part)
			if err != nil {
				return step{}, fmt.Errorf("slice %q at offset %d: %q is not an integer", body, at, part)
			}
			st.slice[i] = &n
		}
		if st.slice[2] != nil && *st.slice[2] <= 0 {
			return step{}, fmt.Errorf("slice %q at offset %d: step must be positive", body, at)
		}
		return st, nil
	}
	var st step
	st.kind = stepIndex
	for _, part := range strings.Split(body, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil {
			return step{}, fmt.Errorf("subscript %q at offset %d: %q is not an integer", body, at, part)
		}
		st.indices = append(st.indices, n)
	}
	return st, nil
}

// parseFilter reads "?(left op right)" or "?(left)"; the cursor is on '?'.
func (p *pathParser) parseFilter() (*filter, error) {
	start := p.pos
	p.pos++
	if p.peek() != '(' {
		return nil, fmt.Errorf("filter at offset %d: expected '(' after '?'", start)
	}
	p.pos++
	p.skipSpaces()
	left, err := p.parseOperand()
	if err != nil {
		return nil, fmt.Errorf("filter at offset %d: %w", start, err)
	}
	p.skipSpaces()
	f := &filter{left: left, op: "exists"}
	if p.peek() != ')' {
		op := p.parseOperator()
		if op == "" {
			return nil, fmt.Errorf("filter at offset %d: expected an operator at offset %d", start, p.pos)
		}
		p.skipSpaces()
		right, err := p.parseOperand()
		if err != nil {
			return nil, fmt.Errorf("filter at offset %d: %w", start, err)
		}
		f.op, f.right = op, right
		p.skipSpaces()
	} else if !left.isPath {
		return nil, fmt.Errorf("filter at offset %d: an existence test needs an @-path", start)
	}
	if p.peek() != ')' {
		return nil, fmt.Errorf("filter at offset %d: expected ')' at offset %d", start, p.pos)
	}
	p.pos++
	return f, nil
}

func (p *pathParser) parseOperator() string {
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			p.pos += len(op)
			return op
		}
	}
	return ""
}

// parseOperand reads an @-path or a literal (quoted string, number, true, false).
func (p *pathParser) parseOperand() (operand, error) {
	switch c := p.peek(); {
	case c == '@':
		p.pos++
		steps, err := p.parseSteps(true)
		if err != nil {
			return operand{}, err
		}
		return operand{isPath: true, path: steps}, nil
	case c == '\'' || c == '"':
		s, err := p.parseQuoted()
		if err != nil {
			return operand{}, err
		}
		return operand{literal: s}, nil
	}
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ' ' || c == ')' || c == '=' || c == '!' || c == '<' || c == '>' {
			break
		}
		p.pos++
	}
	word := p.src[start:p.pos]
	switch word {
	case "true":
		return operand{literal: true}, nil
	case "false":
		return operand{literal: false}, nil
	case "":
		return operand{}, fmt.Errorf("missing operand at offset %d", start)
	}
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return operand{literal: n}, nil
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil {
		return operand{literal: f}, nil
	}
	return operand{}, fmt.Errorf("unrecognized operand %q at offset %d", word, start)
}

// evalSteps applies the steps one after the other to the current set of values.
func evalSteps(steps []step, cur []any) ([]any, error) {
	for i := range steps {
		st := &steps[i]
		var next []any
		for _, v := range cur {
			var err error
			next, err = st.apply(v, next)
			if err != nil {
				return nil, err
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil, nil
		}
	}
	return cur, nil
}

// apply appends to out what one step reaches from v.
func (st *step) apply(v any, out []any) ([]any, error) {
	switch st.kind {
	case stepField:
		m, ok := v.(map[string]any)
		if !ok {
			return out, nil
		}
		for _, k := range st.keys {
			if x, ok := m[k]; ok {
				out = append(out, x)
			}
		}
	case stepWildcard:
		switch t := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				out = append(out, t[k])
			}
		case []any:
			out = append(out, t...)
		}
	case stepRecursive:
		out = appendRecursive(out, v)
	case stepIndex:
		l, ok := v.([]any)
		if !ok {
			return out, nil
		}
		for _, i := range st.indices {
			if i < 0 {
				i += len(l)
			}
			if i >= 0 && i < len(l) {
				out = append(out, l[i])
			}
		}
	case stepSlice:
		l, ok := v.([]any)
		if !ok {
			return out, nil
		}
		start, end, stride := 0, len(l), 1
		if st.slice[0] != nil {
			start = clampIndex(*st.slice[0], len(l))
		}
		if st.slice[1] != nil {
			end = clampIndex(*st.slice[1], len(l))
		}
		if st.slice[2] != nil {
			stride = *st.slice[2]
		}
		for i := start; i < end; i += stride {
			out = append(out, l[i])
		}
	case stepFilter:
		l, ok := v.([]any)
		if !ok {
			return out, fmt.Errorf("%s is not a list and cannot be filtered", jsonKindOf(v))
		}
		for _, el := range l {
			pass, err := st.filter.accepts(el)
			if err != nil {
				return out, err
			}
			if pass {
				out = append(out, el)
			}
		}
	}
	return out, nil
}

// appendRecursive appends v, if it is a non-empty map or list, and every such container
// below it, parents before children.
func appendRecursive(out []any, v any) []any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return out
		}
		out = append(out, t)
		for _, k := range sortedKeys(t) {
			out = appendRecursive(out, t[k])
		}
	case []any:
		if len(t) == 0 {
			return out
		}
		out = append(out, t)
		for _, x := range t {
			out = appendRecursive(out, x)
		}
	}
	return out
}

func clampIndex(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var errMultipleValues = errors.New("can only compare one element at a time")

// accepts evaluates the filter on one list element.
func (f *filter) accepts(el any) (bool, error) {
	left, ok, err := f.left.value(el)
	if err != nil || !ok {
		return false, err
	}
	if f.op == "exists" {
		return true, nil
	}
	right, ok, err := f.right.value(el)
	if err != nil || !ok {
		return false, err
	}
	return compare(left, f.op, right)
}

// value resolves an operand against the element; ok is false when a path finds nothing.
func (o *operand) value(el any) (any, bool, error) {
	if !o.isPath {
		return o.literal, true, nil
	}
	vals, err := evalSteps(o.path, []any{el})
	switch {
	case err != nil:
		return nil, false, err
	case len(vals) == 0:
		return nil, false, nil
	case len(vals) > 1:
		return nil, false, errMultipleValues
	}
	return vals[0], true, nil
}

// valueKind classifies a JSON value for comparisons, like text/template's basic kinds.
type valueKind int

const (
	kindInvalid valueKind = iota
	kindBool
	kindInt
	kindFloat
	kindString
)

func classify(v any) (valueKind, any) {
	switch t := v.(type) {
	case bool:
		return kindBool, t
	case string:
		return kindString, t
	case float64:
		return kindFloat, t
	case float32:
		return kindFloat, float64(t)
	}
	if n, ok := asInt64(v); ok {
		return kindInt, n
	}
	return kindInvalid, nil
}

// compare applies a comparison operator the way client-go's jsonpath does (through
// text/template's eq and lt): both sides must be of the same basic kind; ordering is
// defined for integers, floats and strings.
func compare(a any, op string, b any) (bool, error) {
	ka, va := classify(a)
	kb, vb := classify(b)
	if ka == kindInvalid || kb == kindInvalid {
		return false, fmt.Errorf("invalid type for comparison: %s %s %s", jsonKindOf(a), op, jsonKindOf(b))
	}
	if ka != kb {
		return false, fmt.Errorf("incompatible types for comparison: %s %s %s", jsonKindOf(a), op, jsonKindOf(b))
	}
	var c int
	switch ka {
	case kindBool:
		if op != "==" && op != "!=" {
			return false, fmt.Errorf("invalid type for comparison: boolean %s boolean", op)
		}
		if va.(bool) != vb.(bool) {
			c = 1
		}
	case kindInt:
		c = cmpOrdered(va.(int64), vb.(int64))
	case kindFloat:
		c = cmpOrdered(va.(float64), vb.(float64))
	case kindString:
		c = strings.Compare(va.(string), vb.(string))
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case ">":
		return c > 0, nil
	case "<=":
		return c <= 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unknown operator %q", op)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// jsonKindOf names the JSON type of a value for error messages.
func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if _, ok := asInt64(v); ok {
		return "integer"
	}
	if _, ok := v.(float64); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}
