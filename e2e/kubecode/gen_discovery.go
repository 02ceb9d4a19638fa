package kubecode

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The EndpointSlices' generated manifests: an IPv4 slice of a Service's endpoints with
// conditions, nodes, zones, hints and named ports, mutated validly and not as kube's
// discovery validation sees them.
func init() {
	kindBases["EndpointSlice"] = func(r *rand.Rand, o Object, name string, _ Object) {
		o["apiVersion"] = "discovery.k8s.io/v1"
		at(o, "metadata", "labels")["kubernetes.io/service-name"] = name
		var eps []any
		for i := range 1 + r.IntN(3) {
			eps = append(eps, Object{
				"addresses":  []any{fmt.Sprintf("10.1.%d.%d", r.IntN(200), 1+i)},
				"conditions": Object{"ready": true, "serving": true, "terminating": false},
				"nodeName":   fmt.Sprintf("node-%d", i),
				"zone":       "zone-a",
				"targetRef":  Object{"kind": "Pod", "namespace": "ns1", "name": fmt.Sprintf("%s-%d", name, i)},
				"hints":      Object{"forZones": []any{Object{"name": "zone-a"}}},
			})
		}
		o["addressType"] = "IPv4"
		o["endpoints"] = eps
		o["ports"] = []any{Object{"name": "http", "port": 80, "protocol": "TCP", "appProtocol": "http"}}
	}
	allKinds = append(allKinds, "EndpointSlice")
	kindMutations = append(kindMutations, endpointSliceMutations)
}

func endpointSliceMutations() []Mutation {
	es := []string{"EndpointSlice"}
	eps := func(o Object) []any { return o["endpoints"].([]any) }
	ep0 := func(o Object) Object { return eps(o)[0].(Object) }
	setAddrs := func(o Object, typ string, addrs ...any) {
		o["addressType"] = typ
		ep0(o)["addresses"] = addrs
		o["endpoints"] = eps(o)[:1]
	}
	// manyEndpoints are n endpoints of one address each, of the slice's address type.
	manyEndpoints := func(o Object, n int) []any {
		out := make([]any, n)
		for i := range out {
			addr := fmt.Sprintf("10.2.%d.%d", i/250, 1+i%250)
			switch o["addressType"] {
			case "IPv6":
				addr = fmt.Sprintf("fd00::%x", 1+i)
			case "FQDN":
				addr = fmt.Sprintf("h%d.example.com", i)
			}
			out[i] = Object{"addresses": []any{addr}}
		}
		return out
	}
	return []Mutation{
		// Valid.
		{Name: "eps: ports without name and protocol (defaults)", Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			o["ports"] = []any{Object{"port": 53}, Object{"name": "dns-tcp", "port": 53, "protocol": "TCP"}, Object{"name": "any"}}
		}},
		{Name: "eps: no ports", Kinds: es, Apply: func(_ *rand.Rand, o Object) { delete(o, "ports") }},
		{Name: "eps: no endpoints", Kinds: es, Apply: func(_ *rand.Rand, o Object) { o["endpoints"] = []any{} }},
		{Name: "eps: IPv6 slice", Kinds: es, ImmutableIn: es, Apply: func(_ *rand.Rand, o Object) { setAddrs(o, "IPv6", "fd00::10", "2001:db8::1") }},
		{Name: "eps: FQDN slice", Kinds: es, ImmutableIn: es, Apply: func(_ *rand.Rand, o Object) { setAddrs(o, "FQDN", "db.example.com", "cache.example.com.") }},
		{Name: "eps: deprecatedTopology is dropped", Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			ep0(o)["deprecatedTopology"] = Object{"kubernetes.io/hostname": "node-0", "example.com/rack": "r1"}
		}},
		{Name: "eps: node hints and a hostname", Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			at(ep0(o), "hints")["forNodes"] = []any{Object{"name": "node-0"}}
			ep0(o)["hostname"] = "web-0"
		}},
		{Name: "eps: 1000 endpoints", Kinds: es, Apply: func(_ *rand.Rand, o Object) { o["endpoints"] = manyEndpoints(o, 1000) }},
		{Name: "eps: managed by the controller (no IP warnings)", Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "labels")["endpointslice.kubernetes.io/managed-by"] = "endpointslice-controller.k8s.io"
		}},
		{Name: "eps: IPv6 slice with a mapped address warning", Kinds: es, ImmutableIn: es, Apply: func(_ *rand.Rand, o Object) {
			o["addressType"] = "IPv6"
			for _, e := range eps(o) {
				e.(Object)["addresses"] = []any{"fd00::1"}
			}
		}},
		// Invalid.
		{Name: "eps: no addressType", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) { delete(o, "addressType") }},
		{Name: "eps: unknown addressType", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) { o["addressType"] = "MAC" }},
		{Name: "eps: bad IPv4 addresses", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			setAddrs(o, "IPv4", "10.0.0.01", "fd00::1", "127.0.0.1", "169.254.1.1", "0.0.0.0", "224.0.0.1", "nope", "::ffff:10.0.0.1")
		}},
		{Name: "eps: bad IPv6 addresses", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			setAddrs(o, "IPv6", "FD00::1", "10.0.0.1", "::1", "fe80::1", "::", "ff02::1", "2001:db8:0:0:0:0:0:1")
		}},
		{Name: "eps: bad FQDNs", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			setAddrs(o, "FQDN", "localhost", "Bad_Name.example.com", "a..b", strings.Repeat("a", 64)+".example.com")
		}},
		{Name: "eps: endpoint without addresses", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) { ep0(o)["addresses"] = []any{} }},
		{Name: "eps: 101 addresses", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			var addrs []any
			for i := range 101 {
				addrs = append(addrs, fmt.Sprintf("10.3.0.%d", 1+i))
			}
			ep0(o)["addresses"] = addrs
		}},
		{Name: "eps: 1001 endpoints", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) { o["endpoints"] = manyEndpoints(o, 1001) }},
		{Name: "eps: bad nodeName and hostname", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			ep0(o)["nodeName"], ep0(o)["hostname"] = "Node_0", "web.0"
		}},
		{Name: "eps: bad hints", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			ep0(o)["hints"] = Object{"forZones": []any{Object{"name": "z"}, Object{"name": "z"}, Object{"name": "bad zone"}},
				"forNodes": []any{Object{"name": "N"}, Object{"name": "N"}}}
		}},
		{Name: "eps: too many zone hints", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			var zs []any
			for i := range 9 {
				zs = append(zs, Object{"name": fmt.Sprintf("z%d", i)})
			}
			ep0(o)["hints"] = Object{"forZones": zs}
		}},
		{Name: "eps: bad ports", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			o["ports"] = []any{Object{"name": "http", "port": 80}, Object{"name": "http", "port": 81}, Object{"name": "Bad_Name", "protocol": "ICMP"},
				Object{"name": "x", "appProtocol": "not valid/"}}
		}},
		{Name: "eps: bad deprecatedTopology labels", Invalid: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			ep0(o)["deprecatedTopology"] = Object{"bad key!": "v"}
		}},
		// Updates.
		{Name: "eps: addressType changed", UpdateOnly: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			setAddrs(o, "FQDN", "db.example.com")
		}},
		{Name: "eps: label changed (generation bumps)", UpdateOnly: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "labels")["version"] = "2"
		}},
		{Name: "eps: an endpoint moves", UpdateOnly: true, Kinds: es, Apply: func(_ *rand.Rand, o Object) {
			ep0(o)["nodeName"] = "node-9"
		}},
	}
}
