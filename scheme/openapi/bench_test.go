package openapi_test

import (
	"encoding/json"
	"testing"

	"github.com/apikit-dev/apikit/scheme/openapi"
)

func BenchmarkForGroupVersion(b *testing.B) {
	s := newToyScheme()
	b.ReportAllocs()
	for b.Loop() {
		doc, err := openapi.ForGroupVersion(s, toysV1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(doc); err != nil {
			b.Fatal(err)
		}
	}
}
