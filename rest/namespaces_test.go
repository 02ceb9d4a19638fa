package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// testNamespace is a minimal typed core/v1 Namespace.
type testNamespace struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Finalizers []string `json:"finalizers,omitempty"`
	} `json:"spec,omitempty"`
	Status struct {
		Phase      string           `json:"phase,omitempty"`
		Conditions []map[string]any `json:"conditions,omitempty"`
	} `json:"status,omitempty"`
}

type testNamespaceList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []testNamespace `json:"items"`
}

func newNamespaceServer(t *testing.T) http.Handler {
	t.Helper()
	s := scheme.New()
	s.AddKnownTypes(scheme.GroupVersion{Version: "v1"}, &testNamespace{}, &testNamespaceList{})
	if err := s.AddResource(scheme.Resource{Kind: "testNamespace", Plural: "namespaces", StatusSubresource: true}); err != nil {
		t.Fatal(err)
	}
	gv := scheme.GroupVersion{Group: "test.example.com", Version: "v1"}
	s.AddUnstructuredKind(gv.WithKind("Pod"))
	s.AddUnstructuredKind(gv.WithKind("PodList"))
	if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Pod", Plural: "pods", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	h, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, GarbageCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func serve(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	if method == "PATCH" {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

func TestNamespaces_Lifecycle(t *testing.T) {
	const ns = `{"apiVersion":"v1","kind":"testNamespace","metadata":{"name":"team"}}`
	const pod = `{"apiVersion":"test.example.com/v1","kind":"Pod","metadata":{"name":"p"}}`
	pods := "/apis/test.example.com/v1/namespaces/team/pods"
	for _, tc := range []struct {
		name     string
		steps    [][3]string // method, path, body
		wantCode int
		want     string // a fragment of the last response
	}{
		{"CreateInAMissingNamespaceIs404", [][3]string{{"POST", pods, pod}}, 404, `"message":"namespaces \"team\" not found"`},
		{"ANewNamespaceIsActiveWithTheKubernetesFinalizer", [][3]string{{"POST", "/api/v1/namespaces", ns}}, 201, `"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}`},
		{"DeleteMarksTheNamespaceTerminating", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"DELETE", "/api/v1/namespaces/team", ""}}, 200, `"status":{"phase":"Terminating"}`},
		{"CreateInATerminatingNamespaceIs403", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"DELETE", "/api/v1/namespaces/team", ""}, {"POST", pods, pod}}, 403,
			`"details":{"causes":[{"field":"metadata.namespace","message":"namespace team is being terminated","reason":"NamespaceTerminating"}],"group":"test.example.com","kind":"pods","name":"p"},"kind":"Status","message":"pods.test.example.com \"p\" is forbidden: unable to create new content in namespace team because it is being terminated"`},
		{"ASecondDeleteWhileFinalizingIs409", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"DELETE", "/api/v1/namespaces/team", ""}, {"DELETE", "/api/v1/namespaces/team", ""}}, 409,
			`The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`},
		{"AnUpdateKeepsSpecFinalizers", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"PUT", "/api/v1/namespaces/team", `{"apiVersion":"v1","kind":"testNamespace","metadata":{"name":"team"},"spec":{"finalizers":[]}}`}}, 200, `"spec":{"finalizers":["kubernetes"]}`},
		{"FinalizeChangesSpecFinalizers", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"PUT", "/api/v1/namespaces/team/finalize", `{"apiVersion":"v1","kind":"testNamespace","metadata":{"name":"team"},"spec":{"finalizers":["example.com/x"]}}`}}, 200, `"spec":{"finalizers":["example.com/x"]},"status":{"phase":"Active"}`},
		{"FinalizeRemovingTheLastFinalizerOfATerminatingNamespaceDeletesIt", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"DELETE", "/api/v1/namespaces/team", ""}, {"PUT", "/api/v1/namespaces/team/finalize", `{"apiVersion":"v1","kind":"testNamespace","metadata":{"name":"team"},"spec":{}}`}, {"GET", "/api/v1/namespaces/team", ""}}, 404, `not found`},
		{"FinalizeIsPUTOnly", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"GET", "/api/v1/namespaces/team/finalize", ""}}, 405, `MethodNotAllowed`},
		{"DefaultMayNotBeDeleted", [][3]string{{"DELETE", "/api/v1/namespaces/default", ""}}, 403, `"message":"namespaces \"default\" is forbidden: this namespace may not be deleted"`},
		{"ForegroundDeleteAddsTheFinalizer", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"POST", pods, pod}, {"DELETE", pods + "/p?propagationPolicy=Foreground", ""}}, 200, `"finalizers":["foregroundDeletion"]`},
		{"OrphanDeleteAddsTheFinalizerForTheCollector", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"POST", pods, pod}, {"DELETE", pods + "/p?propagationPolicy=Orphan", ""}}, 200, `"finalizers":["orphan"]`},
		{"BackgroundDeleteIsImmediate", [][3]string{{"POST", "/api/v1/namespaces", ns}, {"POST", pods, pod}, {"DELETE", pods + "/p?propagationPolicy=Background", ""}}, 200, `"status":"Success"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newNamespaceServer(t)
			var code int
			var out map[string]any
			for _, s := range tc.steps {
				code, out = serve(t, h, s[0], s[1], s[2])
			}
			b, _ := json.Marshal(out)
			if code != tc.wantCode || !strings.Contains(string(b), tc.want) {
				t.Errorf("got %d %s\nwant %d containing %s", code, b, tc.wantCode, tc.want)
			}
		})
	}
}

// Without a namespaces resource every namespace exists implicitly: GET of a valid name
// is an Active Namespace (kubectl asks after a NotFound outside "default"), nothing else
// under /api/v1/namespaces is served.
func TestNamespaces_ExistImplicitlyWithoutANamespacesResource(t *testing.T) {
	s := newServer(t, nil)
	tests := []struct {
		name, method, path string
		code               int
		reason             string
	}{
		{"get of a valid name", "GET", "/api/v1/namespaces/other", 200, ""},
		{"get of an invalid name", "GET", "/api/v1/namespaces/Not_Valid", 404, "NotFound"},
		{"list", "GET", "/api/v1/namespaces", 404, "NotFound"},
		{"create", "POST", "/api/v1/namespaces", 404, "NotFound"},
		{"delete", "DELETE", "/api/v1/namespaces/other", 404, "NotFound"},
		{"subresource", "GET", "/api/v1/namespaces/other/status", 404, "NotFound"},
		{"another version", "GET", "/api/v2/namespaces/other", 404, "NotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, "application/json", "")
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			obj := decodeAs(t, "application/json", r.body).(*scheme.Unstructured)
			if tt.reason != "" {
				if got := reasonOf(obj); got != tt.reason {
					t.Errorf("reason %q, want %q", got, tt.reason)
				}
				return
			}
			phase, _ := scheme.NestedString(obj.Object, "status", "phase")
			if obj.GetKind() != "Namespace" || obj.GetAPIVersion() != "v1" || obj.GetName() != "other" || phase != "Active" {
				t.Errorf("namespace %v", obj.Object)
			}
		})
	}
	r := s.do("GET", "/api/v1/namespaces/Not_Valid", "", "")
	if !strings.Contains(string(r.body), `namespaces \"Not_Valid\" not found`) {
		t.Errorf("invalid name: %s", r.body)
	}
}
