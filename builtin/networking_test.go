package builtin_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestNetworkingKinds_ServedWithKubeTableColumns reads an Ingress, an IngressClass and a
// NetworkPolicy as kubectl's Table: kube's columns and cells (an Ingress's CLASS, HOSTS
// "a,b,c + 1 more...", ADDRESS sorted and deduplicated, PORTS "80, 443"; an
// IngressClass's PARAMETERS kind.group/name; a NetworkPolicy's POD-SELECTOR), and the
// defaults of kube's networking/v1 (policyTypes, port protocols, parameters' scope).
func TestNetworkingKinds_ServedWithKubeTableColumns(t *testing.T) {
	srv := eventsServer(t)
	const tableAccept = "application/json;as=Table;g=meta.k8s.io;v=v1"
	backend := map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"number": 80}}}
	rule := func(host string) any {
		return map[string]any{"host": host, "http": map[string]any{"paths": []any{map[string]any{"path": "/", "pathType": "Prefix", "backend": backend}}}}
	}
	tests := []struct {
		name, collection, object string
		body                     map[string]any
		columns                  string
		cells                    []any
	}{
		{"ingress with four hosts and TLS", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", "web",
			map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": map[string]any{"name": "web"},
				"spec": map[string]any{"ingressClassName": "nginx", "rules": []any{rule("a.example.com"), rule(""), rule("b.example.com"), rule("c.example.com"), rule("d.example.com")},
					"tls": []any{map[string]any{"hosts": []any{"a.example.com"}}}}},
			"Name,Class,Hosts,Address,Ports,Age", []any{"web", "nginx", "a.example.com,b.example.com,c.example.com + 2 more...", "", "80, 443"}},
		{"ingress without class, hosts or TLS", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", "plain",
			map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": map[string]any{"name": "plain"},
				"spec": map[string]any{"defaultBackend": backend}},
			"Name,Class,Hosts,Address,Ports,Age", []any{"plain", "<none>", "*", "", "80"}},
		{"ingress class with parameters", "/apis/networking.k8s.io/v1/ingressclasses", "nginx",
			map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": map[string]any{"name": "nginx"},
				"spec": map[string]any{"controller": "k8s.io/ingress-nginx", "parameters": map[string]any{"apiGroup": "k8s.example.com", "kind": "Params", "name": "lb"}}},
			"Name,Controller,Parameters,Age", []any{"nginx", "k8s.io/ingress-nginx", "Params.k8s.example.com/lb"}},
		{"network policy", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", "deny",
			map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": map[string]any{"name": "deny"},
				"spec": map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
					"egress": []any{map[string]any{"ports": []any{map[string]any{"port": 53}}}}}},
			"Name,Pod-Selector,Age", []any{"deny", "app=web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call(t, srv, http.MethodPost, tt.collection, tt.body, http.StatusCreated)
			table := callAccept(t, srv, tt.collection+"/"+tt.object, tableAccept)
			var names []string
			for _, c := range table["columnDefinitions"].([]any) {
				names = append(names, c.(map[string]any)["name"].(string))
			}
			if got := strings.Join(names, ","); got != tt.columns {
				t.Errorf("columns %s, want %s", got, tt.columns)
			}
			cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
			for i, want := range tt.cells {
				if cells[i] != want {
					t.Errorf("cell %d (%s) = %#v, want %#v", i, names[i], cells[i], want)
				}
			}
		})
	}
	// kube's defaults of the stored objects.
	np := callAccept(t, srv, "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/deny", "application/json")
	spec := np["spec"].(map[string]any)
	if got := spec["policyTypes"]; !reflect.DeepEqual(got, []any{"Ingress", "Egress"}) {
		t.Errorf("policyTypes %v, want [Ingress Egress]", got)
	}
	if got := spec["egress"].([]any)[0].(map[string]any)["ports"].([]any)[0].(map[string]any)["protocol"]; got != "TCP" {
		t.Errorf("port protocol %v, want TCP", got)
	}
	ic := callAccept(t, srv, "/apis/networking.k8s.io/v1/ingressclasses/nginx", "application/json")
	if got := ic["spec"].(map[string]any)["parameters"].(map[string]any)["scope"]; got != "Cluster" {
		t.Errorf("parameters scope %v, want Cluster", got)
	}
}

// TestIngress_StatusStoredWithAddressColumn writes an Ingress's load-balancer status
// through /status and reads kube's ADDRESS cell: IPs, else hostnames, sorted, each once.
func TestIngress_StatusStoredWithAddressColumn(t *testing.T) {
	srv := eventsServer(t)
	const base = "/apis/networking.k8s.io/v1/namespaces/default/ingresses"
	ing := map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"defaultBackend": map[string]any{"service": map[string]any{"name": "web", "port": map[string]any{"name": "http"}}}}}
	call(t, srv, http.MethodPost, base, ing, http.StatusCreated)
	ing["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": []any{
		map[string]any{"ip": "10.0.0.2"}, map[string]any{"hostname": "lb.example.com"}, map[string]any{"ip": "10.0.0.1", "hostname": "ignored.example.com"}, map[string]any{"ip": "10.0.0.2"},
	}}}
	call(t, srv, http.MethodPut, base+"/web/status", ing, http.StatusOK)
	table := callAccept(t, srv, base+"/web", "application/json;as=Table;g=meta.k8s.io;v=v1")
	cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
	if cells[3] != "10.0.0.1,10.0.0.2,lb.example.com" {
		t.Errorf("Address cell %#v, want %q", cells[3], "10.0.0.1,10.0.0.2,lb.example.com")
	}
}
