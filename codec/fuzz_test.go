package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"sigs.k8s.io/yaml"
)

func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		string(widgetJSON(2)),
		`{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"a":[1,2.5,"x",null,true,{"b":{}}]}}`,
		`{"spec":{"color":"a","color":"b","Color":1}}`,
		`{"metadata":{"labels":{"a":"\u00e9\ud83d\ude00"},"creationTimestamp":"2024-01-01T00:00:00Z"}}`,
		`[[[[]]]]`, `"\ud800"`, `-0.0e+5`, `{"spec":{"replicas":2147483648}}`,
	} {
		f.Add([]byte(seed))
	}
	s := NewJSON(testScheme())
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Widget
		_, errTyped := Unmarshal(data, &w)
		v, _, errAny := DecodeAny(data)
		_, _ = s.Decode(data, &scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, nil)
		// Success must agree with encoding/json for the untyped decode (a valid
		// number beyond float64 fails in both).
		var ref any
		if refErr := json.Unmarshal(data, &ref); (refErr == nil) != (errAny == nil) {
			t.Fatalf("encoding/json err=%v but DecodeAny err=%v for %q", refErr, errAny, data)
		}
		if errAny == nil {
			out, err := MarshalUnstructured(v)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			want, _ := json.Marshal(v)
			if string(out) != string(want) {
				t.Fatalf("encode differs:\n%s\n%s", out, want)
			}
		}
		_ = errTyped
	})
}

// FuzzDecodeYAML decodes YAML as the YAML serializer does and holds the conversion to
// sigs.k8s.io/yaml's (kube-apiserver's converter) where that one succeeds within the
// limit, and to the limit where it does not: aliases, anchors and merge keys included.
func FuzzDecodeYAML(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: example.com/v1\nkind: Widget\nspec:\n  color: red\n  color: blue\n  parts:\n  - name: a\n",
		"a: &x [1, 2]\nb: *x\n",
		"- 1\n- {a: b}\n",
		"a: 'x\n",
		"---\na: 1\n---\nb: 2\n",
		"a: &s xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nb: [*s, *s, *s, *s, *s, *s, *s, *s]\nc: &c [*s, *s, *b, *b]\nd: [*c, *c, *c]\n",
		"base: &b {color: red, size: 2}\nw:\n  <<: *b\n  size: 3\nv: {<<: [*b, {x: 1}], color: blue}\n",
		"a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n  x: 3\n",
		"k: {1: a, 2.5: b, true: c, ~: d}\ns: [yes, no, 0x1F, 1e3, .nan, 2001-12-14, !!binary aGk=]\n",
		"- key: a\n  value: b\n- [*x]\n",
		"a: &r [*r]\n",
	} {
		f.Add([]byte(seed))
	}
	s := NewYAML(testScheme())
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Widget
		_, _ = UnmarshalYAML(data, &w)
		_, _ = s.Decode(data, &scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, nil)

		got, issues, err := YAMLToJSONWithin(data, limit)
		if err == nil && len(got) > limit {
			t.Fatalf("%d bytes of JSON within a limit of %d", len(got), limit)
		}
		var tl *TooLargeError
		if errors.As(err, &tl) && tl.Limit != limit {
			t.Fatalf("TooLargeError of %d, want %d", tl.Limit, limit)
		}
		want, werr := yaml.YAMLToJSON(data)
		switch {
		case werr != nil:
			// A conversion sigs.k8s.io/yaml refuses may not be refused here only where
			// it has no JSON to compare: never.
			if err == nil {
				t.Fatalf("converted %q, which sigs.k8s.io/yaml refuses: %v", data, werr)
			}
		case len(want) > limit:
			if !errors.As(err, &tl) {
				t.Fatalf("%d bytes of JSON past the limit: err = %v", len(want), err)
			}
		case err != nil:
			// Repeated keys are counted before the last one wins.
			if !errors.As(err, &tl) || len(issues) == 0 && !hasDuplicates(data) {
				t.Fatalf("sigs.k8s.io/yaml converts %q, here: %v", data, err)
			}
		default:
			if !bytes.Equal(got, want) {
				t.Fatalf("JSON of %q:\ngot  %s\nwant %s", data, got, want)
			}
			if _, serr := yaml.YAMLToJSONStrict(data); (serr != nil) != (len(issues) > 0) {
				t.Fatalf("issues %v, strict error %v", issues, serr)
			}
		}
	})
}

// hasDuplicates tells whether go-yaml's strict decoding finds repeated keys.
func hasDuplicates(data []byte) bool {
	_, err := yaml.YAMLToJSONStrict(data)
	return err != nil
}

// FuzzEncodeYAML holds the YAML written for any JSON document to kube's
// (sigs.k8s.io/yaml's JSONToYAML) byte for byte whenever kube's is within the output
// limit, and to the limit and the document's content otherwise.
func FuzzEncodeYAML(f *testing.F) {
	for _, seed := range yamlParityDocs {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"a":` + strings.Repeat(`{"b":`, 300) + `"` + strings.Repeat("w ", 200) + `"` + strings.Repeat(`}`, 300) + `}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		got, err := JSONToYAML(data)
		want, werr := yaml.JSONToYAML(data)
		if werr != nil {
			return // go-yaml's JSON reading refuses what encoding/json takes (a lone surrogate)
		}
		if err != nil {
			t.Fatalf("JSONToYAML(%q): %v", data, err)
		}
		if len(want) <= yamlOutputLimit(len(data)) {
			if !bytes.Equal(got, want) {
				t.Fatalf("YAML of %q:\ngot  %q\nwant %q", data, got, want)
			}
			return
		}
		if len(got) > yamlOutputLimit(len(data)) {
			t.Fatalf("%d bytes of YAML for %d of JSON", len(got), len(data))
		}
		back, err := yaml.YAMLToJSON(got)
		if err != nil {
			t.Fatalf("the YAML of %q does not read back: %v", data, err)
		}
		ref, _ := yaml.YAMLToJSON(data)
		if !bytes.Equal(back, ref) {
			t.Fatalf("the YAML of %q reads back as %s, want %s", data, back, ref)
		}
	})
}

// FuzzMarshal decodes the input into typed and untyped values and checks that
// encoding them gives encoding/json's bytes.
func FuzzMarshal(f *testing.F) {
	for _, seed := range []string{
		string(widgetJSON(2)),
		`{"metadata":{"labels":{"<a>":"\u2028"},"managedFields":[{"fieldsV1":{"f:a": {}}}]},"spec":{"parts":[{"name":"\ud800"}]}}`,
		`{"Plain":"x","oi":3,"of":-0,"zval":{"N":-1},"qi":"12","qs":"\"x\"","Raw":{"a" : 1},"Num":1e5}`,
		`[1, "a", null, {"b": [true, 1.5e300]}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Widget
		var tg tagged
		var m marshalers
		var top randTop
		var u any
		for _, v := range []any{&w, &tg, &m, &top, &u} {
			if json.Unmarshal(data, v) != nil {
				continue
			}
			want, werr := json.Marshal(v)
			got, gerr := Marshal(v)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("%T: errors differ: ours %v, theirs %v", v, gerr, werr)
			}
			if string(got) != string(want) {
				t.Fatalf("%T differs:\nours:   %s\ntheirs: %s", v, got, want)
			}
		}
	})
}
