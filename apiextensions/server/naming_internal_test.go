package server

import (
	"fmt"
	"testing"

	"github.com/apikit-dev/apikit/apiextensions"
)

// BenchmarkAcceptNames decides the names of 1000 new CRDs of one group, as at the
// start of a server that applies them all at once, and of the same CRDs once their
// names are held (every later reconciliation).
func BenchmarkAcceptNames(b *testing.B) {
	crds := make([]*apiextensions.CustomResourceDefinition, 1000)
	for i := range crds {
		c := &apiextensions.CustomResourceDefinition{}
		c.Name = fmt.Sprintf("kind%ds.lab.example.org", i)
		c.Spec.Group = "lab.example.org"
		c.Spec.Names = apiextensions.CustomResourceDefinitionNames{Plural: fmt.Sprintf("kind%ds", i), Singular: fmt.Sprintf("kind%d", i), Kind: fmt.Sprintf("Kind%d", i), ListKind: fmt.Sprintf("Kind%dList", i), ShortNames: []string{fmt.Sprintf("k%d", i)}}
		crds[i] = c
	}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if n := acceptNames(crds); !n[crds[999].Name].accepted() {
				b.Fatal("not accepted")
			}
		}
	})
	held := make([]*apiextensions.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		h := *c
		h.Status.AcceptedNames = c.Spec.Names
		held[i] = &h
	}
	b.Run("held", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			acceptNames(held)
		}
	})
}
