package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// scopedCRD is a CRD of kind in ns.example.com of scope, with a free-form schema; its
// metadata has extra fields (a JSON fragment) before the name.
func scopedCRD(kind, scope, extra string) string {
	plural := strings.ToLower(kind) + "s"
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{` + extra + `"name":"` + plural + `.ns.example.com"},
  "spec":{"group":"ns.example.com","scope":"` + scope + `",
    "names":{"plural":"` + plural + `","singular":"` + strings.ToLower(kind) + `","kind":"` + kind + `"},
    "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
}

// TestCRD_ObjectsOfBothScopesFollowKubesNamespaceRule writes through the CRD server a
// CRD and custom resources of both scopes with a namespace in the body: as
// kube-apiserver does, a cluster-scoped object is stored without it, a namespaced one
// without a namespace takes the URL's, and another namespace is 400 BadRequest.
func TestCRD_ObjectsOfBothScopesFollowKubesNamespaceRule(t *testing.T) {
	s := newServer(t)
	for _, crd := range []string{scopedCRD("Dial", "Cluster", `"namespace":"default",`), scopedCRD("Knob", "Namespaced", "")} {
		if code, st := s.do("POST", crdsPath, crd); code != http.StatusCreated {
			t.Fatalf("POST CRD = %d %v", code, st)
		} else if ns, ok := st["metadata"].(map[string]any)["namespace"]; ok {
			t.Errorf("the CRD sent with a namespace was answered with metadata.namespace %v, want none", ns)
		}
	}
	for _, name := range []string{"dials.ns.example.com", "knobs.ns.example.com"} {
		s.eventually(name+" Established", func() bool {
			_, crd := s.do("GET", crdsPath+"/"+name, "")
			return conditionStatus(crd, "Established") == "True"
		})
	}
	const (
		dials = "/apis/ns.example.com/v1/dials"
		knobs = "/apis/ns.example.com/v1/namespaces/default/knobs"
	)
	obj := func(kind, name, ns string) string {
		meta := `"name":"` + name + `"`
		if ns != "" {
			meta += `,"namespace":"` + ns + `"`
		}
		return `{"apiVersion":"ns.example.com/v1","kind":"` + kind + `","metadata":{` + meta + `}}`
	}
	tests := []struct {
		name, method, path, body, read string
		code                           int
		stored                         any // metadata.namespace read back; nil when absent
	}{
		{"a cluster-scoped object created with a namespace", "POST", dials, obj("Dial", "d1", "default"), dials + "/d1", 201, nil},
		{"a cluster-scoped object updated with a namespace", "PUT", dials + "/d1", obj("Dial", "d1", "default"), dials + "/d1", 200, nil},
		{"a cluster-scoped object merge-patched with a namespace", "PATCH", dials + "/d1", `{"metadata":{"namespace":"default"}}`, dials + "/d1", 200, nil},
		{"a namespaced object created without a namespace", "POST", knobs, obj("Knob", "k1", ""), knobs + "/k1", 201, "default"},
		{"a namespaced object created in another namespace", "POST", knobs, obj("Knob", "k2", "other"), knobs + "/k2", 400, nil},
		{"a namespaced object patched to another namespace", "PATCH", knobs + "/k1", `{"metadata":{"namespace":"other"}}`, knobs + "/k1", 400, "default"},
		{"the CRD stored without the namespace it was sent with", "GET", crdsPath + "/dials.ns.example.com", "", crdsPath + "/dials.ns.example.com", 200, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var code int
			var st map[string]any
			if tt.method == "PATCH" {
				code, st = s.patch(tt.path, tt.body)
			} else {
				code, st = s.do(tt.method, tt.path, tt.body)
			}
			if code != tt.code {
				t.Fatalf("%s %s = %d %v, want %d", tt.method, tt.path, code, st, tt.code)
			}
			if code == http.StatusBadRequest {
				if want := "the namespace of the provided object does not match the namespace sent on the request"; st["reason"] != "BadRequest" || st["message"] != want {
					t.Errorf("status = %v, want BadRequest %q", st, want)
				}
			}
			rc, got := s.do("GET", tt.read, "")
			if tt.stored == nil && rc == http.StatusNotFound {
				return
			}
			if rc != http.StatusOK {
				t.Fatalf("GET %s = %d %v", tt.read, rc, got)
			}
			if ns, ok := got["metadata"].(map[string]any)["namespace"]; ns != tt.stored || (tt.stored == nil && ok) {
				t.Errorf("stored metadata.namespace = %#v (present %v), want %#v", ns, ok, tt.stored)
			}
		})
	}
}

// patch sends a merge patch.
func (s *server) patch(path, body string) (int, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest("PATCH", s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}
