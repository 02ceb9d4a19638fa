package codec

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestYAMLToJSON_ReportsDuplicateKeysWithPaths(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		json string
		want []string
	}{
		{"clean document", "a: 1\nb: [x, z]\n", `{"a":1,"b":["x","z"]}`, nil},
		{"top-level duplicate keeps the last value", "a: 1\na: 2\n", `{"a":2}`, []string{`duplicate field "a"`}},
		{"nested duplicate", "spec:\n  color: red\n  color: blue\n", `{"spec":{"color":"blue"}}`, []string{`duplicate field "spec.color"`}},
		{"duplicate in a list item", "spec:\n  parts:\n  - name: a\n  - name: b\n    name: c\n", `{"spec":{"parts":[{"name":"a"},{"name":"c"}]}}`,
			[]string{`duplicate field "spec.parts[1].name"`}},
		{"several duplicates", "a: 1\nb:\n  c: 1\n  c: 2\na: 3\n", `{"a":3,"b":{"c":2}}`, []string{`duplicate field "b.c"`, `duplicate field "a"`}},
		{"JSON is YAML", `{"a": 1, "a": 2}`, `{"a":2}`, []string{`duplicate field "a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, issues, err := YAMLToJSON([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if string(j) != tt.json {
				t.Errorf("json = %s, want %s", j, tt.json)
			}
			got := issues.Warnings()
			if len(got) == 0 {
				got = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshalYAML_MalformedInputIsAnError(t *testing.T) {
	docs := []string{
		"a: [1, 2",
		"a: {b: 1",
		"\ta: 1",
		"a: 'unterminated",
		"- a\nb: 1",
		"a: b: c",
		"*unknownalias",
	}
	for _, doc := range docs {
		var w Widget
		if _, err := UnmarshalYAML([]byte(doc), &w); err == nil {
			t.Errorf("%q decoded without error", doc)
		}
	}
}

func TestUnmarshalYAML_FeedsTheJSONDecoder(t *testing.T) {
	var w Widget
	issues, err := UnmarshalYAML([]byte("spec:\n  replicas: 3\n  Color: x\n"), &w)
	if err != nil {
		t.Fatal(err)
	}
	if *w.Spec.Replicas != 3 || len(issues) != 1 || issues[0] != (FieldIssue{UnknownField, "spec.Color"}) {
		t.Errorf("got %+v, %v", w.Spec, issues)
	}
	if _, err := UnmarshalYAML([]byte("spec:\n  replicas: 3000000000\n"), &w); err == nil {
		t.Error("int32 overflow accepted from YAML")
	}
}

func TestYAMLReader_SplitsDocuments(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   []string
	}{
		{"single document", "a: 1\n", []string{"a: 1\n"}},
		{"no trailing newline", "a: 1", []string{"a: 1"}},
		{"separators", "a: 1\n---\nb: 2\n---\nc: 3\n", []string{"a: 1\n", "b: 2\n", "c: 3\n"}},
		{"leading separator and comments", "---\n# only a comment\n---\na: 1\n--- # next\nb: 2\n", []string{"a: 1\n", "b: 2\n"}},
		{"empty documents are skipped", "---\n---\n\n---\na: 1\n---\n", []string{"a: 1\n"}},
		{"dashes inside a value are not separators", "a: |\n  ---x\n---\nb: 1\n", []string{"a: |\n  ---x\n", "b: 1\n"}},
		{"CRLF", "a: 1\r\n---\r\nb: 2\r\n", []string{"a: 1\r\n", "b: 2\r\n"}},
		{"empty stream", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewYAMLReader(strings.NewReader(tt.stream))
			var got []string
			for {
				doc, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(doc))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
			if _, err := r.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("Next after the end: %v", err)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestYAMLReader_ReportsReadErrors(t *testing.T) {
	if _, err := NewYAMLReader(failingReader{}).Next(); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("err = %v", err)
	}
}
