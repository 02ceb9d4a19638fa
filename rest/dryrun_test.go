package rest_test

import "testing"

func TestDryRun_LeavesStorageUntouched(t *testing.T) {
	s := newServer(t, nil)
	s.create("d", "blue")
	for _, c := range []struct{ method, path, ctype, body string }{
		{"POST", widgetsPath + "?dryRun=All", "application/json", widgetJSON("new", "blue")},
		{"PATCH", widgetsPath + "/d?dryRun=All", "application/merge-patch+json", `{"spec":{"color":"red"}}`},
		{"DELETE", widgetsPath + "/d?dryRun=All", "", ""},
	} {
		if r := s.do(c.method, c.path, c.ctype, c.body); r.code >= 300 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.code, r.body)
		}
	}
	list := s.do("GET", widgetsPath, "", "").json(t)
	items := list["items"].([]any)
	if len(items) != 1 || get(items[0].(map[string]any), "spec", "color") != "blue" || get(list, "metadata", "resourceVersion") != "1" {
		t.Errorf("storage changed by dry run: %v", list)
	}
}
