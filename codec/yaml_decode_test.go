package codec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// yamlDecodeDocs are YAML documents whose JSON must be sigs.k8s.io/yaml's YAMLToJSON's
// (kube-apiserver's converter), or fail where it fails: aliases, anchors and merge
// keys, YAML 1.1 scalars, keys that are not strings, tops that are not mappings.
var yamlDecodeDocs = []string{
	"a: 1\nb: [x, z]\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
	"a: &x [1, 2]\nb: *x\nc: &y {d: *x}\ne: [*y, *y]\n",
	"base: &b {color: red, size: 2}\nw:\n  <<: *b\n  size: 3\n",
	"base: &b {color: red, size: 2}\nw:\n  size: 3\n  <<: *b\n",
	"a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]\n  z: 3\n",
	"a:\n  <<: {x: 1}\n  <<: {y: 2}\n",
	"m: {<<: 5}\n",
	"a: {<<: [1]}\n",
	"s: [yes, no, on, off, y, n, true, False, ~, null, '', 0x1F, 0o17, 017, 0b101, 1_000, 1e3, .5, -.inf, .nan, +12, 2001-12-14, 2001-12-14T21:59:43.10-05:00, '1', \"2\", 12:30:45]\n",
	"k:\n  1: a\n  2.5: b\n  true: c\n  -3: d\n  0x10: e\n  1e3: f\n",
	"? [1, 2]\n: x\n",
	"~: 1\n",
	"18446744073709551615: 1\n",
	"n: [9223372036854775807, 9223372036854775808, 18446744073709551616, -9223372036854775809, 1.0, -0.0, 3.14159265358979323846]\n",
	"b: !!binary aGVsbG8=\nc: !!str 12\nd: !!int '7'\ne: !!float 1\n",
	"b: !!binary '%%%'\n",
	"x: !!int abc\n",
	"t: !custom {a: 1}\n",
	"- 1\n- {a: b}\n- [c, {d: e}]\n",
	"- key: a\n  value: b\n- x: 1\n",
	"just a scalar\n", "42\n", "", "# only a comment\n", "---\na: 1\n---\nb: 2\n", "null\n", "[]\n", "{}\n",
	"s: |\n  line one\n  line two\nf: >\n  folded\n  text\n\n  para\n",
	"u: \"\\u00e9\\t\\x41\\U0001F600\"\nh: \"<&>\"\ne: \"\\ud800\"\n",
	"a: 'unterminated\n", "a: [1, 2\n", "\ta: 1\n", "*unknown\n", "a: &x b\nb: &x c\nc: *x\n",
	"a: &r [*r]\n",
	"x: [.inf]\n",
	"deep: " + strings.Repeat("[", 50) + strings.Repeat("]", 50) + "\n",
	`{"a": 1, "b": {"c": [true, null]}}`,
	"a: 1\na: 2\n",
}

func TestYAMLToJSON_ConvertsAsSigsYAMLDoes(t *testing.T) {
	for i, doc := range yamlDecodeDocs {
		want, werr := yaml.YAMLToJSON([]byte(doc))
		got, issues, gerr := YAMLToJSON([]byte(doc))
		if (werr != nil) != (gerr != nil) {
			t.Errorf("doc %d %q: error %v, sigs.k8s.io/yaml's %v", i, doc, gerr, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("doc %d %q:\ngot  %s\nwant %s", i, doc, got, want)
		}
		_, strictErr := yaml.YAMLToJSONStrict([]byte(doc))
		if (strictErr != nil) != (len(issues) > 0) {
			t.Errorf("doc %d %q: issues %v, sigs.k8s.io/yaml's strict error %v", i, doc, issues, strictErr)
		}
	}
}

func TestYAMLToJSONWithin_RefusesWhatAliasesExpandPastTheLimit(t *testing.T) {
	const limit = 3 << 20
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name string
		doc  string
	}{
		// The issue's body: a 1 MB string anchored once and aliased 300 times.
		{"long string aliased", "a: &s " + big + "\nb: [" + strings.TrimSuffix(strings.Repeat("*s, ", 300), ", ") + "]\n"},
		{"aliases of aliases", "a: &a " + strings.Repeat("y", 40000) + "\n" + nestedAliases(2, 10)},
		{"mappings aliased", "a: &m {k: " + strings.Repeat("v", 100) + "}\n" + mappingAliases(40000)},
		{"merge of a long string", "a: &m {s: " + big + "}\n" + mergeAliases(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.doc) > limit {
				t.Fatalf("the body is %d bytes, over the limit itself", len(tt.doc))
			}
			var err error
			alloc := allocatedBy(func() { _, _, err = YAMLToJSONWithin([]byte(tt.doc), limit) })
			t.Logf("body of %d bytes: %d bytes allocated, %v", len(tt.doc), alloc, err)
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Limit != limit {
				t.Fatalf("err = %v, want a TooLargeError of %d", err, limit)
			}
			if alloc > 64<<20 {
				t.Errorf("%d bytes allocated refusing a body of %d", alloc, len(tt.doc))
			}
		})
	}
	// Under the limit, the same shapes convert.
	j, _, err := YAMLToJSONWithin([]byte("a: &s "+strings.Repeat("x", 1000)+"\nb: [*s, *s]\n"), limit)
	if err != nil || len(j) != 3*1002+len(`{"a":,"b":[,]}`) {
		t.Errorf("a small expansion: %d bytes, %v", len(j), err)
	}
}

// nestedAliases is n levels of sequences that alias the previous one fan times each,
// the first aliasing *a.
func nestedAliases(n, fan int) string {
	var b strings.Builder
	prev := "a"
	for i := range n {
		name := fmt.Sprintf("l%d", i)
		fmt.Fprintf(&b, "%s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", fan), ", "))
		prev = name
	}
	return b.String()
}

func mappingAliases(n int) string {
	return "b: [" + strings.TrimSuffix(strings.Repeat("*m, ", n), ", ") + "]\n"
}

func mergeAliases(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "m%d: {<<: *m, i: %d}\n", i, i)
	}
	return b.String()
}

func TestYAMLToJSONWithin_CountsEscapesAgainstTheLimit(t *testing.T) {
	// 1,000 control characters are 1,002 bytes counted unwritten, 6,002 written.
	doc := "a: \"" + strings.Repeat(`\x01`, 1000) + "\"\n"
	if _, _, err := YAMLToJSONWithin([]byte(doc), 4000); !errors.As(err, new(*TooLargeError)) {
		t.Errorf("err = %v, want a TooLargeError", err)
	}
	if j, _, err := YAMLToJSONWithin([]byte(doc), 8000); err != nil || len(j) != 6008 {
		t.Errorf("%d bytes, %v", len(j), err)
	}
}
