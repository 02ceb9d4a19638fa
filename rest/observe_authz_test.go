package rest_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// decidingAuthorizer lets anyone impersonate, allows gets, fails for the object
// "broken" and denies the rest, each with a reason of its own.
type decidingAuthorizer struct{}

func (decidingAuthorizer) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	switch {
	case a.Verb == "impersonate":
		return true, "impersonation allowed", nil
	case a.Name == "broken":
		return false, "", errors.New("authorizer unreachable")
	case a.Verb == "get":
		return true, `allowed by "readers"`, nil
	}
	return false, "writes are off", nil
}

// annotatingAdmission records an annotation of its own and tries to overwrite the
// authorization decision, as a host's admission hook may.
type annotatingAdmission struct{}

func (annotatingAdmission) Validate(ctx context.Context, _ rest.AdmissionAttributes, _ scheme.Object) error {
	rest.AddAuditAnnotation(ctx, "example.com/admitted", "true")
	rest.AddAuditAnnotation(ctx, "authorization.k8s.io/decision", "overwritten")
	return nil
}

func TestAudit_AuthorizationDecisionAnnotatesEventsAfterAuthorization(t *testing.T) {
	for _, tc := range []struct {
		name, method, path string
		header             []string
		code               int
		want               map[string]string
	}{{
		name: "allowed", method: "GET", path: widgetsPath + "/a", code: 404,
		want: map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": `allowed by "readers"`},
	}, {
		name: "denied", method: "DELETE", path: widgetsPath + "/a", code: 403,
		want: map[string]string{"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "writes are off"},
	}, {
		name: "authorizer failed", method: "GET", path: widgetsPath + "/broken", code: 500,
		want: map[string]string{"authorization.k8s.io/reason": "internal error"},
	}, {
		name: "impersonated request keeps its own decision", method: "DELETE", path: widgetsPath + "/a", code: 403,
		header: []string{"Impersonate-User", "bob"},
		want:   map[string]string{"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "writes are off"},
	}, {
		name: "public path is not authorized", method: "GET", path: "/healthz", code: 200,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &recordingSink{}
			s := newServer(t, func(o *rest.Options) {
				o.Authorizer = decidingAuthorizer{}
				o.Logger = slog.New(slog.DiscardHandler)
				o.Audit = &audit.Config{Policy: &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelMetadata}}}, Sink: sink}
			})
			if r := s.do(tc.method, tc.path, "", "", tc.header...); r.code != tc.code {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.code, r.body, tc.code)
			}
			evs := sink.take(t, 2)
			if got := stages(evs); len(got) != 2 || got[0] != audit.StageRequestReceived || got[1] != audit.StageResponseComplete {
				t.Fatalf("stages = %v, want RequestReceived, ResponseComplete", got)
			}
			if evs[0].Annotations != nil {
				t.Errorf("RequestReceived, sent before authorization, has annotations %v", evs[0].Annotations)
			}
			if got := evs[1].Annotations; !maps.Equal(got, tc.want) {
				t.Errorf("ResponseComplete annotations = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAudit_WatchResponseStartedCarriesTheDecision(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) { o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink} })
	_, stop := openWatch(t, s, widgetsPath+"?watch=true")
	stop()
	evs := sink.take(t, 3)
	want := map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}
	if len(evs) != 3 || evs[1].Stage != audit.StageResponseStarted {
		t.Fatalf("stages = %v, want RequestReceived, ResponseStarted, ResponseComplete", stages(evs))
	}
	for _, ev := range evs[1:] {
		if !maps.Equal(ev.Annotations, want) {
			t.Errorf("%s annotations = %v, want %v (AlwaysAllow's empty reason recorded, as kube records it)", ev.Stage, ev.Annotations, want)
		}
	}
}

func TestAddAuditAnnotation_FirstValueOfAKeyStays(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) {
		o.ValidatingAdmission = []rest.ValidatingAdmission{annotatingAdmission{}}
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink}
	})
	if r := s.do("POST", widgetsPath, "application/json", widgetJSON("a", "blue")); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	evs := sink.take(t, 2)
	want := map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "", "example.com/admitted": "true"}
	if len(evs) != 2 || !maps.Equal(evs[1].Annotations, want) {
		t.Fatalf("events %v, last annotations %v, want %v", stages(evs), evs[len(evs)-1].Annotations, want)
	}
	// Outside an audited request it does nothing (and does not panic).
	rest.AddAuditAnnotation(context.Background(), "example.com/admitted", "false")
}
