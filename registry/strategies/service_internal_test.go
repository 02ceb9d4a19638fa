package strategies

import (
	"slices"
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
)

// TestServiceWarnings_AsKube holds kube's GetWarningsForService and the endpoints
// strategy's warnings, word for word.
func TestServiceWarnings_AsKube(t *testing.T) {
	for _, c := range []struct {
		name string
		svc  corev1.Service
		want []string
	}{
		{"external IPs are deprecated", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"203.0.113.1"}}},
			[]string{"spec.externalIPs is deprecated and may no longer be implemented in some clusters"}},
		{"headless ignores fields", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None", ClusterIPs: []string{"None"},
			LoadBalancerIP: "203.0.113.2", ExternalIPs: []string{"203.0.113.1"}, SessionAffinity: corev1.ServiceAffinityClientIP}},
			[]string{"spec.loadBalancerIP is ignored for headless services", "spec.externalIPs is ignored for headless services",
				"spec.SessionAffinity is ignored for headless services"}},
		{"non-canonical IPv6 cluster IP", corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: "fd00:0::1", ClusterIPs: []string{"fd00:0::1"}, SessionAffinity: "None"}},
			[]string{`spec.clusterIPs[0]: IPv6 address "fd00:0::1" should be in RFC 5952 canonical format ("fd00::1")`}},
		{"leading zeros", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ExternalIPs: []string{"010.0.0.1"}}},
			[]string{`spec.externalIPs[0]: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"`,
				"spec.externalIPs is deprecated and may no longer be implemented in some clusters"}},
		{"external name ignored", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalName: "x.example.com"}},
			[]string{`spec.externalName is ignored when spec.type is not "ExternalName"`}},
		{"external IPs of an ExternalName", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalIPs: []string{"203.0.113.1"}}},
			[]string{`spec.externalIPs is ignored when spec.type is "ExternalName"`}},
		{"PreferClose", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, TrafficDistribution: ptrTo("PreferClose")}},
			[]string{`spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`}},
		{"topology hints annotation", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}},
			[]string{"annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead"}},
		{"nothing to say", corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.5", ClusterIPs: []string{"10.0.0.5"}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "topology hints annotation" {
				c.svc.Annotations = map[string]string{topologyAwareHintsAnnotation: "auto", topologyModeAnnotation: "auto"}
			}
			if got := serviceWarnings(&c.svc, nil); !slices.Equal(got, c.want) {
				t.Errorf("warnings %q, want %q", got, c.want)
			}
		})
	}
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.1.0.1"}, {IP: "::ffff:10.1.0.2"}},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "fd00:0::3"}}}}}
	want := []string{`subsets[0].addresses[1].ip: non-standard IP address "::ffff:10.1.0.2" is invalid: use "10.1.0.2"`,
		`subsets[0].notReadyAddresses[0].ip: IPv6 address "fd00:0::3" should be in RFC 5952 canonical format ("fd00::3")`}
	if got := endpointsWarnings(ep); !slices.Equal(got, want) {
		t.Errorf("endpoints warnings %q, want %q", got, want)
	}
	ep.Labels = map[string]string{endpointsManagedBy: "endpoint-controller"}
	if got := endpointsWarnings(ep); got != nil {
		t.Errorf("warnings on the endpoints controller's object %q, want none", got)
	}
}

// TestLoadBalancerStatus_ValidatedAsKube holds ValidateLoadBalancerStatus's rules.
func TestLoadBalancerStatus_ValidatedAsKube(t *testing.T) {
	vip := ptrTo(corev1.LoadBalancerIPModeVIP)
	lb := &corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}
	for _, c := range []struct {
		name string
		spec *corev1.ServiceSpec
		ing  []corev1.LoadBalancerIngress
		want []string
	}{
		{"valid", lb, []corev1.LoadBalancerIngress{{IP: "203.0.113.1", IPMode: vip}, {Hostname: "lb.example.com"}}, nil},
		{"not a load balancer", &corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}, []corev1.LoadBalancerIngress{{Hostname: "x"}},
			[]string{"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"}},
		{"ip without ipMode", lb, []corev1.LoadBalancerIngress{{IP: "203.0.113.1"}},
			[]string{"status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set"}},
		{"ipMode without ip", lb, []corev1.LoadBalancerIngress{{Hostname: "a.example.com", IPMode: vip}},
			[]string{"status.loadBalancer.ingress[0].ipMode: Forbidden: may not be specified when `ip` is not set"}},
		{"bad ipMode and hostname", lb, []corev1.LoadBalancerIngress{{IP: "203.0.113.1", IPMode: ptrTo(corev1.LoadBalancerIPMode("Bogus"))}, {Hostname: "10.0.0.1"}},
			[]string{`status.loadBalancer.ingress[0].ipMode: Unsupported value: "Bogus": supported values: "Proxy", "VIP"`,
				`status.loadBalancer.ingress[1].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range validateLoadBalancerStatus(&corev1.LoadBalancerStatus{Ingress: c.ing}, &corev1.LoadBalancerStatus{}, c.spec) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("errors %q, want %q", got, c.want)
			}
		})
	}
}
