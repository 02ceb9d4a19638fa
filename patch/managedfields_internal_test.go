package patch

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apikit-dev/apikit/scheme"
)

// TestManagerIDs_CacheAnswersAsTheJSON checks that cached identifiers, and the entries
// read back from them, are what the JSON encoding and decoding give, also for names
// that do not survive a JSON round trip, on the first call and on cached ones.
func TestManagerIDs_CacheAnswersAsTheJSON(t *testing.T) {
	entries := []scheme.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationUpdate, APIVersion: "toys.example.com/v1"},
		{Manager: "kubectl", Operation: scheme.ManagedFieldsOperationApply, APIVersion: "toys.example.com/v1"},
		{Manager: "ctl", Operation: scheme.ManagedFieldsOperationUpdate, APIVersion: "v1", Subresource: "status", Time: &scheme.Time{}, FieldsType: "FieldsV1"},
		{Manager: "<a&b>", Operation: scheme.ManagedFieldsOperationUpdate},
		{Manager: "bad\xffutf8", Operation: scheme.ManagedFieldsOperationUpdate},
	}
	ids := &managerIDs{}
	for round := range 2 {
		for _, e := range entries {
			want, err := managerID(e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ids.id(e)
			if err != nil || got != want {
				t.Fatalf("round %d: id(%+v) = %q, %v; want %q", round, e, got, err, want)
			}
			var wantEntry scheme.ManagedFieldsEntry
			if err := json.Unmarshal([]byte(want), &wantEntry); err != nil {
				t.Fatal(err)
			}
			gotEntry, err := ids.entry(got)
			if err != nil || gotEntry != wantEntry {
				t.Fatalf("round %d: entry(%s) = %+v, %v; want %+v", round, got, gotEntry, err, wantEntry)
			}
		}
	}
}

// TestManagerIDs_CacheIsBounded checks that client-chosen manager names cannot grow the
// cache without limit, and that identifiers past the limit are still right.
func TestManagerIDs_CacheIsBounded(t *testing.T) {
	ids := &managerIDs{}
	for i := range 3 * maxCachedManagerIDs {
		e := scheme.ManagedFieldsEntry{Manager: fmt.Sprintf("m%d", i), Operation: scheme.ManagedFieldsOperationUpdate}
		want, _ := managerID(e)
		if got, err := ids.id(e); err != nil || got != want {
			t.Fatalf("id(%s) = %q, %v; want %q", e.Manager, got, err, want)
		}
	}
	cached := 0
	ids.byID.Range(func(any, any) bool { cached++; return true })
	if cached > maxCachedManagerIDs {
		t.Fatalf("%d identifiers cached, want at most %d", cached, maxCachedManagerIDs)
	}
}

// TestDecodedSets_AnswerAsFromJSONAndToJSON checks that cached decoding and encoding
// give what structured-merge-diff gives, for documents ToJSON writes and for ones it
// does not (spacing, key order), on first and cached calls.
func TestDecodedSets_AnswerAsFromJSONAndToJSON(t *testing.T) {
	docs := []string{
		`{"f:spec":{"f:color":{},"f:parts":{"k:{\"name\":\"a\"}":{".":{},"f:count":{},"f:name":{}}}}}`,
		`{"f:spec": {"f:color": {}}}`,
		`{"f:spec":{"f:replicas":{},"f:color":{}}}`,
		`{}`,
	}
	c := &decodedSets{}
	for round := range 2 {
		for _, doc := range docs {
			want := &fieldpath.Set{}
			if err := want.FromJSON(strings.NewReader(doc)); err != nil {
				t.Fatal(err)
			}
			got, err := c.decode([]byte(doc))
			if err != nil || !got.Equals(want) {
				t.Fatalf("round %d: decode(%s) = %v, %v; want %v", round, doc, got, err, want)
			}
			wantJSON, err := want.ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			gotJSON, err := c.encode(got)
			if err != nil || string(gotJSON) != string(wantJSON) {
				t.Fatalf("round %d: encode(decode(%s)) = %s, %v; want %s", round, doc, gotJSON, err, wantJSON)
			}
		}
	}
	if _, err := c.decode([]byte(`{"f:spec":`)); err == nil {
		t.Fatal("decoding a truncated document succeeded")
	}
}

// TestDecodedSets_AreBounded checks that the cache holds at most maxDecodedSetBytes of
// documents, whatever it is fed.
func TestDecodedSets_AreBounded(t *testing.T) {
	c := &decodedSets{}
	for i := range 20000 {
		doc := fmt.Sprintf(`{"f:metadata":{"f:labels":{"f:l%d":{}}}}`, i)
		if _, err := c.decode([]byte(doc)); err != nil {
			t.Fatal(err)
		}
		if c.bytes > maxDecodedSetBytes {
			t.Fatalf("after %d documents the cache holds %d bytes, more than %d", i+1, c.bytes, maxDecodedSetBytes)
		}
	}
	if len(c.sets) == 0 {
		t.Fatal("the cache holds nothing")
	}
}
