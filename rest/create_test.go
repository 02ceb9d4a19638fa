package rest_test

import (
	"strings"
	"testing"
)

func TestCreate_SetsServerFieldsAndGeneratesNames(t *testing.T) {
	s := newServer(t, nil)
	w := s.create("", "blue", `"generateName":"gen-","namespace":"default","resourceVersion":""`)
	name, _ := get(w, "metadata", "name").(string)
	if !strings.HasPrefix(name, "gen-") || len(name) != len("gen-")+5 {
		t.Errorf("generated name = %q", name)
	}
	for _, f := range []string{"uid", "creationTimestamp", "resourceVersion"} {
		if get(w, "metadata", f) == nil {
			t.Errorf("metadata.%s not set: %v", f, w)
		}
	}
	if get(w, "metadata", "generation") != float64(1) || get(w, "spec", "replicas") != float64(1) {
		t.Errorf("generation/defaults wrong: %v", w)
	}
}

func TestFieldValidation_IgnoreWarnStrict(t *testing.T) {
	s := newServer(t, nil)
	body := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"NAME"},"spec":{"color":"blue","foo":1,"color":"blue"}}`
	tests := []struct {
		mode     string
		code     int
		warnings int
	}{{"Ignore", 201, 0}, {"", 201, 2}, {"Warn", 201, 2}, {"Strict", 400, 0}}
	for i, tt := range tests {
		name := "fv" + string(rune('a'+i))
		r := s.do("POST", widgetsPath+"?fieldValidation="+tt.mode, "application/json", strings.Replace(body, "NAME", name, 1))
		if r.code != tt.code || len(r.header.Values("Warning")) != tt.warnings {
			t.Errorf("mode %q: %d warnings %q: %s", tt.mode, r.code, r.header.Values("Warning"), r.body)
		}
		if tt.warnings > 0 && r.header.Values("Warning")[0] != `299 - "unknown field \"spec.foo\""` {
			t.Errorf("warning format: %q", r.header.Values("Warning")[0])
		}
		if tt.mode == "Strict" && !strings.Contains(string(r.body), `unknown field \"spec.foo\", duplicate field \"spec.color\"`) {
			t.Errorf("strict message: %s", r.body)
		}
	}
}
