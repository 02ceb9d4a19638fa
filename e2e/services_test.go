package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// serviceCIDR is envtest's kube-apiserver --service-cluster-ip-range.
var serviceCIDR = netip.MustParsePrefix("10.0.0.0/24")

func allocatedClusterIP(t *testing.T, s *corev1.Service) {
	t.Helper()
	ip, err := netip.ParseAddr(s.Spec.ClusterIP)
	if err != nil || !serviceCIDR.Contains(ip) || len(s.Spec.ClusterIPs) != 1 || s.Spec.ClusterIPs[0] != s.Spec.ClusterIP {
		t.Errorf("clusterIP %q, clusterIPs %v: want one address of %s in both", s.Spec.ClusterIP, s.Spec.ClusterIPs, serviceCIDR)
	}
}

// TestServices_ClientGoTypedClientset does CRUD and watch on services and endpoints
// through client-go's typed clientset in JSON and in protobuf, reads kube's defaults
// and allocations back, writes a load balancer's status, and gets kube's 422 for a
// node port another service holds.
func TestServices_ClientGoTypedClientset(t *testing.T) {
	srv := newBuiltinServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			core := cs.CoreV1()
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			t.Run("services", func(t *testing.T) {
				name := "web" + suffix
				crudWatch(t, core.Services("default"), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
						Ports: []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}}}}, name,
					func(s *corev1.Service) {
						allocatedClusterIP(t, s)
						if s.Spec.SessionAffinity != corev1.ServiceAffinityNone || s.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster ||
							s.Spec.IPFamilyPolicy == nil || *s.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack ||
							len(s.Spec.IPFamilies) != 1 || s.Spec.IPFamilies[0] != corev1.IPv4Protocol {
							t.Errorf("stored service spec lacks kube's defaults: %+v", s.Spec)
						}
						for _, p := range s.Spec.Ports {
							if p.NodePort < 30000 || p.NodePort > 32767 || p.TargetPort != intstr.FromInt32(p.Port) {
								t.Errorf("port %+v: want a node port of 30000-32767 and targetPort = port", p)
							}
						}
						if s.Spec.Ports[0].Protocol != corev1.ProtocolTCP {
							t.Errorf("protocol %q, want TCP", s.Spec.Ports[0].Protocol)
						}
						s.Spec.Selector = map[string]string{"app": "web2"}
					})
			})
			t.Run("endpoints", func(t *testing.T) {
				name := "web" + suffix
				crudWatch(t, core.Endpoints("default"), &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name},
					Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.1.0.5"}}, Ports: []corev1.EndpointPort{{Port: 8080}}}}}, name,
					func(e *corev1.Endpoints) {
						if p := e.Subsets[0].Ports[0].Protocol; p != corev1.ProtocolTCP {
							t.Errorf("endpoint port protocol %q, want kube's TCP default", p)
						}
						e.Subsets[0].Addresses = append(e.Subsets[0].Addresses, corev1.EndpointAddress{IP: "10.1.0.6"})
					})
			})
			t.Run("load balancer status and a taken node port", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				lb, err := core.Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "lb" + suffix},
					Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
						Ports: []corev1.ServicePort{{Port: 443}}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if lb.Spec.HealthCheckNodePort < 30000 || lb.Spec.AllocateLoadBalancerNodePorts == nil || !*lb.Spec.AllocateLoadBalancerNodePorts {
					t.Errorf("load balancer spec %+v: want a health check node port and allocateLoadBalancerNodePorts", lb.Spec)
				}
				lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7", IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)}}
				lb.Spec.Selector = map[string]string{"ignored": "by-status"}
				got, err := core.Services("default").UpdateStatus(ctx, lb, metav1.UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Status.LoadBalancer.Ingress) != 1 || got.Spec.Selector != nil {
					t.Errorf("after the status write: status %+v, selector %v (want the ingress, and no selector)", got.Status, got.Spec.Selector)
				}
				taken := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "taken" + suffix},
					Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: lb.Spec.Ports[0].NodePort}}}}
				_, err = core.Services("default").Create(ctx, taken, metav1.CreateOptions{})
				want := fmt.Sprintf("spec.ports[0].nodePort: Invalid value: %d: provided port is already allocated", lb.Spec.Ports[0].NodePort)
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
					t.Errorf("create with a taken node port: %v, want kube's 422 %q", err, want)
				}
			})
		})
	}
}

// TestServices_InformersSync starts informers over services and endpoints in protobuf
// and waits until both have synced and hold the objects.
func TestServices_InformersSync(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "inf"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Endpoints("default").Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "inf"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	services := factory.Core().V1().Services().Informer()
	endpoints := factory.Core().V1().Endpoints().Informer()
	factory.Start(ctx.Done())
	// The informers stop when ctx ends: end it before waiting for them.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	for what, store := range map[string]interface {
		GetByKey(string) (any, bool, error)
	}{"services": services.GetStore(), "endpoints": endpoints.GetStore()} {
		if _, ok, err := store.GetByKey("default/inf"); !ok || err != nil {
			t.Errorf("the %s informer lacks default/inf: %v", what, err)
		}
	}
}

// TestServices_ControllerRuntimeClient creates a Service, merges a port into it with a
// strategic merge patch (ports merge by port), writes its status, and gets kube's
// answer to a clusterIP change.
func TestServices_ControllerRuntimeClient(t *testing.T) {
	srv := newBuiltinServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "cr"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if err := c.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	allocatedClusterIP(t, s)
	ip := s.Spec.ClusterIP
	patch := []byte(`{"spec":{"ports":[{"name":"metrics","port":9090}]}}`)
	if err := c.Patch(ctx, s, ctrlclient.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	// The patch's items first, as kube's strategic merge orders a merged list.
	if len(s.Spec.Ports) != 2 || s.Spec.Ports[0].Port != 9090 || s.Spec.Ports[1].Port != 80 || s.Spec.ClusterIP != ip {
		t.Errorf("after merging a port: ports %+v, clusterIP %s (want 9090 and 80, and %s kept)", s.Spec.Ports, s.Spec.ClusterIP, ip)
	}
	if s.Generation != 0 {
		t.Errorf("generation %d, want none: kube's service strategy sets none", s.Generation)
	}
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.250", []string{"10.0.0.250"}
	err = c.Update(ctx, s)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.clusterIPs[0]: Invalid value: ["10.0.0.250"]: may not change once set`) {
		t.Errorf("clusterIP change: %v, want kube's may not change once set", err)
	}
}

// TestServices_Kubectl applies Services of each type with kubectl, reads them back with
// kube's columns, and sees the deprecation warning of v1 Endpoints.
func TestServices_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	path := filepath.Join(t.TempDir(), "svc.yaml")
	manifest := `apiVersion: v1
kind: Service
metadata: {name: a-cluster}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: b-node}
spec:
  type: NodePort
  ports: [{port: 80, nodePort: 30080}]
---
apiVersion: v1
kind: Service
metadata: {name: c-lb}
spec:
  type: LoadBalancer
  ports: [{port: 443, protocol: TCP, nodePort: 30443}]
---
apiVersion: v1
kind: Service
metadata: {name: d-ext}
spec:
  type: ExternalName
  externalName: db.example.com
---
apiVersion: v1
kind: Endpoints
metadata: {name: a-cluster}
subsets:
- addresses: [{ip: 10.1.0.1}, {ip: 10.1.0.2}, {ip: 10.1.0.3}, {ip: 10.1.0.4}]
  ports: [{port: 8080}]
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	es.mustKubectl(t, "apply", "-f", path)
	out := es.mustKubectl(t, "get", "svc", "-o", "wide")
	// default/kubernetes is listed too, as on kube-apiserver.
	lines := slices.DeleteFunc(strings.Split(strings.TrimSpace(out.Stdout), "\n"), func(l string) bool { return strings.HasPrefix(l, "kubernetes ") })
	if len(lines) != 5 || strings.Join(strings.Fields(lines[0]), " ") != "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR" {
		t.Fatalf("kubectl get svc -o wide:\n%s", out.Stdout)
	}
	for i, want := range [][]string{
		{"a-cluster", "ClusterIP", "*", "<none>", "80/TCP", "*", "app=web"},
		{"b-node", "NodePort", "*", "<none>", "80:30080/TCP", "*", "<none>"},
		{"c-lb", "LoadBalancer", "*", "<pending>", "443:30443/TCP", "*", "<none>"},
		{"d-ext", "ExternalName", "<none>", "db.example.com", "<none>", "*", "<none>"},
	} {
		f := strings.Fields(lines[i+1])
		if len(f) != len(want) {
			t.Errorf("row %q, want %v", lines[i+1], want)
			continue
		}
		for j := range want {
			if want[j] != "*" && f[j] != want[j] {
				t.Errorf("row %q: column %d is %q, want %q", lines[i+1], j, f[j], want[j])
			}
		}
	}
	out = es.mustKubectl(t, "get", "endpoints", "a-cluster")
	lines = strings.Split(strings.TrimSpace(out.Stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "10.1.0.1:8080,10.1.0.2:8080,10.1.0.3:8080 + 1 more...") {
		t.Errorf("kubectl get endpoints:\n%s", out.Stdout)
	}
	if !strings.Contains(out.Stderr, "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice") {
		t.Errorf("kubectl get endpoints stderr %q, want kube's deprecation warning", out.Stderr)
	}
}
