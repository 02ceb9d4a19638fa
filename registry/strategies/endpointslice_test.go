package strategies

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	discoveryv1 "github.com/apikit-dev/apikit/builtin/discovery/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

func endpointSlice(t *testing.T, change func(e *discoveryv1.EndpointSlice)) *discoveryv1.EndpointSlice {
	e := &discoveryv1.EndpointSlice{ObjectMeta: scheme.ObjectMeta{Name: "web-abc", Namespace: "default",
		Labels: map[string]string{"kubernetes.io/service-name": "web"}},
		AddressType: "IPv4",
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}, NodeName: ptr("node-1")}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(80))}},
	}
	if change != nil {
		change(e)
	}
	return defaulted(t, e)
}

func endpointSliceStrategy() registry.StrategyFor[*discoveryv1.EndpointSlice] {
	return Discovery()[discoveryv1.EndpointSlices].(registry.StrategyFor[*discoveryv1.EndpointSlice])
}

func TestValidateEndpointSlice_KubesMessagesAndPaths(t *testing.T) {
	many := func(n int) []discoveryv1.Endpoint {
		out := make([]discoveryv1.Endpoint, n)
		for i := range out {
			out[i] = discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}}
		}
		return out
	}
	tests := []struct {
		name   string
		change func(e *discoveryv1.EndpointSlice)
		want   []string
	}{
		{"a defaulted slice is valid", nil, nil},
		{"addressType is required", func(e *discoveryv1.EndpointSlice) { e.AddressType = "" }, []string{"addressType: Required value"}},
		{"addressType is one of three", func(e *discoveryv1.EndpointSlice) { e.AddressType = "IPv5" },
			[]string{`addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"`}},
		{"an IPv4 slice holds valid IPv4 addresses", func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].Addresses = []string{"10.0.0.01", "fd00::1", "127.0.0.1", "0.0.0.0", "nope"}
		}, []string{
			`endpoints[0].addresses[0]: Invalid value: "10.0.0.01": must not have leading 0s`,
			`endpoints[0].addresses: Invalid value: "fd00::1": must be an IPv4 address`,
			`endpoints[0].addresses[2]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			`endpoints[0].addresses[3]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
			`endpoints[0].addresses[4]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		}},
		{"an IPv6 slice holds canonical IPv6 addresses", func(e *discoveryv1.EndpointSlice) {
			e.AddressType = "IPv6"
			e.Endpoints[0].Addresses = []string{"FD00::1", "10.0.0.1", "fe80::1"}
		}, []string{
			`endpoints[0].addresses[0]: Invalid value: "FD00::1": must be in canonical form ("fd00::1")`,
			`endpoints[0].addresses: Invalid value: "10.0.0.1": must be an IPv6 address`,
			`endpoints[0].addresses[2]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
		}},
		{"an FQDN slice holds domain names of two labels", func(e *discoveryv1.EndpointSlice) {
			e.AddressType = "FQDN"
			e.Endpoints[0].Addresses = []string{"example.com.", "localhost"}
		}, []string{`endpoints[0].addresses[1]: Invalid value: "localhost": should be a domain with at least two segments separated by dots`}},
		{"an endpoint has an address", func(e *discoveryv1.EndpointSlice) { e.Endpoints[0].Addresses = nil },
			[]string{"endpoints[0].addresses: Required value"}},
		{"at most 1000 endpoints", func(e *discoveryv1.EndpointSlice) { e.Endpoints = many(1001) },
			[]string{"endpoints: Too many: 1001: must have at most 1000 items"}},
		{"addresses are counted past 1000 endpoints, as kube's declarative validation counts them", func(e *discoveryv1.EndpointSlice) {
			e.Endpoints = many(1001)
			e.Endpoints[0].Addresses = nil
		}, []string{"endpoints: Too many: 1001: must have at most 1000 items", "endpoints[0].addresses: Required value"}},
		{"at most 100 addresses per endpoint", func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].Addresses = strings.Split(strings.Repeat("10.0.0.1,", 101)[:9*101-1], ",")
		}, []string{"endpoints[0].addresses: Too many: 101: must have at most 100 items"}},
		{"nodeName and hostname are DNS names", func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].NodeName, e.Endpoints[0].Hostname = ptr("Node_1"), ptr("a.b")
		}, []string{`endpoints[0].nodeName: Invalid value: "Node_1": ` + dnsSubdomainMsg, `endpoints[0].hostname: Invalid value: "a.b": must not contain dots`}},
		{"hints name zones and nodes once", func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "a"}, {Name: "a"}}, ForNodes: []discoveryv1.ForNode{{Name: "N"}}}
		}, []string{`endpoints[0].hints.forZones[1].name: Duplicate value: "a"`, `endpoints[0].hints.forNodes[0].name: Invalid value: "N": ` + dnsSubdomainMsg}},
		{"ports are named once, with a known protocol", func(e *discoveryv1.EndpointSlice) {
			e.Ports = append(e.Ports, discoveryv1.EndpointPort{Name: ptr("http"), Protocol: ptr(corev1.Protocol("ICMP")), AppProtocol: ptr("a b")})
		}, []string{
			`ports[1].name: Duplicate value: "http"`,
			`ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
			`ports[1].appProtocol: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
	}
	st := endpointSliceStrategy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, causes(st.Validate(context.Background(), endpointSlice(t, tt.change)))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

func TestEndpointSlice_DefaultsGenerationImmutableAddressTypeAndWarnings(t *testing.T) {
	e := endpointSlice(t, func(e *discoveryv1.EndpointSlice) {
		e.Ports = []discoveryv1.EndpointPort{{Port: ptr(int32(53))}}
		e.Endpoints[0].DeprecatedTopology = map[string]string{"kubernetes.io/hostname": "node-1"}
	})
	if p := e.Ports[0]; p.Name == nil || *p.Name != "" || p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP {
		t.Errorf("port defaults: %+v, want name \"\" and TCP", p)
	}
	st, ctx := endpointSliceStrategy(), context.Background()
	st.PrepareForCreate(ctx, e)
	if e.Generation != 1 || e.Endpoints[0].DeprecatedTopology != nil {
		t.Errorf("after create: generation %d, topology %v; want 1 and none", e.Generation, e.Endpoints[0].DeprecatedTopology)
	}
	for _, tt := range []struct {
		name    string
		change  func(e *discoveryv1.EndpointSlice)
		wantGen int64
		want    []string
	}{
		{"an annotation keeps the generation", func(e *discoveryv1.EndpointSlice) { e.Annotations = map[string]string{"a": "b"} }, 1, nil},
		{"a label bumps it", func(e *discoveryv1.EndpointSlice) { e.Labels["x"] = "y" }, 2, nil},
		{"an endpoint bumps it", func(e *discoveryv1.EndpointSlice) { e.Endpoints[0].Addresses = []string{"10.0.0.2"} }, 2, nil},
		{"addressType is immutable (an IPv4 address is also a valid FQDN)", func(e *discoveryv1.EndpointSlice) { e.AddressType = "FQDN" }, 2,
			[]string{`addressType: Invalid value: null: field is immutable`}},
		{"a removed addressType is required and immutable", func(e *discoveryv1.EndpointSlice) { e.AddressType = "" }, 2,
			[]string{"addressType: Required value", "addressType: Invalid value: null: field is immutable"}},
		{"invalid endpoints an update keeps are not checked again", func(e *discoveryv1.EndpointSlice) { e.Labels["x"] = "y" }, 2, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loopback := func(e *discoveryv1.EndpointSlice) {
				if strings.HasPrefix(tt.name, "invalid endpoints") {
					e.Endpoints[0].Addresses = []string{"127.0.0.1"}
				}
			}
			old := endpointSlice(t, loopback)
			old.Generation = 1
			n := endpointSlice(t, loopback)
			n.Generation = 1
			tt.change(n)
			st.PrepareForUpdate(ctx, n, old)
			if n.Generation != tt.wantGen {
				t.Errorf("generation %d, want %d", n.Generation, tt.wantGen)
			}
			if d := cmp.Diff(tt.want, causes(st.ValidateUpdate(ctx, n, old))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
	fqdn := endpointSlice(t, func(e *discoveryv1.EndpointSlice) {
		e.AddressType = "FQDN"
		e.Endpoints[0].Addresses = []string{"a.example.com"}
	})
	v6 := endpointSlice(t, func(e *discoveryv1.EndpointSlice) {
		e.AddressType = "IPv6"
		e.Endpoints[0].Addresses = []string{"::ffff:10.0.0.1"}
	})
	for _, tt := range []struct {
		obj  *discoveryv1.EndpointSlice
		want []string
	}{
		{fqdn, []string{"spec.addressType: FQDN endpoints are deprecated"}},
		{v6, []string{`endpoints[0].addresses[0]: non-standard IP address "::ffff:10.0.0.1" is invalid: use "10.0.0.1"`}},
	} {
		if d := cmp.Diff(tt.want, st.WarningsOnCreate(ctx, tt.obj)); d != "" {
			t.Errorf("warnings (-want +got):\n%s", d)
		}
	}
}
