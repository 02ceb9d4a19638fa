package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	goyaml "sigs.k8s.io/yaml/goyaml.v2"
)

// YAML is written the way kube-apiserver writes it (sigs.k8s.io/yaml's JSONToYAML:
// keys sorted, block style, sequences not indented under their key), with two
// differences that keep a response bounded:
//
//   - The YAML is built from a tree decoded with encoding/json rather than by parsing
//     the JSON with the YAML parser, which allocates some sixteen times the document.
//   - Block style indents two spaces per level, and a scalar past column 80 breaks at
//     every space onto a line of its own indentation, so a deeply nested document
//     grows with the square of its depth (a 40 KB managedFields entry 5,000 levels
//     deep is 25 MB of YAML). A document whose YAML would be over yamlOutputLimit of
//     its JSON is written again with its collections below flowDepths' next depth in
//     flow style, as the compact JSON that YAML accepts as flow (see cut); at the last
//     depth the block part holds only the top three levels, indented at most a few
//     spaces, so it is within a few times the JSON (short scalars one a line). Every
//     attempt but the last stops writing at the limit, so the work of each is bounded.
//
// go-yaml's emitter keeps every event of a document until it ends (some hundreds of
// bytes each), so writing one object still allocates tens of times its JSON (kube
// allocates twice that); a list is written item by item (EncodeList), so it costs
// that of its largest item.
//
// Whatever kube would write within the limit is written byte for byte as kube writes it.

// yamlOutputLimit is the most YAML a document of n JSON bytes is written as in block
// style: four times its JSON and 64 KiB. Ordinary objects are about their JSON's size
// in YAML (quotes and braces go, indentation comes).
func yamlOutputLimit(n int) int { return 4*n + 64<<10 }

// flowDepths are the depths at or below which collections are written in flow style,
// tried in turn: none (kube's output), 16 (deep schemas keep their outline), 2 (the
// object's own fields and their fields; for a list, its items one per line).
var flowDepths = []int{-1, 16, 2}

// errYAMLTooLong says an attempt went past the output limit; it never leaves this file.
var errYAMLTooLong = errors.New("YAML output over its limit")

// appendYAML appends the YAML of the JSON document j to dst.
func appendYAML(dst, j []byte) ([]byte, error) {
	tree, err := yamlTree(j)
	if err != nil {
		return dst, fmt.Errorf("error converting JSON to YAML: %w", err)
	}
	limit := len(dst) + yamlOutputLimit(len(j))
	base := len(dst)
	for n, depth := range flowDepths {
		last := n == len(flowDepths)-1
		v, flows := tree, (*yamlFlows)(nil)
		if depth >= 0 {
			flows = newYAMLFlows(j)
			v = flows.cut(tree, 0, depth)
		}
		out := &cappedWriter{b: dst[:base], limit: limit}
		if last {
			out.limit = -1
		}
		err := emitYAML(out, v)
		if out.over {
			continue
		}
		if err != nil {
			return out.b, fmt.Errorf("error converting JSON to YAML: %w", err)
		}
		if flows == nil {
			return out.b, nil
		}
		return flows.substitute(dst[:base], out.b[base:]), nil
	}
	return dst, errYAMLTooLong // not reached: the last depth has no limit
}

// emitYAML writes v with go-yaml's encoder, which writes as it goes.
func emitYAML(w io.Writer, v any) error {
	enc := goyaml.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// cappedWriter appends to b up to limit bytes (none when negative) and then fails,
// noting that it did: go-yaml's encoder reports a failed write with its text only.
type cappedWriter struct {
	b     []byte
	limit int
	over  bool
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if c.limit >= 0 && len(c.b)+len(p) > c.limit {
		c.over = true
		return 0, errYAMLTooLong
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

// yamlTree decodes a JSON document into the values go-yaml writes as sigs.k8s.io/yaml's
// JSONToYAML has them: numbers as go-yaml resolves their text (int, then uint64, then
// float64), objects as maps, arrays as slices.
func yamlTree(j []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return yamlNumbers(v), nil
}

func yamlNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = yamlNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = yamlNumbers(e)
		}
	case json.Number:
		s := string(x)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return int(i)
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s // go-yaml keeps a number out of float64's range as its text
	}
	return v
}

// yamlFlows holds the compact JSON of the collections a document's YAML writes in flow
// style. Each is first written as a plain scalar placeholder (token, its index, the end
// of the line), which substitute replaces.
type yamlFlows struct {
	token []byte
	json  [][]byte
}

// newYAMLFlows returns flows whose token occurs nowhere in j, so nowhere in its YAML
// (a letter or digit is never escaped, and a folded scalar only breaks at spaces).
func newYAMLFlows(j []byte) *yamlFlows {
	token := []byte("yamlflow")
	for bytes.Contains(j, token) {
		token = append(token, 'x')
	}
	return &yamlFlows{token: token}
}

// cut returns v with the maps and slices at depth at or below flowAt that hold a
// non-empty map or slice replaced by placeholders. Scalars, and collections of only
// scalars, stay as they are: the block part is at most flowAt+1 levels deep, and a
// list's own fields (its metadata, a Table's column definitions) are written as they
// are when it holds no item, so that a list streamed item by item (EncodeList) splits
// the same way whatever its items hold.
func (f *yamlFlows) cut(v any, depth, flowAt int) any {
	switch x := v.(type) {
	case map[string]any:
		if depth >= flowAt && hasCollection(x) {
			return f.placeholder(x)
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = f.cut(e, depth+1, flowAt)
		}
		return m
	case []any:
		if depth >= flowAt && hasCollection(x) {
			return f.placeholder(x)
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = f.cut(e, depth+1, flowAt)
		}
		return s
	}
	return v
}

// hasCollection tells whether a map or slice holds a non-empty map or slice (an
// empty one is written "{}" or "[]" like a scalar).
func hasCollection(c any) bool {
	switch x := c.(type) {
	case map[string]any:
		for _, e := range x {
			if isCollection(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if isCollection(e) {
				return true
			}
		}
	}
	return false
}

func isCollection(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return false
}

func (f *yamlFlows) placeholder(v any) string {
	b, err := AppendJSON(nil, v)
	if err != nil { // not reached: v was decoded from JSON
		b = []byte("null")
	}
	f.json = append(f.json, b)
	return string(f.token) + strconv.Itoa(len(f.json)-1)
}

// substitute appends y to dst with each placeholder replaced by its JSON.
func (f *yamlFlows) substitute(dst, y []byte) []byte {
	for {
		at := bytes.Index(y, f.token)
		if at < 0 {
			return append(dst, y...)
		}
		dst = append(dst, y[:at]...)
		y = y[at+len(f.token):]
		n := 0
		for n < len(y) && y[n] >= '0' && y[n] <= '9' {
			n++
		}
		i, _ := strconv.Atoi(string(y[:n]))
		if i < len(f.json) {
			dst = append(dst, f.json[i]...)
		}
		y = y[n:]
	}
}
