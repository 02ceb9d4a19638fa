package patch_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/patch"
)

// The fuzz targets apply arbitrary patch bytes, one target per patch type, to one
// fixed Widget. None may panic, and what a patch may make of the document is bounded
// by kube's limits: a patch adds at most its own bytes (each possibly escaped, one byte
// becoming a six-byte \u escape) and, for a JSON patch, the MaxJSONPatchCopyBytes its
// copies may add. In CI they run as tests over their seeds; `go test -fuzz` explores.

const fuzzLive = `{"apiVersion":"toys.example.com/v1","kind":"Widget",` +
	`"metadata":{"name":"w","namespace":"default","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},` +
	`"spec":{"color":"red","replicas":2,"parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},` +
	`"status":{"conditions":[{"type":"Ready","status":"True"}]}}`

// checkPatched fails when a patch applied without a patch error made more than its
// bound of the document, or something that is not JSON.
func checkPatched(t *testing.T, p []byte, out []byte, err error, copyAllowance int) {
	t.Helper()
	var pe *patch.Error
	if err != nil {
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %v is no *patch.Error: the REST layer would answer 500", err, err)
		}
		return
	}
	if bound := 6*(len(fuzzLive)+len(p)) + copyAllowance; len(out) > bound {
		t.Fatalf("a %d-byte patch made a %d-byte document, more than %d", len(p), len(out), bound)
	}
	if !json.Valid(out) {
		t.Fatalf("patched document is not JSON: %.200s", out)
	}
}

func FuzzJSONPatch(f *testing.F) {
	for _, seed := range []string{
		`[{"op":"add","path":"/spec/color","value":"blue"}]`,
		`[{"op":"remove","path":"/spec/parts/0"},{"op":"test","path":"/spec/replicas","value":2}]`,
		`[{"op":"move","from":"/metadata/labels","path":"/spec/labels"},{"op":"replace","path":"/spec/replicas","value":3}]`,
		copyBomb(20),
		`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"copy","from":"/spec","path":"/spec/y"}]`,
		`[{"op":"add","path":"/spec/parts/-","value":{"name":"bolt"}}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		out, err := patch.JSONPatch([]byte(fuzzLive), p)
		checkPatched(t, p, out, err, patch.MaxJSONPatchCopyBytes)
	})
}

func FuzzMergePatch(f *testing.F) {
	for _, seed := range []string{
		`{"spec":{"color":"blue","parts":null}}`,
		`{"metadata":{"labels":{"a":null,"c":"3"}}}`,
		`[1,2,3]`,
		`null`,
		`{"spec":{"parts":[{"name":"x"}]},"status":{"conditions":[]}}`,
		// As deep as kube's decoders allow (10,000 levels), and one level deeper.
		`{"spec":` + strings.Repeat(`{"a":`, 9998) + `{"b":null}` + strings.Repeat(`}`, 9998) + `}`,
		`{"spec":` + strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999) + `}`,
		`{"spec":` + strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000) + `}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		out, err := patch.MergePatch([]byte(fuzzLive), p)
		checkPatched(t, p, out, err, 0)
	})
}

func FuzzStrategicMergePatch(f *testing.F) {
	schema := widgetSchema(f)
	for _, seed := range []string{
		`{"spec":{"parts":[{"name":"axle","count":3},{"name":"bolt","count":8}]}}`,
		`{"spec":{"parts":[{"name":"wheel","$patch":"delete"}]}}`,
		`{"spec":{"$setElementOrder/parts":[{"name":"axle"},{"name":"wheel"}]}}`,
		`{"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}`,
		`{"spec":{"$retainKeys":["color"],"color":"blue"}}`,
		`{"$patch":"replace","spec":{"color":"green"}}`,
		`{"status":{"conditions":[{"type":"Ready","$patch":"merge","status":"False"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		out, err := patch.StrategicMerge([]byte(fuzzLive), p, schema)
		checkPatched(t, p, out, err, 0)
	})
}

func FuzzApply(f *testing.F) {
	fm := newFieldManager(f, patch.Options{})
	for _, seed := range []string{
		"apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: blue\n",
		widget("red", "wheel", "bolt"),
		"apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  parts:\n  - name: a\n  - name: a\n",
		"apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  managedFields: [{manager: x}]\n",
		"apiVersion: v1\nkind: ConfigMap\n",
		"a: &a [x, x]\nb: [*a, *a]\n",
	} {
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, p []byte, force bool) {
		cfg, err := patch.DecodeApplyConfig(p)
		if err != nil {
			return
		}
		out, managed, err := fm.Apply(obj(t, fuzzLive), cfg, "fuzz", force)
		if err != nil {
			return
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the applied object cannot be encoded: %v", err)
		}
		if len(managed) == 0 {
			t.Fatal("a successful apply recorded no managed fields")
		}
	})
}
