package rest_test

import (
	"strings"
	"testing"
)

func TestHealthAndTables(t *testing.T) {
	s := newServer(t, nil)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if r := s.do("GET", p, "", ""); r.code != 200 || string(r.body) != "ok" {
			t.Errorf("%s: %d %q", p, r.code, r.body)
		}
	}
	s.create("m", "blue")
	r := s.do("GET", widgetsPath, "", "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	m := r.json(t)
	if m["kind"] != "PartialObjectMetadataList" || get(m["items"].([]any)[0].(map[string]any), "spec") != nil {
		t.Errorf("partial metadata: %s", r.body)
	}
	r = s.do("GET", widgetsPath, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	if m := r.json(t); r.code != 200 || m["kind"] != "Table" || !strings.Contains(string(r.body), `"Color"`) {
		t.Errorf("table: %d %s", r.code, r.body)
	}
	r = s.do("GET", warehousesPath, "", "", "Accept", "application/yaml")
	if r.code != 200 || !strings.HasPrefix(string(r.body), "apiVersion: toys.example.com/v1") {
		t.Errorf("yaml list: %d %s", r.code, r.body)
	}
}
