package rest_test

import (
	"net/http"
	"strings"
	"testing"
)

// A body that names its kind twice is of the kind named last, as kube-apiserver reads it
// (the last value of a repeated key wins, for apiVersion and kind as for every other
// field), in JSON and in YAML: Warehouse then Widget is a Widget created with kube's
// duplicate-field warning; Widget then Warehouse is a Warehouse, which the widgets
// collection refuses like a body that names Warehouse once.
func TestCreate_RepeatedKindIsTheLastOne(t *testing.T) {
	s := newServer(t, nil)
	single := s.do("POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w0"},"spec":{"color":"blue"}}`)
	refused := statusOf(t, single)
	for _, tc := range []struct {
		name, contentType, body string
		wantKind                string // "" for the refusal a Warehouse gets
	}{
		{"json, Widget last", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"blue"}}`, "Widget"},
		{"json, Warehouse last", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","kind":"Warehouse","metadata":{"name":"w2"},"spec":{"color":"blue"}}`, ""},
		{"json, apiVersion repeated after kind", "application/json", `{"apiVersion":"toys.example.com/v2","kind":"Widget","apiVersion":"toys.example.com/v1","metadata":{"name":"w3"},"spec":{"color":"blue"}}`, "Widget"},
		{"yaml, Widget last", "application/yaml", "apiVersion: toys.example.com/v1\nkind: Warehouse\nkind: Widget\nmetadata:\n  name: w4\nspec:\n  color: blue\n", "Widget"},
		{"yaml, Warehouse last", "application/yaml", "apiVersion: toys.example.com/v1\nkind: Widget\nkind: Warehouse\nmetadata:\n  name: w5\nspec:\n  color: blue\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do("POST", widgetsPath, tc.contentType, tc.body)
			if tc.wantKind == "" {
				st := statusOf(t, r)
				if r.code != single.code || st["reason"] != refused["reason"] || st["message"] != refused["message"] {
					t.Errorf("%d %v %q, want %d %v %q as for a Warehouse: %s", r.code, st["reason"], st["message"], single.code, refused["reason"], refused["message"], r.body)
				}
				return
			}
			if r.code != http.StatusCreated || r.json(t)["kind"] != tc.wantKind {
				t.Fatalf("%d %s, want 201 %s", r.code, r.body, tc.wantKind)
			}
			if w := strings.Join(r.header.Values("Warning"), "; "); !strings.Contains(w, `duplicate field \"`) {
				t.Errorf("Warning %q, want kube's duplicate field warning", w)
			}
		})
	}
	t.Logf("a Warehouse body in the widgets collection: %d %s", single.code, single.body)
}
