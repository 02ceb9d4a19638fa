package controllers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
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

// TestKubernetesService_EndpointsResetAsKubesLeaseReconcilerDoes writes the kubernetes
// Service's Endpoints and EndpointSlice as a user would and checks that the controllers
// put them back as kube-apiserver's lease endpoint reconciler does on its next round
// (pkg/controlplane/reconcilers): the skip-mirror label and the API server's address
// restored on the Endpoints, whose other labels, annotations and ports are kept (the
// loop does not reconcile ports); a second subset removed, the subset made anew; the
// EndpointSlice replaced by the one derived from the Endpoints, its extra labels and
// annotations gone; and what already matches left unwritten.
func TestKubernetesService_EndpointsResetAsKubesLeaseReconcilerDoes(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	store := memory.New(memory.Options{})
	t.Cleanup(store.Close)
	mgr, err := controllers.Start(context.Background(), controllers.Options{Scheme: s, Storage: store, Strategies: strategies.Builtin(), APIServer: netip.MustParseAddrPort("192.0.2.7:6443")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Stop)
	reg, err := registry.New(registry.Options{Scheme: s, Storage: store, Strategies: strategies.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	idle := func() {
		t.Helper()
		if err := mgr.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	idle()
	endpoints := scheme.GroupVersionKind{Version: "v1", Kind: "Endpoints"}
	slices := scheme.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}
	// write updates default/kubernetes of kind gvk through the API, as a client would.
	write := func(gvk scheme.GroupVersionKind, resource string, fn func(obj map[string]any)) {
		t.Helper()
		res, ok := s.Resource(scheme.GroupResource{Group: gvk.Group, Resource: resource})
		if !ok {
			t.Fatalf("%s not served", resource)
		}
		_, _, err := reg.Update(ctx, registry.Request{Resource: res, Namespace: "default", Version: "v1", FieldManager: "test"}, controllers.KubernetesServiceName, false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
			v, err := conversion.ObjectToVersion(s, old, gvk.GroupVersion())
			if err != nil {
				return nil, err
			}
			m, err := conversion.ToUnstructured(v)
			if err != nil {
				return nil, err
			}
			fn(m)
			obj, err := conversion.ObjectFromMap(s, gvk, m)
			if err != nil {
				return nil, err
			}
			return conversion.ObjectToInternal(s, obj, gvk)
		})
		if err != nil {
			t.Fatalf("updating %s: %v", resource, err)
		}
	}
	read := func(gvk scheme.GroupVersionKind, resource string) map[string]any {
		t.Helper()
		obj, err := store.Get(ctx, storage.Key(scheme.GroupResource{Group: gvk.Group, Resource: resource}, "default", controllers.KubernetesServiceName), storage.GetOptions{})
		if err != nil {
			t.Fatalf("reading %s: %v", resource, err)
		}
		m, err := conversion.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	check := func(what string, got any, want string) {
		t.Helper()
		if g := jsonOf(got); g != want {
			t.Errorf("%s: got %s, want %s", what, g, want)
		}
	}
	md := func(obj map[string]any) map[string]any { return obj["metadata"].(map[string]any) }

	// The label removed, another address, a label and an annotation of the user's.
	write(endpoints, "endpoints", func(obj map[string]any) {
		md(obj)["labels"] = map[string]any{"team": "a"}
		md(obj)["annotations"] = map[string]any{"note": "kept"}
		obj["subsets"].([]any)[0].(map[string]any)["addresses"] = []any{map[string]any{"ip": "10.9.9.9"}}
	})
	idle()
	ep := read(endpoints, "endpoints")
	check("labels", md(ep)["labels"], `{"endpointslice.kubernetes.io/skip-mirror":"true","team":"a"}`)
	check("annotations", md(ep)["annotations"], `{"note":"kept"}`)
	check("subsets", ep["subsets"], `[{"addresses":[{"ip":"192.0.2.7"}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]`)
	epRV := md(ep)["resourceVersion"]

	// Ports are not reconciled: the EndpointSlice follows the Endpoints' ports.
	write(endpoints, "endpoints", func(obj map[string]any) {
		obj["subsets"].([]any)[0].(map[string]any)["ports"] = []any{map[string]any{"name": "alt", "port": int64(8443), "protocol": "TCP"}}
	})
	idle()
	ep = read(endpoints, "endpoints")
	check("ports kept", ep["subsets"], `[{"addresses":[{"ip":"192.0.2.7"}],"ports":[{"name":"alt","port":8443,"protocol":"TCP"}]}]`)
	slice := read(slices, "endpointslices")
	check("slice ports", slice["ports"], `[{"name":"alt","port":8443,"protocol":"TCP"}]`)
	check("slice endpoints", slice["endpoints"], `[{"addresses":["192.0.2.7"],"conditions":{"ready":true}}]`)

	// Two subsets: the format is wrong, one subset is made anew with kube's port.
	write(endpoints, "endpoints", func(obj map[string]any) {
		obj["subsets"] = append(obj["subsets"].([]any), map[string]any{"addresses": []any{map[string]any{"ip": "10.9.9.8"}}, "ports": []any{map[string]any{"port": int64(80), "protocol": "TCP"}}})
	})
	idle()
	ep = read(endpoints, "endpoints")
	check("subsets made anew", ep["subsets"], `[{"addresses":[{"ip":"192.0.2.7"}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]}]`)
	check("annotations still", md(ep)["annotations"], `{"note":"kept"}`)

	// The EndpointSlice: an extra label, an annotation and another endpoint go.
	write(slices, "endpointslices", func(obj map[string]any) {
		md(obj)["labels"].(map[string]any)["team"] = "b"
		md(obj)["annotations"] = map[string]any{"note": "dropped"}
		obj["endpoints"] = append(obj["endpoints"].([]any), map[string]any{"addresses": []any{"10.9.9.7"}})
	})
	idle()
	slice = read(slices, "endpointslices")
	check("slice labels", md(slice)["labels"], `{"kubernetes.io/service-name":"kubernetes"}`)
	check("slice annotations", md(slice)["annotations"], `null`)
	check("slice endpoints reset", slice["endpoints"], `[{"addresses":["192.0.2.7"],"conditions":{"ready":true}}]`)
	check("slice ports reset", slice["ports"], `[{"name":"https","port":6443,"protocol":"TCP"}]`)

	// A write that leaves them as kube wants them is not answered with another.
	ep = read(endpoints, "endpoints")
	epRV = md(ep)["resourceVersion"]
	sliceRV := md(slice)["resourceVersion"]
	write(endpoints, "endpoints", func(obj map[string]any) { md(obj)["annotations"] = map[string]any{"note": "changed"} })
	idle()
	ep = read(endpoints, "endpoints")
	if rv := md(ep)["resourceVersion"]; rv == epRV {
		t.Errorf("the test's own write did not land")
	}
	check("annotation of the user's", md(ep)["annotations"], `{"note":"changed"}`)
	if rv := md(read(slices, "endpointslices"))["resourceVersion"]; rv != sliceRV {
		t.Errorf("EndpointSlice rewritten (resourceVersion %v, was %v) though it matched", rv, sliceRV)
	}
}
