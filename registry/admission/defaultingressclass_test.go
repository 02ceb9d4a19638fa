package admission_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// class is an IngressClass to create before the Ingress, at its own second.
type class struct {
	name, isDefault string
	second          int64
}

// TestDefaultIngressClass_GivesNewIngressesTheNewestDefaultClass holds kube's
// DefaultIngressClass: a new Ingress without a class gets the class annotated
// is-default-class "true" (exactly that value), the newest of several, the first by
// name of those created in the same second; an Ingress with spec.ingressClassName or
// the deprecated annotation keeps what it has; an update is never defaulted.
func TestDefaultIngressClass_GivesNewIngressesTheNewestDefaultClass(t *testing.T) {
	tests := []struct {
		name     string
		classes  []class
		ingress  map[string]any // spec and metadata changes of the Ingress
		want     any            // spec.ingressClassName as stored (nil: none)
		onUpdate bool
	}{
		{"no default class leaves the ingress without one", []class{{"nginx", "", 1}, {"other", "false", 2}}, nil, nil, false},
		{"only the exact value true marks a default", []class{{"nginx", "True", 1}}, nil, nil, false},
		{"the default class is given", []class{{"nginx", "true", 1}, {"traefik", "", 2}}, nil, "nginx", false},
		{"of several defaults the newest", []class{{"old", "true", 1}, {"new", "true", 5}, {"middle", "true", 3}}, nil, "new", false},
		{"of defaults created together the first name", []class{{"zeta", "true", 4}, {"alpha", "true", 4}}, nil, "alpha", false},
		{"a class name is kept", []class{{"nginx", "true", 1}}, map[string]any{"ingressClassName": "mine"}, "mine", false},
		{"the deprecated annotation is kept", []class{{"nginx", "true", 1}}, map[string]any{"annotation": "traefik"}, nil, false},
		{"an update is not defaulted", []class{{"nginx", "true", 1}}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var now atomic.Int64
			base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			s := scheme.New()
			if err := builtin.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{
				Strategies: strategies.Builtin(), MutatingAdmission: admission.Builtin().Mutating,
				Clock: func() time.Time { return base.Add(time.Duration(now.Load()) * time.Second) },
			}})
			sendExpect(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
			for _, c := range tt.classes {
				now.Store(c.second)
				meta := map[string]any{"name": c.name}
				if c.isDefault != "" {
					meta["annotations"] = map[string]any{"ingressclass.kubernetes.io/is-default-class": c.isDefault}
				}
				sendExpect(t, srv, http.MethodPost, "/apis/networking.k8s.io/v1/ingressclasses", map[string]any{
					"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta,
					"spec": map[string]any{"controller": "example.com/" + c.name}}, http.StatusCreated)
			}
			now.Store(10)
			ing := map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": map[string]any{"name": "web"},
				"spec": map[string]any{"defaultBackend": map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"number": 80}}}}}
			if v, ok := tt.ingress["ingressClassName"]; ok {
				ing["spec"].(map[string]any)["ingressClassName"] = v
			}
			if v, ok := tt.ingress["annotation"]; ok {
				ing["metadata"].(map[string]any)["annotations"] = map[string]any{"kubernetes.io/ingress.class": v}
			}
			const path = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
			var got map[string]any
			if tt.onUpdate {
				// Created with a class, then updated without one: the update keeps none.
				ing["spec"].(map[string]any)["ingressClassName"] = "x"
				created := sendExpect(t, srv, http.MethodPost, path, ing, http.StatusCreated)
				delete(created["spec"].(map[string]any), "ingressClassName")
				got = sendExpect(t, srv, http.MethodPut, path+"/web", created, http.StatusOK)
			} else {
				got = sendExpect(t, srv, http.MethodPost, path, ing, http.StatusCreated)
			}
			if c := got["spec"].(map[string]any)["ingressClassName"]; c != tt.want {
				t.Errorf("spec.ingressClassName %#v, want %#v", c, tt.want)
			}
		})
	}
}

// sendExpect is send (priority_test.go) of a request that must answer want.
func sendExpect(t *testing.T, srv *apitest.Server, method, path string, body any, want int) map[string]any {
	t.Helper()
	r := send(t, srv, method, path, body)
	if r.code != want {
		t.Fatalf("%s %s: %d, want %d: %v", method, path, r.code, want, r.body)
	}
	return r.body
}
