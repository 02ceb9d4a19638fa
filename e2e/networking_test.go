package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// newNetworkingServer is newBuiltinServer with kube's default admission plugins of the
// built-in kinds (admission.Builtin(), DefaultIngressClass among them), as envtest's
// drop-in and examples/testenv serve them.
func newNetworkingServer(t testing.TB) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	plugins := admission.Builtin()
	return apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: plugins.Mutating, ValidatingAdmission: plugins.Validating}, Controllers: true, TLS: true, Token: "builtin-token"})
}

func webIngress(name string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{
					Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}}}},
			}}}},
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}},
		}}
}

// TestNetworking_ClientGoTypedClientsetServesEveryKind does CRUD and watch on
// Ingresses, IngressClasses and NetworkPolicies through client-go's typed clientset in
// JSON and in protobuf, an Ingress's status update through /status, and checks kube's
// defaults and the default class on the stored objects.
func TestNetworking_ClientGoTypedClientsetServesEveryKind(t *testing.T) {
	srv := newNetworkingServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			net := cs.NetworkingV1()
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t.Run("ingressclasses", func(t *testing.T) {
				name := "nginx" + suffix
				crudWatch(t, net.IngressClasses(), &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx",
						Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr.To("k8s.example.com"), Kind: "Params", Name: "lb"}}}, name,
					func(c *networkingv1.IngressClass) {
						if p := c.Spec.Parameters; p == nil || p.Scope == nil || *p.Scope != networkingv1.IngressClassParametersReferenceScopeCluster {
							t.Errorf("parameters %+v, want kube's default scope Cluster", p)
						}
						if c.Generation != 1 {
							t.Errorf("generation %d, want 1", c.Generation)
						}
						c.Labels = map[string]string{"tier": "edge"}
					})
			})
			t.Run("ingresses", func(t *testing.T) {
				name := "web" + suffix
				crudWatch(t, net.Ingresses("default"), webIngress(name), name, func(ing *networkingv1.Ingress) {
					ing.Spec.Rules[0].Host = "store.example.com"
				})
				created, err := net.Ingresses("default").Create(ctx, webIngress(name+"-s"), metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				created.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.10", Ports: []networkingv1.IngressPortStatus{{Port: 443, Protocol: corev1.ProtocolTCP}}}}
				created.Spec.Rules = nil // a status write keeps the spec
				updated, err := net.Ingresses("default").UpdateStatus(ctx, created, metav1.UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(updated.Spec.Rules) != 1 || len(updated.Status.LoadBalancer.Ingress) != 1 || updated.Status.LoadBalancer.Ingress[0].Ports[0].Port != 443 {
					t.Errorf("after the status write: spec %+v, status %+v", updated.Spec, updated.Status)
				}
				updated.Status.LoadBalancer.Ingress[0].IP = "192.0.2.300"
				if _, err := net.Ingresses("default").UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err == nil ||
					!strings.Contains(err.Error(), `status.loadBalancer.ingress[0].ip: Invalid value: "192.0.2.300": must be a valid IP address`) {
					t.Errorf("status with a bad IP: %v, want kube's 422", err)
				}
			})
			t.Run("networkpolicies", func(t *testing.T) {
				name := "deny" + suffix
				port := intstr.FromInt32(53)
				crudWatch(t, net.NetworkPolicies("default"), &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
						Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: &port}},
							To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}}}}}}, name,
					func(np *networkingv1.NetworkPolicy) {
						if got := np.Spec.PolicyTypes; len(got) != 2 || got[0] != networkingv1.PolicyTypeIngress || got[1] != networkingv1.PolicyTypeEgress {
							t.Errorf("policyTypes %v, want kube's default [Ingress Egress]", got)
						}
						if p := np.Spec.Egress[0].Ports[0].Protocol; p == nil || *p != corev1.ProtocolTCP {
							t.Errorf("port protocol %v, want kube's default TCP", p)
						}
						np.Spec.PodSelector = metav1.LabelSelector{}
					})
			})
		})
	}
}

// TestNetworking_InformersSync starts client-go informers over the three kinds in
// protobuf and waits until each has synced and the ingresses one has its object.
func TestNetworking_InformersSync(t *testing.T) {
	srv := newNetworkingServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.NetworkingV1().Ingresses("default").Create(ctx, webIngress("inf"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	ingresses := factory.Networking().V1().Ingresses().Informer()
	_ = factory.Networking().V1().IngressClasses().Informer()
	_ = factory.Networking().V1().NetworkPolicies().Informer()
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop with ctx.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	if _, ok, err := ingresses.GetStore().GetByKey("default/inf"); !ok || err != nil {
		t.Errorf("the ingresses informer lacks default/inf: %v", err)
	}
}

// TestNetworking_ControllerRuntimeClient marks an IngressClass default, creates an
// Ingress without a class through controller-runtime's client over protobuf (it gets
// the default class, as DefaultIngressClass gives it), patches it, writes its status,
// and is refused an invalid one with kube's causes.
func TestNetworking_ControllerRuntimeClient(t *testing.T) {
	srv := newNetworkingServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "edge", Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}},
		Spec: networkingv1.IngressClassSpec{Controller: "example.com/edge"}}
	if err := c.Create(ctx, class); err != nil {
		t.Fatal(err)
	}
	ing := webIngress("cr")
	ing.Namespace = "default"
	if err := c.Create(ctx, ing); err != nil {
		t.Fatal(err)
	}
	if ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName != "edge" {
		t.Errorf("ingressClassName %v, want the default class edge", ing.Spec.IngressClassName)
	}
	patch := []byte(`{"spec":{"rules":[{"host":"api.example.com","http":{"paths":[{"path":"/v1","pathType":"Exact","backend":{"service":{"name":"api","port":{"number":8080}}}}]}}]}}`)
	if err := c.Patch(ctx, ing, ctrlclient.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	if ing.Generation != 2 || ing.Spec.Rules[0].Host != "api.example.com" {
		t.Errorf("after a spec patch: generation %d, rules %+v", ing.Generation, ing.Spec.Rules)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}}
	if err := c.Status().Update(ctx, ing); err != nil {
		t.Fatal(err)
	}
	bad := webIngress("bad")
	bad.Namespace = "default"
	bad.Spec.Rules[0].HTTP.Paths[0].PathType = nil
	bad.Spec.Rules[0].Host = "10.0.0.1"
	err = c.Create(ctx, bad)
	for _, want := range []string{
		`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`,
		"spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("invalid ingress: %v, want %q", err, want)
		}
	}
	// The controller of a class is immutable.
	class.Spec.Controller = "example.com/other"
	if err := c.Update(ctx, class); err == nil || !strings.Contains(err.Error(), `spec.controller: Invalid value: "example.com/other": field is immutable`) {
		t.Errorf("controller change: %v, want kube's field is immutable", err)
	}
}

// TestNetworking_Kubectl applies an IngressClass, an Ingress and a NetworkPolicy with
// kubectl and reads them back with kube's columns (kubectl get ing, ingressclass,
// netpol by their short names). The class is not the default one: kube's printer
// names a default class "nginx (default)", which apikit's Name cell (the object's
// name, rest/table) does not do yet.
func TestNetworking_Kubectl(t *testing.T) {
	srv := newNetworkingServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	path := filepath.Join(t.TempDir(), "net.yaml")
	manifest := `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: Params, name: lb}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
spec:
  ingressClassName: nginx
  tls: [{hosts: [shop.example.com], secretName: shop-tls}]
  rules:
  - host: shop.example.com
    http:
      paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
  - host: api.example.com
    http:
      paths: [{path: /v1, pathType: Exact, backend: {service: {name: api, port: {name: http}}}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
spec:
  podSelector: {matchLabels: {app: web}}
  ingress: [{from: [{podSelector: {}}]}]
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	es.mustKubectl(t, "apply", "-f", path)
	for _, tt := range []struct {
		args        []string
		header, row string
	}{
		{[]string{"get", "ing"}, "NAME CLASS HOSTS ADDRESS PORTS AGE", "shop nginx shop.example.com,api.example.com 80, 443"},
		{[]string{"get", "ingressclass"}, "NAME CONTROLLER PARAMETERS AGE", "nginx k8s.io/ingress-nginx Params.k8s.example.com/lb"},
		{[]string{"get", "netpol"}, "NAME POD-SELECTOR AGE", "web app=web"},
	} {
		out := es.mustKubectl(t, tt.args...)
		lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != tt.header {
			t.Errorf("kubectl %s:\n%s", strings.Join(tt.args, " "), out.Stdout)
			continue
		}
		// The row without its AGE.
		f := strings.Fields(lines[1])
		if got := strings.Join(f[:len(f)-1], " "); got != tt.row {
			t.Errorf("kubectl %s: row %q, want %q", strings.Join(tt.args, " "), got, tt.row)
		}
	}
}
