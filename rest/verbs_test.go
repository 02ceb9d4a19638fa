package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// kube-apiserver v1.37.2's answers (compact JSON) for a verb a resource does not serve:
// 405 on a path that serves other verbs, 404 on a path that serves none; no Allow header.
const (
	kubeMethodNotAllowed = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`
	kubePathNotFound     = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`
)

// The handler serves the verbs of scheme.Resource.Verbs, the ones discovery lists, and
// answers the others as kube-apiserver does (what the real server answered for each
// request is in the table).
func TestServeResource_AnswersVerbsTheResourceDoesNotServeAsKube(t *testing.T) {
	s := newNSRuleServer(t, nil)
	const (
		ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
		lsar = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	)
	tests := []struct {
		name         string
		method, path string
		body         string
		want         int
		wantBody     string
	}{
		{name: "deletecollection of namespaces", method: "DELETE", path: "/api/v1/namespaces", want: 405, wantBody: kubeMethodNotAllowed},
		{name: "deletecollection of namespaces with a selector and dry run", method: "DELETE", path: "/api/v1/namespaces?labelSelector=a%3Db&dryRun=All", want: 405, wantBody: kubeMethodNotAllowed},
		{name: "list of selfsubjectaccessreviews", method: "GET", path: ssar, want: 405, wantBody: kubeMethodNotAllowed},
		{name: "watch of selfsubjectaccessreviews", method: "GET", path: ssar + "?watch=true", want: 405, wantBody: kubeMethodNotAllowed},
		{name: "deletecollection of selfsubjectaccessreviews", method: "DELETE", path: ssar, want: 405, wantBody: kubeMethodNotAllowed},
		{name: "patch of the selfsubjectaccessreviews collection", method: "PATCH", path: ssar, body: "{}", want: 405, wantBody: kubeMethodNotAllowed},
		{name: "get of a selfsubjectaccessreview", method: "GET", path: ssar + "/x", want: 404, wantBody: kubePathNotFound},
		{name: "update of a selfsubjectaccessreview", method: "PUT", path: ssar + "/x", body: "{}", want: 404, wantBody: kubePathNotFound},
		{name: "list of selfsubjectreviews", method: "GET", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", want: 405, wantBody: kubeMethodNotAllowed},
		{name: "list of localsubjectaccessreviews in a namespace", method: "GET", path: lsar, want: 405, wantBody: kubeMethodNotAllowed},
		{name: "list of localsubjectaccessreviews across namespaces", method: "GET", path: "/apis/authorization.k8s.io/v1/localsubjectaccessreviews", want: 404, wantBody: kubePathNotFound},
		{name: "create of a selfsubjectaccessreview is served", method: "POST", path: ssar, want: 201,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`},
		{name: "the namespaces are still listed", method: "GET", path: "/api/v1/namespaces", want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.method, tt.path, "application/merge-patch+json", tt.body)
			if tt.method == "POST" {
				r = s.do(tt.method, tt.path, "application/json", tt.body)
			}
			if r.code != tt.want {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, r.code, r.body, tt.want)
			}
			if tt.wantBody != "" && strings.TrimSpace(string(r.body)) != tt.wantBody {
				t.Errorf("%s %s body:\n got %s\nwant %s", tt.method, tt.path, r.body, tt.wantBody)
			}
			if allow := r.header.Get("Allow"); allow != "" {
				t.Errorf("%s %s: Allow %q, want none (kube sends none)", tt.method, tt.path, allow)
			}
		})
	}
	if r := s.do("GET", "/api/v1/namespaces/default", "", ""); r.code != http.StatusOK {
		t.Errorf("namespace default after the refused deletecollection: %d %s, want 200", r.code, r.body)
	}
}

// A create-only strategy serves "create" alone, so its resource must say so: discovery
// lists Resource.Verbs.
func TestNew_RefusesACreateOnlyStrategyWhoseResourceListsOtherVerbs(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gv := scheme.GroupVersion{Group: "review.example.com", Version: "v1"}
	s.AddUnstructuredKind(gv.WithKind("Review"))
	s.AddUnstructuredKind(gv.WithKind("ReviewList"))
	if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "Review", Plural: "reviews"}); err != nil {
		t.Fatal(err)
	}
	st := strategies.Builtin()
	st[scheme.GroupResource{Group: gv.Group, Resource: "reviews"}] = st[scheme.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}]
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	_, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, Strategies: st})
	if err == nil || !strings.Contains(err.Error(), "reviews.review.example.com") || !strings.Contains(err.Error(), "Verbs") {
		t.Fatalf("rest.New = %v, want an error naming the resource and its Verbs", err)
	}
}
