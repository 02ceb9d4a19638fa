package strategies

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

func pathType(t string) *networkingv1.PathType { p := networkingv1.PathType(t); return &p }

func webIngress(change func(ing *networkingv1.Ingress)) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr("nginx"),
			Rules: []networkingv1.IngressRule{{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: pathType("Prefix"),
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}}},
			}}}},
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com", "*.example.com"}, SecretName: "web-tls"}},
		}}
	if change != nil {
		change(ing)
	}
	return ing
}

func firstPath(ing *networkingv1.Ingress) *networkingv1.HTTPIngressPath {
	return &ing.Spec.Rules[0].HTTP.Paths[0]
}

func TestValidateIngress_KubesMessagesAndPaths(t *testing.T) {
	const path0 = "spec.rules[0].http.paths[0]"
	tests := []struct {
		name   string
		change func(ing *networkingv1.Ingress)
		want   []string
	}{
		{"an ingress with a rule and TLS is valid", nil, nil},
		{"rules or a default backend", func(ing *networkingv1.Ingress) { ing.Spec.Rules = nil }, []string{
			"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{"v1 requires a pathType", func(ing *networkingv1.Ingress) { firstPath(ing).PathType = nil }, []string{
			path0 + ".pathType: Required value: pathType must be specified"}},
		{"a pathType is one of kube's", func(ing *networkingv1.Ingress) { firstPath(ing).PathType = pathType("Regex") }, []string{
			path0 + `.pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`}},
		{"a Prefix path is absolute and clean", func(ing *networkingv1.Ingress) { firstPath(ing).Path = "a//b/.." }, []string{
			path0 + `.path: Invalid value: "a//b/..": must be an absolute path`,
			path0 + `.path: Invalid value: "a//b/..": must not contain '//'`,
			path0 + `.path: Invalid value: "a//b/..": cannot end with '/..'`}},
		{"an ImplementationSpecific path may be empty", func(ing *networkingv1.Ingress) {
			firstPath(ing).Path, firstPath(ing).PathType = "", pathType("ImplementationSpecific")
		}, nil},
		{"a host is not an IP address", func(ing *networkingv1.Ingress) { ing.Spec.Rules[0].Host = "10.0.0.1" }, []string{
			`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
		{"a wildcard host has one leading label", func(ing *networkingv1.Ingress) { ing.Spec.Rules[0].Host = "a.*.example.com" }, []string{
			`spec.rules[0].host: Invalid value: "a.*.example.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"a backend has a port name or number", func(ing *networkingv1.Ingress) {
			firstPath(ing).Backend.Service.Port = networkingv1.ServiceBackendPort{}
		}, []string{
			path0 + ".backend: Required value: port name or number is required"}},
		{"not both a port name and number", func(ing *networkingv1.Ingress) { firstPath(ing).Backend.Service.Port.Name = "http" }, []string{
			path0 + `.backend: Invalid value: "": cannot set both port name & port number`}},
		{"a service name is a DNS label", func(ing *networkingv1.Ingress) { firstPath(ing).Backend.Service.Name = "web.svc" }, []string{
			path0 + `.backend.service.name: Invalid value: "web.svc": must not contain dots`}},
		{"a service name may start with a digit (relaxed)", func(ing *networkingv1.Ingress) { firstPath(ing).Backend.Service.Name = "1web" }, nil},
		{"not both a service and a resource", func(ing *networkingv1.Ingress) {
			firstPath(ing).Backend.Resource = &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}
		}, []string{path0 + `.backend: Invalid value: "": cannot set both resource and service backends`}},
		{"a backend is required", func(ing *networkingv1.Ingress) { firstPath(ing).Backend = networkingv1.IngressBackend{} }, []string{
			path0 + `.backend: Invalid value: "": resource or service backend is required`}},
		{"a resource backend has a kind and a name", func(ing *networkingv1.Ingress) {
			firstPath(ing).Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Name: "a/b"}}
		}, []string{
			path0 + ".backend.resource.kind: Required value",
			path0 + `.backend.resource.name: Invalid value: "a/b": may not contain '/'`}},
		{"TLS hosts are DNS names and secrets DNS subdomains", func(ing *networkingv1.Ingress) {
			ing.Spec.TLS[0].Hosts, ing.Spec.TLS[0].SecretName = []string{"Shop"}, "Bad_Secret"
		}, []string{
			`spec.tls[0].hosts[0]: Invalid value: "Shop": ` + dnsSubdomainMsg,
			`spec.tls[0].secretName: Invalid value: "Bad_Secret": ` + dnsSubdomainMsg}},
		{"the class annotation agrees with ingressClassName", func(ing *networkingv1.Ingress) {
			ing.Annotations = map[string]string{"kubernetes.io/ingress.class": "traefik"}
		}, []string{"annotations.kubernetes.io/ingress.class: Invalid value: \"traefik\": must match `ingressClassName` when both are specified"}},
		{"ingressClassName is a DNS subdomain", func(ing *networkingv1.Ingress) { ing.Spec.IngressClassName = ptr("Nginx") }, []string{
			`spec.ingressClassName: Invalid value: "Nginx": ` + dnsSubdomainMsg}},
	}
	s := ingressStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), webIngress(tt.change)))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestIngressUpdate_KeepsStoredInvalidSecretAndWildcardRule(t *testing.T) {
	s := ingressStrategy()
	ctx := context.Background()
	stored := func(ing *networkingv1.Ingress) {
		ing.Spec.TLS[0].SecretName = "Old_Secret"
		ing.Spec.Rules[0].Host = "*.example.com"
		firstPath(ing).Path = "relative"
	}
	old := webIngress(stored)
	if errs := s.ValidateUpdate(ctx, webIngress(stored), old); len(errs) > 0 {
		t.Errorf("an update keeping the stored values is refused: %v", causes(errs))
	}
	// A create of the same object is refused: the allowances are the stored object's.
	if errs := s.Validate(ctx, webIngress(stored)); len(errs) != 2 {
		t.Errorf("create: %d causes, want 2: %v", len(errs), causes(errs))
	}
}

func TestIngressStatus_KeepsSpecAndValidatesLoadBalancer(t *testing.T) {
	st := ingressStrategy().Status
	ctx := context.Background()
	old := webIngress(func(ing *networkingv1.Ingress) {
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "010.0.0.1"}}
	})
	next := webIngress(func(ing *networkingv1.Ingress) {
		ing.Spec.Rules = nil
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{
			{IP: "010.0.0.1"}, {IP: "::ffff:1.2.3.4"}, {IP: "10.0.0.300"}, {Hostname: "10.0.0.2"}, {Hostname: "lb.example.com"},
		}
	})
	st.PrepareForUpdate(ctx, next, old)
	if next.Spec.Rules == nil {
		t.Error("a status write changed the spec")
	}
	want := []string{
		`status.loadBalancer.ingress[1].ip: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address`,
		`status.loadBalancer.ingress[2].ip: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		`status.loadBalancer.ingress[3].hostname: Invalid value: "10.0.0.2": must be a DNS name, not an IP address`,
	}
	if d := cmp.Diff(want, causes(st.ValidateUpdate(ctx, next, old))); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
	wantWarnings := []string{
		// kube's path is the ingress point's, not its ip's.
		`status.loadBalancer.ingress[0]: non-standard IP address "010.0.0.1" is invalid: use "10.0.0.1"`,
		`status.loadBalancer.ingress[1]: non-standard IP address "::ffff:1.2.3.4" is invalid: use "1.2.3.4"`,
	}
	if d := cmp.Diff(wantWarnings, st.WarningsOnUpdate(ctx, next, old)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

func TestIngressCreate_ClearsStatusSetsGenerationAndWarnsOfTheAnnotation(t *testing.T) {
	s := Networking()[networkingv1.Ingresses].(registry.StrategyFor[*networkingv1.Ingress])
	ctx := context.Background()
	ing := webIngress(func(ing *networkingv1.Ingress) {
		ing.Spec.IngressClassName = nil
		ing.Annotations = map[string]string{"kubernetes.io/ingress.class": "nginx"}
		ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "1.2.3.4"}}
	})
	s.PrepareForCreate(ctx, ing)
	if len(ing.Status.LoadBalancer.Ingress) != 0 || ing.Generation != 1 {
		t.Errorf("after create: status %v, generation %d; want none and 1", ing.Status, ing.Generation)
	}
	want := []string{`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`}
	if d := cmp.Diff(want, s.WarningsOnCreate(ctx, ing)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}
