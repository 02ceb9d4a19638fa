package builtin

import (
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
)

// TestServiceColumns_AsKubePrintsThem holds the cells of kube's printService and
// printEndpoints, as the server prints them (wide).
func TestServiceColumns_AsKubePrintsThem(t *testing.T) {
	lb := func(ing ...corev1.LoadBalancerIngress) corev1.ServiceStatus {
		return corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ing}}
	}
	for _, c := range []struct {
		name          string
		svc           corev1.Service
		external, pts string
	}{
		{"cluster IP", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 80, Protocol: "TCP"}}}}, "<none>", "80/TCP"},
		{"external IPs", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"1.2.3.4", "5.6.7.8"}}}, "1.2.3.4,5.6.7.8", ""},
		{"node ports", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
			Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: "TCP"}, {Port: 53, NodePort: 30053, Protocol: "UDP"}}}}, "<none>", "80:30080/TCP,53:30053/UDP"},
		{"pending load balancer", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}, "<pending>", ""},
		{"load balancer addresses, sorted and unique, then external IPs", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalIPs: []string{"9.9.9.9"}},
			Status: lb(corev1.LoadBalancerIngress{Hostname: "lb.example.com"}, corev1.LoadBalancerIngress{IP: "5.5.5.5"}, corev1.LoadBalancerIngress{IP: "5.5.5.5"})},
			"5.5.5.5,lb.example.com,9.9.9.9", ""},
		{"load balancer with external IPs only", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalIPs: []string{"9.9.9.9"}}}, "9.9.9.9", ""},
		{"external name", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}}, "db.example.com", ""},
		{"unknown type", corev1.Service{Spec: corev1.ServiceSpec{Type: "Cloud"}}, "<unknown>", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := serviceExternalIP(&c.svc); got != c.external {
				t.Errorf("EXTERNAL-IP %q, want %q", got, c.external)
			}
			if got := servicePorts(c.svc.Spec.Ports); got != c.pts {
				t.Errorf("PORT(S) %q, want %q", got, c.pts)
			}
		})
	}
	addrs := func(ips ...string) []corev1.EndpointAddress {
		var out []corev1.EndpointAddress
		for _, ip := range ips {
			out = append(out, corev1.EndpointAddress{IP: ip})
		}
		return out
	}
	for _, c := range []struct {
		name    string
		subsets []corev1.EndpointSubset
		want    string
	}{
		{"no subsets", nil, "<none>"},
		{"a subset without ports", []corev1.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2")}}, "10.0.0.1,10.0.0.2"},
		{"three", []corev1.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2", "10.0.0.3"), Ports: []corev1.EndpointPort{{Port: 80}}}}, "10.0.0.1:80,10.0.0.2:80,10.0.0.3:80"},
		{"more than three, over ports", []corev1.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2"), Ports: []corev1.EndpointPort{{Port: 80}, {Port: 443}}},
			{Addresses: addrs("fd00::1"), Ports: []corev1.EndpointPort{{Port: 8080}}}}, "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more..."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := formatEndpoints(&corev1.Endpoints{Subsets: c.subsets}); got != c.want {
				t.Errorf("ENDPOINTS %q, want %q", got, c.want)
			}
		})
	}
}
