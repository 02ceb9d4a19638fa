package strategies_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// TestStrategies_BuiltInKindsHaveNoGeneration holds kube-apiserver's behaviour for the
// built-in kinds: none of their strategies sets metadata.generation, so
// a create stores none and an update, of whatever field, keeps none.
func TestStrategies_BuiltInKindsHaveNoGeneration(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	regarding := map[string]any{"kind": "Pod", "namespace": "default", "name": "web", "uid": "u-1"}
	rule := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		change     map[string]any // a PUT body's change of a non-metadata field
	}{
		{"Namespace", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "team"}}, map[string]any{"spec": map[string]any{"finalizers": []any{"kubernetes"}}}},
		{"ConfigMap", "/api/v1/namespaces/default/configmaps", map[string]any{"metadata": map[string]any{"name": "c"}, "data": map[string]any{"a": "1"}}, map[string]any{"data": map[string]any{"a": "2"}}},
		{"Secret", "/api/v1/namespaces/default/secrets", map[string]any{"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"a": "1"}}, map[string]any{"stringData": map[string]any{"a": "2"}}},
		{"ServiceAccount", "/api/v1/namespaces/default/serviceaccounts", map[string]any{"metadata": map[string]any{"name": "sa"}}, map[string]any{"automountServiceAccountToken": false}},
		{"Event", "/api/v1/namespaces/default/events", map[string]any{"metadata": map[string]any{"name": "e"}, "involvedObject": regarding, "reason": "A"}, map[string]any{"reason": "B"}},
		{"events.k8s.io Event", "/apis/events.k8s.io/v1/namespaces/default/events", map[string]any{"metadata": map[string]any{"name": "e2"}, "regarding": regarding, "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "c", "reportingInstance": "i", "action": "A", "reason": "A", "type": "Normal"}, map[string]any{"note": "changed"}},
		{"Lease", "/apis/coordination.k8s.io/v1/namespaces/default/leases", map[string]any{"metadata": map[string]any{"name": "l"}, "spec": map[string]any{"holderIdentity": "a"}}, map[string]any{"spec": map[string]any{"holderIdentity": "b"}}},
		{"Role", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", map[string]any{"metadata": map[string]any{"name": "r"}, "rules": rule}, map[string]any{"rules": []any{}}},
		{"ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{"metadata": map[string]any{"name": "cr"}, "rules": rule}, map[string]any{"rules": []any{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			created := call(t, srv, http.MethodPost, tc.path, tc.body, http.StatusCreated)
			if g, ok := created["metadata"].(map[string]any)["generation"]; ok {
				t.Errorf("created with generation %v, want none", g)
			}
			for k, v := range tc.change {
				created[k] = v
			}
			name := created["metadata"].(map[string]any)["name"].(string)
			updated := call(t, srv, http.MethodPut, tc.path+"/"+name, created, http.StatusOK)
			if g, ok := updated["metadata"].(map[string]any)["generation"]; ok {
				t.Errorf("updated with generation %v, want none", g)
			}
		})
	}
}

// call sends a JSON request and decodes the answer into a map, failing unless the
// status is want.
func call(t *testing.T, srv *apitest.Server, method, path string, body any, want int) map[string]any {
	t.Helper()
	out, _ := callWithHeader(t, srv, method, path, body, want)
	return out
}

// callWithHeader is call that returns the answer's header too.
func callWithHeader(t *testing.T, srv *apitest.Server, method, path string, body any, want int) (map[string]any, http.Header) {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, srv.URL+path, in)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %v", method, path, resp.StatusCode, want, out)
	}
	return out, resp.Header
}
