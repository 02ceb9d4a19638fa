package kubecode

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// Requested node ports and cluster IPs come in turn from the bottom of their ranges,
// which both sides' allocators hand out last (kube's range offset: 86 node ports, 16
// addresses): a value a case requests is taken on both sides or on neither.
var nextNodePort, nextClusterIP atomic.Int32

func requestedNodePort() int { return 30000 + int(nextNodePort.Add(1)%86) }

func requestedClusterIP() string { return fmt.Sprintf("10.0.0.%d", 2+nextClusterIP.Add(1)%15) }

// The core/v1 Service and Endpoints manifests and mutations. A Service's base is a
// headless ClusterIP service with every field the REST layer would fill given, so
// that kube's allocation has nothing to do unless a mutation asks for it.
func init() {
	kindBases["Service"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "v1"
		o["spec"] = Object{
			"type":           "ClusterIP",
			"clusterIP":      "None",
			"clusterIPs":     []any{"None"},
			"ipFamilies":     []any{"IPv4"},
			"ipFamilyPolicy": "SingleStack",
			"selector":       Object{"app": name},
			"ports": []any{
				Object{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
				Object{"name": "metrics", "port": 9090, "targetPort": "metrics", "protocol": "TCP", "appProtocol": "http"},
			},
			"sessionAffinity":          "None",
			"internalTrafficPolicy":    "Cluster",
			"publishNotReadyAddresses": r.IntN(2) == 0,
		}
	}
	kindBases["Endpoints"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "v1"
		o["subsets"] = []any{Object{
			"addresses": []any{Object{"ip": "10.1.2.3", "hostname": name + "-0", "nodeName": "node-1",
				"targetRef": Object{"kind": "Pod", "name": name + "-0", "namespace": "ns1"}}},
			"notReadyAddresses": []any{Object{"ip": "10.1.2.4"}},
			"ports": []any{
				Object{"name": "http", "port": 8080, "protocol": "TCP"},
				Object{"name": "metrics", "port": 9090, "protocol": "UDP", "appProtocol": "http"},
			},
		}}
	}
	allKinds = append(allKinds, "Service", "Endpoints")
	kindMutations = append(kindMutations, serviceMutations)
}

func serviceMutations() []Mutation {
	svc := []string{"Service"}
	ep := []string{"Endpoints"}
	spec := func(o Object) Object { return at(o, "spec") }
	port := func(o Object, i int) Object { return at(o, "spec", "ports", i) }
	allocated := func(o Object) {
		delete(spec(o), "clusterIP")
		delete(spec(o), "clusterIPs")
	}
	subset := func(o Object) Object { return at(o, "subsets", 0) }
	return []Mutation{
		// Valid.
		{Name: "omit service defaults", Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			if spec(o)["type"] == "ClusterIP" {
				delete(spec(o), "type") // the default; another type keeps its fields
			}
			for _, k := range []string{"sessionAffinity", "internalTrafficPolicy"} {
				delete(spec(o), k)
			}
			for i := range 2 {
				delete(port(o, i), "protocol")
				delete(port(o, i), "targetPort")
			}
		}},
		{Name: "allocated cluster IP", Kinds: svc, ImmutableIn: svc, Apply: func(_ *rand.Rand, o Object) { allocated(o) }},
		{Name: "REST layer ip families", Kinds: svc, ImmutableIn: svc, Apply: func(_ *rand.Rand, o Object) {
			allocated(o)
			delete(spec(o), "ipFamilies")
			delete(spec(o), "ipFamilyPolicy")
		}},
		{Name: "headless without selector", Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "selector")
			if spec(o)["clusterIP"] == "None" {
				delete(spec(o), "ipFamilyPolicy")
				delete(spec(o), "ipFamilies")
			}
		}},
		{Name: "NodePort service", Kinds: svc, ImmutableIn: svc, Apply: func(r *rand.Rand, o Object) {
			allocated(o)
			spec(o)["type"] = "NodePort"
			if r.IntN(2) == 0 {
				port(o, 0)["nodePort"] = requestedNodePort()
			}
			if r.IntN(2) == 0 {
				spec(o)["externalTrafficPolicy"] = "Local"
			}
		}},
		{Name: "LoadBalancer service", Kinds: svc, ImmutableIn: svc, Apply: func(r *rand.Rand, o Object) {
			allocated(o)
			spec(o)["type"] = "LoadBalancer"
			spec(o)["loadBalancerSourceRanges"] = []any{"192.168.0.0/16", " 10.0.0.0/8 "}
			switch r.IntN(3) {
			case 0:
				spec(o)["externalTrafficPolicy"] = "Local"
				if r.IntN(2) == 0 {
					spec(o)["healthCheckNodePort"] = requestedNodePort()
				}
			case 1:
				spec(o)["allocateLoadBalancerNodePorts"] = false
				spec(o)["loadBalancerClass"] = "example.com/lb"
			}
		}},
		{Name: "ExternalName service", Kinds: svc, ImmutableIn: svc, Apply: func(r *rand.Rand, o Object) {
			allocated(o)
			spec(o)["type"] = "ExternalName"
			spec(o)["externalName"] = pick(r, []string{"db.example.com", "db.example.com.", "cache"})
			delete(spec(o), "ipFamilies")
			delete(spec(o), "ipFamilyPolicy")
		}},
		{Name: "ClientIP affinity", Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			spec(o)["sessionAffinity"] = "ClientIP"
			if r.IntN(2) == 0 {
				spec(o)["sessionAffinityConfig"] = Object{"clientIP": Object{"timeoutSeconds": 600}}
			}
		}},
		{Name: "external IPs", Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["externalIPs"] = []any{"203.0.113.10"}
		}},
		{Name: "requested cluster IP", Kinds: svc, ImmutableIn: svc, Apply: func(r *rand.Rand, o Object) {
			ip := requestedClusterIP()
			spec(o)["clusterIP"] = ip
			if r.IntN(2) == 0 {
				spec(o)["clusterIPs"] = []any{ip}
			} else {
				delete(spec(o), "clusterIPs")
			}
		}},
		{Name: "omit endpoint port protocol", Kinds: ep, Apply: func(_ *rand.Rand, o Object) {
			delete(at(subset(o), "ports", 0), "protocol")
		}},
		{Name: "endpoints without subsets", Kinds: ep, Apply: func(_ *rand.Rand, o Object) { delete(o, "subsets") }},

		// Invalid.
		{Name: "unnamed port among several", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { delete(port(o, 1), "name") }},
		{Name: "duplicate port name", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { port(o, 1)["name"] = "http" }},
		{Name: "bad port name", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			port(o, 0)["name"] = pick(r, []string{"HTTP_port", "-x", "a.b"})
		}},
		{Name: "port out of range", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) { port(o, 0)["port"] = pick(r, []int{0, 65536, -1}) }},
		{Name: "bad protocol", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { port(o, 0)["protocol"] = "HTTP" }},
		{Name: "bad target port", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			port(o, 0)["targetPort"] = pick[any](r, []any{70000, "bad_name", "toolongportname1"})
		}},
		{Name: "duplicate port", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { port(o, 1)["port"] = 80 }},
		{Name: "no ports", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			allocated(o)
			delete(spec(o), "ports")
		}},
		{Name: "bad selector", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			spec(o)["selector"] = Object{pick(r, []string{"bad key", "app"}): pick(r, []string{"ok", "not ok!"})}
		}},
		{Name: "bad external name", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			allocated(o)
			spec(o)["type"] = "ExternalName"
			spec(o)["externalName"] = pick(r, []string{"Not_A_Name", ""})
			delete(spec(o), "ipFamilies")
			delete(spec(o), "ipFamilyPolicy")
		}},
		{Name: "ExternalName with a cluster IP", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["type"] = "ExternalName"
			spec(o)["externalName"] = "db.example.com"
		}},
		{Name: "bad session affinity", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { spec(o)["sessionAffinity"] = "Sticky" }},
		{Name: "affinity timeout out of range", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			spec(o)["sessionAffinity"] = "ClientIP"
			spec(o)["sessionAffinityConfig"] = Object{"clientIP": Object{"timeoutSeconds": pick(r, []int{0, 86401})}}
		}},
		{Name: "bad type", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { spec(o)["type"] = "Cloud" }},
		{Name: "node port on a ClusterIP service", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			port(o, 0)["nodePort"] = requestedNodePort()
		}},
		{Name: "headless NodePort", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { spec(o)["type"] = "NodePort" }},
		{Name: "source ranges without a load balancer", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["loadBalancerSourceRanges"] = []any{"10.0.0.0/8"}
		}},
		{Name: "bad source range", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			allocated(o)
			spec(o)["type"] = "LoadBalancer"
			spec(o)["loadBalancerSourceRanges"] = []any{pick(r, []string{"10.0.0.1/8", "garbage", "010.0.0.0/8"})}
		}},
		{Name: "bad external IP", Invalid: true, Kinds: svc, Apply: func(r *rand.Rand, o Object) {
			spec(o)["externalIPs"] = []any{pick(r, []string{"127.0.0.1", "not-an-ip", "169.254.1.1", "0.0.0.0"})}
		}},
		{Name: "bad ip family policy", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) { spec(o)["ipFamilyPolicy"] = "Dual" }},
		{Name: "clusterIPs not matching clusterIP", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["clusterIP"] = "10.0.0.40"
		}},
		{Name: "health check node port without Local", Invalid: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["healthCheckNodePort"] = requestedNodePort()
		}},
		{Name: "subset without addresses", Invalid: true, Kinds: ep, Apply: func(_ *rand.Rand, o Object) {
			delete(subset(o), "addresses")
			delete(subset(o), "notReadyAddresses")
		}},
		{Name: "bad endpoint IP", Invalid: true, Kinds: ep, Apply: func(r *rand.Rand, o Object) {
			at(subset(o), "addresses", 0)["ip"] = pick(r, []string{"127.0.0.1", "not-an-ip", "010.1.2.3", "169.254.0.9", "::ffff:10.1.2.3"})
		}},
		{Name: "unnamed endpoint port", Invalid: true, Kinds: ep, Apply: func(_ *rand.Rand, o Object) { delete(at(subset(o), "ports", 1), "name") }},
		{Name: "endpoint port out of range", Invalid: true, Kinds: ep, Apply: func(_ *rand.Rand, o Object) { at(subset(o), "ports", 0)["port"] = 0 }},
		{Name: "bad endpoint hostname", Invalid: true, Kinds: ep, Apply: func(_ *rand.Rand, o Object) {
			at(subset(o), "addresses", 0)["hostname"] = "Web_0"
		}},
		{Name: "bad endpoint protocol", Invalid: true, Kinds: ep, Apply: func(_ *rand.Rand, o Object) { at(subset(o), "ports", 0)["protocol"] = "ICMP" }},

		// Update only.
		{Name: "cluster IP changed", UpdateOnly: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["clusterIP"] = "10.0.0.99"
			spec(o)["clusterIPs"] = []any{"10.0.0.99"}
		}},
		{Name: "ip families changed", UpdateOnly: true, Kinds: svc, Apply: func(_ *rand.Rand, o Object) {
			allocated(o)
			spec(o)["ipFamilies"] = []any{"IPv6"}
		}},
	}
}
