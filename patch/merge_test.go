package patch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/apikit-dev/apikit/patch"
)

// exactJSON decodes one JSON value with numbers as their text.
func exactJSON(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, b)
	}
	return v
}

// sameJSON reports whether a and b are the same JSON value, numbers compared as text.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(exactJSON(t, a), exactJSON(t, b))
}

func TestMergePatch_FollowsKubesMerge(t *testing.T) {
	tests := []struct {
		name, doc, patch string
		want             string // the merged document, or the error's message
		wantErr          error
	}{
		{"nested objects merge", `{"a":{"b":{"c":1,"d":2}},"e":3}`, `{"a":{"b":{"c":9}}}`, `{"a":{"b":{"c":9,"d":2}},"e":3}`, nil},
		{"null removes a key at any depth", `{"a":{"b":{"c":1,"d":2}}}`, `{"a":{"b":{"c":null}},"x":null}`, `{"a":{"b":{"d":2}}}`, nil},
		{"nulls in an added object are pruned", `{"a":1}`, `{"b":{"c":null,"d":{"e":null,"f":1}}}`, `{"a":1,"b":{"d":{"f":1}}}`, nil},
		{"nulls in objects of an added list are pruned, null items stay", `{}`, `{"l":[{"a":null,"b":1},null,[{"c":null}]]}`, `{"l":[{"b":1},null,[{}]]}`, nil},
		{"an object replacing a scalar loses its nulls", `{"a":"s"}`, `{"a":{"b":null,"c":1}}`, `{"a":{"c":1}}`, nil},
		{"an object replacing null loses its nulls", `{"a":null}`, `{"a":{"b":null,"c":1}}`, `{"a":{"c":1}}`, nil},
		{"a list replacing an object keeps the nulls of its objects", `{"a":{"x":1}}`, `{"a":[{"b":null}]}`, `{"a":[{"b":null}]}`, nil},
		{"a list replacing a list loses them", `{"a":[1]}`, `{"a":[{"b":null}]}`, `{"a":[{}]}`, nil},
		{"lists are replaced, not merged", `{"a":[1,2,3]}`, `{"a":[4]}`, `{"a":[4]}`, nil},
		{"numbers keep their text", `{"a":1.50,"b":{"c":1e400}}`, `{"b":{"d":12345678901234567890123,"e":-0.0}}`, `{"a":1.50,"b":{"c":1e400,"d":12345678901234567890123,"e":-0.0}}`, nil},
		{"escaped document keys match the patch's", `{"\u0061":{"b":1},"c\"d":2}`, `{"a":{"b":null},"c\"d":3}`, `{"a":{},"c\"d":3}`, nil},
		{"a patch key named twice takes the last value", `{"a":{"b":1}}`, `{"a":{"c":2},"a":{"d":3}}`, `{"a":{"b":1,"d":3}}`, nil},
		{"strings keep escapes and control characters", `{"a":"x\ny"}`, `{"b":"\"\\\u0001\t<é>\u2028"}`, `{"a":"x\ny","b":"\"\\\u0001\t<é>\u2028"}`, nil},
		{"whitespace in the document is no obstacle", " {\n \"a\" : { \"b\" : [ 1 , 2 ] , \"c\" : \"}\" } , \"d\":true }\n", `{"a":{"c":null,"e":[]}}`, `{"a":{"b":[1,2],"e":[]},"d":true}`, nil},
		{"an empty patch changes nothing", `{"a":{"b":[1,{"c":null}]}}`, `{}`, `{"a":{"b":[1,{"c":null}]}}`, nil},
		{"a list patch replaces the document, nulls pruned", `{"a":1}`, `[{"b":null},2]`, `[{},2]`, nil},
		{"an object patch on a list document replaces it, nulls pruned", `[1]`, `{"a":null,"b":{"c":null}}`, `{"b":{}}`, nil},
		{"a null patch is malformed", `{"a":1}`, `null`, "Invalid JSON Patch", patch.ErrMalformed},
		{"a string patch is malformed", `{"a":1}`, `"x"`, "Invalid JSON Patch", patch.ErrMalformed},
		{"a number patch is malformed", `{"a":1}`, `3`, "Invalid JSON Patch", patch.ErrMalformed},
		{"a patch that is not JSON is malformed", `{"a":1}`, `{"a":`, "error decoding patch: invalid JSON document", patch.ErrMalformed},
		{"a null document is rejected", `null`, `{"a":1}`, "Invalid JSON Document", patch.ErrRejected},
		{"a document that is not JSON is rejected", `{"a":`, `{"a":1}`, "Invalid JSON Document", patch.ErrRejected},
		{"a document with trailing data is rejected", `{"a":1} }`, `{"a":1}`, "Invalid JSON Document", patch.ErrRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patch.MergePatch([]byte(tt.doc), []byte(tt.patch))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || err.Error() != tt.want {
					t.Fatalf("err = %v, want %v %q", err, tt.wantErr, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) || !sameJSON(t, got, []byte(tt.want)) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// mergeGen makes random JSON documents and merge patches over a small set of keys, so
// that patches name the documents' keys, with the values that matter to a merge: nulls
// in objects and lists, objects in lists, numbers in several spellings, escapes.
type mergeGen struct{ r *rand.Rand }

var (
	genKeys    = []string{`"a"`, `"b"`, `"c"`, `"\u0061"`, `"d\"e"`, `"ü"`}
	genKeyIDs  = []string{"a", "b", "c", "a", "d\"e", "ü"} // genKeys decoded
	genNumbers = []string{`0`, `-1`, `1.50`, `1e3`, `-0.0`, `12345678901234567890123`}
	genStrings = []string{`""`, `"x"`, `"a\nb"`, `"\u00e9\u2028"`, `"}]"`, `"\\"`}
)

func (g mergeGen) value(b *strings.Builder, depth int) {
	n := g.r.IntN(10)
	if depth <= 0 && n >= 7 {
		n = g.r.IntN(7)
	}
	switch n {
	case 0, 1:
		b.WriteString("null")
	case 2:
		b.WriteString([]string{"true", "false"}[g.r.IntN(2)])
	case 3, 4:
		b.WriteString(genNumbers[g.r.IntN(len(genNumbers))])
	case 5, 6:
		b.WriteString(genStrings[g.r.IntN(len(genStrings))])
	case 7:
		b.WriteString("[")
		for i := range g.r.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			g.value(b, depth-1)
		}
		b.WriteString("]")
	default:
		g.object(b, depth-1)
	}
}

// object writes an object of up to four members, no key twice (evanphx/json-patch/v5
// mishandles duplicate keys: it can print a key twice or keep a removed one).
func (g mergeGen) object(b *strings.Builder, depth int) {
	b.WriteString("{")
	used := map[string]bool{}
	for range g.r.IntN(5) {
		k := g.r.IntN(len(genKeys))
		if used[genKeyIDs[k]] {
			continue
		}
		if len(used) > 0 {
			b.WriteString(",")
		}
		used[genKeyIDs[k]] = true
		b.WriteString(genKeys[k] + ": ")
		g.value(b, depth)
	}
	b.WriteString("}")
}

// hasDuplicateKeys reports whether an object in the valid JSON b names a key twice.
func hasDuplicateKeys(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		keys   map[string]bool // nil for a list
		expect bool            // the next string token of an object is a key
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.keys != nil && top.expect {
			if top.keys[s] {
				return true
			}
			top.keys[s], top.expect = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expect = true // a value ended
		}
	}
}

// mergeCase is a generated document and patch: the document is an object, the patch
// mostly one too.
func (g mergeGen) mergeCase() (doc, p []byte) {
	var d, pb strings.Builder
	g.object(&d, 4)
	if g.r.IntN(10) == 0 {
		g.value(&pb, 3)
	} else {
		g.object(&pb, 4)
	}
	return []byte(d.String()), []byte(pb.String())
}

// checkMatchesJSONPatchLibrary fails unless MergePatch makes of doc and p what
// github.com/evanphx/json-patch/v5 makes of them, the same JSON value. Where v5 parts
// from kube's own merge (gopkg.in/evanphx/json-patch.v4), MergePatch follows kube: a
// patch that is null or a scalar is "Invalid JSON Patch" (v5 answers the patch
// itself); e2e's TestMergePatch_MatchesKubesMergeOnGeneratedDocuments compares with v4.
func checkMatchesJSONPatchLibrary(t *testing.T, doc, p []byte) {
	t.Helper()
	got, err := patch.MergePatch(doc, p)
	want, wantErr := jsonpatch.MergePatch(doc, p)
	if !json.Valid(doc) || !json.Valid(p) {
		if err == nil || wantErr == nil {
			t.Fatalf("invalid input: err %v, v5 err %v", err, wantErr)
		}
		return
	}
	if hasDuplicateKeys(doc) || hasDuplicateKeys(p) {
		return // v5 mishandles them; e2e compares them with kube's merge
	}
	if wantErr == nil && json.Valid(want) {
		switch exactJSON(t, p).(type) {
		case nil, bool, string, json.Number:
			if !errors.Is(err, patch.ErrMalformed) || err.Error() != "Invalid JSON Patch" {
				t.Fatalf("patch %s: err %v, want Invalid JSON Patch", p, err)
			}
			return
		}
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("doc %s patch %s: err %v, v5 err %v", doc, p, err, wantErr)
	}
	if err != nil {
		return
	}
	if !json.Valid(got) || !sameJSON(t, got, want) {
		t.Fatalf("doc   %s\npatch %s\ngot   %s\nv5    %s", doc, p, got, want)
	}
}

func TestMergePatch_MatchesJSONPatchLibraryOnGeneratedDocuments(t *testing.T) {
	g := mergeGen{rand.New(rand.NewPCG(23, 4))}
	for range 5000 {
		doc, p := g.mergeCase()
		checkMatchesJSONPatchLibrary(t, doc, p)
	}
}

// nested is {"spec": {"a": {"a": ... leaf ...}}} with depth objects under spec.
func nested(depth int, leaf string) []byte {
	return []byte(`{"spec":` + strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth) + `}`)
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMergePatch_CostLinearInDepth merges a patch as deep as the document into its
// deepest value at two depths, eight times apart, and bounds what the deeper merge
// allocates by a linear growth (16 times, twice the depth ratio); a merge that re-reads
// each level (evanphx/json-patch: 1 GiB at depth 9,000) allocates about 64 times.
func TestMergePatch_CostLinearInDepth(t *testing.T) {
	const small, large = 1000, 8000
	var sizes [2]uint64
	for i, depth := range []int{small, large} {
		doc, p := nested(depth, `{"x":1}`), nested(depth, `{"y":2}`)
		var out []byte
		sizes[i] = allocatedBy(func() {
			var err error
			if out, err = patch.MergePatch(doc, p); err != nil {
				t.Fatal(err)
			}
		})
		if want := nested(depth, `{"x":1,"y":2}`); !bytes.Equal(out, want) {
			t.Fatalf("depth %d: wrong result %.100s...", depth, out)
		}
		t.Logf("depth %d (%d-byte document): %d KiB allocated", depth, len(doc), sizes[i]>>10)
	}
	if ratio := float64(sizes[1]) / float64(sizes[0]); ratio > 2*large/small {
		t.Errorf("depth %d allocates %.1f times what depth %d does: more than linear", large, ratio, small)
	}
}

func FuzzMergePatchMatchesJSONPatchLibrary(f *testing.F) {
	g := mergeGen{rand.New(rand.NewPCG(7, 7))}
	for range 20 {
		doc, p := g.mergeCase()
		f.Add(doc, p)
	}
	f.Add([]byte(fuzzLive), []byte(`{"spec":{"parts":[{"name":null}],"color":null},"metadata":{"labels":{"c":{"d":null}}}}`))
	f.Add(nested(500, `1`), nested(500, `{"b":null,"c":[{"d":null}]}`))
	f.Add([]byte(` { "a" : [ "}" , { "b" : null } ] } `), []byte(`{"a":{"c":null}}`))
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		checkMatchesJSONPatchLibrary(t, doc, p)
	})
}

// BenchmarkMergePatchVsEvanphx merges, side by side with github.com/evanphx/json-patch/v5,
// a small patch into a Widget with 50 parts and a patch into the bottom of a document
// nested 5,000 deep.
func BenchmarkMergePatchVsEvanphx(b *testing.B) {
	docs := []struct {
		name   string
		doc, p []byte
	}{
		{"doc=widget50", []byte(widget50("red", 1)), []byte(`{"metadata":{"labels":{"tier":"gold"}},"spec":{"color":"blue"}}`)},
		{"doc=depth5000", nested(5000, `{"x":1}`), nested(5000, `{"y":2}`)},
	}
	impls := []struct {
		name  string
		merge func(doc, p []byte) ([]byte, error)
	}{{"impl=apikit", patch.MergePatch}, {"impl=evanphx-v5", jsonpatch.MergePatch}}
	for _, d := range docs {
		for _, impl := range impls {
			b.Run(d.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := impl.merge(d.doc, d.p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
