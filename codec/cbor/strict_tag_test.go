package cbor

import (
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/scheme"
)

// client-go's CBOR encoder starts every body with the self-described tag; field
// issues must be found behind it too.
func TestDecode_StrictIssuesBehindTheSelfDescribedTag(t *testing.T) {
	data := append(append([]byte(nil), selfDescribed...), widgetDoc("spec", doc("color", "red", "colour", "x", "color", "blue"))...)
	for _, into := range []scheme.Kinded{nil, &scheme.Unstructured{}} {
		res, err := New(testapi.NewScheme()).Decode(data, nil, into)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Issues.Warnings()
		for _, want := range []string{`unknown field "spec.colour"`, `duplicate field "spec.color"`} {
			if into != nil && want == `unknown field "spec.colour"` {
				continue // unstructured objects have no unknown fields
			}
			if !slices.Contains(got, want) {
				t.Errorf("into %T: issues %q, want %q among them", into, got, want)
			}
		}
	}
}
