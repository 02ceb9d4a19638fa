package scheme_test

import (
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

type checkedThing struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
}

// checkedThingList has no items.
type checkedThingList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
}

// nestedTypeMetaThing puts apiVersion and kind under "typeMeta".
type nestedTypeMetaThing struct {
	scheme.TypeMeta   `json:"typeMeta"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
}

func TestCheck_FindsRegistrationMistakes(t *testing.T) {
	gv := scheme.GroupVersion{Group: "things.example.com", Version: "v1"}
	for _, tc := range []struct {
		name     string
		register func(s *scheme.Scheme)
		want     string
	}{{
		name:     "typed kind without its list",
		register: func(s *scheme.Scheme) { s.AddKnownTypeWithName(gv.WithKind("Thing"), &checkedThing{}) },
		want:     "kind ThingList is not registered in things.example.com/v1",
	}, {
		name: "schema-only kind without its list",
		register: func(s *scheme.Scheme) {
			s.AddUnstructuredKind(gv.WithKind("Thing"))
		},
		want: "kind ThingList is not registered in things.example.com/v1",
	}, {
		name: "list without items",
		register: func(s *scheme.Scheme) {
			s.AddKnownTypeWithName(gv.WithKind("Thing"), &checkedThing{})
			s.AddKnownTypeWithName(gv.WithKind("ThingList"), &checkedThingList{})
		},
		want: `kind ThingList in things.example.com/v1 (Go type scheme_test.checkedThingList) has no "items" JSON field`,
	}, {
		name: "TypeMeta under a tag",
		register: func(s *scheme.Scheme) {
			s.AddKnownTypeWithName(gv.WithKind("Thing"), &nestedTypeMetaThing{})
			s.AddUnstructuredKind(gv.WithKind("ThingList"))
		},
		want: `has no "apiVersion" JSON field: embed scheme.TypeMeta with the tag json:",inline"`,
	}, {
		name: "schema-only kind and list",
		register: func(s *scheme.Scheme) {
			s.AddUnstructuredKind(gv.WithKind("Thing"))
			s.AddUnstructuredKind(gv.WithKind("ThingList"))
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := scheme.New()
			tc.register(s)
			if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Thing", Plural: "things"}); err != nil {
				t.Fatal(err)
			}
			err := s.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
