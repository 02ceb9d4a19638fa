package admission_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// BenchmarkConfigMapCreate_Webhooks measures a ConfigMap create over HTTP with
// Builtin()'s plugins but no webhook plugins ("before"), with the webhook plugins and no
// configuration, and with one matching validating and one matching mutating webhook
// (a local TLS server that allows, the mutating one patching a label).
func BenchmarkConfigMapCreate_Webhooks(b *testing.B) {
	for _, mode := range []string{"before", "no-configurations", "one-validating", "one-mutating"} {
		b.Run(mode, func(b *testing.B) {
			s := scheme.New()
			if err := builtin.AddToScheme(s); err != nil {
				b.Fatal(err)
			}
			p := admission.Builtin()
			if mode == "before" {
				p.Mutating = dropWebhooks(p.Mutating)
				p.Validating = dropWebhooks(p.Validating)
			}
			srv := apitest.NewServer(b, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(),
				MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
			post := func(path string, body any) {
				raw, _ := json.Marshal(body)
				resp, err := srv.Client().Post(srv.URL+path, "application/json", bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					b.Fatalf("POST %s: %d", path, resp.StatusCode)
				}
			}
			post("/api/v1/namespaces", obj{"metadata": obj{"name": "default"}})
			if mode == "one-validating" || mode == "one-mutating" {
				hs := newHookServer(b)
				hs.handle("/h", allow())
				hs.handle("/m", allow(obj{"op": "add", "path": "/metadata/labels", "value": obj{"m": "y"}}))
				kind, resource, path := "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", "/h"
				if mode == "one-mutating" {
					kind, resource, path = "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", "/m"
				}
				post("/apis/admissionregistration.k8s.io/v1/"+resource, obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
					"metadata": obj{"name": "c"}, "webhooks": []any{obj{"name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": []any{"v1"},
						"clientConfig": obj{"url": hs.URL + path, "caBundle": hs.ca},
						"rules":        []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{"configmaps"}}}}}})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				post(configMapsPath, configMap(fmt.Sprintf("c%d", i), nil, obj{"k": "v"}))
			}
		})
	}
}

// dropWebhooks removes the webhook plugins of a list of plugins.
func dropWebhooks[T any](plugins []T) []T {
	var out []T
	for _, p := range plugins {
		switch any(p).(type) {
		case *admission.MutatingWebhook, *admission.ValidatingWebhook:
			continue
		}
		out = append(out, p)
	}
	return out
}
