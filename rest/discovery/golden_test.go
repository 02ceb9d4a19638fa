package discovery_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedVersion keeps /version independent of the Go toolchain running the tests.
var fixedVersion = discovery.VersionInfo{GoVersion: "go1.24.0", Compiler: "gc", Platform: "linux/amd64"}

func newWidgetsHandler(t testing.TB) http.Handler {
	t.Helper()
	h, err := discovery.New(testapi.NewScheme(), discovery.Options{Version: fixedVersion, ServerAddress: "127.0.0.1:6443"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, path, accept string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const (
	acceptV2      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	acceptV2Beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	// acceptKubectl is what kubectl 1.32 sends to /api and /apis.
	acceptKubectl = acceptV2 + "," + acceptV2Beta1 + ",application/json"
)

func TestDocuments_MatchGoldenFiles(t *testing.T) {
	h := newWidgetsHandler(t)
	tests := []struct {
		golden, path, accept, contentType string
	}{
		{"api.json", "/api", "application/json", "application/json"},
		{"apis.json", "/apis", "application/json", "application/json"},
		{"apis_group.json", "/apis/toys.example.com", "", "application/json"},
		{"apis_group_v1.json", "/apis/toys.example.com/v1", "application/json", "application/json"},
		{"apis_group_v1alpha1.json", "/apis/toys.example.com/v1alpha1", "application/json", "application/json"},
		{"aggregated_apis_v2.json", "/apis", acceptKubectl, acceptV2},
		{"aggregated_api_v2.json", "/api", acceptKubectl, acceptV2},
		{"aggregated_apis_v2beta1.json", "/apis", acceptV2Beta1, acceptV2Beta1},
		{"version.json", "/version", "application/json, */*", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			rec := get(h, tt.path, tt.accept)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: status %d, body %s", tt.path, rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", ct, tt.contentType)
			}
			compareGolden(t, tt.golden, rec.Body.Bytes())
		})
	}
}

// TestOpenAPIV3_PathsMatchGoldenFile checks the operations New adds to the v3 document
// (the schemas are package openapi's and tested there).
func TestOpenAPIV3_PathsMatchGoldenFile(t *testing.T) {
	rec := get(newWidgetsHandler(t), "/openapi/v3/apis/toys.example.com/v1", "application/json")
	var doc struct {
		Paths json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("status %d, body is not JSON: %v", rec.Code, err)
	}
	compareGolden(t, "openapi_v3_toys_v1_paths.json", doc.Paths)
}

func compareGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	pretty.WriteByte('\n')
	file := filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("differs from %s (-want +got):\n%s", file, diff)
	}
}
