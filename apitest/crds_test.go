package apitest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/internal/testapi"
)

const (
	crdsPath   = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	gizmosPath = "/apis/tools.example.com/v1/namespaces/default/gizmos"
)

// gizmoCRD is a namespaced CRD with a default and an enum; rules, when not empty, is an
// x-kubernetes-validations rule of its spec.
func gizmoCRD(t *testing.T, rules string) *apiextensions.CustomResourceDefinition {
	t.Helper()
	validations := ""
	if rules != "" {
		validations = `, "x-kubernetes-validations": [{"rule": "` + rules + `"}]`
	}
	crds, err := apiextensions.Decode([]byte(`{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gizmos.tools.example.com"},
  "spec": {
    "group": "tools.example.com", "scope": "Namespaced",
    "names": {"plural": "gizmos", "kind": "Gizmo"},
    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object"` + validations + `, "properties": {
          "size": {"type": "string", "enum": ["small", "large"], "default": "small"}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	return crds[0]
}

const gizmoJSON = `{"apiVersion":"tools.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{}}`

func TestOptionsCRDs_ServesTheCRDsFromTheFirstRequest(t *testing.T) {
	tests := []struct {
		name         string
		opts         apitest.Options
		method, path string
		body         string
		want         int
		wantBody     string
	}{
		{name: "a CRD of CRDs is established", opts: apitest.Options{CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "")}}, method: "GET", path: crdsPath + "/gizmos.tools.example.com", want: http.StatusOK, wantBody: `"type":"Established","status":"True"`},
		{name: "its resource is served with the schema's defaults", opts: apitest.Options{CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "")}}, method: "POST", path: gizmosPath, body: gizmoJSON, want: http.StatusCreated, wantBody: `"size":"small"`},
		{name: "the scheme's kinds are served beside it", opts: apitest.Options{CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "")}}, method: "POST", path: widgetsPath, body: widgetJSON("w"), want: http.StatusCreated},
		{name: "CRDAPI without CRDs serves the CRD API", opts: apitest.Options{CRDAPI: true}, method: "GET", path: crdsPath, want: http.StatusOK, wantBody: `"kind":"CustomResourceDefinitionList"`},
		{name: "without CRDs or CRDAPI there is no CRD API", method: "GET", path: crdsPath, want: http.StatusNotFound},
		{name: "Token guards the CRD API too", opts: apitest.Options{CRDAPI: true, Token: "t"}, method: "GET", path: crdsPath, want: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apitest.NewServer(t, testapi.NewScheme(), tt.opts)
			code, body := do(t, http.DefaultClient, tt.method, srv.URL+tt.path, tt.body, nil)
			if code != tt.want || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("%s %s = %d %s, want %d with %s", tt.method, tt.path, code, body, tt.want, tt.wantBody)
			}
			if hasCRDs := srv.CRDs != nil; hasCRDs != (tt.opts.CRDAPI || len(tt.opts.CRDs) > 0) {
				t.Errorf("Server.CRDs set = %v, want %v", hasCRDs, !hasCRDs)
			}
		})
	}
}

// fatalTB records the message of Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestOptionsCRDs_ACRDThatCannotBeServedFailsNewServer(t *testing.T) {
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		apitest.NewServer(tb, testapi.NewScheme(), apitest.Options{CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "self.size != 'large'")}})
	}()
	<-done
	if !strings.Contains(tb.msg, "gizmos.tools.example.com") || !strings.Contains(tb.msg, "rule") {
		t.Errorf("NewServer with a CEL rule and no rule compiler failed with %q, want the CRD's name and the rules", tb.msg)
	}
}
