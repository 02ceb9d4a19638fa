package codec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Media types Kubernetes speaks.
const (
	MediaTypeJSON                = "application/json"
	MediaTypeYAML                = "application/yaml"
	MediaTypeProtobuf            = "application/vnd.kubernetes.protobuf"
	MediaTypeCBOR                = "application/cbor"
	MediaTypeCBORSeq             = "application/cbor-seq"
	MediaTypeJSONPatch           = "application/json-patch+json"
	MediaTypeMergePatch          = "application/merge-patch+json"
	MediaTypeStrategicMergePatch = "application/strategic-merge-patch+json"
	MediaTypeApplyPatchYAML      = "application/apply-patch+yaml"
	MediaTypeApplyPatchCBOR      = "application/apply-patch+cbor"
)

// MediaType is a parsed media type or media range: "application/json;as=Table;v=v1".
// Type and Subtype are lower-cased and may be "*" in an Accept header; parameter
// names are lower-cased, values kept as written (unquoted). Q is the quality from an
// Accept header (1 unless given) and never appears in Params.
type MediaType struct {
	Type    string
	Subtype string
	Params  map[string]string
	Q       float64
}

// Essence returns "type/subtype" without parameters.
func (m MediaType) Essence() string { return m.Type + "/" + m.Subtype }

// String renders the media type with its parameters sorted by name (q omitted).
func (m MediaType) String() string {
	var b strings.Builder
	b.WriteString(m.Essence())
	keys := make([]string, 0, len(m.Params))
	for k := range m.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(";")
		b.WriteString(k)
		b.WriteString("=")
		v := m.Params[k]
		if isToken(v) {
			b.WriteString(v)
		} else {
			b.WriteString(strconv.Quote(v))
		}
	}
	return b.String()
}

// Matches reports whether the media range m (which may use "*") covers the concrete
// media type t, comparing type and subtype only.
func (m MediaType) Matches(t MediaType) bool {
	if m.Type == "*" {
		return true
	}
	if m.Type != t.Type {
		return false
	}
	return m.Subtype == "*" || m.Subtype == t.Subtype
}

// specificity orders media ranges: */* < type/* < type/subtype. Parameters do not
// count: kube-apiserver takes clauses naming the same type with other parameters
// (as=Table, stream=watch) by q and then in the order written, so
// "application/json, application/json;as=Table;v=v1;g=meta.k8s.io" is plain JSON.
func (m MediaType) specificity() int {
	switch {
	case m.Type == "*":
		return 0
	case m.Subtype == "*":
		return 1
	}
	return 2
}

// ErrNotAcceptable says no offered media type satisfies an Accept header; the REST
// layer answers 406.
var ErrNotAcceptable = errors.New("none of the offered media types is acceptable")

// ParseMediaType parses a Content-Type-style value: "type/subtype" with optional
// ";name=value" parameters, tolerant of whitespace and case. A "q" parameter is read
// into Q.
func ParseMediaType(s string) (MediaType, error) {
	p := mtParser{s: s}
	m, err := p.mediaType()
	if err != nil {
		return MediaType{}, err
	}
	p.ws()
	if p.i < len(p.s) {
		return MediaType{}, fmt.Errorf("media type %q: unexpected %q", s, p.s[p.i:])
	}
	return m, nil
}

// ParseAccept parses an Accept header into its media ranges, most preferred first:
// by q (highest first), then specificity (type/subtype before type/* before */*),
// then the order written. Malformed ranges are skipped; ranges
// with q=0 are kept, last, since they exclude what they match. An empty header
// means "*/*".
func ParseAccept(header string) []MediaType {
	if strings.TrimSpace(header) == "" {
		return []MediaType{{Type: "*", Subtype: "*", Q: 1}}
	}
	var out []MediaType
	p := mtParser{s: header}
	for p.i < len(p.s) {
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		m, err := p.mediaType()
		p.ws()
		if err != nil || (p.i < len(p.s) && p.s[p.i] != ',') {
			p.skipClause()
			continue
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b MediaType) int {
		if a.Q != b.Q {
			if a.Q > b.Q {
				return -1
			}
			return 1
		}
		return b.specificity() - a.specificity()
	})
	return out
}

// Match is the outcome of a negotiation: the offered media type chosen and the
// Accept clause that admitted it (whose parameters, such as as=Table, the caller may
// still need).
type Match struct {
	Offered string
	Clause  MediaType
}

// Negotiate picks, among offered media types (in the server's order of preference),
// the one the Accept header prefers. Each offer takes the q of the most specific
// clause that matches it (so "text/*;q=0.3, text/html;q=0" excludes text/html); the
// highest q wins, then the client's clause order, then the server's order. It
// returns ErrNotAcceptable when nothing is acceptable.
func Negotiate(accept string, offered []string) (Match, error) {
	return NegotiateFunc(accept, offered, nil)
}

// NegotiateFunc is Negotiate with a filter: a clause is considered for an offer only if
// allow(clause, offered) is true, which lets the caller reject parameters it cannot
// serve (for example as=Table for a version it lacks). A nil allow admits all.
func NegotiateFunc(accept string, offered []string, allow func(clause MediaType, offered string) bool) (Match, error) {
	clauses := ParseAccept(accept)
	best, bestRank, bestQ := -1, 0, 0.0
	var bestClause MediaType
	for oi, o := range offered {
		om, err := ParseMediaType(o)
		if err != nil {
			continue
		}
		// The most specific matching clause decides this offer's q.
		ci := -1
		for i, c := range clauses {
			if !c.Matches(om) || (c.Q > 0 && allow != nil && !allow(c, o)) {
				continue
			}
			if ci < 0 || c.specificity() > clauses[ci].specificity() {
				ci = i
			}
		}
		if ci < 0 || clauses[ci].Q <= 0 {
			continue
		}
		q := clauses[ci].Q
		if best < 0 || q > bestQ || (q == bestQ && ci < bestRank) {
			best, bestRank, bestQ, bestClause = oi, ci, q, clauses[ci]
		}
	}
	if best < 0 {
		return Match{}, fmt.Errorf("%w: Accept %q, offered %s", ErrNotAcceptable, accept, strings.Join(offered, ", "))
	}
	return Match{Offered: offered[best], Clause: bestClause}, nil
}

// mtParser reads media types from a header value.
type mtParser struct {
	s string
	i int
}

func (p *mtParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *mtParser) skipClause() {
	inQuote := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case inQuote && c == '\\':
			p.i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ',':
			return
		}
		p.i++
	}
}

func (p *mtParser) token() string {
	start := p.i
	for p.i < len(p.s) && isTokenChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *mtParser) mediaType() (MediaType, error) {
	p.ws()
	m := MediaType{Q: 1}
	m.Type = strings.ToLower(p.token())
	if m.Type == "*" && (p.i >= len(p.s) || p.s[p.i] != '/') {
		m.Subtype = "*" // a lone "*" is "*/*", as Java clients send it and kube reads it
		return m, p.params(&m)
	}
	if m.Type == "" || p.i >= len(p.s) || p.s[p.i] != '/' {
		return m, fmt.Errorf("media type %q: expected type/subtype", p.s)
	}
	p.i++
	m.Subtype = strings.ToLower(p.token())
	if m.Type == "*" && m.Subtype == "" {
		m.Subtype = "*" // "*/" reads as "*/*", as in kube
	}
	if m.Subtype == "" {
		return m, fmt.Errorf("media type %q: expected a subtype", p.s)
	}
	if m.Type == "*" && m.Subtype != "*" {
		return m, fmt.Errorf("media type %q: */%s is not a valid media range", p.s, m.Subtype)
	}
	return m, p.params(&m)
}

// params reads the ";name=value" parameters of a media type into m.
func (p *mtParser) params(m *MediaType) error {
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ';' {
			return nil
		}
		p.i++
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] == ',' {
			return nil // a trailing ";" is tolerated
		}
		name := strings.ToLower(p.token())
		p.ws()
		if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
			return fmt.Errorf("media type %q: malformed parameter", p.s)
		}
		p.i++
		p.ws()
		var value string
		if p.i < len(p.s) && p.s[p.i] == '"' {
			v, err := p.quoted()
			if err != nil {
				return err
			}
			value = v
		} else {
			value = p.token()
		}
		if name == "q" {
			q, err := strconv.ParseFloat(value, 64)
			if err != nil || q < 0 || q > 1 {
				return fmt.Errorf("media type %q: invalid q value %q", p.s, value)
			}
			m.Q = q
			continue
		}
		if m.Params == nil {
			m.Params = map[string]string{}
		}
		m.Params[name] = value
	}
}

func (p *mtParser) quoted() (string, error) {
	var b strings.Builder
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			p.i++
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
			}
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return "", fmt.Errorf("media type %q: unterminated quoted string", p.s)
}

func isTokenChar(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>@,;:\"/[]?={}`, rune(c))
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return false
		}
	}
	return true
}
