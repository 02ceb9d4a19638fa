package builtin

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// defaultClientIPAffinitySeconds is kube's DefaultClientIPServiceAffinitySeconds, three hours.
const defaultClientIPAffinitySeconds int32 = 10800

// registerServiceDefaults registers kube-apiserver v1.37.2's defaults of Service and
// Endpoints (pkg/apis/core/v1/defaults.go SetDefaults_Service, SetDefaults_Endpoints).
// A Service's ipFamilies and ipFamilyPolicy are not defaults in kube: its REST storage
// fills them when it allocates, which the service strategy does here.
func registerServiceDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultService)
	conversion.RegisterDefaults(s, func(e *corev1.Endpoints) {
		for i := range e.Subsets {
			for j := range e.Subsets[i].Ports {
				if p := &e.Subsets[i].Ports[j]; p.Protocol == "" {
					p.Protocol = corev1.ProtocolTCP
				}
			}
		}
	})
}

// defaultService is SetDefaults_Service: session affinity None (its config dropped)
// or ClientIP with a 10800 s timeout, type ClusterIP, each port's protocol TCP and
// target port its port, externalTrafficPolicy Cluster for an externally accessible
// service, internalTrafficPolicy Cluster, allocateLoadBalancerNodePorts for a load
// balancer, and the VIP ipMode of its load balancer's IP ingress points.
func defaultService(s *corev1.Service) {
	spec := &s.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		if c := spec.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptrTo(defaultClientIPAffinitySeconds)}}
		}
	}
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if (p.TargetPort.Type == scheme.Int && p.TargetPort.IntVal == 0) || (p.TargetPort.Type == scheme.String && p.TargetPort.StrVal == "") {
			p.TargetPort = scheme.FromInt32(p.Port)
		}
	}
	if ServiceExternallyAccessible(s) && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil {
		switch spec.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			spec.InternalTrafficPolicy = ptrTo(corev1.ServiceInternalTrafficPolicyCluster)
		}
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer {
		if spec.AllocateLoadBalancerNodePorts == nil {
			spec.AllocateLoadBalancerNodePorts = ptrTo(true)
		}
		for i := range s.Status.LoadBalancer.Ingress {
			if ing := &s.Status.LoadBalancer.Ingress[i]; ing.IP != "" && ing.IPMode == nil {
				ing.IPMode = ptrTo(corev1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// ServiceExternallyAccessible is kube's ExternallyAccessible: a NodePort or
// LoadBalancer service, or a ClusterIP one with external IPs.
func ServiceExternallyAccessible(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer || s.Spec.Type == corev1.ServiceTypeNodePort ||
		(s.Spec.Type == corev1.ServiceTypeClusterIP && len(s.Spec.ExternalIPs) > 0)
}
