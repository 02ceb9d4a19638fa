package structural

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apikit-dev/apikit/scheme/openapi"
	"github.com/apikit-dev/apikit/validation"
)

var errNotAField = errors.New("does not refer to a valid field")

// RuleFieldPath reads an x-kubernetes-validations rule's fieldPath, a JSON path of field accessors
// (".spec.replicas") and quoted subscripts ("['x.y']") that must name fields the
// schema s declares (or keys of its maps), and returns it as a path relative to s.
// It accepts what kube-apiserver accepts: nothing else may follow a name than '.'
// or '[', and a subscript is a single-quoted string with the escapes \a \b \f \n \r
// \t \v \' and \\.
func RuleFieldPath(jsonPath string, s *openapi.Schema) (*validation.Path, error) {
	var p *validation.Path
	step := func(name string) error {
		switch {
		case s.Properties != nil:
			child, ok := s.Properties[name]
			if !ok {
				return errNotAField
			}
			p, s = p.Child(name), child
		case s.AdditionalProperties != nil:
			p, s = p.Key(name), s.AdditionalProperties
		default:
			return errNotAField
		}
		return nil
	}
	toks := fieldPathTokens(jsonPath)
	for i := 0; i < len(toks); i++ {
		next := func() (string, bool) {
			if i+1 >= len(toks) {
				return "", false
			}
			i++
			return toks[i], true
		}
		switch toks[i] {
		case ".":
			name, ok := next()
			if !ok {
				return nil, errors.New("unexpected end of JSON path")
			}
			if err := step(name); err != nil {
				return nil, err
			}
		case "[":
			quoted, ok := next()
			if !ok {
				return nil, errors.New("unexpected end of JSON path")
			}
			if len(quoted) < 2 || quoted[0] != '\'' || quoted[len(quoted)-1] != '\'' {
				return nil, fmt.Errorf("expected single quoted string but got %s", quoted)
			}
			name, err := unquoteSingle(quoted[1 : len(quoted)-1])
			if err != nil {
				return nil, fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(name); err != nil {
				return nil, err
			}
			if closing, ok := next(); !ok {
				return nil, errors.New("unexpected end of JSON path")
			} else if closing != "]" {
				return nil, fmt.Errorf("expected ] but got %s", closing)
			}
		default:
			return nil, fmt.Errorf("expected [ or . but got: %s", toks[i])
		}
	}
	return p, nil
}

// fieldPathTokens splits a JSON path into the delimiters '.', '[' and ']', each a
// token of its own, and the text between them; a token that starts with a single
// quote runs to the next unescaped single quote, delimiters included.
func fieldPathTokens(s string) []string {
	var toks []string
	for len(s) > 0 {
		n := len(s)
		switch {
		case s[0] == '\'':
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					n = i + 1
					break
				}
			}
		case strings.IndexByte(".[]", s[0]) >= 0:
			n = 1
		default:
			if i := strings.IndexAny(s, ".[]"); i > 0 {
				n = i
			}
		}
		toks = append(toks, s[:n])
		s = s[n:]
	}
	return toks
}

// unquoteSingle resolves the escapes of a single-quoted fieldPath subscript.
func unquoteSingle(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\'', '\\':
			b.WriteByte(c)
		default:
			return "", fmt.Errorf("invalid escape char \\%c", c)
		}
	}
	return b.String(), nil
}
