package scheme_test

import (
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

type counterExtension struct{ n int }

func (c *counterExtension) CloneExtension() any { return &counterExtension{n: c.n} }

type cacheExtension struct{}

type clonedKey struct{}
type cacheKey struct{}

func TestClone_CopiesRegistrationsAndLeavesTheOriginalAlone(t *testing.T) {
	gv := scheme.GroupVersion{Group: "things.example.com", Version: "v1"}
	s := scheme.New()
	s.AddKnownTypeWithName(gv.WithKind("Thing"), &checkedThing{})
	s.AddUnstructuredKind(gv.WithKind("ThingList"))
	if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Thing", Plural: "things", ShortNames: []string{"th"}}); err != nil {
		t.Fatal(err)
	}
	s.SetVersionPriority(gv.Group, "v1")
	s.Extension(clonedKey{}, func() any { return &counterExtension{n: 7} })
	s.Extension(cacheKey{}, func() any { return &cacheExtension{} })

	c := s.Clone()
	if !c.Recognizes(gv.WithKind("Thing")) || !c.IsUnstructured(gv.WithKind("ThingList")) {
		t.Error("the copy lost a kind")
	}
	if r, ok := c.Resource(scheme.GroupResource{Group: gv.Group, Resource: "things"}); !ok || r.ShortNames[0] != "th" {
		t.Error("the copy lost the resource")
	}
	if got := c.Extension(clonedKey{}, func() any { return &counterExtension{} }).(*counterExtension); got.n != 7 || got == s.Extension(clonedKey{}, nil) {
		t.Errorf("cloned extension = %+v, want a copy with n=7", got)
	}
	fresh := false
	c.Extension(cacheKey{}, func() any { fresh = true; return &cacheExtension{} })
	if !fresh {
		t.Error("an extension without CloneExtension was carried over; it is a cache the copy must build again")
	}

	gv2 := scheme.GroupVersion{Group: "crds.example.com", Version: "v1"}
	c.AddUnstructuredKind(gv2.WithKind("Gizmo"))
	c.AddUnstructuredKind(gv2.WithKind("GizmoList"))
	if err := c.AddResource(scheme.Resource{Group: gv2.Group, Kind: "Gizmo", Plural: "gizmos"}); err != nil {
		t.Fatal(err)
	}
	if s.Recognizes(gv2.WithKind("Gizmo")) || len(s.Resources()) != 1 || len(s.Groups()) != 1 {
		t.Error("registering in the copy changed the original")
	}
}
