package server_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/examples/widgets/server"
)

const (
	gizmosPath = "/apis/lab.example.com/v1/namespaces/default/gizmos"
	crdsPath   = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
)

// loadCRDs reads CRD manifests relative to the package directory.
func loadCRDs(t *testing.T, path string) []*apiextensions.CustomResourceDefinition {
	t.Helper()
	crds, err := apiextensions.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}

func gizmoJSON(name string) string {
	return `{"apiVersion":"lab.example.com/v1","kind":"Gizmo","metadata":{"name":"` + name + `"},"spec":{"parts":[{"name":"gear"}]}}`
}

// field reads a dotted path of a JSON object.
func field(t *testing.T, data []byte, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	for _, p := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

func TestNew_ServesConfigCRDsBesideTheGoKindsWithEitherStorage(t *testing.T) {
	for _, backend := range []string{server.StorageBolt, server.StorageMemory} {
		t.Run(backend, func(t *testing.T) {
			srv := start(t, server.Config{Storage: backend, DataDir: t.TempDir(), Token: "tok", CRDs: loadCRDs(t, "../crds")})
			tests := []struct {
				name         string
				method, path string
				token, body  string
				want         int
				wantFields   map[string]any
			}{
				{name: "the CRD is established at start", method: "GET", path: crdsPath + "/gizmos.lab.example.com", token: "tok", want: http.StatusOK,
					wantFields: map[string]any{"status.acceptedNames.kind": "Gizmo"}},
				{name: "a gizmo without the token is 401", method: "POST", path: gizmosPath, body: gizmoJSON("g1"), want: http.StatusUnauthorized},
				{name: "a gizmo is created with the schema's defaults", method: "POST", path: gizmosPath, token: "tok", body: gizmoJSON("g1"), want: http.StatusCreated,
					wantFields: map[string]any{"spec.size": "small", "spec.replicas": float64(1)}},
				{name: "an out-of-enum size is 422", method: "POST", path: gizmosPath, token: "tok", body: `{"apiVersion":"lab.example.com/v1","kind":"Gizmo","metadata":{"name":"g2"},"spec":{"size":"huge"}}`, want: http.StatusUnprocessableEntity,
					wantFields: map[string]any{"details.causes": []any{map[string]any{"reason": "FieldValueNotSupported", "field": "spec.size", "message": `Unsupported value: "huge": supported values: "small", "large"`}}}},
				{name: "widgets are still served", method: "POST", path: widgetsPath, token: "tok", body: widgetJSON("w1", "red"), want: http.StatusCreated},
			}
			for _, tt := range tests {
				code, body := do(t, srv, tt.method, tt.path, tt.token, tt.body)
				if code != tt.want {
					t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, tt.path, code, body, tt.want)
					continue
				}
				for path, want := range tt.wantFields {
					if got := field(t, body, path); !jsonEqual(got, want) {
						t.Errorf("%s: %s = %#v, want %#v", tt.name, path, got, want)
					}
				}
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A bolt store decodes what it holds when it opens: the CRDs and the objects of the
// resources they define, whose kinds only the running server knows.
func TestNew_BoltRestartKeepsCRDsAndTheirObjects(t *testing.T) {
	dir := t.TempDir()
	cfg := server.Config{Addr: "127.0.0.1:0", Storage: server.StorageBolt, DataDir: dir, Token: "tok", Logger: quiet}
	first := cfg
	first.CRDs = loadCRDs(t, "../crds/lab.example.com_gizmos.yaml")
	srv, err := server.New(first)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	if code, body := do(t, srv, "POST", gizmosPath, "tok", gizmoJSON("kept")); code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, body)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	again := start(t, cfg) // no Config.CRDs: the stored CRD is served again
	code, body := do(t, again, "GET", gizmosPath+"/kept", "tok", "")
	if code != http.StatusOK || field(t, body, "spec.parts") == nil {
		t.Errorf("after restart GET gizmo = %d %s, want 200 with its parts", code, body)
	}
}

func TestNew_RefusesCRDsWithCELRulesWithoutRuleCompiler(t *testing.T) {
	crds := loadCRDs(t, "../../../apiextensions/testdata/crd")
	_, err := server.New(server.Config{Addr: "127.0.0.1:0", Storage: server.StorageMemory, Logger: quiet, CRDs: crds})
	if !errors.Is(err, server.ErrCELNotEnabled) || !strings.Contains(err.Error(), "robots.fleet.example.com") || !strings.Contains(err.Error(), "github.com/apikit-dev/apikit/cel") {
		t.Fatalf("New with a CEL CRD = %v, want ErrCELNotEnabled naming the CRD and the cel module", err)
	}
}

// The customresourcedefinitions resource is served even without Config.CRDs: a CRD
// created through the API is served at once, and deleting it removes its objects.
func TestServer_CRDCreatedThroughTheAPIIsServed(t *testing.T) {
	srv := start(t, server.Config{Storage: server.StorageMemory, Token: "tok"})
	manifest, err := os.ReadFile(filepath.Join("..", "crds", "lab.example.com_gizmos.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds, err := apiextensions.Decode(manifest)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(crds[0])
	if err != nil {
		t.Fatal(err)
	}
	if code, out := do(t, srv, "POST", crdsPath, "tok", string(body)); code != http.StatusCreated {
		t.Fatalf("create CRD = %d %s", code, out)
	}
	code, out := 0, []byte(nil)
	for range 200 { // the resource is installed by a watch: bounded polling
		if code, out = do(t, srv, "POST", gizmosPath, "tok", gizmoJSON("g1")); code != http.StatusNotFound {
			break
		}
		sleepBriefly()
	}
	if code != http.StatusCreated {
		t.Fatalf("create gizmo after creating its CRD = %d %s, want 201", code, out)
	}
	if code, out := do(t, srv, "DELETE", crdsPath+"/gizmos.lab.example.com", "tok", ""); code != http.StatusOK {
		t.Fatalf("delete CRD = %d %s", code, out)
	}
	for _, path := range []string{crdsPath + "/gizmos.lab.example.com", gizmosPath} {
		for range 200 {
			if code, out = do(t, srv, "GET", path, "tok", ""); code == http.StatusNotFound {
				break
			}
			sleepBriefly()
		}
		if code != http.StatusNotFound {
			t.Errorf("GET %s after deleting the CRD = %d %s, want 404", path, code, out)
		}
	}
}

// sleepBriefly paces the bounded polling loops of the tests.
func sleepBriefly() { time.Sleep(20 * time.Millisecond) }
