package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for networking.k8s.io/v1: the same Ingresses,
// IngressClasses and NetworkPolicies, valid and invalid, written to kube-apiserver
// (started as envtest starts it) and to apikit with kube's default admission plugins
// (admission.Builtin()), answered and stored alike: kube's defaults, the default
// IngressClass given to an Ingress without one, the same causes for the refused ones.

// networkingDiffCase is one write: a manifest POSTed to its collection, or with update
// set, a change PUT over the object fixture names (to its subresource when set).
type networkingDiffCase struct {
	name, collection, manifest string
	fixture, subresource       string
	update                     func(obj map[string]any)
}

const (
	ingressesPath   = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
	classesPath     = "/apis/networking.k8s.io/v1/ingressclasses"
	netpolsPath     = "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"
	ingressManifest = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %s
spec:
  ingressClassName: nginx
  defaultBackend: {service: {name: fallback, port: {number: 80}}}
  tls: [{hosts: [shop.example.com, "*.cdn.example.com"], secretName: shop-tls}]
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
      - {path: /api/v1, pathType: Exact, backend: {service: {name: api, port: {number: 8080}}}}
  - host: "*.cdn.example.com"
    http:
      paths:
      - {pathType: ImplementationSpecific, backend: {resource: {apiGroup: k8s.example.com, kind: StorageBucket, name: static}}}
`
	netpolManifest = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: %s
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {team: a}}
      podSelector: {matchExpressions: [{key: role, operator: In, values: [frontend]}]}
    - ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}
    ports: [{port: 8080}, {protocol: UDP, port: dns}]
  egress:
  - to: [{ipBlock: {cidr: "2001:db8::/32"}}]
    ports: [{port: 32000, endPort: 32768}]
`
)

func networkingDiffCases() []networkingDiffCase {
	ing := func(name string) string { return fmt.Sprintf(ingressManifest, name) }
	np := func(name string) string { return fmt.Sprintf(netpolManifest, name) }
	swap := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			panic("networkingDiffCases: " + old + " is not in the manifest")
		}
		return strings.Replace(s, old, new, 1)
	}
	class := func(name, extra string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: " + name + "\n" + extra
	}
	return []networkingDiffCase{
		// The default class first, so that kube's informer has it when the Ingress without
		// a class comes.
		{name: "default ingress class", collection: classesPath, manifest: class("edge",
			"  annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}\nspec:\n  controller: example.com/edge\n")},
		{name: "ingress class with parameters and kube's default scope", collection: classesPath, manifest: class("nginx",
			"spec:\n  controller: k8s.io/ingress-nginx\n  parameters: {apiGroup: k8s.example.com, kind: Params, name: lb}\n")},
		{name: "ingress class with namespaced parameters", collection: classesPath, manifest: class("ns-params",
			"spec:\n  controller: k8s.io/ingress-nginx\n  parameters: {kind: Params, name: lb, scope: Namespace, namespace: ingress}\n")},
		{name: "ingress class with namespace scope and no namespace", collection: classesPath, manifest: class("no-ns",
			"spec:\n  controller: k8s.io/ingress-nginx\n  parameters: {kind: Params, name: lb, scope: Namespace}\n")},
		{name: "ingress class with cluster scope and a namespace", collection: classesPath, manifest: class("cluster-ns",
			"spec:\n  controller: k8s.io/ingress-nginx\n  parameters: {kind: Params, name: lb, scope: Cluster, namespace: x}\n")},
		{name: "ingress class with a bad controller", collection: classesPath, manifest: class("bad-ctl", "spec:\n  controller: nginx\n")},
		{name: "ingress class without a controller", collection: classesPath, manifest: class("no-ctl", "spec: {}\n")},
		{name: "ingress with rules, TLS and backends", collection: ingressesPath, manifest: ing("shop")},
		{name: "ingress with only a default backend", collection: ingressesPath, manifest: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: fallback, annotations: {kubernetes.io/ingress.class: nginx}}\nspec:\n  defaultBackend: {service: {name: web, port: {number: 80}}}\n"},
		{name: "ingress without pathType", collection: ingressesPath, manifest: swap(ing("no-type"), "pathType: Exact, ", "")},
		{name: "ingress with a relative Prefix path", collection: ingressesPath, manifest: swap(ing("rel"), "path: /, ", "path: shop/../x, ")},
		{name: "ingress with an unknown pathType", collection: ingressesPath, manifest: swap(ing("regex"), "pathType: Exact", "pathType: Regex")},
		{name: "ingress with an IP host", collection: ingressesPath, manifest: swap(ing("ip-host"), "- host: shop.example.com", "- host: 10.0.0.1")},
		{name: "ingress with a bad wildcard host", collection: ingressesPath, manifest: swap(ing("wild"), `- host: "*.cdn.example.com"`, `- host: "a.*.example.com"`)},
		{name: "ingress with port name and number", collection: ingressesPath, manifest: swap(ing("both-ports"), "port: {name: http}", "port: {name: http, number: 80}")},
		{name: "ingress with no port", collection: ingressesPath, manifest: swap(ing("no-port"), "port: {name: http}", "port: {}")},
		{name: "ingress with a service and a resource backend", collection: ingressesPath, manifest: swap(ing("two-backends"), "{service: {name: web, port: {name: http}}}", "{service: {name: web, port: {name: http}}, resource: {kind: B, name: b}}")},
		{name: "ingress with a bad service name", collection: ingressesPath, manifest: swap(ing("svc-name"), "name: web,", "name: web.svc,")},
		{name: "ingress with a bad TLS secret and host", collection: ingressesPath, manifest: swap(swap(ing("tls"), "secretName: shop-tls", "secretName: Shop_TLS"), "hosts: [shop.example.com,", "hosts: [Shop,")},
		{name: "ingress whose annotation names another class", collection: ingressesPath, manifest: swap(ing("annot"), "metadata:\n", "metadata:\n  annotations: {kubernetes.io/ingress.class: traefik}\n")},
		{name: "ingress with a bad class name", collection: ingressesPath, manifest: swap(ing("bad-class"), "ingressClassName: nginx", "ingressClassName: Nginx")},
		{name: "ingress without rules or default backend", collection: ingressesPath, manifest: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: empty}\nspec: {}\n"},
		{name: "network policy with kube's defaults", collection: netpolsPath, manifest: np("web")},
		{name: "network policy with only a pod selector", collection: netpolsPath, manifest: "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny-all}\nspec: {podSelector: {}}\n"},
		{name: "network policy with a bad cidr", collection: netpolsPath, manifest: swap(np("cidr"), "cidr: 10.0.0.0/16", "cidr: 10.0.0.1/16")},
		{name: "network policy with an except outside the cidr", collection: netpolsPath, manifest: swap(np("except"), "except: [10.0.1.0/24]", "except: [10.1.0.0/24, 010.0.2.0/24]")},
		{name: "network policy with endPort below port", collection: netpolsPath, manifest: swap(np("endport"), "endPort: 32768", "endPort: 80")},
		{name: "network policy with an empty peer and both peers", collection: netpolsPath, manifest: swap(np("peers"), "- ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}", "- {}\n    - {podSelector: {}, ipBlock: {cidr: 10.0.0.0/16}}")},
		{name: "network policy with bad policyTypes", collection: netpolsPath, manifest: swap(np("types"), "spec:\n", "spec:\n  policyTypes: [Ingress, Egress, Ingress]\n")},
		{name: "network policy with a bad protocol", collection: netpolsPath, manifest: swap(np("proto"), "protocol: UDP", "protocol: ICMP")},
		// Last of the creates: the default class given.
		{name: "ingress without a class gets the default one", collection: ingressesPath, manifest: swap(ing("classless"), "  ingressClassName: nginx\n", "")},
		{name: "ingress class controller changed", fixture: "nginx", collection: classesPath, update: func(o map[string]any) {
			setPath(o, "example.com/other", "spec", "controller")
		}},
		{name: "ingress class parameters changed", fixture: "ns-params", collection: classesPath, update: func(o map[string]any) {
			setPath(o, "other", "spec", "parameters", "name")
		}},
		{name: "ingress rules changed", fixture: "shop", collection: ingressesPath, update: func(o map[string]any) {
			rules := get(o, "spec", "rules").([]any)
			setPath(o, rules[:1], "spec", "rules")
		}},
		{name: "ingress status written", fixture: "shop", subresource: "status", collection: ingressesPath, update: func(o map[string]any) {
			setPath(o, []any{map[string]any{"ip": "192.0.2.10", "ports": []any{map[string]any{"port": int64(443), "protocol": "TCP"}}},
				map[string]any{"hostname": "lb.example.com"}}, "status", "loadBalancer", "ingress")
		}},
		{name: "ingress status with bad addresses", fixture: "fallback", subresource: "status", collection: ingressesPath, update: func(o map[string]any) {
			setPath(o, []any{map[string]any{"ip": "192.0.2.300"}, map[string]any{"hostname": "10.0.0.1"}, map[string]any{"ip": "::ffff:1.2.3.4"}}, "status", "loadBalancer", "ingress")
		}},
		{name: "network policy selector changed", fixture: "web", collection: netpolsPath, update: func(o map[string]any) {
			setPath(o, map[string]any{}, "spec", "podSelector")
		}},
	}
}

// TestSideBySide_NetworkingManifestsAsKubeAPIServer creates and updates the manifests of
// networkingDiffCases on kube-apiserver and on apikit and compares the answers and the
// stored objects.
func TestSideBySide_NetworkingManifestsAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	cases := networkingDiffCases()
	answers := make([][]appsDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]any{}
		for _, c := range cases {
			var code int
			var m map[string]any
			if c.update == nil {
				body, err := yaml.YAMLToJSON([]byte(c.manifest))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				code, m = sv.do(t, hc, "POST", c.collection, "application/json", string(body))
				if code == http.StatusCreated {
					stored[get(m, "metadata", "name").(string)] = m
				}
			} else {
				obj := stored[c.fixture]
				if obj == nil {
					t.Fatalf("%s: %s: the fixture %s was not created", sv.name, c.name, c.fixture)
				}
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				c.update(cp)
				body, _ := json.Marshal(cp)
				path := c.collection + "/" + c.fixture
				if c.subresource != "" {
					path += "/" + c.subresource
				}
				code, m = sv.do(t, hc, "PUT", path, "application/json", string(body))
				if code == http.StatusOK {
					stored[c.fixture] = m
				}
			}
			ans := appsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.setRefusal(m)
			} else {
				cp := copyJSON(m)
				ans.Stored = normalizeStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal, refused := 0, 0
	for j, c := range cases {
		if answers[0][j].Code >= 300 {
			refused++
		}
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d networking.k8s.io/v1 writes answered and stored as kube-apiserver does (%d refused by kube)", equal, len(cases), refused)
	last := answers[0][slices.IndexFunc(cases, func(c networkingDiffCase) bool { return strings.HasPrefix(c.name, "ingress without a class") })]
	if get(last.Stored, "spec", "ingressClassName") != "edge" {
		t.Errorf("kube-apiserver did not give the default class: %v", get(last.Stored, "spec"))
	}
}
