package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// KubernetesServiceName is the Service in namespace default through which clients in a
// cluster find the API server, with its Endpoints and EndpointSlice of the same name:
// kube-apiserver's bootstrap controller (pkg/controlplane/controller/kubernetesservice)
// and its endpoint reconciler keep the three.
const KubernetesServiceName = "kubernetes"

// KubernetesServiceIP is the kubernetes Service's cluster IP: the first address of
// kube-apiserver's service range (envtest's 10.0.0.0/24), which the service
// allocator of package strategies hands out to no other Service.
var KubernetesServiceIP = netip.MustParseAddr("10.0.0.1")

// The resources of the three objects.
var (
	servicesGR       = scheme.GroupResource{Resource: "services"}
	endpointsGR      = scheme.GroupResource{Resource: "endpoints"}
	endpointSlicesGR = scheme.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
)

// kubernetesServiceFieldManager is the manager kube-apiserver's own writes record.
const kubernetesServiceFieldManager = "kube-apiserver"

// isKubernetesServiceObject reports whether obj is one of the three objects of the
// kubernetes Service, by its kind as storage holds it.
func isKubernetesServiceObject(obj scheme.Object) bool {
	if obj.GetNamespace() != "default" || obj.GetName() != KubernetesServiceName {
		return false
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	switch gvk.Kind {
	case "Service", "Endpoints":
		return gvk.Group == ""
	case "EndpointSlice":
		return gvk.Group == endpointSlicesGR.Group
	}
	return false
}

// noteKubernetesService records an event that may call for a pass over the kubernetes
// Service's objects: one of them deleted (the next pass creates it again, as
// kube-apiserver's bootstrap controller does on its next round, every 10 s there, at
// once here), or its Endpoints or EndpointSlice written (the next pass resets them as
// kube's endpoint reconciler does on its next round). A Service that changed is left as
// it is: kube's controller does not reconcile it after creating it.
func (m *Manager) noteKubernetesService(typ watch.EventType, obj scheme.Object) {
	if typ == watch.Bookmark || !isKubernetesServiceObject(obj) {
		return
	}
	if typ == watch.Deleted || obj.GetObjectKind().GroupVersionKind().Kind != "Service" {
		m.kubernetesServiceStale = true
	}
}

// ensureKubernetesService creates what is missing of the kubernetes Service, its
// Endpoints and its EndpointSlice, when the scheme serves core/v1 services (each of the
// other two when its resource is served and Options.APIServer can be advertised), as
// kube-apiserver creates them: through the API's create (the registry with the REST
// handler's strategies, Options.Strategies), so that they are defaulted and validated
// and the Service's cluster IP is reserved as any create's. It never changes a Service
// that exists (kube's controller does not reconcile it after creating it); Endpoints
// and an EndpointSlice that exist are reset as kube's lease endpoint reconciler resets
// them (reconcileKubernetesEndpoints, reconcileKubernetesEndpointSlice). wrote reports
// that it created, updated or deleted an object.
func (m *Manager) ensureKubernetesService(ctx context.Context) (wrote bool, err error) {
	if m.api == nil {
		return false, nil
	}
	addr := m.opts.APIServer
	targetPort := 443
	if addr.Port() != 0 {
		targetPort = int(addr.Port())
	}
	if wrote, err = m.createIfMissing(ctx, servicesGR, func() map[string]any { return kubernetesService(targetPort) }); err != nil || !advertisable(addr) {
		return wrote, err
	}
	ep, epWrote, err := m.reconcileKubernetesEndpoints(ctx, addr)
	wrote = wrote || epWrote
	if err != nil || ep == nil {
		return wrote, err
	}
	sliceWrote, err := m.reconcileKubernetesEndpointSlice(ctx, ep)
	return wrote || sliceWrote, err
}

// advertisable reports whether addr can be the address of the kubernetes Service's
// endpoints: a port and an address that kube's validation of endpoints allows (not
// unspecified, loopback or link-local), as kube-apiserver advertises a host address
// when it binds a loopback one.
func advertisable(addr netip.AddrPort) bool {
	a := addr.Addr()
	return addr.IsValid() && addr.Port() != 0 && !a.IsUnspecified() && !a.IsLoopback() && !a.IsLinkLocalUnicast() && !a.IsLinkLocalMulticast()
}

// createIfMissing creates default/kubernetes of resource gr from body when storage
// holds none and the scheme serves gr at v1; created reports that it did.
func (m *Manager) createIfMissing(ctx context.Context, gr scheme.GroupResource, body func() map[string]any) (created bool, err error) {
	res, gvk, ok := m.servedV1(gr)
	if !ok {
		return false, nil
	}
	_, err = m.store.Get(ctx, storage.Key(m.opts.Scheme.StorageResource(res).GroupResource(), "default", KubernetesServiceName), storage.GetOptions{})
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, storage.ErrNotFound) {
		return false, fmt.Errorf("controllers: reading %s default/%s: %w", gr, KubernetesServiceName, err)
	}
	obj, err := newObject(m.opts.Scheme, gvk, body())
	if err != nil {
		return false, err
	}
	conversion.Default(m.opts.Scheme, obj)
	in, err := conversion.ObjectToInternal(m.opts.Scheme, obj, gvk)
	if err != nil {
		return false, fmt.Errorf("controllers: %s default/%s: %w", gr, KubernetesServiceName, err)
	}
	_, err = m.api.Create(ctx, registry.Request{Resource: res, Namespace: "default", Version: "v1", FieldManager: kubernetesServiceFieldManager}, in)
	var st *scheme.Status
	if errors.As(err, &st) && st.Code == http.StatusConflict && st.Reason == scheme.StatusReasonAlreadyExists {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("controllers: creating %s default/%s: %w", gr, KubernetesServiceName, err)
	}
	return true, nil
}

// kubernetesService is the Service kube's bootstrap controller creates: port https
// 443/TCP to the API server's port, the first cluster IP, no selector.
func kubernetesService(targetPort int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": KubernetesServiceName, "namespace": "default",
			"labels": map[string]any{"provider": "kubernetes", "component": "apiserver"}},
		"spec": map[string]any{
			"ports":           []any{map[string]any{"name": "https", "protocol": "TCP", "port": int64(443), "targetPort": int64(targetPort)}},
			"clusterIP":       KubernetesServiceIP.String(),
			"ipFamilyPolicy":  "SingleStack",
			"sessionAffinity": "None",
			"type":            "ClusterIP",
		},
	}
}

// kubernetesEndpoints are the Endpoints kube's lease endpoint reconciler keeps: the API
// server's address and port, not mirrored to an EndpointSlice (the reconciler writes
// that itself).
func kubernetesEndpoints(addr netip.AddrPort) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Endpoints",
		"metadata": map[string]any{"name": KubernetesServiceName, "namespace": "default",
			"labels": map[string]any{"endpointslice.kubernetes.io/skip-mirror": "true"}},
		"subsets": []any{map[string]any{
			"addresses": []any{map[string]any{"ip": addr.Addr().String()}},
			"ports":     []any{map[string]any{"name": "https", "port": int64(addr.Port()), "protocol": "TCP"}},
		}},
	}
}
