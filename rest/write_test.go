package rest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCreate_ResourceVersionInTheBodyAsKube(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, query, rv string
		wantCode        int
		wantStatus      map[string]any
	}{
		{"a number is kube's plain 500 without a storage key", "", "5", 500, map[string]any{
			"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure", "code": float64(500),
			"message": "resourceVersion should not be set on objects to be created"}},
		{"0 is dropped", "", "0", 201, nil},
		{"a value that is not a number is dropped", "", "abc", 201, nil},
		{"a dry run does not reach storage and passes", "?dryRun=All", "7", 201, nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := string(rune('a' + i))
			r := s.do("POST", widgetsPath+tt.query, "application/json", widgetJSON(name, "blue", `"resourceVersion":"`+tt.rv+`"`))
			if r.code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			got := r.json(t)
			if tt.wantStatus != nil {
				if d := cmp.Diff(tt.wantStatus, got); d != "" {
					t.Errorf("status differs (-want +got):\n%s", d)
				}
				if g := s.do("GET", widgetsPath+"/"+name, "", ""); g.code != 404 {
					t.Errorf("the refused object was stored: %d %s", g.code, g.body)
				}
				return
			}
			if rv := get(got, "metadata", "resourceVersion"); tt.query == "" && (rv == tt.rv || rv == "" || rv == nil) {
				t.Errorf("resourceVersion = %v, want a new one from storage", rv)
			}
		})
	}
}
