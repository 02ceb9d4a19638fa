package strategies_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/bolt"
	"github.com/apikit-dev/apikit/storage/memory"
)

const servicesPath = "/api/v1/namespaces/default/services"

// serviceServers starts n servers over one memory store, as replicas share an etcd,
// with the default namespace created.
func serviceServers(t testing.TB, n int) []*apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	store := memory.New(memory.Options{})
	var out []*apitest.Server
	for range n {
		out = append(out, apitest.NewServer(t, s, apitest.Options{Storage: store, REST: rest.Options{Strategies: strategies.Builtin()}}))
	}
	resp, err := out[0].Client().Post(out[0].URL+"/api/v1/namespaces", "application/json", strings.NewReader(`{"metadata":{"name":"default"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("creating the default namespace: %d", resp.StatusCode)
	}
	return out
}

func svc(name string, spec map[string]any) map[string]any {
	if _, ok := spec["ports"]; !ok {
		spec["ports"] = []any{map[string]any{"port": 80}}
	}
	return map[string]any{"metadata": map[string]any{"name": name}, "spec": spec}
}

func specOf(obj map[string]any) map[string]any { return obj["spec"].(map[string]any) }

func nodePortOf(obj map[string]any, i int) any {
	return specOf(obj)["ports"].([]any)[i].(map[string]any)["nodePort"]
}

func inServiceRange(t *testing.T, ip any) {
	t.Helper()
	s, _ := ip.(string)
	a, err := netip.ParseAddr(s)
	if err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(a) || s == "10.0.0.0" || s == "10.0.0.255" || s == "10.0.0.1" {
		t.Errorf("clusterIP %v, want a host address of 10.0.0.0/24 other than the kubernetes service's", ip)
	}
}

func inNodePortRange(t *testing.T, p any) {
	t.Helper()
	n, ok := p.(float64)
	if !ok || n < 30000 || n > 32767 {
		t.Errorf("node port %v, want one of 30000-32767", p)
	}
}

// TestServiceStrategy_DefaultsAndAllocatesAsKube holds SetDefaults_Service and the REST
// layer's ipFamilies and allocation, per type, as kube-apiserver stores them.
func TestServiceStrategy_DefaultsAndAllocatesAsKube(t *testing.T) {
	srv := serviceServers(t, 1)[0]
	for _, c := range []struct {
		name  string
		spec  map[string]any
		check func(t *testing.T, spec map[string]any)
	}{
		{"ClusterIP", map[string]any{"selector": map[string]any{"app": "a"}}, func(t *testing.T, s map[string]any) {
			want(t, s, "type", "ClusterIP")
			want(t, s, "sessionAffinity", "None")
			want(t, s, "ipFamilyPolicy", "SingleStack")
			want(t, s, "internalTrafficPolicy", "Cluster")
			wantJSON(t, s, "ipFamilies", `["IPv4"]`)
			wantJSON(t, s, "ports", `[{"port":80,"protocol":"TCP","targetPort":80}]`)
			inServiceRange(t, s["clusterIP"])
			wantJSON(t, s, "clusterIPs", fmt.Sprintf("[%q]", s["clusterIP"]))
			if _, ok := s["externalTrafficPolicy"]; ok {
				t.Errorf("externalTrafficPolicy %v on a ClusterIP service, want none", s["externalTrafficPolicy"])
			}
		}},
		{"ClientIP affinity", map[string]any{"sessionAffinity": "ClientIP"}, func(t *testing.T, s map[string]any) {
			wantJSON(t, s, "sessionAffinityConfig", `{"clientIP":{"timeoutSeconds":10800}}`)
		}},
		{"NodePort", map[string]any{"type": "NodePort"}, func(t *testing.T, s map[string]any) {
			want(t, s, "externalTrafficPolicy", "Cluster")
			inNodePortRange(t, s["ports"].([]any)[0].(map[string]any)["nodePort"])
		}},
		{"LoadBalancer Local", map[string]any{"type": "LoadBalancer", "externalTrafficPolicy": "Local"}, func(t *testing.T, s map[string]any) {
			want(t, s, "allocateLoadBalancerNodePorts", true)
			inNodePortRange(t, s["ports"].([]any)[0].(map[string]any)["nodePort"])
			inNodePortRange(t, s["healthCheckNodePort"])
		}},
		{"LoadBalancer without node ports", map[string]any{"type": "LoadBalancer", "allocateLoadBalancerNodePorts": false}, func(t *testing.T, s map[string]any) {
			if np := s["ports"].([]any)[0].(map[string]any)["nodePort"]; np != nil {
				t.Errorf("nodePort %v, want none", np)
			}
		}},
		{"headless with selector", map[string]any{"clusterIP": "None", "selector": map[string]any{"app": "a"}}, func(t *testing.T, s map[string]any) {
			want(t, s, "ipFamilyPolicy", "SingleStack")
			wantJSON(t, s, "ipFamilies", `["IPv4"]`)
			wantJSON(t, s, "clusterIPs", `["None"]`)
		}},
		{"headless without selector", map[string]any{"clusterIP": "None"}, func(t *testing.T, s map[string]any) {
			want(t, s, "ipFamilyPolicy", "RequireDualStack")
			wantJSON(t, s, "ipFamilies", `["IPv4","IPv6"]`)
		}},
		{"ExternalName", map[string]any{"type": "ExternalName", "externalName": "example.com"}, func(t *testing.T, s map[string]any) {
			for _, f := range []string{"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy"} {
				if v, ok := s[f]; ok {
					t.Errorf("%s = %v on an ExternalName service, want none", f, v)
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ToLower(strings.ReplaceAll(c.name, " ", "-"))
			c.check(t, specOf(call(t, srv, http.MethodPost, servicesPath, svc(name, c.spec), http.StatusCreated)))
		})
	}
}

func want(t *testing.T, m map[string]any, key string, v any) {
	t.Helper()
	if m[key] != v {
		t.Errorf("%s = %v, want %v", key, m[key], v)
	}
}

func wantJSON(t *testing.T, m map[string]any, key, v string) {
	t.Helper()
	b, _ := json.Marshal(m[key])
	if string(b) != v {
		t.Errorf("%s = %s, want %s", key, b, v)
	}
}

// cause returns the only cause of a 422.
func cause(t *testing.T, st map[string]any) map[string]any {
	t.Helper()
	causes, _ := st["details"].(map[string]any)["causes"].([]any)
	if len(causes) != 1 {
		t.Fatalf("causes %v, want one", causes)
	}
	return causes[0].(map[string]any)
}

// TestServiceAllocation_RefusesTakenAndOutOfRangeValuesAsKube holds kube's 422s of the
// allocators: a requested cluster IP or node port that another service holds, or that
// is outside the service ranges.
func TestServiceAllocation_RefusesTakenAndOutOfRangeValuesAsKube(t *testing.T) {
	srv := serviceServers(t, 1)[0]
	call(t, srv, http.MethodPost, servicesPath, svc("holder", map[string]any{"type": "NodePort", "clusterIP": "10.0.0.20",
		"ports": []any{map[string]any{"port": 80, "nodePort": 30020}}}), http.StatusCreated)
	for _, c := range []struct {
		name       string
		spec       map[string]any
		field, msg string
	}{
		{"taken cluster IP", map[string]any{"clusterIP": "10.0.0.20"},
			"spec.clusterIPs", `Invalid value: ["10.0.0.20"]: failed to allocate IP 10.0.0.20: provided IP is already allocated`},
		{"cluster IP out of range", map[string]any{"clusterIP": "10.0.1.5"},
			"spec.clusterIPs", `Invalid value: ["10.0.1.5"]: failed to allocate IP 10.0.1.5: the provided network does not match the current range`},
		{"broadcast cluster IP", map[string]any{"clusterIP": "10.0.0.255"},
			"spec.clusterIPs", `Invalid value: ["10.0.0.255"]: failed to allocate IP 10.0.0.255: the provided IP (10.0.0.255) is not in the valid range. The range of valid IPs is 10.0.0.0/24`},
		{"taken node port", map[string]any{"type": "NodePort", "ports": []any{map[string]any{"port": 80, "nodePort": 30020}}},
			"spec.ports[0].nodePort", "Invalid value: 30020: provided port is already allocated"},
		{"node port out of range", map[string]any{"type": "NodePort", "ports": []any{map[string]any{"port": 80, "nodePort": 8080}}},
			"spec.ports[0].nodePort", "Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := cause(t, call(t, srv, http.MethodPost, servicesPath, svc("x", c.spec), http.StatusUnprocessableEntity))
			if got["field"] != c.field || got["message"] != c.msg || got["reason"] != "FieldValueInvalid" {
				t.Errorf("cause %v, want %s %q", got, c.field, c.msg)
			}
		})
	}
	// None of the refused creates kept what it had reserved before failing.
	call(t, srv, http.MethodPost, servicesPath, svc("free", map[string]any{"type": "NodePort", "clusterIP": "10.0.0.21",
		"ports": []any{map[string]any{"port": 80, "nodePort": 30021}}}), http.StatusCreated)
}

// TestServiceAllocation_ReleasesWhatAWriteDrops holds the releases: on delete, on a
// change of type that no longer needs node ports, on a write that fails after it
// reserved, and nothing held by a dry run.
func TestServiceAllocation_ReleasesWhatAWriteDrops(t *testing.T) {
	srv := serviceServers(t, 1)[0]
	np := func(name, ip string, port int, typ string) map[string]any {
		return svc(name, map[string]any{"type": typ, "clusterIP": ip, "ports": []any{map[string]any{"port": 80, "nodePort": port}}})
	}
	t.Run("delete", func(t *testing.T) {
		call(t, srv, http.MethodPost, servicesPath, np("a", "10.0.0.30", 30030, "NodePort"), http.StatusCreated)
		call(t, srv, http.MethodDelete, servicesPath+"/a", nil, http.StatusOK)
		call(t, srv, http.MethodPost, servicesPath, np("b", "10.0.0.30", 30030, "NodePort"), http.StatusCreated)
	})
	t.Run("NodePort to ClusterIP", func(t *testing.T) {
		got := call(t, srv, http.MethodPost, servicesPath, np("c", "10.0.0.31", 30031, "NodePort"), http.StatusCreated)
		specOf(got)["type"] = "ClusterIP"
		delete(specOf(got), "externalTrafficPolicy")
		upd := call(t, srv, http.MethodPut, servicesPath+"/c", got, http.StatusOK)
		if p := nodePortOf(upd, 0); p != nil {
			t.Errorf("nodePort %v after the change to ClusterIP, want none", p)
		}
		if ip := specOf(upd)["clusterIP"]; ip != "10.0.0.31" {
			t.Errorf("clusterIP %v, want the kept 10.0.0.31", ip)
		}
		call(t, srv, http.MethodPost, servicesPath, np("d", "10.0.0.32", 30031, "NodePort"), http.StatusCreated)
	})
	t.Run("failed create", func(t *testing.T) {
		bad := np("e", "10.0.0.33", 30033, "NodePort")
		specOf(bad)["ports"].([]any)[0].(map[string]any)["name"] = "Not_A_Label"
		call(t, srv, http.MethodPost, servicesPath, bad, http.StatusUnprocessableEntity)
		call(t, srv, http.MethodPost, servicesPath, np("bad", "10.0.0.34", 30034, "NodePort"), http.StatusCreated)
		// A name that exists fails after the allocation.
		call(t, srv, http.MethodPost, servicesPath, np("bad", "10.0.0.33", 30033, "NodePort"), http.StatusConflict)
		call(t, srv, http.MethodPost, servicesPath, np("e", "10.0.0.33", 30033, "NodePort"), http.StatusCreated)
	})
	t.Run("dry run", func(t *testing.T) {
		got := call(t, srv, http.MethodPost, servicesPath+"?dryRun=All", svc("f", map[string]any{"type": "NodePort"}), http.StatusCreated)
		inServiceRange(t, specOf(got)["clusterIP"])
		inNodePortRange(t, nodePortOf(got, 0))
		ip, port := specOf(got)["clusterIP"].(string), int(nodePortOf(got, 0).(float64))
		call(t, srv, http.MethodPost, servicesPath, np("f", ip, port, "NodePort"), http.StatusCreated)
		call(t, srv, http.MethodDelete, servicesPath+"/f?dryRun=All", nil, http.StatusOK)
		call(t, srv, http.MethodPost, servicesPath, np("g", ip, port, "NodePort"), http.StatusUnprocessableEntity)
	})
	t.Run("clusterIP is immutable", func(t *testing.T) {
		got := call(t, srv, http.MethodGet, servicesPath+"/e", nil, http.StatusOK)
		specOf(got)["clusterIP"], specOf(got)["clusterIPs"] = "10.0.0.40", []any{"10.0.0.40"}
		c := cause(t, call(t, srv, http.MethodPut, servicesPath+"/e", got, http.StatusUnprocessableEntity))
		if c["field"] != "spec.clusterIPs[0]" || c["message"] != `Invalid value: ["10.0.0.40"]: may not change once set` {
			t.Errorf("cause %v, want kube's immutable clusterIPs[0]", c)
		}
	})
}

// TestServiceAllocation_ConcurrentCreatesOnReplicasNeverShare creates services in
// parallel through two servers sharing one store, as etcd replicas do: no cluster IP
// or node port is handed out twice.
func TestServiceAllocation_ConcurrentCreatesOnReplicasNeverShare(t *testing.T) {
	srvs := serviceServers(t, 2)
	const n = 60
	var wg sync.WaitGroup
	results := make([]map[string]any, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv := srvs[i%2]
			b, _ := json.Marshal(svc(fmt.Sprintf("s%d", i), map[string]any{"type": "NodePort"}))
			resp, err := srv.Client().Post(srv.URL+servicesPath, "application/json", bytes.NewReader(b))
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				errs[i] = fmt.Errorf("status %d", resp.StatusCode)
				return
			}
			errs[i] = json.NewDecoder(resp.Body).Decode(&results[i])
		}()
	}
	wg.Wait()
	ips, ports := map[any]int{}, map[any]int{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("create %d: %v", i, errs[i])
		}
		ips[specOf(results[i])["clusterIP"]]++
		ports[nodePortOf(results[i], 0)]++
	}
	for ip, k := range ips {
		if k > 1 {
			t.Errorf("clusterIP %v handed out %d times", ip, k)
		}
	}
	for p, k := range ports {
		if k > 1 {
			t.Errorf("node port %v handed out %d times", p, k)
		}
	}
	if len(ips) != n || len(ports) != n {
		t.Errorf("%d cluster IPs and %d node ports for %d services, want %d each", len(ips), len(ports), n, n)
	}
}

// TestServiceAllocation_FullRangeIsKubesError fills 10.0.0.0/24 (253 addresses besides
// the kubernetes service's) and holds kube's 500 for the next one.
func TestServiceAllocation_FullRangeIsKubesError(t *testing.T) {
	srv := serviceServers(t, 1)[0]
	for i := range 253 {
		call(t, srv, http.MethodPost, servicesPath, svc(fmt.Sprintf("s%d", i), map[string]any{}), http.StatusCreated)
	}
	st := call(t, srv, http.MethodPost, servicesPath, svc("full", map[string]any{}), http.StatusInternalServerError)
	if st["reason"] != "InternalError" || st["message"] != `Internal error occurred: failed to allocate a serviceIP for Service "full": range is full` {
		t.Errorf("status %v, want kube's range is full", st)
	}
	// A headless service needs no address.
	call(t, srv, http.MethodPost, servicesPath, svc("headless", map[string]any{"clusterIP": "None"}), http.StatusCreated)
}

// TestServiceAllocation_ReservationsAreOutsideEveryResource holds that the reservation
// records are not objects of any served resource: a list of services sees only services.
func TestServiceAllocation_ReservationsAreOutsideEveryResource(t *testing.T) {
	srv := serviceServers(t, 1)[0]
	call(t, srv, http.MethodPost, servicesPath, svc("a", map[string]any{"type": "NodePort"}), http.StatusCreated)
	list := call(t, srv, http.MethodGet, "/api/v1/services", nil, http.StatusOK)
	if items := list["items"].([]any); len(items) != 1 {
		t.Errorf("%d services listed, want 1", len(items))
	}
}

// TestServiceAllocation_ReservationsSurviveARestartOnBolt holds that the reservations
// are records of the storage itself: a server restarted over the same bolt file still
// refuses the address and node port a stored service holds, and frees them once it is
// deleted.
func TestServiceAllocation_ReservationsSurviveARestartOnBolt(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	start := func() (*apitest.Server, *bolt.Store) {
		store, err := bolt.New(path, bolt.Options{Codec: bolt.SerializerCodec(codec.NewJSON(s)), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return apitest.NewServer(t, s, apitest.Options{Storage: store, REST: rest.Options{Strategies: strategies.Builtin()}}), store
	}
	srv, store := start()
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	held := svc("held", map[string]any{"type": "NodePort", "clusterIP": "10.0.0.50", "ports": []any{map[string]any{"port": 80, "nodePort": 30050}}})
	call(t, srv, http.MethodPost, servicesPath, held, http.StatusCreated)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	srv, store = start()
	t.Cleanup(func() { _ = srv.Close(); _ = store.Close() })
	other := svc("other", map[string]any{"type": "NodePort", "clusterIP": "10.0.0.50", "ports": []any{map[string]any{"port": 80, "nodePort": 30050}}})
	c := cause(t, call(t, srv, http.MethodPost, servicesPath, other, http.StatusUnprocessableEntity))
	if c["field"] != "spec.clusterIPs" {
		t.Errorf("cause %v, want the taken cluster IP", c)
	}
	specOf(other)["clusterIP"] = "10.0.0.51"
	c = cause(t, call(t, srv, http.MethodPost, servicesPath, other, http.StatusUnprocessableEntity))
	if c["field"] != "spec.ports[0].nodePort" {
		t.Errorf("cause %v, want the taken node port", c)
	}
	call(t, srv, http.MethodDelete, servicesPath+"/held", nil, http.StatusOK)
	specOf(other)["clusterIP"] = "10.0.0.50"
	call(t, srv, http.MethodPost, servicesPath, other, http.StatusCreated)
}
