package rest_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func TestErrors_CarryKubeCodesReasonsAndMessages(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.MaxRequestBodyBytes = 1024 })
	s.create("taken", "blue")
	tests := []struct {
		name, method, path, ctype, body string
		code                            int
		reason, message                 string
	}{
		{"missing object is NotFound", "GET", widgetsPath + "/nope", "", "", 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"unknown resource is NotFound", "GET", "/apis/toys.example.com/v1/namespaces/default/gadgets", "", "", 404, "NotFound", "the server could not find the requested resource"},
		{"unknown version is NotFound", "GET", "/apis/toys.example.com/v9/warehouses", "", "", 404, "NotFound", "the server could not find the requested resource"},
		{"duplicate create is AlreadyExists", "POST", widgetsPath, "application/json", widgetJSON("taken", "blue"), 409, "AlreadyExists", `widgets.toys.example.com "taken" already exists`},
		{"invalid object is Invalid", "POST", widgetsPath, "application/json", widgetJSON("x", "pink"), 422, "Invalid", `Widget.toys.example.com "x" is invalid: spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`},
		{"bad JSON is BadRequest", "POST", widgetsPath, "application/json", `{"kind":`, 400, "BadRequest", ""},
		{"wrong apiVersion is BadRequest", "POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1alpha1","kind":"Widget","metadata":{"name":"x"}}`, 400, "BadRequest", "the API version in the data (toys.example.com/v1alpha1) does not match the expected API version (toys.example.com/v1)"},
		{"namespace mismatch is BadRequest", "POST", widgetsPath, "application/json", widgetJSON("x", "blue", `"namespace":"other"`), 400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"},
		{"wrong method is MethodNotAllowed", "POST", widgetsPath + "/taken", "application/json", widgetJSON("taken", "blue"), 405, "MethodNotAllowed", ""},
		{"protobuf body for a kind without protobuf is UnsupportedMediaType", "POST", "/apis/toys.example.com/v1alpha1/namespaces/default/widgets", "application/vnd.kubernetes.protobuf", "x", 415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/cbor"},
		{"CBOR apply patch to /scale is UnsupportedMediaType", "PATCH", widgetsPath + "/taken/scale?fieldManager=m", "application/apply-patch+cbor", "{}", 415, "UnsupportedMediaType", ""},
		{"large body is RequestEntityTooLarge", "POST", widgetsPath, "application/json", widgetJSON("big", strings.Repeat("b", 2048)), 413, "RequestEntityTooLarge", "Request entity too large: limit is 1024"},
		{"unsupported field selector is BadRequest", "GET", widgetsPath + "?fieldSelector=spec.size%3D1", "", "", 400, "BadRequest", "field label not supported: spec.size"},
		{"bad label selector is BadRequest", "GET", widgetsPath + "?labelSelector=a%20in", "", "", 400, "BadRequest", ""},
		{"bad continue is BadRequest", "GET", widgetsPath + "?limit=1&continue=xyz", "", "", 400, "BadRequest", ""},
		{"stale update is Conflict", "PUT", widgetsPath + "/taken", "application/json", widgetJSON("taken", "green", `"resourceVersion":"999999"`), 409, "Conflict", `Operation cannot be fulfilled on widgets.toys.example.com "taken": the object has been modified; please apply your changes to the latest version and try again`},
		{"name mismatch on update is BadRequest", "PUT", widgetsPath + "/taken", "application/json", widgetJSON("other", "green"), 400, "BadRequest", "the name of the object (other) does not match the name on the URL (taken)"},
		{"unknown dryRun value is Invalid", "POST", widgetsPath + "?dryRun=Some", "application/json", widgetJSON("x", "blue"), 422, "Invalid", ""},
		{"nothing acceptable is NotAcceptable", "GET", widgetsPath + "/taken", "", "", 406, "NotAcceptable", "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor"},
		{"invalid json patch is Invalid", "PATCH", widgetsPath + "/taken", "application/json-patch+json", `[{"op":"remove","path":"/spec/nothere"}]`, 422, "Invalid", "the server rejected our request due to an error in our request"},
		{"patch of a missing object is NotFound", "PATCH", widgetsPath + "/nope", "application/merge-patch+json", `{}`, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"Exact at resourceVersion 0 is Invalid ListOptions", "GET", widgetsPath + "?resourceVersionMatch=Exact&resourceVersion=0", "", "", 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"resourceVersionMatch without resourceVersion is Invalid ListOptions", "GET", widgetsPath + "?resourceVersionMatch=NotOlderThan", "", "", 422, "Invalid", `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"continue with a resourceVersion is BadRequest without storage keys", "GET", widgetsPath + "?limit=1&continue=abc&resourceVersion=5", "", "", 400, "BadRequest", "specifying resource version is not allowed when using continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.code == 406 {
				hdr = []string{"Accept", "text/html"}
			}
			r := s.do(tt.method, tt.path, tt.ctype, tt.body, hdr...)
			if r.code != tt.code {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.code, r.body)
			}
			m := r.json(t)
			if m["kind"] != "Status" || m["status"] != "Failure" || m["reason"] != tt.reason || m["code"] != float64(tt.code) {
				t.Errorf("status = %s, want reason %s", r.body, tt.reason)
			}
			if tt.message != "" && m["message"] != tt.message {
				t.Errorf("message = %q, want %q", m["message"], tt.message)
			}
		})
	}
}

func TestCreate_SetsServerFieldsAndGeneratesNames(t *testing.T) {
	s := newServer(t, nil)
	w := s.create("", "blue", `"generateName":"gen-","namespace":"default","resourceVersion":""`)
	name, _ := get(w, "metadata", "name").(string)
	if !strings.HasPrefix(name, "gen-") || len(name) != len("gen-")+5 {
		t.Errorf("generated name = %q", name)
	}
	for _, f := range []string{"uid", "creationTimestamp", "resourceVersion"} {
		if get(w, "metadata", f) == nil {
			t.Errorf("metadata.%s not set: %v", f, w)
		}
	}
	if get(w, "metadata", "generation") != float64(1) || get(w, "spec", "replicas") != float64(1) {
		t.Errorf("generation/defaults wrong: %v", w)
	}
}

func TestUpdate_BumpsGenerationOnlyOnSpecChangesAndKeepsStatus(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	steps := []struct {
		name, method, path, ctype, body string
		wantGen                         float64
		wantPhase                       any
	}{
		{"label change keeps generation", "PATCH", "/a", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`, 1, nil},
		{"status on main resource is ignored", "PATCH", "/a", "application/merge-patch+json", `{"status":{"phase":"Ready"}}`, 1, nil},
		{"status subresource changes only status", "PATCH", "/a/status", "application/merge-patch+json", `{"spec":{"color":"red"},"status":{"phase":"Ready"}}`, 1, "Ready"},
		{"spec change bumps generation", "PATCH", "/a", "application/json-patch+json", `[{"op":"replace","path":"/spec/color","value":"green"}]`, 2, "Ready"},
		{"scale writes spec.replicas", "PATCH", "/a/scale", "application/merge-patch+json", `{"spec":{"replicas":4}}`, 3, "Ready"},
	}
	for _, st := range steps {
		r := s.do(st.method, widgetsPath+st.path, st.ctype, st.body)
		if r.code != 200 {
			t.Fatalf("%s: %d %s", st.name, r.code, r.body)
		}
		g := s.do("GET", widgetsPath+"/a", "", "").json(t)
		if get(g, "metadata", "generation") != st.wantGen || get(g, "status", "phase") != st.wantPhase {
			t.Errorf("%s: generation %v phase %v, want %v %v", st.name, get(g, "metadata", "generation"), get(g, "status", "phase"), st.wantGen, st.wantPhase)
		}
	}
	g := s.do("GET", widgetsPath+"/a", "", "").json(t)
	if get(g, "spec", "color") != "green" || get(g, "spec", "replicas") != float64(4) {
		t.Errorf("final spec = %v", g["spec"])
	}
	sc := s.do("GET", widgetsPath+"/a/scale", "", "").json(t)
	if sc["kind"] != "Scale" || get(sc, "spec", "replicas") != float64(4) {
		t.Errorf("scale = %v", sc)
	}
}

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

func TestFieldValidation_IgnoreWarnStrict(t *testing.T) {
	s := newServer(t, nil)
	body := `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"NAME"},"spec":{"color":"blue","foo":1,"color":"blue"}}`
	tests := []struct {
		mode     string
		code     int
		warnings int
	}{{"Ignore", 201, 0}, {"", 201, 2}, {"Warn", 201, 2}, {"Strict", 400, 0}}
	for i, tt := range tests {
		name := "fv" + string(rune('a'+i))
		r := s.do("POST", widgetsPath+"?fieldValidation="+tt.mode, "application/json", strings.Replace(body, "NAME", name, 1))
		if r.code != tt.code || len(r.header.Values("Warning")) != tt.warnings {
			t.Errorf("mode %q: %d warnings %q: %s", tt.mode, r.code, r.header.Values("Warning"), r.body)
		}
		if tt.warnings > 0 && r.header.Values("Warning")[0] != `299 - "unknown field \"spec.foo\""` {
			t.Errorf("warning format: %q", r.header.Values("Warning")[0])
		}
		if tt.mode == "Strict" && !strings.Contains(string(r.body), `unknown field \"spec.foo\", duplicate field \"spec.color\"`) {
			t.Errorf("strict message: %s", r.body)
		}
	}
}

func TestList_SelectorsAndPaging(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue", `"labels":{"tier":"one"}`)
	s.create("b", "red", `"labels":{"tier":"two"}`)
	s.create("c", "red")
	tests := []struct {
		query string
		want  []string
	}{
		{"labelSelector=tier%20in%20(one,two)", []string{"a", "b"}},
		{"labelSelector=!tier", []string{"c"}},
		{"fieldSelector=spec.color%3Dred", []string{"b", "c"}},
		{"fieldSelector=metadata.name!%3Db", []string{"a", "c"}},
	}
	for _, tt := range tests {
		l := s.do("GET", widgetsPath+"?"+tt.query, "", "").json(t)
		var got []string
		for _, it := range l["items"].([]any) {
			got = append(got, get(it.(map[string]any), "metadata", "name").(string))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v want %v", tt.query, got, tt.want)
		}
	}
	page := s.do("GET", widgetsPath+"?limit=2", "", "").json(t)
	cont, _ := get(page, "metadata", "continue").(string)
	if len(page["items"].([]any)) != 2 || cont == "" {
		t.Fatalf("first page: %v", page)
	}
	next := s.do("GET", widgetsPath+"?limit=2&continue="+cont, "", "").json(t)
	if len(next["items"].([]any)) != 1 || get(next, "metadata", "continue") != nil {
		t.Errorf("second page: %v", next)
	}
}

func TestWatch_StreamsFramedEventsAndExpiredErrors(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	r := s.do("GET", widgetsPath+"?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "", "")
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if r.code != 200 || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"ADDED","object":{"kind":"Widget"`) ||
		!strings.HasPrefix(lines[1], `{"type":"BOOKMARK"`) || !strings.Contains(lines[1], "k8s.io/initial-events-end") {
		t.Errorf("watch list stream: %d %q", r.code, lines)
	}
	if r := s.do("GET", widgetsPath+"?watch=1&sendInitialEvents=true", "", ""); r.code != 422 {
		t.Errorf("sendInitialEvents without NotOlderThan: %d %s", r.code, r.body)
	}
	s.create("w2", "blue")
	s.create("w3", "blue")
	if err := s.store.Compact(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	r = s.do("GET", widgetsPath+"?watch=1&resourceVersion=1&timeoutSeconds=1", "", "")
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	if !sc.Scan() || !strings.Contains(sc.Text(), `"type":"ERROR"`) || !strings.Contains(sc.Text(), `"code":410`) || !strings.Contains(sc.Text(), `"reason":"Expired"`) {
		t.Errorf("expired watch: %d %s", r.code, r.body)
	}
}

type panicAuthorizer struct{}

func (panicAuthorizer) Authorize(context.Context, authz.Attributes) (bool, string, error) {
	panic("boom")
}

type tokenAuth struct{}

func (tokenAuth) Authenticate(r *http.Request) (*authn.User, bool, error) {
	if r.Header.Get("Authorization") == "Bearer good" {
		return &authn.User{Name: "alice"}, true, nil
	}
	return nil, false, nil
}

type denyWrites struct{}

func (denyWrites) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	return a.Verb != "create", "writes are off", nil
}

type denyAdmission struct{}

func (denyAdmission) Validate(_ context.Context, a rest.AdmissionAttributes, obj scheme.Object) error {
	if a.Operation == rest.OperationCreate && obj.GetName() == "blocked" {
		return errors.New("name is blocked")
	}
	return nil
}

func TestHooks_AuthnAuthzAdmissionAndPanics(t *testing.T) {
	p := newServer(t, func(o *rest.Options) { o.Authorizer = panicAuthorizer{} })
	if r := p.do("GET", widgetsPath, "", ""); r.code != 500 || r.json(t)["reason"] != "InternalError" {
		t.Errorf("panic: %d %s", r.code, r.body)
	}
	if r := p.do("GET", widgetsPath, "", ""); r.code != 500 {
		t.Errorf("server died after panic: %d", r.code)
	}

	s := newServer(t, func(o *rest.Options) {
		o.Authenticator, o.AllowAnonymous, o.AllowBearerTokensOverHTTP = tokenAuth{}, false, true
		o.Authorizer = denyWrites{}
		o.ValidatingAdmission = []rest.ValidatingAdmission{denyAdmission{}}
	})
	if r := s.do("GET", widgetsPath, "", ""); r.code != 401 || r.json(t)["reason"] != "Unauthorized" {
		t.Errorf("no token: %d %s", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath, "", "", "Authorization", "Bearer good"); r.code != 200 {
		t.Errorf("good token: %d %s", r.code, r.body)
	}
	r := s.do("POST", widgetsPath, "application/json", widgetJSON("x", "blue"), "Authorization", "Bearer good")
	want := `widgets.toys.example.com is forbidden: User "alice" cannot create resource "widgets" in API group "toys.example.com" in the namespace "default": writes are off`
	if r.code != 403 || r.json(t)["message"] != want {
		t.Errorf("authz deny: %d %s", r.code, r.body)
	}

	a := newServer(t, func(o *rest.Options) { o.ValidatingAdmission = []rest.ValidatingAdmission{denyAdmission{}} })
	r = a.do("POST", widgetsPath, "application/json", widgetJSON("blocked", "blue"))
	if r.code != 403 || r.json(t)["message"] != `widgets.toys.example.com "blocked" is forbidden: name is blocked` {
		t.Errorf("admission deny: %d %s", r.code, r.body)
	}
}

func TestHealthAndTables(t *testing.T) {
	s := newServer(t, nil)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if r := s.do("GET", p, "", ""); r.code != 200 || string(r.body) != "ok" {
			t.Errorf("%s: %d %q", p, r.code, r.body)
		}
	}
	s.create("m", "blue")
	r := s.do("GET", widgetsPath, "", "", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	m := r.json(t)
	if m["kind"] != "PartialObjectMetadataList" || get(m["items"].([]any)[0].(map[string]any), "spec") != nil {
		t.Errorf("partial metadata: %s", r.body)
	}
	r = s.do("GET", widgetsPath, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	if m := r.json(t); r.code != 200 || m["kind"] != "Table" || !strings.Contains(string(r.body), `"Color"`) {
		t.Errorf("table: %d %s", r.code, r.body)
	}
	r = s.do("GET", warehousesPath, "", "", "Accept", "application/yaml")
	if r.code != 200 || !strings.HasPrefix(string(r.body), "apiVersion: toys.example.com/v1") {
		t.Errorf("yaml list: %d %s", r.code, r.body)
	}
}

func TestUpdate_BodyWithoutNamespaceTakesThePathNamespace(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	r := s.do("PUT", widgetsPath+"/w", "application/json", widgetJSON("w", "green"))
	if r.code != http.StatusOK {
		t.Fatalf("PUT without metadata.namespace = %d: %s", r.code, r.body)
	}
	m := r.json(t)
	if get(m, "metadata", "namespace") != "default" || get(m, "spec", "color") != "green" {
		t.Errorf("updated object = %s", r.body)
	}
	r = s.do("PUT", widgetsPath+"/w", "application/json", widgetJSON("w", "red", `"namespace":"other"`))
	if r.code != http.StatusBadRequest {
		t.Errorf("PUT with another namespace = %d, want 400: %s", r.code, r.body)
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
