package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/validation"
)

// widgetStrategy wires the example validation into the Strategy hooks.
type widgetStrategy struct{}

func (widgetStrategy) Validate(_ context.Context, obj scheme.Object) validation.ErrorList {
	return testapi.ValidateWidget(obj.(*toys.Widget))
}

func (widgetStrategy) ValidateUpdate(_ context.Context, obj, old scheme.Object) validation.ErrorList {
	return testapi.ValidateWidgetUpdate(obj.(*toys.Widget), old.(*toys.Widget))
}

func (widgetStrategy) WarningsOnCreate(_ context.Context, obj scheme.Object) []string {
	if obj.(*toys.Widget).Spec.Color == "red" {
		return []string{"red widgets fade"}
	}
	return nil
}

const (
	widgetsPath    = "/apis/toys.example.com/v1/namespaces/default/widgets"
	warehousesPath = "/apis/toys.example.com/v1/warehouses"
)

type testServer struct {
	t     testing.TB
	url   string
	store *memory.Store
	// keyPrefixes are the storage prefixes of the served resources: no response may
	// contain one, since storage keys are internal (see do).
	keyPrefixes []string
}

func newServer(t testing.TB, mod func(*rest.Options)) *testServer {
	t.Helper()
	h, opts, store := newTestHandler(t, mod)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var prefixes []string
	for _, r := range opts.Scheme.Resources() {
		prefixes = append(prefixes, storage.Prefix(r.GroupResource(), ""))
	}
	return &testServer{t: t, url: srv.URL, store: store, keyPrefixes: prefixes}
}

// newTestHandler is the Handler of newServer, over a memory store, and its options.
func newTestHandler(t testing.TB, mod func(*rest.Options)) (*rest.Handler, rest.Options, *memory.Store) {
	t.Helper()
	s := testapi.NewScheme()
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	opts := rest.Options{
		Scheme:         s,
		Storage:        store,
		AllowAnonymous: true,
		Authorizer:     authz.AlwaysAllow{},
		Strategies:     map[scheme.GroupResource]rest.Strategy{{Group: testapi.Group, Resource: "widgets"}: widgetStrategy{}},
	}
	if mod != nil {
		mod(&opts)
	}
	h, err := rest.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h, opts, store
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, r.body)
	}
	return m
}

func (s *testServer) do(method, path, contentType, body string, hdr ...string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, p := range s.keyPrefixes {
		if bytes.Contains(b, []byte(p)) {
			s.t.Errorf("%s %s: the response names a storage key under %s: %s", method, path, p, b)
		}
	}
	return response{code: res.StatusCode, header: res.Header, body: b}
}

func widgetJSON(name, color string, extra ...string) string {
	meta := `"name":"` + name + `"`
	if len(extra) > 0 {
		meta += "," + extra[0]
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{` + meta + `},"spec":{"color":"` + color + `"}}`
}

func (s *testServer) create(name, color string, extra ...string) map[string]any {
	s.t.Helper()
	r := s.do("POST", widgetsPath, "application/json", widgetJSON(name, color, extra...))
	if r.code != http.StatusCreated {
		s.t.Fatalf("create %s: %d %s", name, r.code, r.body)
	}
	return r.json(s.t)
}

func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
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
