package controllers_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// TestKubernetesService_EndpointsOnlyForAnAddressKubeAdvertises starts the controllers
// over the built-in kinds with the API server's address known, loopback, or unknown:
// the Service is always kept (its targetPort the port, 443 without one), its
// Endpoints and EndpointSlice only for an address kube's validation of endpoints
// allows.
func TestKubernetesService_EndpointsOnlyForAnAddressKubeAdvertises(t *testing.T) {
	for _, c := range []struct {
		name           string
		addr           netip.AddrPort
		wantTargetPort int64
		wantEndpoints  bool
	}{
		{"a host address", netip.MustParseAddrPort("192.0.2.7:6443"), 6443, true},
		{"loopback", netip.MustParseAddrPort("127.0.0.1:6443"), 6443, false},
		{"unknown", netip.AddrPort{}, 443, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := scheme.New()
			if err := builtin.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			store := memory.New(memory.Options{})
			t.Cleanup(store.Close)
			mgr, err := controllers.Start(context.Background(), controllers.Options{Scheme: s, Storage: store, Strategies: strategies.Builtin(), APIServer: c.addr})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(mgr.Stop)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := mgr.WaitIdle(ctx); err != nil { // the first pass creates the Service
				t.Fatal(err)
			}
			get := func(group, resource string) (map[string]any, bool) {
				obj, err := store.Get(context.Background(), storage.Key(scheme.GroupResource{Group: group, Resource: resource}, "default", controllers.KubernetesServiceName), storage.GetOptions{})
				if errors.Is(err, storage.ErrNotFound) {
					return nil, false
				}
				if err != nil {
					t.Fatal(err)
				}
				m, err := conversion.ObjectMap(obj)
				if err != nil {
					t.Fatal(err)
				}
				return m, true
			}
			svc, ok := get("", "services")
			if !ok {
				t.Fatal("no kubernetes Service")
			}
			spec := svc["spec"].(map[string]any)
			port := spec["ports"].([]any)[0].(map[string]any)
			if spec["clusterIP"] != controllers.KubernetesServiceIP.String() || port["targetPort"] != c.wantTargetPort {
				t.Errorf("clusterIP %v, targetPort %v (%T): want %s and %d", spec["clusterIP"], port["targetPort"], port["targetPort"], controllers.KubernetesServiceIP, c.wantTargetPort)
			}
			_, endpoints := get("", "endpoints")
			_, slice := get("discovery.k8s.io", "endpointslices")
			if endpoints != c.wantEndpoints || slice != c.wantEndpoints {
				t.Errorf("Endpoints %v, EndpointSlice %v: want both %v", endpoints, slice, c.wantEndpoints)
			}
		})
	}
}
