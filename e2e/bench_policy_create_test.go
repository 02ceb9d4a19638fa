package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/cel/policy"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// BenchmarkPolicyCreateHTTP is the latency a ValidatingAdmissionPolicy adds to a
// ConfigMap create, on kube-apiserver v1.37.2 (skipped without KUBE_CONTROL_PLANE_BIN)
// and on apikit with cel/policy, side by side in one run: creates in a namespace the
// policy's binding does not select (policy=unmatched) and in one it does
// (policy=matched: a param, a matchCondition and two validations evaluated).
//
//	KUBE_CONTROL_PLANE_BIN=/tmp/apikit-kcp-bin go test -run '^$' -bench PolicyCreateHTTP -benchtime 500x ./e2e/
func BenchmarkPolicyCreateHTTP(b *testing.B) {
	servers := map[string]*rest.Config{}
	if os.Getenv("KUBE_CONTROL_PLANE_BIN") != "" {
		servers["kube-apiserver"] = startKubeControlPlane(b).Config
	}
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		b.Fatal(err)
	}
	plugins := admission.Builtin()
	srv := apitest.NewServer(b, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(), MutatingAdmission: plugins.Mutating,
		ValidatingAdmission: append(append([]registry.ValidatingAdmission{}, plugins.Validating...), policy.NewValidating())}, TLS: true, Token: "bench-token"})
	servers["apikit"] = &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	for _, server := range []string{"kube-apiserver", "apikit"} {
		cfg := servers[server]
		if cfg == nil {
			continue
		}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			b.Fatal(err)
		}
		host := strings.TrimSuffix(cfg.Host, "/")
		post := func(path string, obj any) int {
			body, err := json.Marshal(obj)
			if err != nil {
				b.Fatal(err)
			}
			resp, err := hc.Post(host+path, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatalf("%s: POST %s: %v", server, path, err)
			}
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode >= 300 && resp.StatusCode != http.StatusUnprocessableEntity {
				b.Fatalf("%s: POST %s: %d %s", server, path, resp.StatusCode, data)
			}
			return resp.StatusCode
		}
		post("/api/v1/namespaces", vapObj{"metadata": vapObj{"name": "bench-unmatched"}})
		post("/api/v1/namespaces", vapObj{"metadata": vapObj{"name": "bench-matched", "labels": vapObj{"bench": "policy"}}})
		post("/api/v1/namespaces/bench-matched/configmaps", vapCM("limits", nil, vapObj{"max": "5"}))
		post(vapPath, vapPolicy("bench", vapObj{
			"paramKind":        vapObj{"apiVersion": "v1", "kind": "ConfigMap"},
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"matchConditions":  []any{vapObj{"name": "not-limits", "expression": "object.metadata.name != 'limits'"}},
			"validations": []any{
				vapObj{"expression": "!has(object.data) || size(object.data) <= int(params.data.max)"},
				vapObj{"expression": "object.metadata.name.size() < 64"},
			}}))
		post(vapbPath, vapBinding("bench-b", vapObj{"policyName": "bench", "validationActions": []any{"Deny"},
			"paramRef":       vapObj{"name": "limits", "namespace": "bench-matched", "parameterNotFoundAction": "Deny"},
			"matchResources": vapObj{"namespaceSelector": vapObj{"matchLabels": vapObj{"bench": "policy"}}}}))
		probe := vapCM("probe", nil, vapObj{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"})
		for i := 0; post("/api/v1/namespaces/bench-matched/configmaps?dryRun=All", probe) != http.StatusUnprocessableEntity; i++ {
			if i == 600 {
				b.Fatalf("%s: the policy does not apply", server)
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, ns := range []string{"bench-unmatched", "bench-matched"} {
			b.Run(fmt.Sprintf("%s/policy=%s", server, strings.TrimPrefix(ns, "bench-")), func(b *testing.B) {
				path := "/api/v1/namespaces/" + ns + "/configmaps"
				prefix := fmt.Sprintf("cm-%d-", b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if code := post(path, vapCM(prefix+fmt.Sprint(i), nil, vapObj{"a": "1"})); code != http.StatusCreated {
						b.Fatalf("%s: create: %d", server, code)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/create")
			})
		}
	}
}
