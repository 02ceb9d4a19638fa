package structural

import "testing"

// TestMalformedEmbedded_FindsWhatKubeDecodingRefuses: an embedded resource whose
// apiVersion or kind is not a string, or whose metadata does not decode, is what
// kube-apiserver's decoder refuses with 400; other embedded errors are validation's.
func TestMalformedEmbedded_FindsWhatKubeDecodingRefuses(t *testing.T) {
	s := compileJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"tpl":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
		"many":{"type":"array","items":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}}`)
	for _, tc := range []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"well formed", map[string]any{"spec": map[string]any{"tpl": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "x"}}}}, ""},
		{"validation's, not decoding's", map[string]any{"spec": map[string]any{"tpl": map[string]any{"apiVersion": "", "metadata": map[string]any{"name": "a/b"}}}}, ""},
		{"apiVersion not a string", map[string]any{"spec": map[string]any{"tpl": map[string]any{"apiVersion": int64(1), "kind": "Pod"}}},
			"spec.tpl.apiVersion: Invalid value: 1: must be a string"},
		{"first in key order", map[string]any{"spec": map[string]any{"tpl": map[string]any{"apiVersion": int64(1), "kind": true}}},
			"spec.tpl.apiVersion: Invalid value: 1: must be a string"},
		{"kind in a list item", map[string]any{"spec": map[string]any{"many": []any{map[string]any{"kind": "A"}, map[string]any{"kind": true}}}},
			"spec.many[1].kind: Invalid value: true: must be a string"},
		{"metadata not an object", map[string]any{"spec": map[string]any{"tpl": map[string]any{"metadata": "x"}}},
			`spec.tpl.metadata: Invalid value: "x": json: cannot unmarshal string into Go value of type v1.ObjectMeta`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := s.MalformedEmbedded(tc.obj); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
