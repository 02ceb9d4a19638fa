package apitest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/registry"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

type rejectAll struct{}

func (rejectAll) Validate(context.Context, scheme.Object) validation.ErrorList {
	return validation.ErrorList{validation.Forbidden(validation.NewPath("spec"), "rejected by the test strategy")}
}

type denyAll struct{}

func (denyAll) Authorize(context.Context, authz.Attributes) (bool, string, error) {
	return false, "denied by the test authorizer", nil
}

type admissionFunc func() error

func (f admissionFunc) Admit(context.Context, registry.AdmissionAttributes, scheme.Object) error {
	return f()
}

func (f admissionFunc) Validate(context.Context, registry.AdmissionAttributes, scheme.Object) error {
	return f()
}

type headerAuthenticator struct{}

func (headerAuthenticator) Authenticate(r *http.Request) (*authn.User, bool, error) {
	if r.Header.Get("X-Test-User") == "" {
		return nil, false, nil
	}
	return &authn.User{Name: r.Header.Get("X-Test-User")}, true, nil
}

func TestOptions_ReachTheHandler(t *testing.T) {
	widgets := scheme.GroupResource{Group: testapi.Group, Resource: "widgets"}
	tests := []struct {
		name     string
		opts     apitest.Options
		body     string
		header   http.Header
		want     int
		wantBody string
	}{
		{name: "no options accept a valid widget", want: http.StatusCreated},
		{name: "REST.Strategies validate", opts: apitest.Options{REST: rest.Options{Strategies: map[scheme.GroupResource]registry.Strategy{widgets: rejectAll{}}}}, want: http.StatusUnprocessableEntity, wantBody: "rejected by the test strategy"},
		{name: "REST.Authorizer denies", opts: apitest.Options{REST: rest.Options{Authorizer: denyAll{}}}, want: http.StatusForbidden, wantBody: "denied by the test authorizer"},
		{name: "REST.MutatingAdmission rejects", opts: apitest.Options{REST: rest.Options{MutatingAdmission: []registry.MutatingAdmission{admissionFunc(func() error { return errors.New("mutating says no") })}}}, want: http.StatusForbidden, wantBody: "mutating says no"},
		{name: "REST.ValidatingAdmission rejects", opts: apitest.Options{REST: rest.Options{ValidatingAdmission: []registry.ValidatingAdmission{admissionFunc(func() error { return errors.New("validating says no") })}}}, want: http.StatusForbidden, wantBody: "validating says no"},
		{name: "REST.MaxRequestBodyBytes limits the body", opts: apitest.Options{REST: rest.Options{MaxRequestBodyBytes: 16}}, want: http.StatusRequestEntityTooLarge},
		{name: "REST.Authenticator rejects the unknown", opts: apitest.Options{REST: rest.Options{Authenticator: headerAuthenticator{}}}, want: http.StatusUnauthorized},
		{name: "REST.Authenticator accepts its users", opts: apitest.Options{REST: rest.Options{Authenticator: headerAuthenticator{}}}, header: http.Header{"X-Test-User": {"alice"}}, want: http.StatusCreated},
		{name: "REST.Authenticator wins over Token's authenticator", opts: apitest.Options{REST: rest.Options{Authenticator: headerAuthenticator{}}, Token: "t"}, header: http.Header{"X-Test-User": {"bob"}}, want: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apitest.NewServer(t, testapi.NewScheme(), tt.opts)
			code, body := do(t, &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, "POST", srv.URL+widgetsPath, widgetJSON("w"), tt.header)
			if code != tt.want || !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("POST widget = %d %s, want %d with %q", code, body, tt.want, tt.wantBody)
			}
		})
	}
}

func TestOptionsAddr_ListensWhereTold(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{Addr: "127.0.0.1:0"})
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.HasSuffix(srv.URL, ":0") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT", srv.URL)
	}
	if code, body := do(t, srv.Client(), "GET", srv.URL+"/healthz", "", nil); code != http.StatusOK {
		t.Errorf("GET /healthz = %d %s, want 200", code, body)
	}
	if _, err := apitest.Start(t.Context(), testapi.NewScheme(), apitest.Options{Addr: "256.0.0.1:0"}); err == nil || !strings.Contains(err.Error(), "listening") {
		t.Errorf("Start on a bad address = %v, want a listening error", err)
	}
}
