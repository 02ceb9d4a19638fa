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

// BenchmarkPodCreate measures a pod create over HTTP without admission plugins and with
// Builtin()'s LimitRanger and ResourceQuota, in a namespace with one LimitRange and one
// quota whose status is set (each create then reads both and writes the quota's
// status), to show what the two plugins cost per create.
func BenchmarkPodCreate(b *testing.B) {
	for _, withPlugins := range []bool{false, true} {
		b.Run(fmt.Sprintf("plugins=%v", withPlugins), func(b *testing.B) {
			s := scheme.New()
			if err := builtin.AddToScheme(s); err != nil {
				b.Fatal(err)
			}
			opts := rest.Options{Strategies: strategies.Builtin()}
			if withPlugins {
				p := admission.Builtin()
				opts.MutatingAdmission, opts.ValidatingAdmission = p.Mutating, p.Validating
			}
			srv := apitest.NewServer(b, s, apitest.Options{REST: opts})
			post := func(path string, body any, want int) map[string]any {
				raw, _ := json.Marshal(body)
				resp, err := srv.Client().Post(srv.URL+path, "application/json", bytes.NewReader(raw))
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				var out map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&out)
				if resp.StatusCode != want {
					b.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
				}
				return out
			}
			post("/api/v1/namespaces", obj{"metadata": obj{"name": "ns"}}, http.StatusCreated)
			post("/api/v1/namespaces/ns/limitranges", obj{"apiVersion": "v1", "kind": "LimitRange", "metadata": obj{"name": "l"},
				"spec": obj{"limits": []any{obj{"type": "Container", "default": obj{"cpu": "100m"}, "max": obj{"cpu": "1"}}}}}, http.StatusCreated)
			q := post("/api/v1/namespaces/ns/resourcequotas", obj{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": obj{"name": "q"},
				"spec": obj{"hard": obj{"pods": "1000000"}}}, http.StatusCreated)
			q["status"] = obj{"hard": obj{"pods": "1000000"}, "used": obj{"pods": "0"}}
			raw, _ := json.Marshal(q)
			req, _ := http.NewRequest(http.MethodPut, srv.URL+"/api/v1/namespaces/ns/resourcequotas/q/status", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("quota status: %v %v", err, resp)
			}
			resp.Body.Close()
			b.ResetTimer()
			for i := range b.N {
				post("/api/v1/namespaces/ns/pods", pod(fmt.Sprintf("p%d", i), nil), http.StatusCreated)
			}
		})
	}
}
