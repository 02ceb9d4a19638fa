package builtin_test

import (
	"net/http"
	"reflect"
	"testing"
)

// TestEndpointSlices_ServedWithKubeDefaultsAndColumns creates an EndpointSlice and reads
// it back: ports default to name "" and TCP, and the Table has kube's ADDRESSTYPE,
// PORTS and ENDPOINTS cells (three of each, then "+ N more...").
func TestEndpointSlices_ServedWithKubeDefaultsAndColumns(t *testing.T) {
	srv := newHPAServer(t)
	const path = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"
	var endpoints []any
	for _, ip := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"} {
		endpoints = append(endpoints, map[string]any{"addresses": []any{ip}})
	}
	created := call(t, srv, http.MethodPost, path, map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata":    map[string]any{"name": "web-1", "labels": map[string]any{"kubernetes.io/service-name": "web"}},
		"addressType": "IPv4", "endpoints": endpoints,
		"ports": []any{map[string]any{"port": 80}, map[string]any{"name": "https", "port": 443, "protocol": "TCP"}, map[string]any{"name": "dns"}}}, http.StatusCreated)
	if got := jsonOf(t, created["ports"]); got != `[{"name":"","port":80,"protocol":"TCP"},{"name":"https","port":443,"protocol":"TCP"},{"name":"dns","protocol":"TCP"}]` {
		t.Errorf("ports %s", got)
	}
	if g := created["metadata"].(map[string]any)["generation"]; g != float64(1) {
		t.Errorf("generation %v, want 1", g)
	}
	table := callAccept(t, srv, path+"/web-1", "application/json;as=Table;g=meta.k8s.io;v=v1")
	var names []any
	for _, c := range table["columnDefinitions"].([]any) {
		names = append(names, c.(map[string]any)["name"])
	}
	if s := jsonOf(t, names); s != `["Name","AddressType","Ports","Endpoints","Age"]` {
		t.Errorf("columns %s", s)
	}
	cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
	if want := []any{"web-1", "IPv4", "80,443,dns", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more..."}; !reflect.DeepEqual(cells[:4], want) {
		t.Errorf("cells %s, want %s", jsonOf(t, cells[:4]), jsonOf(t, want))
	}
	st := call(t, srv, http.MethodPost, path, map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata": map[string]any{"name": "bad"}, "addressType": "IPv6", "endpoints": []any{map[string]any{"addresses": []any{"10.0.0.1"}}}}, http.StatusUnprocessableEntity)
	if st["reason"] != "Invalid" || jsonOf(t, st["details"].(map[string]any)["causes"]) != `[{"field":"endpoints[0].addresses","message":"Invalid value: \"10.0.0.1\": must be an IPv6 address","reason":"FieldValueInvalid"}]` {
		t.Errorf("invalid slice: %s", jsonOf(t, st))
	}
}
