package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/validation/structural"
)

// gizmoCRD is a namespaced CRD with a default, an enum, a status subresource and a
// printer column.
const gizmoCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gizmos.tools.example.com"},
  "spec": {
    "group": "tools.example.com", "scope": "Namespaced",
    "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "shortNames": ["gz"]},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "additionalPrinterColumns": [{"name": "Size", "type": "string", "jsonPath": ".spec.size"}],
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {"type": "object", "properties": {
            "size": {"type": "string", "enum": ["small", "large"], "default": "small"},
            "count": {"type": "integer", "minimum": 0}
          }},
          "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
        }
      }}
    }]
  }
}`

type server struct {
	t   *testing.T
	url string
	h   *crdserver.Handler
}

func newServer(t *testing.T) *server {
	t.Helper()
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	h, err := crdserver.Start(t.Context(), crdserver.Options{Scheme: scheme.New(), Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{t: t, url: srv.URL, h: h}
}

func (s *server) do(method, path, body string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return resp.StatusCode, m
}

// eventually polls cond for up to 10 seconds, as `kubectl wait` would.
func (s *server) eventually(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			_, m := s.do("GET", crdsPath+"/gadgets.tools.example.com", "")
			s.t.Fatalf("timed out waiting for %s: %v", what, m["status"])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func conditionStatus(crd map[string]any, typ string) string {
	status, _ := crd["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

const (
	crdsPath    = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	gizmosPath  = "/apis/tools.example.com/v1/namespaces/default/gizmos"
	gizmoObject = `{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"g1"},"spec":{"count":2}}`
)

func TestCRD_CreatedThroughTheAPIIsEstablishedServedAndDeletedWithItsObjects(t *testing.T) {
	s := newServer(t)
	if code, _ := s.do("POST", gizmosPath, gizmoObject); code != http.StatusNotFound {
		t.Fatalf("before the CRD: POST gizmo = %d, want 404", code)
	}
	code, crd := s.do("POST", crdsPath, gizmoCRD)
	if code != http.StatusCreated {
		t.Fatalf("POST CRD = %d %v", code, crd)
	}
	meta := crd["metadata"].(map[string]any)
	if fin, _ := meta["finalizers"].([]any); len(fin) != 1 || fin[0] != crdserver.CleanupFinalizer {
		t.Errorf("finalizers = %v, want the cleanup finalizer", meta["finalizers"])
	}
	s.eventually("Established", func() bool {
		_, crd = s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True" && conditionStatus(crd, "NamesAccepted") == "True"
	})
	status := crd["status"].(map[string]any)
	if names := status["acceptedNames"].(map[string]any); names["kind"] != "Gizmo" || names["plural"] != "gizmos" {
		t.Errorf("acceptedNames = %v", names)
	}
	if sv := status["storedVersions"].([]any); len(sv) != 1 || sv[0] != "v1" {
		t.Errorf("storedVersions = %v, want [v1]", sv)
	}

	code, obj := s.do("POST", gizmosPath, gizmoObject)
	if code != http.StatusCreated {
		t.Fatalf("POST gizmo = %d %v", code, obj)
	}
	if spec := obj["spec"].(map[string]any); spec["size"] != "small" {
		t.Errorf("spec = %v, want the schema's default size small", spec)
	}
	if code, st := s.do("POST", gizmosPath, `{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"g2"},"spec":{"size":"huge"}}`); code != http.StatusUnprocessableEntity {
		t.Errorf("POST gizmo with a size outside the enum = %d %v, want 422", code, st)
	}
	if code, _ := s.do("GET", "/apis/tools.example.com/v1", ""); code != http.StatusOK {
		t.Errorf("discovery of tools.example.com/v1 = %d", code)
	}

	if code, _ := s.do("DELETE", crdsPath+"/gizmos.tools.example.com", ""); code != http.StatusOK {
		t.Fatalf("DELETE CRD = %d", code)
	}
	s.eventually("the CRD and its objects to go", func() bool {
		code, _ := s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return code == http.StatusNotFound
	})
	if code, _ := s.do("GET", gizmosPath+"/g1", ""); code != http.StatusNotFound {
		t.Errorf("GET gizmo after its CRD was deleted = %d, want 404", code)
	}
	if code, _ := s.do("POST", crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("POST CRD again = %d", code)
	}
	s.eventually("Established again", func() bool {
		_, crd = s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True"
	})
	if code, list := s.do("GET", gizmosPath, ""); code != http.StatusOK || len(list["items"].([]any)) != 0 {
		t.Errorf("gizmos after the CRD came back = %d %v, want an empty list: the old objects were deleted", code, list["items"])
	}
}

func TestCRD_InvalidCRDIs422WithKubesMessage(t *testing.T) {
	s := newServer(t)
	bad := strings.Replace(gizmoCRD, `"name": "gizmos.tools.example.com"`, `"name": "widgets.tools.example.com"`, 1)
	code, st := s.do("POST", crdsPath, bad)
	if code != http.StatusUnprocessableEntity || !strings.Contains(st["message"].(string), `must be spec.names.plural+"."+spec.group`) {
		t.Errorf("POST CRD with a wrong name = %d %v", code, st["message"])
	}
}

func TestCRD_ChangingTheSchemaChangesWhatIsServed(t *testing.T) {
	s := newServer(t)
	crd, err := apiextensions.Decode([]byte(gizmoCRD))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.h.Apply(ctx, crd...); err != nil {
		t.Fatal(err)
	}
	if code, _ := s.do("POST", gizmosPath, `{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"big"},"spec":{"size":"large","count":-1}}`); code != http.StatusUnprocessableEntity {
		t.Errorf("count -1 under minimum 0 = %d, want 422", code)
	}
	crd[0].Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["count"].Minimum = nil
	if err := s.h.Apply(ctx, crd...); err != nil {
		t.Fatal(err)
	}
	if code, obj := s.do("POST", gizmosPath, `{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"big"},"spec":{"size":"large","count":-1}}`); code != http.StatusCreated {
		t.Errorf("count -1 once the minimum is gone = %d %v, want 201", code, obj)
	}
	_, got := s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
	if gen := got["metadata"].(map[string]any)["generation"]; gen != float64(2) {
		t.Errorf("generation = %v, want 2 after one spec change", gen)
	}
}

func TestCRD_AConflictingCRDIsNotServedAndSaysWhy(t *testing.T) {
	s := newServer(t)
	if code, _ := s.do("POST", crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatal("POST CRD")
	}
	s.eventually("the first CRD Established", func() bool {
		_, crd := s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True"
	})
	// Another plural for the same kind of the same group: the CRD that holds the
	// names keeps them.
	other := strings.NewReplacer(`"name": "gizmos.tools.example.com"`, `"name": "gadgets.tools.example.com"`,
		`"plural": "gizmos"`, `"plural": "gadgets"`, `"singular": "gizmo"`, `"singular": "gadget"`, `"shortNames": ["gz"]`, `"shortNames": ["gd"]`).Replace(gizmoCRD)
	if code, st := s.do("POST", crdsPath, other); code != http.StatusCreated {
		t.Fatalf("POST second CRD = %d %v", code, st)
	}
	var crd map[string]any
	s.eventually("NamesAccepted False", func() bool {
		_, crd = s.do("GET", crdsPath+"/gadgets.tools.example.com", "")
		return conditionStatus(crd, "NamesAccepted") == "False"
	})
	if conditionStatus(crd, "Established") != "False" {
		t.Errorf("the conflicting CRD is Established: %v", crd["status"])
	}
	if code, _ := s.do("GET", "/apis/tools.example.com/v1/namespaces/default/gadgets", ""); code != http.StatusNotFound {
		t.Errorf("GET gadgets = %d, want 404", code)
	}
}

func TestCRD_WithRulesAndNoRuleCompilerIsNotServedAndSaysHowToEnableCEL(t *testing.T) {
	s := newServer(t)
	withRule := strings.Replace(gizmoCRD, `"type": "object",
        "properties": {
          "spec"`, `"type": "object",
        "x-kubernetes-validations": [{"rule": "self.metadata.name != 'x'"}],
        "properties": {
          "spec"`, 1)
	if withRule == gizmoCRD {
		t.Fatal("the fixture did not change")
	}
	if code, st := s.do("POST", crdsPath, withRule); code != http.StatusCreated {
		t.Fatalf("POST CRD = %d %v", code, st)
	}
	var crd map[string]any
	s.eventually("NamesAccepted False", func() bool {
		_, crd = s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "NamesAccepted") == "False"
	})
	if msg := fmt.Sprint(crd["status"]); !strings.Contains(msg, "github.com/apikit-dev/apikit/cel") {
		t.Errorf("status %s does not say how to enable CEL", msg)
	}
	// The other CRDs are still served.
	other := strings.NewReplacer(`"name": "gizmos.tools.example.com"`, `"name": "gadgets.tools.example.com"`,
		`"plural": "gizmos"`, `"plural": "gadgets"`, `"singular": "gizmo"`, `"singular": "gadget"`, `"kind": "Gizmo"`, `"kind": "Gadget"`, `"shortNames": ["gz"]`, `"shortNames": ["gd"]`).Replace(gizmoCRD)
	if code, _ := s.do("POST", crdsPath, other); code != http.StatusCreated {
		t.Fatal("POST second CRD")
	}
	s.eventually("the second CRD Established", func() bool {
		_, crd = s.do("GET", crdsPath+"/gadgets.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True"
	})
}

// fakeRules refuses any rule that says "bad" and validates nothing.
type fakeRules struct{}

func (fakeRules) Compile(s *structural.Schema, p *validation.Path) (structural.RuleValidator, validation.ErrorList) {
	if strings.Contains(fmt.Sprint(s.OpenAPI().Extensions), "bad") {
		return nil, validation.ErrorList{validation.Invalid(p.Child("x-kubernetes-validations"), "bad", "does not compile")}
	}
	return noRules{}, nil
}

type noRules struct{}

func (noRules) Validate(context.Context, map[string]any, map[string]any) validation.ErrorList {
	return nil
}

func TestCRD_AStoredCRDWhoseRulesDoNotCompileLeavesTheOthersServed(t *testing.T) {
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	h, err := crdserver.Start(t.Context(), crdserver.Options{Scheme: scheme.New(), Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Rules: fakeRules{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &server{t: t, url: srv.URL, h: h}

	withRule := func(crd, rule string) string {
		return strings.Replace(crd, `"type": "object",
        "properties": {
          "spec"`, `"type": "object",
        "x-kubernetes-validations": [{"rule": "`+rule+`"}],
        "properties": {
          "spec"`, 1)
	}
	if code, st := s.do("POST", crdsPath, withRule(gizmoCRD, "bad")); code != http.StatusUnprocessableEntity {
		t.Errorf("POST CRD with a rule that does not compile = %d %v, want 422", code, st)
	}
	// The same CRD written to storage directly, as by another server.
	bad, err := apiextensions.Decode([]byte(withRule(gizmoCRD, "bad")))
	if err != nil {
		t.Fatal(err)
	}
	bad[0].UID, bad[0].Generation = "uid-bad", 1
	if _, err := store.Create(context.Background(), "/apiextensions.k8s.io/customresourcedefinitions/gizmos.tools.example.com", bad[0]); err != nil {
		t.Fatal(err)
	}
	good := strings.NewReplacer(`"name": "gizmos.tools.example.com"`, `"name": "gadgets.tools.example.com"`,
		`"plural": "gizmos"`, `"plural": "gadgets"`, `"singular": "gizmo"`, `"singular": "gadget"`, `"kind": "Gizmo"`, `"kind": "Gadget"`, `"shortNames": ["gz"]`, `"shortNames": ["gd"]`).Replace(withRule(gizmoCRD, "ok"))
	if code, st := s.do("POST", crdsPath, good); code != http.StatusCreated {
		t.Fatalf("POST good CRD = %d %v", code, st)
	}
	var crd map[string]any
	s.eventually("the good CRD Established and the bad one not", func() bool {
		_, crd = s.do("GET", crdsPath+"/gadgets.tools.example.com", "")
		_, badCRD := s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True" && conditionStatus(badCRD, "NamesAccepted") == "False"
	})
	if code, _ := s.do("GET", "/apis/tools.example.com/v1/namespaces/default/gadgets", ""); code != http.StatusOK {
		t.Errorf("GET gadgets = %d, want 200", code)
	}
}
