package patch

import (
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

type sharedGizmo struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Color string `json:"color,omitempty"`
	} `json:"spec,omitempty"`
}

type sharedGizmoList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []sharedGizmo `json:"items"`
}

// TestParserFor_SharedBySchemesOfTheSameGoTypes derives the server-side apply schema
// of one kind in two schemes of the same Go types, which share it, and in a scheme
// where the kind has no Go type, which keeps its own.
func TestParserFor_SharedBySchemesOfTheSameGoTypes(t *testing.T) {
	gv := scheme.GroupVersion{Group: "shared.example.com", Version: "v1"}
	gvk := gv.WithKind("Gizmo")
	newScheme := func(typed bool) *scheme.Scheme {
		s := scheme.New()
		if typed {
			s.AddKnownTypeWithName(gvk, &sharedGizmo{})
			s.AddKnownTypeWithName(gv.WithKind("GizmoList"), &sharedGizmoList{})
		} else {
			s.AddUnstructuredKind(gvk)
			s.AddUnstructuredKind(gv.WithKind("GizmoList"))
		}
		if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Gizmo", Plural: "gizmos", Namespaced: true}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	parse := func(s *scheme.Scheme) any {
		pt, err := parserFor(s, gvk)
		if err != nil {
			t.Fatal(err)
		}
		return pt.Schema
	}
	a, b := parse(newScheme(true)), parse(newScheme(true))
	if a != b {
		t.Errorf("two schemes of the same Go types derived two schemas")
	}
	if c := parse(newScheme(false)); c == a {
		t.Errorf("a scheme without the Go types shares their schema")
	}
}
