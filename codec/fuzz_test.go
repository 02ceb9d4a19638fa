package codec

import (
	"encoding/json"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
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

func FuzzDecodeYAML(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: example.com/v1\nkind: Widget\nspec:\n  color: red\n  color: blue\n  parts:\n  - name: a\n",
		"a: &x [1, 2]\nb: *x\n",
		"- 1\n- {a: b}\n",
		"a: 'x\n",
		"---\na: 1\n---\nb: 2\n",
	} {
		f.Add([]byte(seed))
	}
	s := NewYAML(testScheme())
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Widget
		_, _ = UnmarshalYAML(data, &w)
		_, _ = s.Decode(data, &scheme.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, nil)
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
