package scheme_test

import (
	"fmt"
	"log"

	"github.com/apikit-dev/apikit/scheme"
)

// Shelf is a kind defined in Go: TypeMeta and ObjectMeta make it a scheme.Object.
type Shelf struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              ShelfSpec `json:"spec"`
}

// ShelfSpec is the desired state of a Shelf.
type ShelfSpec struct {
	Capacity int32 `json:"capacity"`
}

// ShelfList is a list of Shelves; a kind's list is registered beside it.
type ShelfList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Shelf `json:"items"`
}

// A scheme learns kinds first (Go types, or a name only for schema-only kinds), then the
// resources that serve them; servers, codecs and conversions ask it from then on.
func ExampleScheme() {
	s := scheme.New()
	v1 := scheme.GroupVersion{Group: "library.example.com", Version: "v1"}
	v1beta1 := scheme.GroupVersion{Group: "library.example.com", Version: "v1beta1"}

	// Go kinds are named after their types.
	s.AddKnownTypes(v1, &Shelf{}, &ShelfList{})
	// Poster has no Go type: it is decoded and stored as *scheme.Unstructured.
	for _, gv := range []scheme.GroupVersion{v1, v1beta1} {
		s.AddUnstructuredKind(gv.WithKind("Poster"))
		s.AddUnstructuredKind(gv.WithKind("PosterList"))
	}
	for _, r := range []scheme.Resource{
		{Group: v1.Group, Kind: "Shelf", Plural: "shelves", ShortNames: []string{"sh"}}, // cluster-scoped
		{Group: v1.Group, Kind: "Poster", Plural: "posters", Namespaced: true},
	} {
		if err := s.AddResource(r); err != nil {
			log.Fatal(err)
		}
	}

	shelf, err := s.New(v1.WithKind("Shelf"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %s\n", shelf, shelf.GetObjectKind().GroupVersionKind())
	posters, err := s.New(v1beta1.WithKind("PosterList"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%T %s\n", posters, posters.GetObjectKind().GroupVersionKind())

	// A name a user typed (plural, singular or short), resolved the way kubectl does.
	r, _ := s.LookupResource("library.example.com", "sh")
	fmt.Println(r.Plural, r.Singular, "namespaced:", r.Namespaced, "stored at", s.StorageVersion(r))
	p, _ := s.ResourceFor(scheme.GroupKind{Group: "library.example.com", Kind: "Poster"})
	fmt.Println(p.Plural, "served at", s.ServedVersions(p))
	// Output:
	// *scheme_test.Shelf library.example.com/v1, Kind=Shelf
	// *scheme.UnstructuredList library.example.com/v1beta1, Kind=PosterList
	// shelves shelf namespaced: false stored at v1
	// posters served at [v1 v1beta1]
}
