package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"slices"

	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// The kubernetes Service's Endpoints and EndpointSlice are kept as kube-apiserver's
// lease endpoint reconciler keeps them (pkg/controlplane/reconcilers, the reconciler
// envtest's kube-apiserver runs, with reconcilePorts false as its loop calls it): on
// each round it resets the Endpoints when they lack the skip-mirror label, have other
// than one subset, or list other addresses than the API servers' (their ports it
// keeps, but for a subset it makes anew), then derives the EndpointSlice from the
// Endpoints and replaces the stored one when its endpoints, ports or labels differ
// (deleting and creating it when its address type does). kube runs a round every 10 s;
// here a write to either object is the round's cue.

// skipMirrorLabel keeps kube's EndpointSlice mirroring controller off the Endpoints.
const skipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror"

// reconcileKubernetesEndpoints creates or resets default/kubernetes Endpoints for the
// API server at addr and returns them as stored (v1, unstructured), nil when the
// scheme does not serve endpoints; wrote reports a create or update.
func (m *Manager) reconcileKubernetesEndpoints(ctx context.Context, addr netip.AddrPort) (ep map[string]any, wrote bool, err error) {
	res, gvk, ok := m.servedV1(endpointsGR)
	if !ok {
		return nil, false, nil
	}
	cur, err := m.readKubernetesObject(ctx, res, gvk)
	if err != nil || cur == nil {
		if err == nil {
			body := kubernetesEndpoints(addr)
			wrote, err = m.createIfMissing(ctx, endpointsGR, func() map[string]any { return body })
			ep = body
		}
		return ep, wrote, err
	}
	if _, changed := resetKubernetesEndpoints(cur, addr); !changed {
		return cur, false, nil
	}
	out, err := m.updateKubernetesObject(ctx, res, gvk, func(old map[string]any) map[string]any {
		reset, _ := resetKubernetesEndpoints(old, addr)
		return reset
	})
	return out, err == nil, err
}

// reconcileKubernetesEndpointSlice creates, replaces or recreates default/kubernetes
// EndpointSlice as derived from the Endpoints ep; wrote reports a write.
func (m *Manager) reconcileKubernetesEndpointSlice(ctx context.Context, ep map[string]any) (wrote bool, err error) {
	res, gvk, ok := m.servedV1(endpointSlicesGR)
	if !ok {
		return false, nil
	}
	want := endpointSliceFromEndpoints(ep)
	cur, err := m.readKubernetesObject(ctx, res, gvk)
	if err != nil {
		return false, err
	}
	create := func() (bool, error) {
		return m.createIfMissing(ctx, endpointSlicesGR, func() map[string]any { return want })
	}
	if cur == nil {
		return create()
	}
	if cur["addressType"] != want["addressType"] {
		// The address type is immutable: kube deletes the slice and creates it anew.
		rq := registry.Request{Resource: res, Namespace: "default", Version: gvk.Version, FieldManager: kubernetesServiceFieldManager}
		if _, _, err := m.api.Delete(ctx, rq, KubernetesServiceName, nil); err != nil && !ignorable(err) {
			return false, fmt.Errorf("controllers: deleting %s default/%s: %w", endpointSlicesGR, KubernetesServiceName, err)
		}
		_, err := create()
		return true, err
	}
	wantN, err := m.normalized(gvk, want)
	if err != nil {
		return false, err
	}
	if sameFields(cur, wantN, "endpoints", "ports") && reflect.DeepEqual(labelsOf(cur), labelsOf(wantN)) {
		return false, nil
	}
	_, err = m.updateKubernetesObject(ctx, res, gvk, func(old map[string]any) map[string]any {
		// kube updates with the derived object alone: annotations, owners and
		// finalizers go; the server's own fields stay.
		out := maps.Clone(want)
		md := maps.Clone(want["metadata"].(map[string]any))
		if omd, ok := old["metadata"].(map[string]any); ok {
			md["resourceVersion"] = omd["resourceVersion"]
		}
		out["metadata"] = md
		return out
	})
	return err == nil, err
}

// resetKubernetesEndpoints returns ep as kube's lease reconciler leaves it for the
// single API server at addr (a copy when it changes it) and whether it changed.
func resetKubernetesEndpoints(ep map[string]any, addr netip.AddrPort) (map[string]any, bool) {
	out := maps.Clone(ep)
	md, _ := out["metadata"].(map[string]any)
	md = maps.Clone(md)
	if md == nil {
		md = map[string]any{}
	}
	out["metadata"] = md
	changed := false
	labels, _ := md["labels"].(map[string]any)
	if labels[skipMirrorLabel] != "true" {
		labels = maps.Clone(labels)
		if labels == nil {
			labels = map[string]any{}
		}
		labels[skipMirrorLabel] = "true"
		md["labels"] = labels
		changed = true
	}
	ip := addr.Addr().String()
	subsets, _ := out["subsets"].([]any)
	if len(subsets) != 1 {
		// Something is egregiously wrong (kube's words): one subset made anew.
		out["subsets"] = []any{map[string]any{
			"addresses": []any{map[string]any{"ip": ip}},
			"ports":     []any{map[string]any{"name": "https", "port": int64(addr.Port()), "protocol": "TCP"}},
		}}
		return out, true
	}
	sub, _ := subsets[0].(map[string]any)
	addrs, _ := sub["addresses"].([]any)
	if len(addrs) == 1 {
		if a, _ := addrs[0].(map[string]any); a["ip"] == ip {
			return out, changed
		}
	}
	// The addresses are the API servers' alone; kube then repacks the subset, under
	// which an address listed as not ready too stays only not ready.
	sub = maps.Clone(sub)
	if sub == nil {
		sub = map[string]any{}
	}
	notReady, _ := sub["notReadyAddresses"].([]any)
	if slices.ContainsFunc(notReady, func(v any) bool {
		a, _ := v.(map[string]any)
		return a["ip"] == ip && a["targetRef"] == nil
	}) {
		delete(sub, "addresses")
	} else {
		sub["addresses"] = []any{map[string]any{"ip": ip}}
	}
	out["subsets"] = []any{sub}
	if reflect.DeepEqual(out["subsets"], ep["subsets"]) && !changed {
		return ep, false
	}
	return out, true
}

// endpointSliceFromEndpoints is the EndpointSlice kube's endpoints adapter derives from
// the kubernetes Service's Endpoints (v1, unstructured): the first subset's ports and
// addresses, ready and not, of the slice's address type (IPv6 when every address is),
// and the service-name label alone.
func endpointSliceFromEndpoints(ep map[string]any) map[string]any {
	slice := map[string]any{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata": map[string]any{"name": KubernetesServiceName, "namespace": "default",
			"labels": map[string]any{"kubernetes.io/service-name": KubernetesServiceName}},
		"addressType": "IPv4",
	}
	subsets, _ := ep["subsets"].([]any)
	if len(subsets) == 0 {
		return slice
	}
	sub, _ := subsets[0].(map[string]any)
	var ports []any
	for _, v := range listOf(sub, "ports") {
		p, _ := v.(map[string]any)
		name, _ := p["name"].(string)
		proto, _ := p["protocol"].(string)
		ports = append(ports, map[string]any{"name": name, "port": p["port"], "protocol": proto})
	}
	if ports != nil {
		slice["ports"] = ports
	}
	ready, notReady := listOf(sub, "addresses"), listOf(sub, "notReadyAddresses")
	all := append(slices.Clone(ready), notReady...)
	ipv6 := len(all) > 0 && !slices.ContainsFunc(all, func(v any) bool { return !isIPv6(v) })
	if ipv6 {
		slice["addressType"] = "IPv6"
	}
	var endpoints []any
	for i, list := range [][]any{ready, notReady} {
		for _, v := range list {
			if isIPv6(v) != ipv6 {
				continue
			}
			a, _ := v.(map[string]any)
			e := map[string]any{"addresses": []any{a["ip"]}, "conditions": map[string]any{"ready": i == 0}}
			if a["targetRef"] != nil {
				e["targetRef"] = a["targetRef"]
			}
			if a["nodeName"] != nil {
				e["nodeName"] = a["nodeName"]
			}
			endpoints = append(endpoints, e)
		}
	}
	if endpoints != nil {
		slice["endpoints"] = endpoints
	}
	return slice
}

func listOf(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}

// isIPv6 reports an Endpoints address whose ip is an IPv6 address, as k8s.io/utils'
// IsIPv6String reads it.
func isIPv6(v any) bool {
	a, _ := v.(map[string]any)
	s, _ := a["ip"].(string)
	ip, err := netip.ParseAddr(s)
	return err == nil && ip.Is6() && !ip.Is4In6()
}

func labelsOf(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]any)
	if len(l) == 0 {
		return nil
	}
	return l
}

// sameFields reports whether a and b hold equal values (an empty list as none) at keys.
func sameFields(a, b map[string]any, keys ...string) bool {
	for _, k := range keys {
		av, bv := a[k], b[k]
		if l, ok := av.([]any); ok && len(l) == 0 {
			av = nil
		}
		if l, ok := bv.([]any); ok && len(l) == 0 {
			bv = nil
		}
		if !reflect.DeepEqual(av, bv) {
			return false
		}
	}
	return true
}

// servedV1 returns the resource gr and its v1 kind when the scheme serves them.
func (m *Manager) servedV1(gr scheme.GroupResource) (*scheme.Resource, scheme.GroupVersionKind, bool) {
	res, ok := m.opts.Scheme.Resource(gr)
	gvk := scheme.GroupVersionKind{Group: gr.Group, Version: "v1"}
	if ok {
		gvk.Kind = res.Kind
	}
	return res, gvk, ok && m.opts.Scheme.Recognizes(gvk)
}

// readKubernetesObject reads default/kubernetes of res from storage at gvk's version,
// unstructured; nil when there is none.
func (m *Manager) readKubernetesObject(ctx context.Context, res *scheme.Resource, gvk scheme.GroupVersionKind) (map[string]any, error) {
	obj, err := m.store.Get(ctx, storage.Key(m.opts.Scheme.StorageResource(res).GroupResource(), "default", KubernetesServiceName), storage.GetOptions{})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("controllers: reading %s default/%s: %w", res.GroupResource(), KubernetesServiceName, err)
	}
	return m.versionedMap(obj, gvk)
}

// versionedMap is obj at gvk's version, unstructured (a copy).
func (m *Manager) versionedMap(obj scheme.Object, gvk scheme.GroupVersionKind) (map[string]any, error) {
	out, err := conversion.ObjectToVersion(m.opts.Scheme, obj, gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("controllers: %s default/%s: %w", gvk.Kind, KubernetesServiceName, err)
	}
	return conversion.ToUnstructured(out)
}

// normalized is obj (unstructured, at gvk) as it reads back through its Go type, so
// that it compares with what storage holds.
func (m *Manager) normalized(gvk scheme.GroupVersionKind, obj map[string]any) (map[string]any, error) {
	o, err := newObject(m.opts.Scheme, gvk, obj)
	if err != nil {
		return nil, err
	}
	return conversion.ToUnstructured(o)
}

// updateKubernetesObject updates default/kubernetes of res through the API's update,
// the new object (unstructured, at gvk) computed by fn from the stored one, and returns
// the result at gvk.
func (m *Manager) updateKubernetesObject(ctx context.Context, res *scheme.Resource, gvk scheme.GroupVersionKind, fn func(old map[string]any) map[string]any) (map[string]any, error) {
	rq := registry.Request{Resource: res, Namespace: "default", Version: gvk.Version, FieldManager: kubernetesServiceFieldManager}
	obj, _, err := m.api.Update(ctx, rq, KubernetesServiceName, false, func(_ context.Context, old scheme.Object) (scheme.Object, error) {
		if old == nil {
			return nil, storage.ErrNotFound
		}
		cur, err := m.versionedMap(old, gvk)
		if err != nil {
			return nil, err
		}
		next, err := newObject(m.opts.Scheme, gvk, fn(cur))
		if err != nil {
			return nil, err
		}
		return conversion.ObjectToInternal(m.opts.Scheme, next, gvk)
	})
	if err != nil {
		return nil, fmt.Errorf("controllers: updating %s default/%s: %w", res.GroupResource(), KubernetesServiceName, err)
	}
	return m.versionedMap(obj, gvk)
}
