package strategies

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	networkingv1 "github.com/apikit-dev/apikit/builtin/networking/v1"
	"github.com/apikit-dev/apikit/scheme"
)

func nginxClass(change func(c *networkingv1.IngressClass)) *networkingv1.IngressClass {
	c := &networkingv1.IngressClass{ObjectMeta: scheme.ObjectMeta{Name: "nginx"},
		Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
			Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "Params", Name: "lb",
				Scope: ptr("Namespace"), Namespace: ptr("ingress")}}}
	if change != nil {
		change(c)
	}
	return c
}

func TestValidateIngressClass_KubesMessagesAndPaths(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *networkingv1.IngressClass)
		want   []string
	}{
		{"a class with namespaced parameters is valid", nil, nil},
		{"a controller is required", func(c *networkingv1.IngressClass) { c.Spec.Controller = "" }, []string{"spec.controller: Required value"}},
		{"a controller is a domain-prefixed path", func(c *networkingv1.IngressClass) { c.Spec.Controller = "nginx" }, []string{
			`spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{"a controller's domain is a DNS subdomain", func(c *networkingv1.IngressClass) { c.Spec.Controller = "Acme.io/x" }, []string{
			`spec.controller: Invalid value: "Acme.io": ` + dnsSubdomainMsg}},
		{"a controller's path is an HTTP path", func(c *networkingv1.IngressClass) { c.Spec.Controller = "acme.io/a b" }, []string{
			`spec.controller: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+')`}},
		{"a controller is at most 250 bytes", func(c *networkingv1.IngressClass) { c.Spec.Controller = "acme.io/" + strings.Repeat("c", 250) }, []string{
			"spec.controller: Too long: may not be more than 250 bytes"}},
		{"a namespaced scope needs a namespace", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Namespace = nil }, []string{
			"spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"}},
		{"a cluster scope has no namespace", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Scope = ptr("Cluster") }, []string{
			"spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"}},
		{"a scope is Cluster or Namespace", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Scope = ptr("Global") }, []string{
			`spec.parameters.scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"`}},
		{"a scope is required (the defaults set it)", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Scope = nil }, []string{
			"spec.parameters.scope: Required value"}},
		{"parameters have a kind and a name", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Kind, c.Spec.Parameters.Name = "", "" }, []string{
			"spec.parameters.kind: Required value", "spec.parameters.name: Required value"}},
		{"the parameters' apiGroup is a DNS subdomain", func(c *networkingv1.IngressClass) { c.Spec.Parameters.APIGroup = ptr("Bad_Group") }, []string{
			`spec.parameters.apiGroup: Invalid value: "Bad_Group": ` + dnsSubdomainMsg}},
		{"the namespace is a DNS label", func(c *networkingv1.IngressClass) { c.Spec.Parameters.Namespace = ptr("a.b") }, []string{
			`spec.parameters.namespace: Invalid value: "a.b": must not contain dots`}},
	}
	s := ingressClassStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(s.Validate(context.Background(), nginxClass(tt.change)))); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}
}

func TestIngressClassUpdate_ControllerIsImmutable(t *testing.T) {
	s := ingressClassStrategy()
	old := nginxClass(nil)
	next := nginxClass(func(c *networkingv1.IngressClass) { c.Spec.Controller = "example.com/other" })
	want := []string{`spec.controller: Invalid value: "example.com/other": field is immutable`}
	if d := cmp.Diff(want, causes(s.ValidateUpdate(context.Background(), next, old))); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
}
