package rest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

type panicAuthorizer struct{}

func (panicAuthorizer) Authorize(context.Context, authz.Attributes) (bool, string, error) {
	panic("boom")
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
