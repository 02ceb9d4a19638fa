package rest_test

import (
	"strings"
	"testing"
)

func TestList_SelectorsAndPaging(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue", `"labels":{"tier":"one"}`)
	s.create("b", "red", `"labels":{"tier":"two"}`)
	s.create("c", "red")
	tests := []struct {
		query string
		want  []string
	}{
		{"labelSelector=tier%20in%20(one,two)", []string{"a", "b"}},
		{"labelSelector=!tier", []string{"c"}},
		{"fieldSelector=spec.color%3Dred", []string{"b", "c"}},
		{"fieldSelector=metadata.name!%3Db", []string{"a", "c"}},
	}
	for _, tt := range tests {
		l := s.do("GET", widgetsPath+"?"+tt.query, "", "").json(t)
		var got []string
		for _, it := range l["items"].([]any) {
			got = append(got, get(it.(map[string]any), "metadata", "name").(string))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v want %v", tt.query, got, tt.want)
		}
	}
	page := s.do("GET", widgetsPath+"?limit=2", "", "").json(t)
	cont, _ := get(page, "metadata", "continue").(string)
	if len(page["items"].([]any)) != 2 || cont == "" {
		t.Fatalf("first page: %v", page)
	}
	next := s.do("GET", widgetsPath+"?limit=2&continue="+cont, "", "").json(t)
	if len(next["items"].([]any)) != 1 || get(next, "metadata", "continue") != nil {
		t.Errorf("second page: %v", next)
	}
}
