package kubecode

import (
	"math/rand/v2"
	"strings"
)

// networkingKinds are the networking.k8s.io/v1 kinds the generator covers.
var networkingKinds = []string{"Ingress", "IngressClass", "NetworkPolicy"}

func init() {
	allKinds = append(allKinds, networkingKinds...)
	for _, k := range networkingKinds {
		kindBases[k] = networkingBase
	}
	kindMutations = append(kindMutations, networkingMutations)
}

// networkingBase is the fully featured manifest of a networking kind: an Ingress with a
// class, rules of each path type, a resource backend and TLS; an IngressClass with
// namespaced parameters; a NetworkPolicy with ingress and egress peers of each sort.
func networkingBase(r *rand.Rand, o Object, name string, _ Object) {
	o["apiVersion"] = "networking.k8s.io/v1"
	switch o["kind"] {
	case "Ingress":
		o["spec"] = Object{
			"ingressClassName": "nginx",
			"defaultBackend":   Object{"service": Object{"name": name + "-default", "port": Object{"number": 80}}},
			"rules": []any{
				Object{"host": "shop.example.com", "http": Object{"paths": []any{
					Object{"path": "/", "pathType": "Prefix", "backend": Object{"service": Object{"name": "web", "port": Object{"name": "http"}}}},
					Object{"path": "/api/v1", "pathType": "Exact", "backend": Object{"service": Object{"name": "api", "port": Object{"number": 8080}}}},
				}}},
				Object{"host": "*.cdn.example.com", "http": Object{"paths": []any{
					Object{"pathType": "ImplementationSpecific", "backend": Object{"resource": Object{"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}}},
				}}},
			},
			"tls": []any{Object{"hosts": []any{"shop.example.com", "*.cdn.example.com"}, "secretName": name + "-tls"}},
		}
	case "IngressClass":
		o["spec"] = Object{
			"controller": pick(r, []string{"k8s.io/ingress-nginx", "example.com/ingress-controller"}),
			"parameters": Object{"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "external-lb", "scope": "Namespace", "namespace": "ingress-system"},
		}
	case "NetworkPolicy":
		o["spec"] = Object{
			"podSelector": Object{"matchLabels": Object{"app": name}},
			"ingress": []any{Object{
				"from": []any{
					Object{"namespaceSelector": Object{"matchLabels": Object{"team": "payments"}}, "podSelector": Object{"matchExpressions": []any{Object{"key": "role", "operator": "In", "values": []any{"frontend"}}}}},
					Object{"ipBlock": Object{"cidr": "10.0.0.0/16", "except": []any{"10.0.1.0/24"}}},
				},
				"ports": []any{Object{"protocol": "TCP", "port": 8080}, Object{"protocol": "UDP", "port": "dns", "endPort": nil}},
			}},
			"egress": []any{Object{
				"to":    []any{Object{"ipBlock": Object{"cidr": "2001:db8::/32"}}},
				"ports": []any{Object{"protocol": "TCP", "port": 32000, "endPort": 32768}},
			}},
			"policyTypes": []any{"Ingress", "Egress"},
		}
		// A named port cannot have an endPort: drop the null the literal above carries.
		delete(at(o, "spec", "ingress", 0, "ports", 1), "endPort")
	}
}

// networkingMutations are the networking kinds' mutations, valid and invalid.
func networkingMutations() []Mutation {
	only := func(kinds ...string) []string { return kinds }
	spec := func(o Object) Object { return at(o, "spec") }
	path0 := func(o Object) Object { return at(o, "spec", "rules", 0, "http", "paths", 0) }
	peer := func(o Object) Object { return at(o, "spec", "ingress", 0, "from", 1) }
	port := func(o Object) Object { return at(o, "spec", "ingress", 0, "ports", 0) }
	params := func(o Object) Object { return at(o, "spec", "parameters") }
	return []Mutation{
		// Valid: defaults.
		{Name: "omit policyTypes", Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), "policyTypes")
			if r.IntN(2) == 0 {
				delete(spec(o), "egress")
			}
		}},
		{Name: "omit port protocols", Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) {
			delete(port(o), "protocol")
			delete(at(o, "spec", "egress", 0, "ports", 0), "protocol")
		}},
		{Name: "omit parameters scope", Kinds: only("IngressClass"), Apply: func(_ *rand.Rand, o Object) {
			delete(params(o), "scope")
			delete(params(o), "namespace")
		}},
		// Valid: other values.
		{Name: "empty pod selector", Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) { spec(o)["podSelector"] = Object{} }},
		{Name: "egress only", Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["policyTypes"] = []any{"Egress"}
			delete(spec(o), "ingress")
		}},
		{Name: "port without number", Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) { delete(port(o), "port") }},
		{Name: "no class name", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "ingressClassName") }},
		{Name: "class annotation only", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "ingressClassName")
			at(o, "metadata", "annotations")["kubernetes.io/ingress.class"] = "nginx"
		}},
		{Name: "class annotation matching", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["kubernetes.io/ingress.class"] = "nginx"
		}},
		{Name: "default backend only", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "rules")
			delete(spec(o), "tls")
		}},
		{Name: "rule without http", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["rules"] = append(spec(o)["rules"].([]any), Object{"host": "bare.example.com"})
		}},
		{Name: "rules without hosts", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			for _, rule := range spec(o)["rules"].([]any) {
				delete(rule.(Object), "host")
			}
		}},
		{Name: "cluster-scoped parameters", Kinds: only("IngressClass"), Apply: func(_ *rand.Rand, o Object) {
			params(o)["scope"] = "Cluster"
			delete(params(o), "namespace")
		}},
		{Name: "no parameters", Kinds: only("IngressClass"), Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "parameters") }},
		{Name: "default class annotation", Kinds: only("IngressClass"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["ingressclass.kubernetes.io/is-default-class"] = "true"
		}},
		{Name: "ambiguous and non-canonical CIDRs (warnings)", Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			at(o, "spec", "egress", 0, "to", 0, "ipBlock")["cidr"] = pick(r, []string{"2001:0db8::/32", "2001:DB8::/32"})
		}},
		{Name: "ingress path change bumps generation", Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			path0(o)["path"] = "/shop"
		}},

		// Invalid: Ingress.
		{Name: "no rules nor default backend", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "rules")
			delete(spec(o), "defaultBackend")
		}},
		{Name: "no pathType", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) { delete(path0(o), "pathType") }},
		{Name: "unknown pathType", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) { path0(o)["pathType"] = "Regex" }},
		{Name: "bad prefix path", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			path0(o)["path"] = pick(r, []string{"shop", "/a//b", "/a/./b", "/a/../b", "/a%2fb", "/a/..", "/a/.", ""})
		}},
		{Name: "relative implementation-specific path", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "rules", 1, "http", "paths", 0)["path"] = "static"
		}},
		{Name: "no paths", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "rules", 0, "http")["paths"] = []any{}
		}},
		{Name: "bad host", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			at(o, "spec", "rules", 0)["host"] = pick(r, []string{"10.0.0.1", "Shop.example.com", "*", "a.*.example.com", "*.Example.com", "::1", "010.0.0.1"})
		}},
		{Name: "both service and resource backend", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			path0(o)["backend"].(Object)["resource"] = Object{"kind": "Bucket", "name": "b"}
		}},
		{Name: "no backend", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) { path0(o)["backend"] = Object{} }},
		{Name: "bad service backend", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			svc := at(path0(o), "backend", "service")
			switch r.IntN(6) {
			case 0:
				svc["port"] = Object{"name": "http", "number": 80}
			case 1:
				svc["port"] = Object{}
			case 2:
				svc["port"] = Object{"number": pick(r, []int{-1, 65536})}
			case 3:
				svc["port"] = Object{"name": pick(r, []string{"HTTP", "has space", "a-very-long-port-name", "--x", "123"})}
			case 4:
				svc["name"] = pick(r, []string{"Web", "web.svc", "-web", strings.Repeat("w", 64)})
			default:
				svc["name"] = ""
			}
		}},
		{Name: "bad resource backend", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			res := at(o, "spec", "rules", 1, "http", "paths", 0, "backend", "resource")
			switch r.IntN(4) {
			case 0:
				res["apiGroup"] = "Bad_Group"
			case 1:
				delete(res, "kind")
			case 2:
				res["name"] = pick(r, []string{"a/b", "..", "."})
			default:
				delete(res, "name")
				res["kind"] = "a%b"
			}
		}},
		{Name: "bad default backend", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["defaultBackend"] = Object{"service": Object{"name": "x"}}
		}},
		{Name: "bad TLS", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			tls := at(o, "spec", "tls", 0)
			if r.IntN(2) == 0 {
				tls["hosts"] = []any{pick(r, []string{"Shop.example.com", "*", "a.*.b", "bad_host"})}
			} else {
				tls["secretName"] = pick(r, []string{"Bad_Secret", "-x", strings.Repeat("s", 254)})
			}
		}},
		{Name: "bad class name", Invalid: true, Kinds: only("Ingress"), Apply: func(r *rand.Rand, o Object) {
			spec(o)["ingressClassName"] = pick(r, []string{"Nginx", "nginx_class", ""})
		}},
		{Name: "class annotation differs", Invalid: true, Kinds: only("Ingress"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["kubernetes.io/ingress.class"] = "traefik"
		}},

		// Invalid: IngressClass.
		{Name: "bad controller", Invalid: true, Kinds: only("IngressClass"), Apply: func(r *rand.Rand, o Object) {
			spec(o)["controller"] = pick(r, []string{"", "nginx", "example.com/", "/x", "Example.com/x", "example.com/a b", "example.com/" + strings.Repeat("c", 250)})
		}},
		{Name: "bad parameters", Invalid: true, Kinds: only("IngressClass"), Apply: func(r *rand.Rand, o Object) {
			p := params(o)
			switch r.IntN(7) {
			case 0:
				p["apiGroup"] = "Bad_Group"
			case 1:
				delete(p, "kind")
			case 2:
				p["name"] = "a/b"
			case 3:
				p["scope"] = "Global"
			case 4:
				delete(p, "namespace")
			case 5:
				p["scope"] = "Cluster"
			default:
				p["namespace"] = "Bad_NS"
			}
		}},

		// Invalid: NetworkPolicy.
		{Name: "bad pod selector", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				spec(o)["podSelector"] = Object{"matchLabels": Object{"app": "not valid!"}}
			} else {
				spec(o)["podSelector"] = Object{"matchExpressions": []any{Object{"key": "k", "operator": pick(r, []string{"Exists", "In", "Gt"}), "values": pick(r, []any{[]any{}, []any{"v"}})}}}
			}
		}},
		{Name: "empty peer", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "ingress", 0)["from"] = []any{Object{}}
		}},
		{Name: "ipBlock with a selector", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(_ *rand.Rand, o Object) {
			peer(o)["podSelector"] = Object{}
		}},
		{Name: "bad cidr", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			peer(o)["ipBlock"].(Object)["cidr"] = pick(r, []string{"", "10.0.0.0", "10.0.0.0/33", "010.0.0.0/16", "10.0.0.1/16", "::ffff:10.0.0.0/104", "10.0.0.0/016", "not-a-cidr"})
		}},
		{Name: "bad except", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			peer(o)["ipBlock"].(Object)["except"] = []any{pick(r, []string{"10.1.0.0/24", "10.0.0.0/16", "10.0.0.0/8", "10.0.1.0/33", "10.0.01.0/24", "2001:db8::/64"})}
		}},
		{Name: "bad port", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			p := port(o)
			switch r.IntN(6) {
			case 0:
				p["protocol"] = "ICMP"
			case 1:
				p["port"] = pick(r, []int{0, 70000})
			case 2:
				p["endPort"] = 80
			case 3:
				p["port"], p["endPort"] = "http", 9000
			case 4:
				delete(p, "port")
				p["endPort"] = 9000
			default:
				p["port"] = pick(r, []string{"HTTP", "a-very-long-port-name"})
			}
		}},
		{Name: "bad policyTypes", Invalid: true, Kinds: only("NetworkPolicy"), Apply: func(r *rand.Rand, o Object) {
			spec(o)["policyTypes"] = pick(r, []any{[]any{"Ingress", "Egress", "Ingress"}, []any{"ingress"}, []any{"Both"}})
		}},

		// Update only: immutable fields.
		{Name: "controller changed", UpdateOnly: true, Kinds: only("IngressClass"), Apply: func(_ *rand.Rand, o Object) {
			spec(o)["controller"] = "example.com/other"
		}},
	}
}
