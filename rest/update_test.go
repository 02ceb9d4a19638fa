package rest_test

import (
	"net/http"
	"testing"
)

func TestUpdate_BumpsGenerationOnlyOnSpecChangesAndKeepsStatus(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	steps := []struct {
		name, method, path, ctype, body string
		wantGen                         float64
		wantPhase                       any
	}{
		{"label change keeps generation", "PATCH", "/a", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, 1, nil},
		{"status on main resource is ignored", "PATCH", "/a", "application/merge-patch+json", `{"status":{"phase":"Ready"}}`, 1, nil},
		{"status subresource changes only status", "PATCH", "/a/status", "application/merge-patch+json", `{"spec":{"color":"red"},"status":{"phase":"Ready"}}`, 1, "Ready"},
		{"spec change bumps generation", "PATCH", "/a", "application/json-patch+json", `[{"op":"replace","path":"/spec/color","value":"green"}]`, 2, "Ready"},
		{"scale writes spec.replicas", "PATCH", "/a/scale", "application/merge-patch+json", `{"spec":{"replicas":4}}`, 3, "Ready"},
	}
	for _, st := range steps {
		r := s.do(st.method, widgetsPath+st.path, st.ctype, st.body)
		if r.code != 200 {
			t.Fatalf("%s: %d %s", st.name, r.code, r.body)
		}
		g := s.do("GET", widgetsPath+"/a", "", "").json(t)
		if get(g, "metadata", "generation") != st.wantGen || get(g, "status", "phase") != st.wantPhase {
			t.Errorf("%s: generation %v phase %v, want %v %v", st.name, get(g, "metadata", "generation"), get(g, "status", "phase"), st.wantGen, st.wantPhase)
		}
	}
	g := s.do("GET", widgetsPath+"/a", "", "").json(t)
	if get(g, "spec", "color") != "green" || get(g, "spec", "replicas") != float64(4) {
		t.Errorf("final spec = %v", g["spec"])
	}
	sc := s.do("GET", widgetsPath+"/a/scale", "", "").json(t)
	if sc["kind"] != "Scale" || get(sc, "spec", "replicas") != float64(4) {
		t.Errorf("scale = %v", sc)
	}
}

func TestUpdate_BodyWithoutNamespaceTakesThePathNamespace(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	r := s.do("PUT", widgetsPath+"/w", "application/json", widgetJSON("w", "green"))
	if r.code != http.StatusOK {
		t.Fatalf("PUT without metadata.namespace = %d: %s", r.code, r.body)
	}
	m := r.json(t)
	if get(m, "metadata", "namespace") != "default" || get(m, "spec", "color") != "green" {
		t.Errorf("updated object = %s", r.body)
	}
	r = s.do("PUT", widgetsPath+"/w", "application/json", widgetJSON("w", "red", `"namespace":"other"`))
	if r.code != http.StatusBadRequest {
		t.Errorf("PUT with another namespace = %d, want 400: %s", r.code, r.body)
	}
}
