package openapi_test

import (
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

func describeWidget(s *openapi.Schema) { s.Description = "a widget" }

// TestSharedKey_EqualOnlyForSchemesThatDeriveTheSameDocument builds the same group
// version in several schemes: the same Go types and customizers give the same key,
// and anything that changes the document (another customizer, a closure capturing
// another value, an override, a kind with a registered schema) another key or none.
func TestSharedKey_EqualOnlyForSchemesThatDeriveTheSameDocument(t *testing.T) {
	key := func(s *scheme.Scheme) (string, bool) { return openapi.SharedKey(s, toysV1) }
	base := func() *scheme.Scheme {
		s := newToyScheme()
		openapi.Customize[Widget](s, describeWidget)
		return s
	}
	k1, ok1 := key(base())
	k2, ok2 := key(base())
	if !ok1 || !ok2 || k1 != k2 {
		t.Fatalf("two schemes of the same types: keys %q (%v) and %q (%v), want equal", k1, ok1, k2, ok2)
	}
	if k, ok := key(base().Clone()); !ok || k != k1 {
		t.Errorf("a clone: key %q (%v), want %q", k, ok, k1)
	}
	closure := func(desc string) *scheme.Scheme {
		s := base()
		openapi.Customize[WidgetSpec](s, func(sc *openapi.Schema) { sc.Description = desc })
		return s
	}
	a, b := closure("a"), closure("b")
	ka, _ := key(a)
	kb, _ := key(b)
	if ka == kb || ka == k1 {
		t.Errorf("closures capturing different values share a key (%q, %q) or match the plain scheme's", ka, kb)
	}
	if da, db := mustSpecDescription(t, a), mustSpecDescription(t, b); da == db {
		t.Fatalf("the closures do not change the document (%q, %q): the test proves nothing", da, db)
	}
	over := base()
	openapi.Override[Part](over, &openapi.Schema{Type: "string"})
	if k, _ := key(over); k == k1 {
		t.Errorf("an override left the key unchanged")
	}
	reg := base()
	openapi.Register(reg, toysV1.WithKind("Gizmo"), &openapi.Schema{Type: "object"})
	if k, ok := key(reg); ok {
		t.Errorf("a kind with a registered schema: key %q, want none", k)
	}
	// A list kind without a Go type of its own (core/v1's BindingList) is derived from
	// its item's type: still shared.
	gizmos := base()
	gizmos.AddKnownTypeWithName(toysV1.WithKind("Gizmo"), &Widget{})
	if err := gizmos.AddResource(scheme.Resource{Group: toysV1.Group, Kind: "Gizmo", Plural: "gizmos", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	if k, ok := key(gizmos); !ok || k == k1 {
		t.Errorf("a typed kind whose list kind has no Go type: key %q (%v), want a key of its own", k, ok)
	}
	if k, ok := openapi.SharedKey(base(), scheme.GroupVersion{Group: "nothing.example.com", Version: "v1"}); ok {
		t.Errorf("a group version without kinds: key %q, want none", k)
	}
}

func mustSpecDescription(t *testing.T, s *scheme.Scheme) string {
	t.Helper()
	doc, err := openapi.ForGroupVersion(s, toysV1)
	if err != nil {
		t.Fatal(err)
	}
	for name, def := range doc.Schemas {
		if name == openapi.DefinitionName(toysV1, "WidgetSpec") {
			return def.Description
		}
	}
	t.Fatal("no WidgetSpec definition")
	return ""
}
