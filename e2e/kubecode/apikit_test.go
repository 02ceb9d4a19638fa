package kubecode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apikitServer is apikit's side: the built-in kinds (builtin.AddToScheme) with kube's
// write rules (strategies.Builtin()) over memory storage, behind rest.Handler, called
// in-process (ServeHTTP on a recorder: no socket). The handler is the side a client
// sees: it decodes and defaults the body, checks the URL's name and namespace and the
// body's uid, runs the registry's lifecycle (registry.New, which rest.New builds over
// Options.Storage) and writes the Status; calling the registry directly would need a
// copy of each of those steps in this test.
type apikitServer struct {
	h      http.Handler
	scheme *scheme.Scheme
}

func newApikit(tb testing.TB) *apikitServer {
	tb.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h, err := rest.New(rest.Options{Scheme: s, Storage: memory.New(memory.Options{}), Strategies: strategies.Builtin(),
		AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Clock: func() time.Time { return at }})
	if err != nil {
		tb.Fatal(err)
	}
	a := &apikitServer{h: h, scheme: s}
	if r := a.send(http.MethodPost, "/api/v1/namespaces", []byte(`{"metadata":{"name":"ns1"}}`)); r.Code != http.StatusCreated {
		tb.Fatalf("apikit: creating namespace ns1: %d %s", r.Code, r.Message)
	}
	return a
}

// served says whether apikit's scheme has kind at its kube version.
func (a *apikitServer) served(kind string) bool {
	k := Kinds[kind]
	_, ok := a.scheme.Resource(scheme.GroupResource{Group: k.GVK.Group, Resource: k.Resource})
	return ok
}

func collectionPath(kind, namespace string) string {
	k := Kinds[kind]
	p := "/api/v1"
	if k.GVK.Group != "" {
		p = "/apis/" + k.GVK.Group + "/" + k.GVK.Version
	}
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + k.Resource
}

// status is the part of a Status response the comparison reads.
type status struct {
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Details *struct {
		Causes []Cause `json:"causes"`
	} `json:"details"`
}

func (a *apikitServer) send(method, path string, body []byte) Result {
	r := httptest.NewRequest(method, path, strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json")
	w := httptest.NewRecorder()
	a.h.ServeHTTP(w, r)
	res := Result{Code: w.Code}
	if w.Code < 300 {
		res.Object = w.Body.Bytes()
		return res
	}
	var st status
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || st.Kind != "Status" {
		res.Message = fmt.Sprintf("not a Status: %.200s", w.Body.String())
		return res
	}
	res.Reason, res.Message = metav1.StatusReason(st.Reason), st.Message
	if st.Details != nil {
		res.Causes = st.Details.Causes
	}
	return res
}

// Create is apikit's POST of body.
func (a *apikitServer) Create(kind, namespace string, body []byte) Result {
	return a.send(http.MethodPost, collectionPath(kind, namespace), body)
}

// Update is apikit's PUT of body to the object name, or to its subresource for a kind
// of UpdateSubresource.
func (a *apikitServer) Update(kind, namespace, name string, body []byte) Result {
	path := collectionPath(kind, namespace) + "/" + name
	if sub := UpdateSubresource[kind]; sub != "" {
		path += "/" + sub
	}
	return a.send(http.MethodPut, path, body)
}
