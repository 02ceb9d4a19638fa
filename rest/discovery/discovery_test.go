package discovery_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/scheme/openapi"
)

func TestStorageVersionHash_MatchesKubeApiserver(t *testing.T) {
	tests := []struct{ group, version, kind, want string }{
		// Values kube-apiserver publishes for these built-in kinds.
		{"apps", "v1", "Deployment", "8aSe+NMegvE="},
		{"", "v1", "Pod", "xPOwRZ+Yhw8="},
		{"", "v1", "ConfigMap", "qFsyl6wFWjQ="},
		{"apps", "v1", "", ""},
	}
	for _, tt := range tests {
		if got := discovery.StorageVersionHash(tt.group, tt.version, tt.kind); got != tt.want {
			t.Errorf("StorageVersionHash(%q, %q, %q) = %q, want %q", tt.group, tt.version, tt.kind, got, tt.want)
		}
	}
}

func TestAggregated_AcceptSelectsDocument(t *testing.T) {
	h := newWidgetsHandler(t)
	tests := []struct {
		name, path, accept string
		wantCode           int
		wantContentType    string
		wantKind           string
		wantAPIVersion     string
	}{
		{"kubectl prefers v2", "/apis", acceptKubectl, 200, acceptV2, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"v2beta1 alone", "/apis", acceptV2Beta1, 200, acceptV2Beta1, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2beta1"},
		{"v2beta1 listed first wins", "/apis", acceptV2Beta1 + "," + acceptV2, 200, acceptV2Beta1, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2beta1"},
		{"extra profile parameter is ignored", "/apis", acceptV2 + ";profile=nopeer,application/json", 200, acceptV2, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"parameters in any order", "/apis", "application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io", 200, acceptV2, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"aggregated on /api holds the core group", "/api", acceptV2, 200, acceptV2, "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"},
		{"plain JSON", "/apis", "application/json", 200, "application/json", "APIGroupList", "v1"},
		{"no Accept", "/apis", "", 200, "application/json", "APIGroupList", "v1"},
		{"unknown aggregated version falls back to plain", "/apis", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json", 200, "application/json", "APIGroupList", "v1"},
		{"unknown aggregated version alone is 406", "/apis", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", 406, "application/json", "Status", "v1"},
		{"aggregated is not served on a group", "/apis/toys.example.com", acceptV2, 406, "application/json", "Status", "v1"},
		{"aggregated on a group falls back to plain", "/apis/toys.example.com", acceptKubectl, 200, "application/json", "APIGroup", "v1"},
		{"Table is not acceptable", "/apis/toys.example.com/v1", "application/json;as=Table;g=meta.k8s.io;v=v1", 406, "application/json", "Status", "v1"},
		{"protobuf only is 406", "/apis", "application/vnd.kubernetes.protobuf", 406, "application/json", "Status", "v1"},
		{"YAML", "/apis/toys.example.com/v1", "application/yaml", 200, "application/yaml", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(h, tt.path, tt.accept)
			if rec.Code != tt.wantCode {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tt.wantCode, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tt.wantContentType {
				t.Errorf("Content-Type %q, want %q", ct, tt.wantContentType)
			}
			if tt.wantKind == "" {
				if !strings.Contains(rec.Body.String(), "kind: APIResourceList\n") {
					t.Errorf("YAML body lacks the kind:\n%s", rec.Body)
				}
				return
			}
			var tm struct{ Kind, APIVersion string }
			if err := json.Unmarshal(rec.Body.Bytes(), &tm); err != nil {
				t.Fatal(err)
			}
			if tm.Kind != tt.wantKind || tm.APIVersion != tt.wantAPIVersion {
				t.Errorf("got %s %s, want %s %s", tm.APIVersion, tm.Kind, tt.wantAPIVersion, tt.wantKind)
			}
			if tt.wantCode == 406 && !strings.Contains(rec.Body.String(), `"reason":"NotAcceptable"`) {
				t.Errorf("406 body is not a NotAcceptable Status: %s", rec.Body)
			}
		})
	}
}

func TestAggregated_ETagAndNotModified(t *testing.T) {
	h := newWidgetsHandler(t)
	first := get(h, "/apis", acceptV2)
	etag := first.Header().Get("ETag")
	if len(etag) != 130 || etag[0] != '"' || etag[129] != '"' {
		t.Fatalf("ETag %q is not a quoted SHA-512 hex", etag)
	}
	if want, _ := strconv.Unquote(etag); want != openapi.Hash(first.Body.Bytes()) {
		t.Errorf("ETag %s is not the hash of the body", etag)
	}
	if v := first.Header().Get("Vary"); v != "Accept" {
		t.Errorf("Vary = %q, want Accept", v)
	}
	if beta := get(h, "/apis", acceptV2Beta1).Header().Get("ETag"); beta == etag {
		t.Error("v2 and v2beta1 share an ETag although their bodies differ")
	}
	if core := get(h, "/api", acceptV2).Header().Get("ETag"); core == etag {
		t.Error("/api and /apis share an ETag although their bodies differ")
	}
	tests := []struct {
		name, ifNoneMatch string
		want              int
	}{
		{"matching ETag", etag, http.StatusNotModified},
		{"other ETag", `"0123"`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(h, "/apis", acceptV2, "If-None-Match", tt.ifNoneMatch)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d", rec.Code, tt.want)
			}
			if tt.want == http.StatusNotModified && rec.Body.Len() != 0 {
				t.Errorf("304 with a body: %s", rec.Body)
			}
		})
	}
}

func TestOpenAPIV3_HashInURLControlsCaching(t *testing.T) {
	h := newWidgetsHandler(t)
	var index openapi.Discovery
	if err := json.Unmarshal(get(h, "/openapi/v3", "").Body.Bytes(), &index); err != nil {
		t.Fatal(err)
	}
	entry, ok := index.Paths["apis/toys.example.com/v1"]
	if !ok {
		t.Fatalf("index lacks apis/toys.example.com/v1: %+v", index)
	}
	current := entry.ServerRelativeURL
	hash := current[strings.Index(current, "hash=")+len("hash="):]

	t.Run("current hash is immutable", func(t *testing.T) {
		rec := get(h, current, "application/json")
		if rec.Code != 200 {
			t.Fatalf("status %d", rec.Code)
		}
		if got := openapi.Hash(rec.Body.Bytes()); got != hash {
			t.Errorf("hash in URL %s is not the body's hash %s", hash, got)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "public, immutable" {
			t.Errorf("Cache-Control = %q", cc)
		}
		if rec.Header().Get("Expires") == "" {
			t.Error("no Expires header")
		}
		if et := rec.Header().Get("ETag"); et != strconv.Quote(hash) {
			t.Errorf("ETag = %s, want %q", et, hash)
		}
	})
	t.Run("stale hash redirects to the current URL", func(t *testing.T) {
		rec := get(h, "/openapi/v3/apis/toys.example.com/v1?hash=0BSOLETE", "application/json")
		if rec.Code != http.StatusMovedPermanently {
			t.Fatalf("status %d, want 301", rec.Code)
		}
		if loc := rec.Header().Get("Location"); loc != current {
			t.Errorf("Location = %q, want %q", loc, current)
		}
	})
	t.Run("no hash is not cached", func(t *testing.T) {
		rec := get(h, "/openapi/v3/apis/toys.example.com/v1", "")
		if rec.Code != 200 || rec.Header().Get("Cache-Control") != "" {
			t.Errorf("status %d, Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
		}
	})
	t.Run("If-None-Match with the ETag is 304", func(t *testing.T) {
		rec := get(h, "/openapi/v3/apis/toys.example.com/v1", "", "If-None-Match", strconv.Quote(hash))
		if rec.Code != http.StatusNotModified {
			t.Errorf("status %d, want 304", rec.Code)
		}
	})
	t.Run("unknown group version is 404", func(t *testing.T) {
		if rec := get(h, "/openapi/v3/apis/nope.example.com/v1", ""); rec.Code != 404 {
			t.Errorf("status %d, want 404", rec.Code)
		}
	})
}

func TestOpenAPI_AcceptNegotiation(t *testing.T) {
	h := newWidgetsHandler(t)
	const protoV2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	const protoV3 = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	tests := []struct {
		name, path, accept string
		want               int
	}{
		{"v2 JSON", "/openapi/v2", "application/json", 200},
		{"v2 anything", "/openapi/v2", "*/*", 200},
		{"v2 protobuf only (kubectl's fallback) is 406", "/openapi/v2", protoV2, 406},
		{"v2 protobuf then JSON serves JSON", "/openapi/v2", protoV2 + ", application/json", 200},
		{"v3 protobuf only is 406", "/openapi/v3/apis/toys.example.com/v1", protoV3, 406},
		{"v3 JSON excluded by q=0 is 406", "/openapi/v3/apis/toys.example.com/v1", "application/json;q=0", 406},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(h, tt.path, tt.accept)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d", rec.Code, tt.want)
			}
			if tt.want == 200 {
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				if et := rec.Header().Get("ETag"); et != strconv.Quote(openapi.Hash(rec.Body.Bytes())) {
					t.Errorf("ETag %s is not the hash of the body", et)
				}
				if !strings.Contains(rec.Header().Get("Vary"), "Accept") {
					t.Errorf("Vary = %q", rec.Header().Get("Vary"))
				}
			}
		})
	}
}

func TestOpenAPIV2_DescribesKindsAndPatchParameters(t *testing.T) {
	rec := get(newWidgetsHandler(t), "/openapi/v2", "application/json")
	var doc struct {
		Swagger     string
		Definitions map[string]map[string]any
		Paths       map[string]map[string]any
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" {
		t.Errorf("swagger = %q", doc.Swagger)
	}
	for _, name := range []string{"com.example.toys.v1.Widget", "com.example.toys.v1alpha1.Widget", "com.example.toys.v1.Warehouse"} {
		if _, ok := doc.Definitions[name]; !ok {
			t.Errorf("definition %s missing", name)
		}
	}
	patch, ok := doc.Paths["/apis/toys.example.com/v1alpha1/namespaces/{namespace}/widgets/{name}"]["patch"].(map[string]any)
	if !ok {
		t.Fatalf("no PATCH operation for v1alpha1 widgets; paths: %v", doc.Paths)
	}
	found := false
	for _, p := range patch["parameters"].([]any) {
		p := p.(map[string]any)
		if p["name"] == "fieldValidation" && p["in"] == "query" && p["type"] == "string" {
			found = true
		}
	}
	if !found {
		t.Errorf("PATCH lacks the fieldValidation query parameter: %v", patch["parameters"])
	}
	gvk := patch["x-kubernetes-group-version-kind"].(map[string]any)
	if gvk["version"] != "v1alpha1" || gvk["kind"] != "Widget" {
		t.Errorf("x-kubernetes-group-version-kind = %v", gvk)
	}
}

func TestRouting_UnknownPathsMethodsAndHead(t *testing.T) {
	h := newWidgetsHandler(t)
	tests := []struct {
		name, method, path string
		want               int
		wantReason         string
	}{
		{"unknown group", "GET", "/apis/nope.example.com", 404, "NotFound"},
		{"unknown version", "GET", "/apis/toys.example.com/v9", 404, "NotFound"},
		{"core group absent", "GET", "/api/v1", 404, "NotFound"},
		{"resource path is not discovery", "GET", "/apis/toys.example.com/v1/widgets", 404, "NotFound"},
		{"trailing slash", "GET", "/apis/toys.example.com/", 200, ""},
		{"POST", "POST", "/apis", 405, "MethodNotAllowed"},
		{"HEAD", "HEAD", "/apis/toys.example.com/v1", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d", rec.Code, tt.want)
			}
			if tt.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD has a body")
			}
			if tt.wantReason != "" {
				var st scheme.Status
				if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
					t.Fatal(err)
				}
				if string(st.Reason) != tt.wantReason || st.Code != int32(tt.want) || st.Kind != "Status" {
					t.Errorf("Status = %+v", st)
				}
			}
		})
	}
}

func TestNew_CoreGroupIsServedUnderAPI(t *testing.T) {
	s := scheme.New()
	gv := scheme.GroupVersion{Version: "v1"}
	s.AddKnownTypes(gv, &Gadget{}, &GadgetList{})
	if err := s.AddResource(scheme.Resource{Kind: "Gadget", Plural: "gadgets", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	h, err := discovery.New(s, discovery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var versions discovery.APIVersions
	rec := get(h, "/api", "application/json")
	if err := json.Unmarshal(rec.Body.Bytes(), &versions); err != nil {
		t.Fatal(err)
	}
	if len(versions.Versions) != 1 || versions.Versions[0] != "v1" {
		t.Errorf("/api versions = %v, want [v1]", versions.Versions)
	}
	if len(versions.ServerAddressByClientCIDRs) != 1 || versions.ServerAddressByClientCIDRs[0].ServerAddress != "example.com" {
		t.Errorf("serverAddressByClientCIDRs = %+v, want the request's host", versions.ServerAddressByClientCIDRs)
	}
	var list discovery.APIResourceList
	if err := json.Unmarshal(get(h, "/api/v1", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if list.GroupVersion != "v1" || len(list.Resources) != 1 || list.Resources[0].StorageVersionHash != discovery.StorageVersionHash("", "v1", "Gadget") {
		t.Errorf("/api/v1 = %+v", list)
	}
	var groups discovery.APIGroupList
	if err := json.Unmarshal(get(h, "/apis", "").Body.Bytes(), &groups); err != nil {
		t.Fatal(err)
	}
	if len(groups.Groups) != 0 {
		t.Errorf("/apis lists the core group: %+v", groups)
	}
	var agg discovery.APIGroupDiscoveryList
	if err := json.Unmarshal(get(h, "/api", acceptV2).Body.Bytes(), &agg); err != nil {
		t.Fatal(err)
	}
	if len(agg.Items) != 1 || agg.Items[0].Metadata.Name != "" || agg.Items[0].Versions[0].Resources[0].Resource != "gadgets" {
		t.Errorf("aggregated /api = %+v", agg)
	}
}

// The verbs discovery lists are the resource's (scheme.Resource.Verbs), which the
// handler serves too: kube's sorted list by default, fewer where kube serves fewer.
func TestNew_ListsTheVerbsOfEachResource(t *testing.T) {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "g.example.com", Version: "v1"}
	s.AddKnownTypes(gv, &Gadget{}, &GadgetList{}, &Gizmo{}, &GizmoList{}, &Gear{}, &GearList{})
	for _, r := range []scheme.Resource{
		{Group: gv.Group, Kind: "Gadget", Plural: "gadgets"},
		{Group: gv.Group, Kind: "Gizmo", Plural: "gizmos", Verbs: []string{"create"}},
		{Group: gv.Group, Kind: "Gear", Plural: "gears", Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
	} {
		if err := s.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	h, err := discovery.New(s, discovery.Options{Version: discovery.VersionInfo{Minor: "33", GitVersion: "v1.33.1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gadgets": "create,delete,deletecollection,get,list,patch,update,watch",
		"gizmos":  "create",
		"gears":   "create,delete,get,list,patch,update,watch",
	}
	var list discovery.APIResourceList
	if err := json.Unmarshal(get(h, "/apis/g.example.com/v1", "").Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	var agg discovery.APIGroupDiscoveryList
	if err := json.Unmarshal(get(h, "/apis", acceptV2).Body.Bytes(), &agg); err != nil {
		t.Fatal(err)
	}
	got, gotAgg := map[string]string{}, map[string]string{}
	for _, r := range list.Resources {
		got[r.Name] = strings.Join(r.Verbs, ",")
	}
	for _, r := range agg.Items[0].Versions[0].Resources {
		gotAgg[r.Resource] = strings.Join(r.Verbs, ",")
	}
	if !maps.Equal(got, want) || !maps.Equal(gotAgg, want) {
		t.Errorf("verbs of /apis/g.example.com/v1 = %v, aggregated %v; want %v", got, gotAgg, want)
	}
	var v discovery.VersionInfo
	if err := json.Unmarshal(get(h, "/version", "").Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	def := discovery.DefaultVersion()
	if v.Major != "1" || v.Minor != "33" || v.GitVersion != "v1.33.1" || v.GoVersion != def.GoVersion || v.Platform != def.Platform {
		t.Errorf("/version = %+v", v)
	}
	var empty discovery.APIVersions
	if err := json.Unmarshal(get(h, "/api", "").Body.Bytes(), &empty); err != nil {
		t.Fatal(err)
	}
	if empty.Versions == nil || len(empty.Versions) != 0 {
		t.Errorf("/api without a core group: versions = %#v, want []", empty.Versions)
	}
}

// As kube-apiserver's, a resource's storageVersionHash is that of where its objects
// are stored (events.k8s.io's events are the core events), and a resource that stores
// nothing (create-only, like the reviews) has none.
func TestNew_StorageVersionHashIsThatOfTheStorage(t *testing.T) {
	s := scheme.New()
	gv := scheme.GroupVersion{Group: "g.example.com", Version: "v1"}
	other := scheme.GroupVersion{Group: "h.example.com", Version: "v2"}
	s.AddKnownTypes(gv, &Gadget{}, &GadgetList{}, &Gizmo{}, &GizmoList{})
	s.AddKnownTypes(other, &Gadget{}, &GadgetList{})
	for _, r := range []scheme.Resource{
		{Group: gv.Group, Kind: "Gadget", Plural: "gadgets"},
		{Group: other.Group, Kind: "Gadget", Plural: "gadgets", SharesStorageWith: scheme.GroupResource{Group: gv.Group, Resource: "gadgets"}},
		{Group: gv.Group, Kind: "Gizmo", Plural: "gizmos", Verbs: []string{"create"}},
	} {
		if err := s.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	h, err := discovery.New(s, discovery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stored := discovery.StorageVersionHash(gv.Group, gv.Version, "Gadget")
	for _, tt := range []struct{ path, resource, want string }{
		{"/apis/g.example.com/v1", "gadgets", stored},
		{"/apis/h.example.com/v2", "gadgets", stored},
		{"/apis/g.example.com/v1", "gizmos", ""},
	} {
		var list discovery.APIResourceList
		if err := json.Unmarshal(get(h, tt.path, "").Body.Bytes(), &list); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range list.Resources {
			if r.Name == tt.resource {
				found = true
				if r.StorageVersionHash != tt.want {
					t.Errorf("%s %s: storageVersionHash %q, want %q", tt.path, tt.resource, r.StorageVersionHash, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s does not list %s", tt.path, tt.resource)
		}
	}
}

// Gadget is a minimal kind for tests that need their own scheme.
type Gadget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
}

// GadgetList is the list kind of Gadget.
type GadgetList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// Gizmo and Gear are kinds beside Gadget with verbs of their own.
type (
	Gizmo     Gadget
	GizmoList GadgetList
	Gear      Gadget
	GearList  GadgetList
)

func TestNew_LazyOpenAPIServesTheSameDocuments(t *testing.T) {
	eager := newWidgetsHandler(t)
	lazy, err := discovery.New(testapi.NewScheme(), discovery.Options{Version: fixedVersion, ServerAddress: "127.0.0.1:6443", LazyOpenAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/apis/toys.example.com/v1alpha1"} {
		a, b := get(eager, path, ""), get(lazy, path, "")
		if a.Code != 200 || b.Code != 200 || a.Body.String() != b.Body.String() {
			t.Errorf("GET %s: eager %d and lazy %d bodies differ", path, a.Code, b.Code)
		}
	}
}

func TestNew_OpenAPIBuildErrors(t *testing.T) {
	newScheme := func() *scheme.Scheme {
		s := scheme.New()
		gv := scheme.GroupVersion{Group: "bad.example.com", Version: "v1"}
		s.AddKnownTypes(gv, &Gadget{}, &GadgetList{})
		if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Gadget", Plural: "gadgets"}); err != nil {
			t.Fatal(err)
		}
		openapi.Customize[Gadget](s, func(sc *openapi.Schema) {
			sc.Properties["bad"] = &openapi.Schema{Type: "array", ListType: "map", ListMapKeys: []string{"missing"}, Items: &openapi.Schema{Type: "object"}}
		})
		return s
	}
	if _, err := discovery.New(newScheme(), discovery.Options{}); err == nil {
		t.Error("New accepted a list map whose key its items lack")
	}
	h, err := discovery.New(newScheme(), discovery.Options{LazyOpenAPI: true})
	if err != nil {
		t.Fatalf("lazy New failed: %v", err)
	}
	if rec := get(h, "/openapi/v3", ""); rec.Code != 500 || !strings.Contains(rec.Body.String(), "missing") {
		t.Errorf("lazy build error: status %d body %s", rec.Code, rec.Body)
	}
	if rec := get(h, "/apis", ""); rec.Code != 200 {
		t.Errorf("discovery broken by an OpenAPI error: %d", rec.Code)
	}
}
