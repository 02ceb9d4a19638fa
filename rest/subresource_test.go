package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// widgetSubresources are the other subresources the seam's tests serve on widgets: a
// part of the parent (paint: only spec.color changes), an action with a body of
// another kind (ship: a Warehouse sets status.phase), a connection that takes the
// rest of the path (console: its Connector echoes what it was handed), and one listed
// without a strategy (unwired), which must not be served.
var widgetSubresources = []scheme.Subresource{
	{Name: "console", Verbs: []string{"create", "get"}, ConnectMethods: []string{"GET", "POST"}, ConnectPath: true},
	{Name: "paint", Verbs: []string{"get", "patch", "update"}},
	{Name: "ship", Verbs: []string{"create"}, Kind: testapi.V1.WithKind("Warehouse")},
	{Name: "unwired", Verbs: []string{"create"}},
}

// consoleWidget is the "console" Connector: the parent must exist (404), and its
// answer names the method, path, query and upgrade it was handed.
func consoleWidget(ctx context.Context, s *registry.Store, rq registry.Request, name string, c registry.ConnectRequest) (*registry.ConnectAnswer, error) {
	parent := rq
	parent.Subresource = ""
	if _, err := s.Get(ctx, parent, name, storage.GetOptions{}); err != nil {
		return nil, err
	}
	return &registry.ConnectAnswer{ContentType: "text/plain", Body: []byte(fmt.Sprintf("%s %s %s %v", c.Method, c.Path, c.Query.Encode(), c.Upgrade))}, nil
}

// shipWidget is the "ship" Action: it reads the parent through the Store (404 when
// missing) and writes its status.phase with UpdateStored, kube's pods/binding way.
func shipWidget(ctx context.Context, s *registry.Store, rq registry.Request, name string, body scheme.Object) (scheme.Kinded, error) {
	wh := body.(*toys.Warehouse)
	parent := rq
	parent.Subresource = ""
	_, err := s.UpdateStored(ctx, parent, name, nil, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		w := old.(*toys.Widget)
		w.Status.Phase = "ShippedTo" + wh.Spec.Location
		return w, nil
	})
	if err != nil {
		return nil, err
	}
	return &scheme.Status{Status: scheme.StatusSuccess}, nil
}

func newSubresourceServer(t *testing.T, authorizer authz.Authorizer) *testServer {
	t.Helper()
	h, opts, store := newTestHandler(t, func(o *rest.Options) {
		res, _ := o.Scheme.Resource(scheme.GroupResource{Group: testapi.Group, Resource: "widgets"})
		res.OtherSubresources = widgetSubresources
		if authorizer != nil {
			o.Authorizer = authorizer
		}
		o.Strategies = map[scheme.GroupResource]registry.Strategy{{Group: testapi.Group, Resource: "widgets"}: registry.StrategyFor[*toys.Widget]{
			Subresources: map[string]*registry.StrategyFor[*toys.Widget]{"paint": {
				PrepareForUpdate: func(_ context.Context, w, old *toys.Widget) {
					color := w.Spec.Color
					*w = *scheme.DeepCopy(old)
					w.Spec.Color = color
				},
			}},
			Actions:    map[string]registry.Action{"ship": shipWidget},
			Connectors: map[string]registry.Connector{"console": consoleWidget},
		}}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_ = opts
	return &testServer{t: t, url: srv.URL, store: store}
}

func TestOtherSubresources_RoutedWithTheirVerbsKindsAndStrategies(t *testing.T) {
	s := newSubresourceServer(t, nil)
	s.create("w1", "blue")
	tests := []struct {
		name, method, path, ctype, body string
		wantCode                        int
		wantReason, wantMessage         string
	}{
		{"part: get reads the parent", "GET", widgetsPath + "/w1/paint", "", "", 200, "", ""},
		{"part: update changes only what its strategy keeps", "PUT", widgetsPath + "/w1/paint", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"dropped":"yes"}},"spec":{"color":"green","replicas":7}}`, 200, "", ""},
		{"part: patch runs the same strategy", "PATCH", widgetsPath + "/w1/paint", "application/merge-patch+json",
			`{"spec":{"color":"red","replicas":9}}`, 200, "", ""},
		{"part: a missing parent is 404", "PUT", widgetsPath + "/nope/paint", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"nope"},"spec":{"color":"green"}}`, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"part: an unlisted verb is 405", "DELETE", widgetsPath + "/w1/paint", "", "", 405, "MethodNotAllowed", ""},
		{"part: create is not listed", "POST", widgetsPath + "/w1/paint", "application/json", `{}`, 405, "MethodNotAllowed", ""},
		{"action: a body of its kind runs it", "POST", widgetsPath + "/w1/ship", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w1"},"spec":{"location":"Oslo"}}`, 201, "", ""},
		{"action: a body of the parent's kind is 400", "POST", widgetsPath + "/w1/ship", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"x"}}`, 400, "BadRequest", `Widget in version "v1" cannot be handled as a Warehouse: converting (v1.Widget) to (toys.Warehouse): unknown conversion`},
		{"action: a missing parent is 404", "POST", widgetsPath + "/nope/ship", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"nope"},"spec":{"location":"Oslo"}}`, 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"action: get is not listed", "GET", widgetsPath + "/w1/ship", "", "", 405, "MethodNotAllowed", ""},
		{"action: on the collection is 404", "POST", widgetsPath + "/ship", "application/json", `{}`, 405, "MethodNotAllowed", ""},
		{"connect: the path and query handed over", "GET", widgetsPath + "/w1/console/a/b/?tty=1", "", "", 200, "", ""},
		{"connect: a method it does not accept is 405", "DELETE", widgetsPath + "/w1/console", "", "", 405, "MethodNotAllowed", ""},
		{"connect: a missing parent is the Connector's 404", "POST", widgetsPath + "/nope/console", "", "", 404, "NotFound", `widgets.toys.example.com "nope" not found`},
		{"a path past a subresource without ConnectPath is 404", "GET", widgetsPath + "/w1/paint/extra", "", "", 404, "NotFound", ""},
		{"listed without a strategy: not served", "POST", widgetsPath + "/w1/unwired", "application/json", `{}`, 404, "NotFound", ""},
		{"not listed: not served", "GET", widgetsPath + "/w1/other", "", "", 404, "NotFound", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, tt.ctype, tt.body)
			if r.code != tt.wantCode {
				t.Fatalf("%s %s: %d, want %d: %s", tt.method, tt.path, r.code, tt.wantCode, r.body)
			}
			if tt.wantReason == "" {
				return
			}
			m := r.json(t)
			if m["reason"] != tt.wantReason || tt.wantMessage != "" && m["message"] != tt.wantMessage {
				t.Errorf("%s %s: %v %q, want %s %q", tt.method, tt.path, m["reason"], m["message"], tt.wantReason, tt.wantMessage)
			}
		})
	}
	if r := s.do("GET", widgetsPath+"/w1/console/a/b/?tty=1", "", ""); string(r.body) != "GET /a/b/ tty=1 false" {
		t.Errorf("console answered %q, want the method, path and query it was handed", r.body)
	}
	w := s.do("GET", widgetsPath+"/w1", "", "").json(t)
	if got := get(w, "spec", "color"); got != "red" {
		t.Errorf("spec.color = %v, want red (paint's patch)", got)
	}
	if got := get(w, "spec", "replicas"); got != float64(testapi.DefaultReplicas) {
		t.Errorf("spec.replicas = %v, want %d: paint's strategy keeps all but the color", got, testapi.DefaultReplicas)
	}
	if got := get(w, "metadata", "labels"); got != nil {
		t.Errorf("labels = %v: paint's strategy keeps the stored metadata", got)
	}
	if got := get(w, "status", "phase"); got != "ShippedToOslo" {
		t.Errorf("status.phase = %v, want ShippedToOslo (ship's action)", got)
	}
}

func TestOtherSubresources_ActionAnswersKubesStatusIn201(t *testing.T) {
	s := newSubresourceServer(t, nil)
	s.create("w1", "blue")
	r := s.do("POST", widgetsPath+"/w1/ship", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w1"},"spec":{"location":"Rome"}}`)
	m := r.json(t)
	if r.code != 201 || m["kind"] != "Status" || m["apiVersion"] != "v1" || m["status"] != "Success" || m["code"] != float64(201) {
		t.Errorf("ship: %d %s, want 201 and a Success Status with code 201", r.code, r.body)
	}
}

// subresourceAuthorizer allows everything and records what it was asked.
type subresourceAuthorizer struct{ seen *[]authz.Attributes }

func (a subresourceAuthorizer) Authorize(_ context.Context, at authz.Attributes) (bool, string, error) {
	*a.seen = append(*a.seen, at)
	return true, "", nil
}

func TestOtherSubresources_AuthorizedAsTheirSubresource(t *testing.T) {
	var seen []authz.Attributes
	s := newSubresourceServer(t, subresourceAuthorizer{&seen})
	s.create("w1", "blue")
	seen = nil
	s.do("POST", widgetsPath+"/w1/ship", "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Warehouse","metadata":{"name":"w1"},"spec":{"location":"Oslo"}}`)
	s.do("PATCH", widgetsPath+"/w1/paint", "application/merge-patch+json", `{"spec":{"color":"red"}}`)
	want := []struct{ verb, sub string }{{"create", "ship"}, {"patch", "paint"}}
	if len(seen) != len(want) {
		t.Fatalf("authorizer asked %d times, want %d: %+v", len(seen), len(want), seen)
	}
	for i, w := range want {
		a := seen[i]
		if a.Verb != w.verb || a.Resource != "widgets" || a.Subresource != w.sub || a.Name != "w1" || a.Namespace != "default" {
			t.Errorf("authorized %+v, want verb %s on widgets/%s w1 in default", a, w.verb, w.sub)
		}
	}
}

func TestOtherSubresources_ListedInDiscoveryWithTheirVerbsAndKinds(t *testing.T) {
	sch := testapi.NewScheme()
	res, _ := sch.Resource(scheme.GroupResource{Group: testapi.Group, Resource: "widgets"})
	res.OtherSubresources = widgetSubresources
	h, err := discovery.New(sch, discovery.Options{DisableOpenAPIPaths: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/apis/toys.example.com/v1", nil))
	var list struct {
		Resources []struct {
			Name, Kind, Group, Version string
			Verbs                      []string
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	want := map[string]string{
		"widgets/console": "Widget create,get",
		"widgets/paint":   "Widget get,patch,update",
		"widgets/ship":    "Warehouse create",
		"widgets/unwired": "Widget create",
		"widgets/status":  "Widget get,patch,update",
	}
	got := map[string]string{}
	for _, r := range list.Resources {
		if strings.HasPrefix(r.Name, "widgets/") && r.Name != "widgets/scale" {
			got[r.Name] = r.Kind + " " + strings.Join(r.Verbs, ",")
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if !slices.ContainsFunc(list.Resources, func(r struct {
		Name, Kind, Group, Version string
		Verbs                      []string
	}) bool {
		return r.Name == "widgets/ship" && r.Group == "" && r.Version == ""
	}) {
		t.Errorf("widgets/ship names a group or version, though its kind's are the parent's")
	}
}
