package builtin

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// serviceResources are the core/v1 services (with status) and endpoints as
// kube-apiserver v1.37.2 serves them: short names, the "all" category of services, the
// field selectors of kube's SelectableFields and the columns of kube's printService and
// printEndpoints (pkg/printers/internalversion), computed as the server prints them:
// wide, so the load balancer's addresses are not cut short.
var serviceResources = []scheme.Resource{
	{Kind: "Service", Plural: "services", ShortNames: []string{"svc"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true,
		OtherSubresources: []scheme.Subresource{proxySubresource("ServiceProxyOptions")}, // pod_subresources.go
		// kube's RelaxedServiceNameValidation (on in 1.37): a DNS-1123 label.
		NameValidation:   validation.NameIsDNSLabel,
		SelectableFields: []string{"spec.clusterIP", "spec.type"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Type", Type: "string", Description: "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types",
				Cell: cellOf(func(s *corev1.Service) any { return string(s.Spec.Type) })},
			{Name: "Cluster-IP", Type: "string", Description: "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", Cell: cellOf(func(s *corev1.Service) any {
				if len(s.Spec.ClusterIPs) > 0 {
					return s.Spec.ClusterIPs[0]
				}
				return "<none>"
			})},
			{Name: "External-IP", Type: "string", Description: "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.",
				Cell: cellOf(func(s *corev1.Service) any { return serviceExternalIP(s) })},
			{Name: "Port(s)", Type: "string", Description: "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies", Cell: cellOf(func(s *corev1.Service) any {
				if p := servicePorts(s.Spec.Ports); p != "" {
					return p
				}
				return "<none>"
			})},
			ageColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/",
				Cell: cellOf(func(s *corev1.Service) any { return formatLabels(s.Spec.Selector) })},
		}},
	{Kind: "Endpoints", Plural: "endpoints", ShortNames: []string{"ep"}, Namespaced: true,
		// kube-apiserver's warning on every request of the type its prerelease
		// lifecycle deprecates (k8s.io/api core/v1 zz_generated.prerelease-lifecycle.go).
		Deprecations: map[string]string{"v1": "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"},
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Endpoints", Type: "string", Description: "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.",
				Cell: cellOf(func(e *corev1.Endpoints) any { return formatEndpoints(e) })},
			ageColumn,
		}},
}

// AddServicesToScheme registers core/v1 Service and Endpoints, their protobuf field
// numbers, their resources and kube's defaults of them (registerServiceDefaults).
func AddServicesToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.Service{}, &corev1.ServiceList{}, &corev1.Endpoints{}, &corev1.EndpointsList{})
	for _, r := range serviceResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.Service{}, &corev1.Endpoints{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerServiceDefaults(s)
	return nil
}

// serviceExternalIP is kube's getServiceExternalIP, wide: the external IPs, a load
// balancer's addresses before them, "<pending>" for a load balancer without any, the
// external name of an ExternalName service.
func serviceExternalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var addrs []string
		for _, ing := range s.Status.LoadBalancer.Ingress {
			switch {
			case ing.IP != "":
				addrs = append(addrs, ing.IP)
			case ing.Hostname != "":
				addrs = append(addrs, ing.Hostname)
			}
		}
		slices.Sort(addrs)
		addrs = slices.Compact(addrs)
		if len(addrs) == 0 && len(s.Spec.ExternalIPs) == 0 {
			return "<pending>"
		}
		return strings.Join(append(addrs, s.Spec.ExternalIPs...), ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

// servicePorts is kube's makePortString: "80/TCP", "80:30080/TCP" with a node port.
func servicePorts(ports []corev1.ServicePort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort > 0 {
			parts[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
	}
	return strings.Join(parts, ",")
}

// formatEndpoints is kube's formatEndpoints of every port: "<none>" without subsets,
// else the first three address:port pairs (addresses alone in a subset without ports)
// and "+ N more..." for the rest.
func formatEndpoints(e *corev1.Endpoints) string {
	if len(e.Subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	add := func(s string) {
		if len(list) < max {
			list = append(list, s)
		}
	}
	for _, ss := range e.Subsets {
		if len(ss.Ports) == 0 {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	out := strings.Join(list, ",")
	if count > max {
		return fmt.Sprintf("%s + %d more...", out, count-max)
	}
	return out
}
