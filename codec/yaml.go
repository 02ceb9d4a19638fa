package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v2"
)

// YAMLToJSON converts a YAML document to JSON with sigs.k8s.io/yaml, the converter
// kube-apiserver uses. Keys repeated within one YAML mapping are kept (the last value
// wins) and reported as duplicate-field issues with their paths, like JSON duplicates.
// Duplicates are located in documents whose top level is a mapping; elsewhere a
// duplicate is reported with the YAML parser's message as its path.
func YAMLToJSON(y []byte) ([]byte, FieldIssues, error) {
	j, err := yaml.YAMLToJSONStrict(y)
	if err == nil {
		return j, nil, nil
	}
	j, err2 := yaml.YAMLToJSON(y)
	if err2 != nil {
		return nil, nil, fmt.Errorf("error converting YAML to JSON: %w", err2)
	}
	// The strict conversion failed where the lenient one did not: repeated keys.
	d := decodeState{}
	var top goyaml.MapSlice
	if goyaml.Unmarshal(y, &top) == nil {
		d.yamlDuplicates(top)
	}
	if len(d.issues) == 0 {
		d.issues = FieldIssues{{Type: DuplicateField, Path: err.Error()}}
	}
	return j, d.issues, nil
}

// yamlDuplicates walks a YAML tree decoded with MapSlice mappings (which keep repeated
// keys) and records each repeated key at its path.
func (d *decodeState) yamlDuplicates(v any) {
	switch x := v.(type) {
	case goyaml.MapSlice:
		seen := make(map[string]bool, len(x))
		for _, it := range x {
			k := fmt.Sprint(it.Key)
			if it.Key == nil {
				k = "null"
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
