package builtin

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// networkingResources are the networking.k8s.io/v1 resources of issue 26 as
// kube-apiserver v1.37.2 serves them: ingresses (ing, with status), ingressclasses
// (cluster-scoped) and networkpolicies (netpol), with the columns of kube's table
// printers. kube-apiserver also serves ipaddresses and servicecidrs in this group
// version; they are not served here.
var networkingResources = []scheme.Resource{
	{Group: networkingv1.SchemeGroupVersion.Group, Kind: "Ingress", Plural: "ingresses", ShortNames: []string{"ing"},
		Namespaced: true, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration",
				Cell: cellOf(func(ing *networkingv1.Ingress) any {
					if ing.Spec.IngressClassName == nil {
						return "<none>"
					}
					return *ing.Spec.IngressClassName
				})},
			{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule",
				Cell: cellOf(func(ing *networkingv1.Ingress) any { return ingressHosts(ing.Spec.Rules) })},
			{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer",
				Cell: cellOf(func(ing *networkingv1.Ingress) any { return ingressAddress(ing.Status.LoadBalancer) })},
			{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open",
				Cell: cellOf(func(ing *networkingv1.Ingress) any {
					if len(ing.Spec.TLS) != 0 {
						return "80, 443"
					}
					return "80"
				})},
			ageColumn,
		}},
	{Group: networkingv1.SchemeGroupVersion.Group, Kind: "IngressClass", Plural: "ingressclasses",
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class",
				Cell: cellOf(func(c *networkingv1.IngressClass) any { return c.Spec.Controller })},
			{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters",
				Cell: cellOf(func(c *networkingv1.IngressClass) any { return ingressClassParameters(c.Spec.Parameters) })},
			ageColumn,
		}},
	{Group: networkingv1.SchemeGroupVersion.Group, Kind: "NetworkPolicy", Plural: "networkpolicies", ShortNames: []string{"netpol"},
		Namespaced: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Pod-Selector", Type: "string",
				Description: "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.",
				Cell:        cellOf(func(np *networkingv1.NetworkPolicy) any { return formatLabelSelector(&np.Spec.PodSelector) })},
			ageColumn,
		}},
}

// ingressHosts is kube's formatHosts: the first three rules' hosts, comma-separated,
// "+ N more..." past them, "*" when no rule names a host.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var list []string
	more := false
	for _, r := range rules {
		if len(list) == max {
			more = true
		}
		if !more && r.Host != "" {
			list = append(list, r.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	s := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, len(rules)-max)
	}
	return s
}

// ingressAddress is kube's ingressLoadBalancerStatusStringer as the server's table
// prints it (wide, never truncated): each ingress point's IP, else its hostname, sorted
// and deduplicated.
func ingressAddress(s networkingv1.IngressLoadBalancerStatus) string {
	var out []string
	for _, in := range s.Ingress {
		switch {
		case in.IP != "":
			out = append(out, in.IP)
		case in.Hostname != "":
			out = append(out, in.Hostname)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ",")
}

// ingressClassParameters is kube's Parameters cell: kind[.apiGroup]/name, "<none>"
// without parameters.
func ingressClassParameters(p *networkingv1.IngressClassParametersReference) string {
	if p == nil {
		return "<none>"
	}
	s := p.Kind
	if p.APIGroup != nil {
		s += "." + *p.APIGroup
	}
	return s + "/" + p.Name
}

// AddNetworkingToScheme registers the networking.k8s.io/v1 kinds Ingress, IngressClass
// and NetworkPolicy (and their lists), their resources, their protobuf messages and
// their defaults (registerNetworkingDefaults). AddToScheme calls it.
func AddNetworkingToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(networkingv1.SchemeGroupVersion,
		&networkingv1.Ingress{}, &networkingv1.IngressList{}, &networkingv1.IngressClass{}, &networkingv1.IngressClassList{},
		&networkingv1.NetworkPolicy{}, &networkingv1.NetworkPolicyList{})
	for _, r := range networkingResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, networkingv1.SchemeGroupVersion,
		&networkingv1.Ingress{}, &networkingv1.IngressClass{}, &networkingv1.NetworkPolicy{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerNetworkingDefaults(s)
	return nil
}
