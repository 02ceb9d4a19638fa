package patch_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

var widgetGVK = scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}

func widgetSchema(t testing.TB) *openapi.Schema {
	t.Helper()
	s, err := patch.SchemaFor(testapi.NewScheme(), widgetGVK)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStrategicMerge(t *testing.T) {
	const live = `{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
		"spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
		"status":{"conditions":[{"type":"Ready","status":"True"}]}}`
	tests := []struct {
		name    string
		patch   string
		want    string
		wantErr error
	}{
		{"list items merge by their merge key",
			`{"spec":{"parts":[{"name":"axle","count":3},{"name":"bolt","count":8}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":3},{"name":"bolt","count":8}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"$patch delete removes one item",
			`{"spec":{"parts":[{"name":"wheel","$patch":"delete"}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"a $patch replace item replaces the whole list",
			`{"spec":{"parts":[{"name":"bolt","count":1},{"$patch":"replace"}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"bolt","count":1}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"$patch replace on a map replaces it",
			`{"metadata":{"labels":{"c":"3","$patch":"replace"}}}`,
			`{"metadata":{"name":"w","labels":{"c":"3"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		// kube leaves an empty object where the map was (apimachinery's
		// handleDirectiveInMergeMap), which TestStrategicMergeDiff in e2e checks.
		{"$patch delete on a map empties it",
			`{"status":{"$patch":"delete"}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{}}`, nil},
		{"null deletes a key",
			`{"metadata":{"labels":{"a":null}}}`,
			`{"metadata":{"name":"w","labels":{"b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"a primitive merge list is a set union",
			`{"metadata":{"finalizers":["y","z"]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y","z"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"$deleteFromPrimitiveList removes values",
			`{"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"$setElementOrder orders the merged list",
			`{"spec":{"$setElementOrder/parts":[{"name":"bolt"},{"name":"axle"},{"name":"wheel"}],"parts":[{"name":"bolt","count":1}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"bolt","count":1},{"name":"axle","count":2},{"name":"wheel","count":4}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		{"$retainKeys drops the keys it does not list",
			`{"spec":{"$retainKeys":["color","parts"],"color":"blue"}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"blue","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Ready","status":"True"}]}}`, nil},
		// New items come before the live-only items that follow no patched item, as
		// in kube (apimachinery's mergeSortedSlice).
		{"conditions merge by type, new ones first",
			`{"status":{"conditions":[{"type":"Synced","status":"False"}]}}`,
			`{"metadata":{"name":"w","labels":{"a":"1","b":"2"},"finalizers":["x","y"]},
			  "spec":{"color":"red","parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]},
			  "status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True"}]}}`, nil},
		{"an item without its merge key is rejected", `{"spec":{"parts":[{"count":1}]}}`, "", patch.ErrRejected},
		{"a field outside $retainKeys is rejected", `{"spec":{"$retainKeys":["parts"],"color":"blue"}}`, "", patch.ErrRejected},
		{"an unknown $patch directive is malformed", `{"spec":{"$patch":"explode"}}`, "", patch.ErrMalformed},
		{"a body that is not an object is malformed", `[1,2]`, "", patch.ErrMalformed},
	}
	sch := widgetSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patch.StrategicMerge([]byte(live), []byte(tt.patch), sch)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			jsonEq(t, got, tt.want)
		})
	}
}

func TestStrategicMerge_WithoutSchemaActsLikeMergePatch(t *testing.T) {
	got, err := patch.StrategicMerge([]byte(doc), []byte(`{"spec":{"parts":[{"name":"bolt"}]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	jsonEq(t, got, `{"metadata":{"name":"w","labels":{"a":"1"}},"spec":{"color":"red","parts":[{"name":"bolt"}]}}`)
}

func TestSchemaFor_UnstructuredKindsAreUnsupported(t *testing.T) {
	s := testapi.NewScheme()
	gvk := scheme.GroupVersionKind{Group: "extra.example.com", Version: "v1", Kind: "Gadget"}
	openapi.Register(s, gvk, &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{"spec": {Type: "object"}}})
	if _, err := patch.SchemaFor(s, gvk); !errors.Is(err, patch.ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
	if _, err := patch.SchemaFor(s, widgetGVK); err != nil {
		t.Fatalf("typed kind: %v", err)
	}
}

// TestStrategicMerge_AgreesWithKubeOnWhatTheDifferentialFound holds one input of each
// kind on which e2e's TestStrategicMergeDiff found apikit and apimachinery apart; the
// expected outcomes are apimachinery's.
func TestStrategicMerge_AgreesWithKubeOnWhatTheDifferentialFound(t *testing.T) {
	const live = `{"metadata":{"name":"w","finalizers":["c","a","a"]},"spec":{"parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]}}`
	tests := []struct {
		name, patch, want string
		wantErr           error
		wantMessage       string
	}{
		{"patch items come in the patch's order", `{"spec":{"parts":[{"name":"axle","count":1},{"name":"wheel","count":1}]}}`,
			`{"metadata":{"name":"w","finalizers":["c","a","a"]},"spec":{"parts":[{"name":"axle","count":1},{"name":"wheel","count":1}]}}`, nil, ""},
		{"deletions apply before merges", `{"spec":{"parts":[{"name":"wheel","count":9},{"name":"wheel","$patch":"delete"}]}}`,
			`{"metadata":{"name":"w","finalizers":["c","a","a"]},"spec":{"parts":[{"name":"wheel","count":9},{"name":"axle","count":2}]}}`, nil, ""},
		{"a primitive union dedupes the live list too and puts new values first", `{"metadata":{"finalizers":["b"]}}`,
			`{"metadata":{"name":"w","finalizers":["b","c","a"]},"spec":{"parts":[{"name":"wheel","count":4},{"name":"axle","count":2}]}}`, nil, ""},
		{"$setElementOrder must hold the patch items in order", `{"spec":{"$setElementOrder/parts":[{"name":"axle"}],"parts":[{"name":"wheel","count":1}]}}`,
			"", patch.ErrRejected, "The order in patch list:\n[map[count:1 name:wheel]]\n doesn't match $setElementOrder list:\n[map[name:axle]]\n"},
		{"$retainKeys must be a list", `{"spec":{"$retainKeys":"parts"}}`, "", patch.ErrMalformed, "invalid patch format of retainKeys"},
		{"$patch merge is no map directive", `{"spec":{"$patch":"merge"}}`, "", patch.ErrMalformed, "unknown patch type: merge"},
		{"a merging list's items share one type", `{"metadata":{"finalizers":[["x"]]}}`, "", patch.ErrRejected, "list element types are not identical: [[c a a] [[x]]]"},
		{"an item without its merge key names the item", `{"spec":{"parts":[{"count":1}]}}`, "", patch.ErrRejected, "map: map[count:1] does not contain declared merge key: name"},
	}
	sch := widgetSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patch.StrategicMerge([]byte(live), []byte(tt.patch), sch)
			if tt.wantErr != nil {
				var pe *patch.Error
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &pe) || pe.Message != tt.wantMessage {
					t.Fatalf("err = %q, want %v %q", err, tt.wantErr, tt.wantMessage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != compactJSON(t, tt.want) {
				t.Errorf("got  %s\nwant %s", got, compactJSON(t, tt.want))
			}
		})
	}
}

// compactJSON re-encodes s as encoding/json does (sorted keys), keeping list order.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
