package scheme_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/scheme"
)

// node is recursive and holds slices of interfaces, as an OpenAPI schema does (enum
// values, nested schemas).
type node struct {
	Enum     []any
	Children []*node
	Extra    map[string]any
}

func TestDeepCopy_SlicesOfInterfacesInRecursiveTypes(t *testing.T) {
	in := node{
		Enum:     []any{"a", int64(1), map[string]any{"k": []any{"v"}}},
		Children: []*node{{Enum: []any{true}}, {Children: []*node{{Extra: map[string]any{"x": []any{1.5}}}}}},
	}
	out := scheme.DeepCopy(in)
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(node{})); diff != "" {
		t.Fatalf("copy differs (-in +out):\n%s", diff)
	}
	out.Enum[2].(map[string]any)["k"].([]any)[0] = "changed"
	out.Children[0].Enum[0] = false
	if in.Enum[2].(map[string]any)["k"].([]any)[0] != "v" || in.Children[0].Enum[0] != true {
		t.Error("the copy shares memory with the original")
	}
}
