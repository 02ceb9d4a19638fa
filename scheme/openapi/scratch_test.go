package openapi_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

func TestScratch(t *testing.T) {
	s := newToyScheme()
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	os.WriteFile("/tmp/openapi_v3.json", b, 0o644)
	doc2, err := openapi.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.MarshalIndent(doc2, "", "  ")
	os.WriteFile("/tmp/openapi_v2.json", b, 0o644)
}
