package openapi_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

// nested is a schema of depth objects, each the only property "a" of the one above
// (about 37 bytes a level), over leaf.
func nested(depth int, leaf string) []byte {
	return []byte(strings.Repeat(`{"type":"object","properties":{"a":`, depth) + leaf + strings.Repeat(`}}`, depth))
}

// allocated is the number of bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// A CRD's schema may nest thousands of levels (JSON's own limit is 10,000, which kube's
// decoder shares): decoding each nested schema from its own bytes scanned and copied
// every level again, so a 4,000-level schema allocated 4 times more a level than a
// 1,000-level one. Decoding once makes the cost a level the same at any depth, for a
// schema and for the error of its deepest key.
func TestSchema_UnmarshalJSONCostIsLinearInDepth(t *testing.T) {
	for _, tc := range []struct {
		name, leaf string
		wantErr    bool
	}{
		{"a valid schema", `{"type":"string"}`, false},
		{"an unknown keyword at the bottom", `{"tpye":"string"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perLevel := map[int]float64{}
			for _, depth := range []int{1000, 4000} {
				doc := nested(depth, tc.leaf)
				var err error
				n := allocated(func() {
					var s openapi.Schema
					err = json.Unmarshal(doc, &s)
				})
				if (err != nil) != tc.wantErr {
					t.Fatalf("depth %d: err = %v, want an error: %v", depth, err, tc.wantErr)
				}
				perLevel[depth] = float64(n) / float64(depth)
				t.Logf("depth %d (%d bytes): %d bytes allocated, %.0f a level", depth, len(doc), n, perLevel[depth])
			}
			if ratio := perLevel[4000] / perLevel[1000]; ratio > 1.5 {
				t.Errorf("a level costs %.1f times more at depth 4000 than at 1000, want the same", ratio)
			}
		})
	}
}

func TestSchema_UnmarshalJSONErrorsNameThePathOfTheKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"tpye":"string"}`, `openapi: schema key "tpye": unsupported schema keyword`},
		{`{"type":"object","properties":{"spec":{"items":{"allOf":[{},{"type":5}]}}}}`,
			`openapi: schema key "properties.spec.items.allOf[1].type": json: cannot unmarshal number into Go value of type string`},
		{`{"properties":{"a":"b"}}`, `openapi: schema key "properties.a": json: cannot unmarshal string into Go value of type map[string]json.RawMessage`},
		{`{"properties":[]}`, `openapi: schema key "properties": json: cannot unmarshal array into Go value of type map[string]*openapi.Schema`},
		{`{"not":{"$ref":"http://example.com/x.json"}}`, `openapi: schema key "not.$ref": only references into the same document are supported, got "http://example.com/x.json"`},
	} {
		var s openapi.Schema
		if err := json.Unmarshal([]byte(tc.in), &s); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %s", tc.in, err, tc.want)
		}
	}
}
