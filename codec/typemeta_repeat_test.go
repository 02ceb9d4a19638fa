package codec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

// A document that repeats apiVersion or kind at the top level is of the kind its last
// values name, as apimachinery reads it (encoding/json into TypeMeta: the last value
// of a repeated key wins, as for every other field), whatever the order of the keys,
// into whatever it is decoded; the repetition is reported as a duplicate field. JSON
// and YAML bodies agree.
func TestDecode_RepeatedKindOrAPIVersionIsReadLikeApimachinery(t *testing.T) {
	s := testScheme()
	v1 := widgetGV.String()
	for _, tc := range []struct {
		name string
		// fields are the top-level members of the document, in order.
		fields []string
		want   scheme.GroupVersionKind
		issue  string
		// jsonOnly: YAML keeps only a mapping's last value, so a null there is no
		// kind, in apimachinery too.
		jsonOnly bool
	}{
		{"kind Gadget then Widget", []string{`"apiVersion":"` + v1 + `"`, `"kind":"Gadget"`, `"kind":"Widget"`},
			widgetGV.WithKind("Widget"), `duplicate field "kind"`, false},
		{"kind Widget then Gadget", []string{`"apiVersion":"` + v1 + `"`, `"kind":"Widget"`, `"kind":"Gadget"`},
			widgetGV.WithKind("Gadget"), `duplicate field "kind"`, false},
		{"kind repeated around apiVersion", []string{`"kind":"Gadget"`, `"apiVersion":"` + v1 + `"`, `"kind":"Widget"`},
			widgetGV.WithKind("Widget"), `duplicate field "kind"`, false},
		{"kind repeated after other fields", []string{`"apiVersion":"` + v1 + `"`, `"kind":"Widget"`, `"metadata":{"name":"a","labels":{"kind":"x"}}`, `"spec":{"color":"red"}`, `"kind":"Gadget"`},
			widgetGV.WithKind("Gadget"), `duplicate field "kind"`, false},
		{"apiVersion repeated after kind", []string{`"apiVersion":"example.com/v2"`, `"kind":"Widget"`, `"apiVersion":"` + v1 + `"`},
			widgetGV.WithKind("Widget"), `duplicate field "apiVersion"`, false},
		{"a null kind after a kind leaves it", []string{`"apiVersion":"` + v1 + `"`, `"kind":"Gadget"`, `"kind":null`},
			widgetGV.WithKind("Gadget"), `duplicate field "kind"`, true},
		{"a kind inside spec is no kind", []string{`"apiVersion":"` + v1 + `"`, `"kind":"Widget"`, `"spec":{"kind":"Gadget"}`},
			widgetGV.WithKind("Widget"), "", false},
		{"more than the issues kept before the repeat", append(append([]string{`"apiVersion":"` + v1 + `"`, `"kind":"Gadget"`}, unknownFields(maxIssues+5)...), `"kind":"Widget"`),
			widgetGV.WithKind("Widget"), "", false},
	} {
		doc := "{" + strings.Join(tc.fields, ",") + "}"
		var yaml strings.Builder
		for _, f := range tc.fields {
			k, v, _ := strings.Cut(f, ":")
			fmt.Fprintf(&yaml, "%s: %s\n", k, v) // JSON values are YAML flow values
		}
		for _, format := range []struct {
			name string
			ser  Serializer
			data string
		}{{"json", NewJSON(s), doc}, {"yaml", NewYAML(s), yaml.String()}} {
			if tc.jsonOnly && format.name != "json" {
				continue
			}
			for _, into := range []struct {
				name string
				new  func() scheme.Kinded
			}{
				{"into nothing", func() scheme.Kinded { return nil }},
				{"into a Widget", func() scheme.Kinded { return &Widget{} }},
				{"into an Unstructured", func() scheme.Kinded { return &scheme.Unstructured{} }},
			} {
				t.Run(tc.name+"/"+format.name+"/"+into.name, func(t *testing.T) {
					res, err := format.ser.Decode([]byte(format.data), nil, into.new())
					if err != nil {
						t.Fatalf("decode: %v", err)
					}
					if res.GVK != tc.want || res.Object.GetObjectKind().GroupVersionKind() != tc.want {
						t.Errorf("decoded as %v (object %v), want %v", res.GVK, res.Object.GetObjectKind().GroupVersionKind(), tc.want)
					}
					_, unstructuredInto := into.new().(*scheme.Unstructured)
					if _, typed := res.Object.(*Widget); !unstructuredInto && typed != (tc.want.Kind == "Widget") {
						t.Errorf("decoded into %T, want the scheme's type for %s", res.Object, tc.want.Kind)
					}
					if tc.issue != "" && !slices.Contains(res.Issues.Warnings(), tc.issue) {
						t.Errorf("issues %v, want %s", res.Issues.Warnings(), tc.issue)
					}
				})
			}
		}
	}
}

// unknownFields returns n top-level members no kind has.
func unknownFields(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`"unknown%d":%d`, i, i)
	}
	return out
}
