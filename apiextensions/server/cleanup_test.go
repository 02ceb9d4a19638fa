package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// newBuiltinServer serves the built-in kinds (Roles, Leases, ...) and CRDs over store.
func newBuiltinServer(t *testing.T, store storage.Interface) *server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	h, err := crdserver.Start(t.Context(), crdserver.Options{Scheme: s, Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Strategies: strategies.Builtin()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	out := &server{t: t, url: srv.URL, h: h}
	if code, st := out.do("POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}`); code != http.StatusCreated {
		t.Fatalf("POST namespace default = %d %v", code, st)
	}
	return out
}

// collidingCRD is a CRD named after an existing resource: group, plural and kind.
func collidingCRD(group, plural, kind, scope string) string {
	return `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "` + plural + `.` + group + `", "annotations": {"api-approved.kubernetes.io": "unapproved, testing only"}},
  "spec": {
    "group": "` + group + `", "scope": "` + scope + `",
    "names": {"plural": "` + plural + `", "singular": "` + strings.ToLower(kind) + `", "kind": "` + kind + `"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]
  }
}`
}

// deleteCRDAndWait deletes a CRD and waits until it is gone.
func (s *server) deleteCRDAndWait(name string) {
	s.t.Helper()
	if code, st := s.do("DELETE", crdsPath+"/"+name, ""); code != http.StatusOK {
		s.t.Fatalf("DELETE CRD %s = %d %v", name, code, st)
	}
	s.eventually("CRD "+name+" to go", func() bool {
		code, _ := s.do("GET", crdsPath+"/"+name, "")
		return code == http.StatusNotFound
	})
}

// waitObserved waits until the CRD server wrote the CRD's NamesAccepted condition.
func (s *server) waitObserved(name string) map[string]any {
	s.t.Helper()
	var crd map[string]any
	s.eventually("CRD "+name+" observed", func() bool {
		_, crd = s.do("GET", crdsPath+"/"+name, "")
		return conditionStatus(crd, "NamesAccepted") != ""
	})
	return crd
}

func TestCRD_DeletingACRDNamedAfterABuiltInResourceLeavesTheBuiltInObjects(t *testing.T) {
	for _, tc := range []struct {
		name, crd, path, object string
	}{
		{
			name:   "roles.rbac.authorization.k8s.io",
			crd:    collidingCRD("rbac.authorization.k8s.io", "roles", "Role", "Namespaced"),
			path:   "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
			object: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`,
		},
		{
			name:   "leases.coordination.k8s.io",
			crd:    collidingCRD("coordination.k8s.io", "leases", "Lease", "Namespaced"),
			path:   "/apis/coordination.k8s.io/v1/namespaces/default/leases",
			object: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader"},"spec":{"holderIdentity":"a"}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newBuiltinServer(t, memory.New(memory.Options{}))
			if code, st := s.do("POST", tc.path, tc.object); code != http.StatusCreated {
				t.Fatalf("POST built-in object = %d %v", code, st)
			}
			name := tc.name
			if code, st := s.do("POST", crdsPath, tc.crd); code != http.StatusCreated {
				t.Fatalf("POST CRD = %d %v", code, st)
			}
			s.waitObserved(name)
			s.deleteCRDAndWait(name)
			code, list := s.do("GET", tc.path, "")
			if items, _ := list["items"].([]any); code != http.StatusOK || len(items) != 1 {
				t.Errorf("built-in objects after the CRD %s was deleted = %d %v, want the one created", name, code, list["items"])
			}
		})
	}
}

func TestCRD_DeletingTheCRDNamedCustomResourceDefinitionsLeavesTheOtherCRDs(t *testing.T) {
	s := newServer(t)
	if code, st := s.do("POST", crdsPath, gizmoCRD); code != http.StatusCreated {
		t.Fatalf("POST CRD = %d %v", code, st)
	}
	s.eventually("Established", func() bool {
		_, crd := s.do("GET", crdsPath+"/gizmos.tools.example.com", "")
		return conditionStatus(crd, "Established") == "True"
	})
	if code, st := s.do("POST", gizmosPath, gizmoObject); code != http.StatusCreated {
		t.Fatalf("POST gizmo = %d %v", code, st)
	}
	const name = "customresourcedefinitions.apiextensions.k8s.io"
	if code, st := s.do("POST", crdsPath, collidingCRD("apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", "Cluster")); code != http.StatusCreated {
		t.Fatalf("POST CRD %s = %d %v", name, code, st)
	}
	s.waitObserved(name)
	// It goes, rather than staying Terminating for the CRDs it counted as its objects.
	s.deleteCRDAndWait(name)
	if code, crd := s.do("GET", crdsPath+"/gizmos.tools.example.com", ""); code != http.StatusOK || conditionStatus(crd, "Established") != "True" {
		t.Errorf("the other CRD after %s was deleted = %d %v, want it kept and established", name, code, crd["status"])
	}
	if code, _ := s.do("GET", gizmosPath+"/g1", ""); code != http.StatusOK {
		t.Errorf("GET gizmo after %s was deleted = %d, want 200", name, code)
	}
}

func TestCRD_DeletingANeverEstablishedCRDDeletesNoObjects(t *testing.T) {
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	s := newBuiltinServer(t, store)
	// Objects under the resource's keys that this CRD never served (another server's,
	// say): a CRD that could not be installed (rules, no rule compiler) owns none.
	withRule := strings.Replace(gizmoCRD, `"type": "object",
        "properties": {
          "spec"`, `"type": "object",
        "x-kubernetes-validations": [{"rule": "self.metadata.name != 'x'"}],
        "properties": {
          "spec"`, 1)
	obj := &scheme.Unstructured{Object: map[string]any{"apiVersion": "tools.example.com/v1", "kind": "Gizmo", "metadata": map[string]any{"name": "g1", "namespace": "default"}}}
	gr := scheme.GroupResource{Group: "tools.example.com", Resource: "gizmos"}
	if _, err := store.Create(context.Background(), storage.Key(gr, "default", "g1"), obj); err != nil {
		t.Fatal(err)
	}
	if code, st := s.do("POST", crdsPath, withRule); code != http.StatusCreated {
		t.Fatalf("POST CRD = %d %v", code, st)
	}
	if crd := s.waitObserved("gizmos.tools.example.com"); conditionStatus(crd, "Established") == "True" {
		t.Fatalf("the CRD is established: %v", crd["status"])
	}
	s.deleteCRDAndWait("gizmos.tools.example.com")
	if n, err := store.Count(context.Background(), storage.Prefix(gr, "")); err != nil || n != 1 {
		t.Errorf("objects under the never established CRD's resource after its deletion = %d, %v; want 1", n, err)
	}
}
