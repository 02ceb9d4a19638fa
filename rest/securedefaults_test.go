package rest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage/memory"
)

func TestNew_RefusesAnUnsecuredHandlerUnlessAskedFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts rest.Options
		want string
	}{
		{"no authenticator", rest.Options{Authorizer: authz.AlwaysAllow{}}, "AllowAnonymous"},
		{"no authorizer", rest.Options{Authenticator: tokenAuth{}}, "authz.AlwaysAllow{}"},
		{"anonymous without an authorizer", rest.Options{AllowAnonymous: true}, "Authorizer is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Scheme, tc.opts.Storage = testapi.NewScheme(), memory.New(memory.Options{})
			_, err := rest.New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestHandler_HealthAndVersionArePublicEverythingElseIsNot(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		o.Authenticator, o.AllowAnonymous, o.AllowBearerTokensOverHTTP = tokenAuth{}, false, true
		o.Authorizer = denyWrites{}
	})
	for _, p := range []string{"/healthz", "/livez", "/readyz", "/readyz/ping"} {
		if r := s.do("GET", p, "", ""); r.code != 200 {
			t.Errorf("GET %s without credentials: %d %s, want 200", p, r.code, r.body)
		}
	}
	for _, p := range []string{"/apis", widgetsPath, "/healthzz", "/metrics"} {
		if r := s.do("GET", p, "", ""); r.code != 401 {
			t.Errorf("GET %s without credentials: %d %s, want 401", p, r.code, r.body)
		}
	}
}

func TestHandler_BearerTokenOverPlainHTTPIs401ByDefault(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		o.Authenticator, o.AllowAnonymous = tokenAuth{}, false
	})
	r := s.do("GET", widgetsPath, "", "", "Authorization", "Bearer good")
	if r.code != 401 || r.json(t)["reason"] != "Unauthorized" {
		t.Errorf("token over HTTP: %d %s, want 401 Unauthorized", r.code, r.body)
	}
	// Anonymous access does not turn a refused token into an anonymous request.
	a := newServer(t, func(o *rest.Options) { o.Authenticator = tokenAuth{} })
	if r := a.do("GET", widgetsPath, "", "", "Authorization", "bearer good"); r.code != 401 {
		t.Errorf("token over HTTP with anonymous allowed: %d %s, want 401", r.code, r.body)
	}
	if r := a.do("GET", widgetsPath, "", ""); r.code != 200 {
		t.Errorf("no credentials with anonymous allowed: %d %s, want 200", r.code, r.body)
	}
}

// failingAuthorizer cannot decide: its delegate is down.
type failingAuthorizer struct{}

func (failingAuthorizer) Authorize(context.Context, authz.Attributes) (bool, string, error) {
	return false, "", errors.New("Post https://10.0.0.1/apis/authorization.k8s.io/v1/subjectaccessreviews: connection refused")
}

func TestAuthorize_AnAuthorizerErrorIs500WithoutItsText(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.Authorizer = failingAuthorizer{} })
	r := s.do("GET", widgetsPath, "", "")
	if r.code != 500 || r.json(t)["reason"] != "InternalError" || strings.Contains(string(r.body), "10.0.0.1") {
		t.Errorf("authorizer error: %d %s, want 500 InternalError without the delegate's address", r.code, r.body)
	}
}

func TestAuthorize_DenialEscapesMarkupInTheAttributesAsKube(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.Authorizer = denyWrites{} })
	r := s.do("POST", "/apis/toys.example.com/v1/namespaces/a%3Cb%3E/widgets", "application/json", widgetJSON("x", "blue"))
	want := `widgets.toys.example.com is forbidden: User "system:anonymous" cannot create resource "widgets" in API group "toys.example.com" in the namespace "a&lt;b&gt;": writes are off`
	if r.code != 403 || r.json(t)["message"] != want {
		t.Errorf("denied create: %d %s\nwant 403 %s", r.code, r.body, want)
	}
}
