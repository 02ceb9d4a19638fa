package rest_test

import (
	"strings"
	"testing"
)

func TestDelete_FinalizersKeepTheObjectUntilTheLastIsRemoved(t *testing.T) {
	s := newServer(t, nil)
	s.create("f", "blue", `"finalizers":["example.com/hold"]`)
	r := s.do("DELETE", widgetsPath+"/f", "", "")
	m := r.json(t)
	if r.code != 200 || m["kind"] != "Widget" || get(m, "metadata", "deletionTimestamp") == nil {
		t.Fatalf("delete with finalizer: %d %s", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath+"/f", "", ""); r.code != 200 {
		t.Fatalf("object gone too early: %d", r.code)
	}
	r = s.do("PATCH", widgetsPath+"/f", "application/json-patch+json", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	if r.code != 200 {
		t.Fatalf("removing finalizer: %d %s", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath+"/f", "", ""); r.code != 404 {
		t.Errorf("object still there after last finalizer: %d %s", r.code, r.body)
	}
}

func TestDelete_OrphanRemovesOwnerReferencesAndTheOwner(t *testing.T) {
	s := newServer(t, nil)
	owner := s.create("owner", "blue")
	uid := get(owner, "metadata", "uid").(string)
	s.create("dep", "blue", `"ownerReferences":[{"apiVersion":"toys.example.com/v1","kind":"Widget","name":"owner","uid":"`+uid+`"}]`)
	r := s.do("DELETE", widgetsPath+"/owner?propagationPolicy=Orphan", "", "")
	if r.code != 200 {
		t.Fatalf("orphan delete: %d %s", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath+"/owner", "", ""); r.code != 404 {
		t.Errorf("owner not deleted: %d", r.code)
	}
	dep := s.do("GET", widgetsPath+"/dep", "", "").json(t)
	if refs := get(dep, "metadata", "ownerReferences"); refs != nil {
		t.Errorf("dependent still owned: %v", refs)
	}
}

func TestDelete_PreconditionsAreChecked(t *testing.T) {
	s := newServer(t, nil)
	s.create("p", "blue")
	r := s.do("DELETE", widgetsPath+"/p", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"nope"}}`)
	if r.code != 409 || !strings.Contains(r.json(t)["message"].(string), "Precondition failed: UID in precondition: nope") {
		t.Errorf("uid precondition: %d %s", r.code, r.body)
	}
}
