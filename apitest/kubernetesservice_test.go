package apitest_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// controllersServer starts a server of the built-in kinds with the controllers,
// and returns a function making one JSON request of it.
func controllersServer(t *testing.T) (*apitest.Server, func(method, path string, body any) (int, map[string]any)) {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true})
	send := jsonRequests(t, srv)
	return srv, func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		text := ""
		if body != nil {
			data, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			text = string(data)
		}
		return send(method, path, text)
	}
}

// withoutServerFields drops what differs between two servers and two runs: uid,
// resourceVersion, timestamps, managedFields.
func withoutServerFields(obj map[string]any) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
		delete(meta, f)
	}
	return obj
}

// TestControllers_KeepTheKubernetesServiceAsKubeApiserverDoes reads the Service
// default/kubernetes and its Endpoints and EndpointSlice as kube-apiserver creates them
// (their JSON compared with the real control plane's in e2e), checks that no other
// Service may take its cluster IP, and that a deleted one comes back with it.
func TestControllers_KeepTheKubernetesServiceAsKubeApiserverDoes(t *testing.T) {
	srv, do := controllersServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil { // the first pass creates the Service
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.ParseInt(u.Port(), 10, 64)
	advertised := apitest.AdvertiseAddress(&net.TCPAddr{IP: net.ParseIP(u.Hostname()), Port: int(port)})
	if !advertised.Addr().IsValid() || advertised.Addr().IsLoopback() || int64(advertised.Port()) != port {
		t.Fatalf("advertised %s for %s: want a host address and the server's port", advertised, u.Host)
	}
	ip := advertised.Addr().String()
	want := map[string]map[string]any{
		"/api/v1/namespaces/default/services/kubernetes": {
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "kubernetes", "namespace": "default", "labels": map[string]any{"component": "apiserver", "provider": "kubernetes"}},
			"spec": map[string]any{
				"clusterIP": "10.0.0.1", "clusterIPs": []any{"10.0.0.1"}, "internalTrafficPolicy": "Cluster",
				"ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack",
				"ports":           []any{map[string]any{"name": "https", "port": float64(443), "protocol": "TCP", "targetPort": float64(port)}},
				"sessionAffinity": "None", "type": "ClusterIP",
			},
			"status": map[string]any{"loadBalancer": map[string]any{}},
		},
		"/api/v1/namespaces/default/endpoints/kubernetes": {
			"apiVersion": "v1", "kind": "Endpoints",
			"metadata": map[string]any{"name": "kubernetes", "namespace": "default", "labels": map[string]any{"endpointslice.kubernetes.io/skip-mirror": "true"}},
			"subsets": []any{map[string]any{
				"addresses": []any{map[string]any{"ip": ip}},
				"ports":     []any{map[string]any{"name": "https", "port": float64(port), "protocol": "TCP"}},
			}},
		},
		"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes": {
			"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata":    map[string]any{"name": "kubernetes", "namespace": "default", "labels": map[string]any{"kubernetes.io/service-name": "kubernetes"}},
			"addressType": "IPv4",
			"endpoints":   []any{map[string]any{"addresses": []any{ip}, "conditions": map[string]any{"ready": true}}},
			"ports":       []any{map[string]any{"name": "https", "port": float64(port), "protocol": "TCP"}},
		},
	}
	for path, w := range want {
		code, got := do(http.MethodGet, path, nil)
		if code != http.StatusOK {
			t.Errorf("GET %s = %d %v", path, code, got)
			continue
		}
		if d := cmp.Diff(w, withoutServerFields(got)); d != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, d)
		}
	}

	// No other Service gets 10.0.0.1.
	code, refused := do(http.MethodPost, "/api/v1/namespaces/default/services", map[string]any{
		"metadata": map[string]any{"name": "thief"},
		"spec":     map[string]any{"clusterIP": "10.0.0.1", "ports": []any{map[string]any{"port": 80}}},
	})
	if msg, _ := refused["message"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "failed to allocate IP 10.0.0.1: provided IP is already allocated") {
		t.Errorf("a Service asking for 10.0.0.1 = %d %q, want 422 provided IP is already allocated", code, msg)
	}

	// Deleted, each comes back as it was, under a new uid (kube's controller creates
	// them again on its next round).
	for path, w := range want {
		_, before := do(http.MethodGet, path, nil)
		uid := before["metadata"].(map[string]any)["uid"]
		if code, body := do(http.MethodDelete, path, nil); code != http.StatusOK {
			t.Fatalf("DELETE %s = %d %v", path, code, body)
		}
		var got map[string]any
		deadline := time.Now().Add(10 * time.Second)
		for i := 0; i < 200 && time.Now().Before(deadline); i++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = srv.Controllers.WaitIdle(ctx)
			cancel()
			if code, obj := do(http.MethodGet, path, nil); code == http.StatusOK && obj["metadata"].(map[string]any)["uid"] != uid {
				got = obj
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got == nil {
			t.Errorf("%s did not come back after its delete", path)
			continue
		}
		if d := cmp.Diff(w, withoutServerFields(got)); d != "" {
			t.Errorf("%s after its delete (-want +got):\n%s", path, d)
		}
	}
}
