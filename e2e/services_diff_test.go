package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for core/v1 services and endpoints: the same
// manifests of each Service type, valid and invalid, and Endpoints, written to
// kube-apiserver (started as envtest starts it) and to apikit, answered and stored
// alike once the values each server picks are set aside: uid, resourceVersion,
// timestamps, managedFields times, and the cluster IPs and node ports an allocator
// handed out (requested ones stay: the manifests request them from the bottom of the
// ranges, which both allocators hand out last). Warnings are compared too.

// svcDiffCase is one write: a manifest POSTed to its collection, or with update set,
// a change PUT over the object fixture names (to its subresource sub, if any).
type svcDiffCase struct {
	name, collection, manifest string
	fixture, sub               string
	update                     func(obj map[string]any)
}

const (
	servicesCollection  = "/api/v1/namespaces/default/services"
	endpointsCollection = "/api/v1/namespaces/default/endpoints"
)

func svcManifest(name, spec string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n%s", name, spec)
}

const svcPorts = "  ports:\n  - {name: http, port: 80, targetPort: 8080}\n  - {name: metrics, port: 9090, targetPort: metrics}\n"

func svcDiffCases() []svcDiffCase {
	svc := func(name, spec string) svcDiffCase {
		return svcDiffCase{name: name, collection: servicesCollection, manifest: svcManifest(name, spec)}
	}
	ep := func(name, subsets string) svcDiffCase {
		return svcDiffCase{name: name, collection: endpointsCollection, manifest: "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: " + name + "\n" + subsets}
	}
	upd := func(name, fixture string, f func(map[string]any)) svcDiffCase {
		return svcDiffCase{name: name, collection: servicesCollection, fixture: fixture, update: f}
	}
	return []svcDiffCase{
		svc("cluster", "  selector: {app: web}\n"+svcPorts),
		svc("cluster-requested", "  clusterIP: 10.0.0.10\n  ports: [{port: 80}]\n"),
		svc("cluster-affinity", "  sessionAffinity: ClientIP\n  ports: [{port: 80, protocol: UDP}]\n"),
		svc("cluster-external-ips", "  externalIPs: [203.0.113.10]\n  ports: [{port: 80}]\n"),
		svc("headless", "  clusterIP: None\n  selector: {app: web}\n"+svcPorts),
		svc("headless-selectorless", "  clusterIP: None\n  ports: [{port: 80}]\n"),
		svc("headless-no-ports", "  clusterIP: None\n  selector: {app: web}\n"),
		svc("node", "  type: NodePort\n  ports: [{name: http, port: 80, nodePort: 30010}, {name: dns, port: 53, protocol: UDP}]\n"),
		svc("node-same-port", "  type: NodePort\n  ports: [{name: tcp, port: 53}, {name: udp, port: 53, protocol: UDP}]\n"),
		svc("node-local", "  type: NodePort\n  externalTrafficPolicy: Local\n  ports: [{port: 80}]\n"),
		svc("lb", "  type: LoadBalancer\n  loadBalancerSourceRanges: [10.0.0.0/8]\n  ports: [{port: 443}]\n"),
		svc("lb-local", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  ports: [{port: 443}]\n"),
		svc("lb-local-requested", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 30011\n  ports: [{port: 443, nodePort: 30012}]\n"),
		svc("lb-no-node-ports", "  type: LoadBalancer\n  allocateLoadBalancerNodePorts: false\n  loadBalancerClass: example.com/lb\n  ports: [{port: 443}]\n"),
		svc("external", "  type: ExternalName\n  externalName: db.example.com\n"),
		svc("bad-unnamed-ports", "  ports: [{port: 80}, {port: 81}]\n"),
		svc("bad-duplicate-names", "  ports: [{name: a, port: 80}, {name: a, port: 81}]\n"),
		svc("bad-taken-node-port", "  type: NodePort\n  ports: [{port: 80, nodePort: 30010}]\n"),
		svc("bad-taken-ip", "  clusterIP: 10.0.0.10\n  ports: [{port: 80}]\n"),
		svc("bad-ip-out-of-range", "  clusterIP: 10.1.0.5\n  ports: [{port: 80}]\n"),
		svc("bad-node-port-out-of-range", "  type: NodePort\n  ports: [{port: 80, nodePort: 8080}]\n"),
		svc("bad-no-ports", "  selector: {app: web}\n"),
		svc("bad-type", "  type: Cloud\n  ports: [{port: 80}]\n"),
		svc("bad-external-name", "  type: ExternalName\n  externalName: Not_A_Name\n"),
		svc("bad-external-name-with-ip", "  type: ExternalName\n  externalName: db.example.com\n  clusterIP: 10.0.0.12\n"),
		svc("bad-lb-headless", "  type: LoadBalancer\n  clusterIP: None\n  ports: [{port: 80}]\n"),
		svc("bad-ipv6", "  ipFamilies: [IPv6]\n  ports: [{port: 80}]\n"),
		svc("bad-dual-stack", "  ipFamilyPolicy: RequireDualStack\n  ports: [{port: 80}]\n"),
		svc("bad-node-port-on-cluster-ip", "  ports: [{port: 80, nodePort: 30013}]\n"),
		svc("bad-source-ranges", "  loadBalancerSourceRanges: [10.0.0.0/8]\n  ports: [{port: 80}]\n"),
		svc("bad-affinity-timeout", "  sessionAffinity: ClientIP\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 86401}}\n  ports: [{port: 80}]\n"),
		svc("bad-port-values", "  ports: [{name: HTTP_x, port: 0, targetPort: 70000, protocol: ICMP}]\n"),
		svc("Bad-Name", "  ports: [{port: 80}]\n"),
		ep("cluster", "subsets:\n- addresses: [{ip: 10.1.0.1, hostname: web-0, nodeName: node-1}]\n  notReadyAddresses: [{ip: 10.1.0.2}]\n  ports: [{name: http, port: 8080}, {name: dns, port: 53, protocol: UDP}]\n"),
		ep("empty", ""),
		ep("bad-subset", "subsets:\n- ports: [{port: 80}]\n"),
		ep("bad-ips", "subsets:\n- addresses: [{ip: 127.0.0.1}, {ip: 010.1.0.3}, {ip: not-an-ip}]\n  ports: [{port: 80}]\n"),
		ep("bad-ports", "subsets:\n- addresses: [{ip: 10.1.0.1}]\n  ports: [{port: 0}, {port: 80, protocol: ICMP}]\n"),
		upd("cluster IP changed", "cluster", func(o map[string]any) {
			setPath(o, "10.0.0.14", "spec", "clusterIP")
			setPath(o, []any{"10.0.0.14"}, "spec", "clusterIPs")
		}),
		upd("allocated values left out", "node", func(o map[string]any) {
			delete(o["spec"].(map[string]any), "clusterIP")
			delete(o["spec"].(map[string]any), "clusterIPs")
			for _, p := range get(o, "spec", "ports").([]any) {
				delete(p.(map[string]any), "nodePort")
			}
		}),
		upd("NodePort to ClusterIP", "node-same-port", func(o map[string]any) {
			setPath(o, "ClusterIP", "spec", "type")
			delete(o["spec"].(map[string]any), "externalTrafficPolicy")
		}),
		upd("ClusterIP to ExternalName", "cluster-affinity", func(o map[string]any) {
			setPath(o, "ExternalName", "spec", "type")
			setPath(o, "db.example.com", "spec", "externalName")
		}),
		upd("ExternalName to ClusterIP", "external", func(o map[string]any) {
			setPath(o, "ClusterIP", "spec", "type")
			setPath(o, []any{map[string]any{"port": int64(80)}}, "spec", "ports")
		}),
		upd("health check node port changed", "lb-local-requested", func(o map[string]any) {
			setPath(o, int64(30014), "spec", "healthCheckNodePort")
		}),
		{name: "load balancer status", collection: servicesCollection, fixture: "lb", sub: "status", update: func(o map[string]any) {
			setPath(o, map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.20"}, map[string]any{"hostname": "lb.example.com"}}}, "status", "loadBalancer")
		}},
		{name: "bad load balancer status", collection: servicesCollection, fixture: "cluster", sub: "status", update: func(o map[string]any) {
			setPath(o, map[string]any{"ingress": []any{map[string]any{"ip": "203.0.113.20", "ipMode": "Bogus"}}}, "status", "loadBalancer")
		}},
	}
}

// svcDiffAnswer is what a server answered to a write, with its warnings, and stored.
type svcDiffAnswer struct {
	Answer   appsDiffAnswer
	Warnings []string
}

// svcDo is one request, with the Warning headers of the answer.
func svcDo(t *testing.T, hc *http.Client, host, method, path, body string) (int, map[string]any, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(host, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: %d %.200s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, m, resp.Header.Values("Warning")
}

// normalizeAllocated sets aside the cluster IP and node ports an allocator picked: an
// address above 10.0.0.16 and a port above 30085 (the manifests request theirs below).
func normalizeAllocated(m map[string]any) {
	spec, _ := m["spec"].(map[string]any)
	if spec == nil {
		return
	}
	picked := func(ip any) bool {
		s, _ := ip.(string)
		a, err := netip.ParseAddr(s)
		return err == nil && netip.MustParsePrefix("10.0.0.0/24").Contains(a) && a.As4()[3] > 16
	}
	if picked(spec["clusterIP"]) {
		spec["clusterIP"], spec["clusterIPs"] = "<allocated>", []any{"<allocated>"}
	}
	port := func(v any) bool { n, ok := v.(float64); return ok && n > 30085 && n <= 32767 }
	if port(spec["healthCheckNodePort"]) {
		spec["healthCheckNodePort"] = "<allocated>"
	}
	ports, _ := spec["ports"].([]any)
	for _, p := range ports {
		if pm, ok := p.(map[string]any); ok && port(pm["nodePort"]) {
			pm["nodePort"] = "<allocated>"
		}
	}
}

// TestSideBySide_ServicesAsKubeAPIServer writes the cases of svcDiffCases to
// kube-apiserver and to apikit and compares the answers, warnings and stored objects.
func TestSideBySide_ServicesAsKubeAPIServer(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	cases := svcDiffCases()
	answers := make([][]svcDiffAnswer, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]any{}
		for _, c := range cases {
			var code int
			var m map[string]any
			var warnings []string
			if c.update == nil {
				body, err := yaml.YAMLToJSON([]byte(c.manifest))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				code, m, warnings = svcDo(t, hc, sv.cfg.Host, http.MethodPost, c.collection, string(body))
				if code == http.StatusCreated && c.collection == servicesCollection {
					stored[get(m, "metadata", "name").(string)] = m
				}
			} else {
				obj := stored[c.fixture]
				if obj == nil {
					// Compared as such: the other server may have created it.
					answers[i] = append(answers[i], svcDiffAnswer{Answer: appsDiffAnswer{Message: "no fixture " + c.fixture}})
					continue
				}
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				c.update(cp)
				body, _ := json.Marshal(cp)
				path := c.collection + "/" + c.fixture
				if c.sub != "" {
					path += "/" + c.sub
				}
				code, m, warnings = svcDo(t, hc, sv.cfg.Host, http.MethodPut, path, string(body))
				if code == http.StatusOK {
					stored[c.fixture] = m
				}
			}
			ans := svcDiffAnswer{Answer: appsDiffAnswer{Code: code}, Warnings: warnings}
			if m["kind"] == "Status" {
				ans.Answer.setRefusal(m)
			} else {
				cp := copyJSON(m)
				normalizeAllocated(cp)
				ans.Answer.Stored = normalizeStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, c := range cases {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d service and endpoints writes answered and stored as kube-apiserver does", equal, len(cases))
	t.Run("concurrent creates get distinct addresses", func(t *testing.T) { concurrentServiceCreates(t, servers) })
}

// concurrentServiceCreates creates services in parallel (bounded: 40 creates, 8 at a
// time) on kube-apiserver and on apikit: on both, every create succeeds and no cluster
// IP or node port is handed out twice.
func concurrentServiceCreates(t *testing.T, servers []*sideBySide) {
	const n, parallel = 40, 8
	for _, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		ips, ports := map[any]int{}, map[any]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		sem := make(chan struct{}, parallel)
		start := time.Now()
		for i := range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				body := fmt.Sprintf(`{"metadata":{"name":"par-%d"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`, i)
				code, m, _ := svcDo(t, hc, sv.cfg.Host, http.MethodPost, servicesCollection, body)
				mu.Lock()
				defer mu.Unlock()
				if code != http.StatusCreated {
					t.Errorf("%s: create %d: %d %v", sv.name, i, code, m["message"])
					return
				}
				ips[get(m, "spec", "clusterIP")]++
				ports[get(m, "spec", "ports").([]any)[0].(map[string]any)["nodePort"]]++
			}()
		}
		wg.Wait()
		t.Logf("%s: %d parallel creates in %v", sv.name, n, time.Since(start))
		if len(ips) != n || len(ports) != n {
			t.Errorf("%s: %d distinct cluster IPs and %d distinct node ports for %d services", sv.name, len(ips), len(ports), n)
		}
	}
}
