package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	goyaml "sigs.k8s.io/yaml/goyaml.v2"
)

// DefaultYAMLJSONLimit bounds the JSON a YAML document converts to when its caller
// sets no limit of its own ([YAMLToJSON], [UnmarshalYAML], [YAMLSerializer.Decode]):
// 64 MiB. A server decodes a request body within its body limit instead
// ([YAMLToJSONWithin], [LimitedDecoder]).
const DefaultYAMLJSONLimit = 64 << 20

// TooLargeError is a document whose decoded form is over the limit it was decoded
// within: YAML's aliases repeat what they name, so a small body can stand for any
// amount of JSON.
type TooLargeError struct {
	// Limit is the most bytes of JSON the document could have converted to.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the document converts to more than %d bytes of JSON", e.Limit)
}

// YAMLToJSON converts a YAML document to JSON within [DefaultYAMLJSONLimit]; see
// [YAMLToJSONWithin].
func YAMLToJSON(y []byte) ([]byte, FieldIssues, error) {
	return YAMLToJSONWithin(y, DefaultYAMLJSONLimit)
}

// YAMLToJSONWithin converts a YAML document to the JSON sigs.k8s.io/yaml's YAMLToJSON
// converts it to (the converter kube-apiserver uses: YAML 1.1 scalars, merge keys,
// non-string keys as strings), refusing with a [*TooLargeError] a document whose JSON
// would be over limit bytes, aliases expanded. Keys repeated within one YAML mapping
// are kept (the last value wins) and reported as duplicate-field issues with their
// paths, like JSON duplicates.
//
// The document is parsed once. go-yaml decodes an alias by decoding what it names
// again, but shares the scalars' text and refuses a document whose decoding is
// mostly aliases past a few hundred thousand nodes; what the decoded tree stands
// for is then measured without being written (a string by its length), and the JSON
// is written only under the limit, stopping there.
func YAMLToJSONWithin(y []byte, limit int64) ([]byte, FieldIssues, error) {
	doc, issues, err := decodeYAMLDocument(y)
	if err != nil {
		return nil, nil, fmt.Errorf("error converting YAML to JSON: %w", err)
	}
	if yamlJSONSize(doc, limit) > limit {
		return nil, nil, &TooLargeError{Limit: limit}
	}
	j, err := appendYAMLJSON(nil, doc, int(min(limit, math.MaxInt)))
	if err == nil && int64(len(j)) > limit { // the last string written passed it
		err = &TooLargeError{}
	}
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			tl.Limit = limit
			return nil, nil, tl
		}
		return nil, nil, fmt.Errorf("error converting YAML to JSON: %w", err)
	}
	return j, issues, nil
}

// decodeYAMLDocument decodes y once. Mappings decode as go-yaml's MapSlice, which keeps
// their order and repeated keys, so that a repeated key is found with its path in the
// same tree (yamlDuplicates). go-yaml's MapSlice drops what a merge key ("<<") merges,
// so a document that may hold one decodes into maps instead, merged as in
// sigs.k8s.io/yaml; its repeated keys are what go-yaml's strict decoding reports.
func decodeYAMLDocument(y []byte) (any, FieldIssues, error) {
	if bytes.Contains(y, []byte("<<")) {
		var v any
		err := goyaml.UnmarshalStrict(y, &v)
		var te *goyaml.TypeError
		if !errors.As(err, &te) {
			return v, nil, err
		}
		// Repeated keys: the strict decoding kept the first value; decode again for
		// the last, as the lenient conversion has it.
		v = nil
		if err := goyaml.Unmarshal(y, &v); err != nil {
			return nil, nil, err
		}
		return v, FieldIssues{{Type: DuplicateField, Path: "error converting YAML to JSON: " + err.Error()}}, nil
	}
	var top yamlTop
	if err := goyaml.Unmarshal(y, &top); err != nil {
		return nil, nil, err
	}
	d := decodeState{}
	d.yamlDuplicates(top.v)
	return top.v, d.issues, nil
}

// yamlTop decodes the top of a document that need not be a mapping: a mapping as a
// MapSlice (inside which go-yaml makes every mapping one), a sequence as its elements
// decoded the same way, anything else as go-yaml resolves it. It tries the kinds in
// turn on the node go-yaml already parsed; a node of another kind fails at once.
type yamlTop struct{ v any }

func (t *yamlTop) UnmarshalYAML(unmarshal func(any) error) error {
	// The sequence first: go-yaml decodes a sequence of mappings into a MapSlice as
	// MapItem structs, without failing.
	var seq []yamlTop
	err := unmarshal(&seq)
	var te *goyaml.TypeError
	if !errors.As(err, &te) {
		items := make([]any, len(seq))
		for i := range seq {
			items[i] = seq[i].v
		}
		t.v = items
		return err
	}
	var ms goyaml.MapSlice
	if err := unmarshal(&ms); !errors.As(err, &te) {
		t.v = ms
		return err
	}
	return unmarshal(&t.v)
}

// yamlDuplicates walks a YAML tree decoded with MapSlice mappings (which keep repeated
// keys) and records each repeated key at its path.
func (d *decodeState) yamlDuplicates(v any) {
	switch x := v.(type) {
	case goyaml.MapSlice:
		seen := make(map[string]bool, len(x))
		for _, it := range x {
			k, err := yamlKeyString(it.Key)
			if err != nil {
				k = fmt.Sprint(it.Key)
			}
			if seen[k] {
				d.issue(DuplicateField, k)
			}
			seen[k] = true
			d.pushKey(k)
			d.yamlDuplicates(it.Value)
			d.pop()
		}
	case []any:
		for i, e := range x {
			d.pushIndex(i)
			d.yamlDuplicates(e)
			d.pop()
		}
	}
}

// yamlJSONSize is at most the length of the JSON of a decoded YAML tree, counted
// without writing it and without reading a string's text (an alias of a long string
// costs its length in an addition), stopping once it is over limit.
func yamlJSONSize(v any, limit int64) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch x := v.(type) {
		case goyaml.MapSlice:
			n += 2 + int64(max(len(x)-1, 0))
			for _, it := range x {
				walk(it.Key)
				n++ // the colon
				walk(it.Value)
			}
		case map[any]any:
			n += 2 + int64(max(len(x)-1, 0))
			for k, e := range x {
				walk(k)
				n++
				walk(e)
			}
		case []any:
			n += 2 + int64(max(len(x)-1, 0))
			for _, e := range x {
				walk(e)
			}
		case string:
			n += 2 + int64(len(x))
		case nil:
			n += 4
		default:
			n++ // a number or a boolean: at least one character
		}
	}
	walk(v)
	return n
}

// appendYAMLJSON appends the JSON of a decoded YAML tree to b as sigs.k8s.io/yaml
// writes it (encoding/json of the tree with its keys made strings: object keys sorted,
// the last of repeated keys winning), failing with a *TooLargeError once b is over
// limit bytes.
func appendYAMLJSON(b []byte, v any, limit int) ([]byte, error) {
	if len(b) > limit {
		return b, &TooLargeError{}
	}
	var err error
	switch x := v.(type) {
	case goyaml.MapSlice:
		last := make(map[string]any, len(x))
		for _, it := range x {
			k, err := yamlKeyString(it.Key)
			if err != nil {
				return b, fmt.Errorf("%w, value: %+#v", err, it.Value)
			}
			last[k] = it.Value
		}
		return appendYAMLObject(b, last, limit)
	case map[any]any:
		obj := make(map[string]any, len(x))
		for k, e := range x {
			ks, err := yamlKeyString(k)
			if err != nil {
				return b, fmt.Errorf("%w, value: %+#v", err, e)
			}
			obj[ks] = e
		}
		return appendYAMLObject(b, obj, limit)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendYAMLJSON(b, e, limit); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case string:
		return AppendString(b, x), nil
	}
	// Numbers, booleans and null, with encoding/json's formats and errors (NaN and
	// infinities have no JSON).
	return AppendJSON(b, v)
}

func appendYAMLObject(b []byte, obj map[string]any, limit int) ([]byte, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, k)
		b = append(b, ':')
		if b, err = appendYAMLJSON(b, obj[k], limit); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// yamlKeyString is the JSON key of a YAML mapping key as sigs.k8s.io/yaml makes it: a
// string as is, an integer in decimal, a float as go-yaml writes a float32, a boolean
// as true or false; any other key (null, a number past int64) is an error.
func yamlKeyString(k any) (string, error) {
	switch x := k.(type) {
	case string:
		return x, nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("unsupported map key of type: %T, key: %+#v", k, k)
}

// UnmarshalYAML decodes a YAML document into v: YAML is converted to JSON and decoded
// by [Unmarshal], so strictness and field paths are the same as for JSON. Byte offsets
// in errors refer to the converted JSON.
func UnmarshalYAML(y []byte, v any) (FieldIssues, error) {
	j, issues, err := YAMLToJSON(y)
	if err != nil {
		return nil, err
	}
	more, err := Unmarshal(j, v)
	return append(issues, more...), err
}

// JSONToYAML converts a JSON document to YAML the way kube-apiserver writes YAML,
// within a bounded multiple of its size (see appendYAML).
func JSONToYAML(j []byte) ([]byte, error) { return appendYAML(nil, j) }

// YAMLReader splits a stream of YAML documents separated by lines that start with
// "---" (optionally followed by a comment), the way kubectl reads multi-document files.
type YAMLReader struct {
	r   *bufio.Reader
	err error
}

// NewYAMLReader returns a reader of the documents in r.
func NewYAMLReader(r io.Reader) *YAMLReader {
	return &YAMLReader{r: bufio.NewReader(r)}
}

// Next returns the next document, skipping ones that hold only whitespace and
// comments. It returns io.EOF after the last document.
func (y *YAMLReader) Next() ([]byte, error) {
	var buf bytes.Buffer
	content := false
	for y.err == nil {
		line, err := y.r.ReadBytes('\n')
		if err != nil {
			y.err = err
		}
		if isSeparator(line) {
			if content {
				return buf.Bytes(), nil
			}
			buf.Reset()
			continue
		}
		buf.Write(line)
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			content = true
		}
	}
	if !errors.Is(y.err, io.EOF) {
		return nil, y.err
	}
	if content {
		return buf.Bytes(), nil
	}
	return nil, io.EOF
}

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}
