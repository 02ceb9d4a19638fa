package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
)

func hpaTargetRef(name string) autoscalingv2.CrossVersionObjectReference {
	return autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name}
}

// TestAutoscaling_ClientGoTypedClientsetAtBothVersions does CRUD, status updates and
// watch on HorizontalPodAutoscalers through client-go's AutoscalingV2() and
// AutoscalingV1() in JSON and in protobuf, each version reading what the other wrote
// as kube-apiserver converts it; and likewise on EndpointSlices.
func TestAutoscaling_ClientGoTypedClientsetAtBothVersions(t *testing.T) {
	srv := newBuiltinServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			ns := "default"
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			v2, v1 := cs.AutoscalingV2().HorizontalPodAutoscalers(ns), cs.AutoscalingV1().HorizontalPodAutoscalers(ns)
			t.Run("v2", func(t *testing.T) {
				name := "web2" + suffix
				crudWatch(t, v2, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: hpaTargetRef("web"), MaxReplicas: 5,
						Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60)}}}}, name,
					func(h *autoscalingv2.HorizontalPodAutoscaler) {
						if *h.Spec.MinReplicas != 1 || len(h.Spec.Metrics) != 1 || *h.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 ||
							len(h.Spec.Behavior.ScaleDown.Policies) != 1 || *h.Spec.Behavior.ScaleUp.SelectPolicy != autoscalingv2.MaxChangePolicySelect || h.Generation != 1 {
							t.Errorf("stored v2 HPA lacks kube's defaults: %+v", h.Spec)
						}
						h.Spec.MaxReplicas = 6
					})
			})
			t.Run("v1", func(t *testing.T) {
				name := "web1" + suffix
				crudWatch(t, v1, &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
						MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](40)}}, name,
					func(h *autoscalingv1.HorizontalPodAutoscaler) {
						if *h.Spec.MinReplicas != 1 || *h.Spec.TargetCPUUtilizationPercentage != 40 {
							t.Errorf("stored v1 HPA: %+v", h.Spec)
						}
						h.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](45)
					})
			})
			t.Run("across versions with status", func(t *testing.T) {
				name := "both" + suffix
				created, err := v2.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: hpaTargetRef("web"), MaxReplicas: 8, Metrics: []autoscalingv2.MetricSpec{
						{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"},
							Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("10"))}}},
						{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
							Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}}},
					}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				created.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3, Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
					{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale", LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}}}
				if _, err := v2.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				old, err := v1.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if *old.Spec.TargetCPUUtilizationPercentage != 70 || old.Status.DesiredReplicas != 3 ||
					old.Annotations["autoscaling.alpha.kubernetes.io/metrics"] != `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]` ||
					!strings.Contains(old.Annotations["autoscaling.alpha.kubernetes.io/conditions"], `"reason":"ReadyForNewScale"`) {
					t.Errorf("v2 HPA read at v1: %+v %+v %v", old.Spec, old.Status, old.Annotations)
				}
				old.Spec.MaxReplicas = 9
				if _, err := v1.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				got, err := v2.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Spec.MaxReplicas != 9 || len(got.Spec.Metrics) != 2 || got.Spec.Metrics[0].Type != autoscalingv2.PodsMetricSourceType ||
					len(got.Status.Conditions) != 1 || len(got.Annotations) != 0 || got.Generation != 2 {
					t.Errorf("after a v1 update, v2 reads %+v, status %+v, annotations %v, generation %d", got.Spec, got.Status, got.Annotations, got.Generation)
				}
			})
			t.Run("endpointslices", func(t *testing.T) {
				name := "web-abc" + suffix
				crudWatch(t, cs.DiscoveryV1().EndpointSlices(ns), &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name,
					Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4,
					Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
						NodeName: ptr.To("node-1"), Zone: ptr.To("a"), Hints: &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "a"}}}}},
					Ports: []discoveryv1.EndpointPort{{Port: ptr.To[int32](8080)}}}, name,
					func(e *discoveryv1.EndpointSlice) {
						if p := e.Ports[0]; *p.Name != "" || *p.Protocol != corev1.ProtocolTCP || e.Generation != 1 {
							t.Errorf("stored slice lacks kube's port defaults: %+v", p)
						}
						e.Endpoints[0].Addresses = []string{"10.0.0.6"}
					})
			})
		})
	}
}

// TestAutoscaling_EndpointSliceAddressTypeImmutable refuses a change of an
// EndpointSlice's addressType through the protobuf clientset, with kube's cause.
func TestAutoscaling_EndpointSliceAddressTypeImmutable(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	es := cs.DiscoveryV1().EndpointSlices("default")
	e, err := es.Create(ctx, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "imm"}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.5"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.AddressType = discoveryv1.AddressTypeFQDN
	if _, err := es.Update(ctx, e, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "addressType: Invalid value: null: field is immutable") {
		t.Errorf("addressType change: %v, want kube's immutable error", err)
	}
}

// TestAutoscaling_InformersSync starts informers over HPAs at both versions and over
// EndpointSlices, in protobuf, and waits until each has synced and holds its object.
func TestAutoscaling_InformersSync(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "inf"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: hpaTargetRef("web"), MaxReplicas: 2}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Create(ctx, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "inf"},
		AddressType: discoveryv1.AddressTypeIPv4}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	v2 := factory.Autoscaling().V2().HorizontalPodAutoscalers().Informer()
	v1 := factory.Autoscaling().V1().HorizontalPodAutoscalers().Informer()
	slices := factory.Discovery().V1().EndpointSlices().Informer()
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx is done.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	for what, store := range map[string]func() (any, bool, error){
		"v2 hpa": func() (any, bool, error) { return v2.GetStore().GetByKey("default/inf") },
		"v1 hpa": func() (any, bool, error) { return v1.GetStore().GetByKey("default/inf") },
		"slice":  func() (any, bool, error) { return slices.GetStore().GetByKey("default/inf") },
	} {
		if obj, ok, err := store(); !ok || err != nil {
			t.Errorf("the %s informer lacks default/inf: %v", what, err)
		} else if h, isV1 := obj.(*autoscalingv1.HorizontalPodAutoscaler); isV1 && *h.Spec.TargetCPUUtilizationPercentage != 80 {
			t.Errorf("v1 informer's HPA: %+v", h.Spec)
		}
	}
}

// TestAutoscaling_ControllerRuntimeClient creates a v2 HPA through controller-runtime's
// client over protobuf, patches it (merge), updates its status, and reads it as v1.
func TestAutoscaling_ControllerRuntimeClient(t *testing.T) {
	srv := newBuiltinServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: hpaTargetRef("web"), MaxReplicas: 4}}
	if err := c.Create(ctx, h); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, h, ctrlclient.RawPatch(types.MergePatchType, []byte(`{"spec":{"minReplicas":2}}`))); err != nil {
		t.Fatal(err)
	}
	if *h.Spec.MinReplicas != 2 || h.Generation != 2 {
		t.Errorf("after a merge patch: minReplicas %d, generation %d", *h.Spec.MinReplicas, h.Generation)
	}
	h.Status.CurrentReplicas, h.Status.DesiredReplicas = 2, 2
	if err := c.Status().Update(ctx, h); err != nil {
		t.Fatal(err)
	}
	var old autoscalingv1.HorizontalPodAutoscaler
	if err := c.Get(ctx, ctrlclient.ObjectKeyFromObject(h), &old); err != nil {
		t.Fatal(err)
	}
	if old.Status.CurrentReplicas != 2 || *old.Spec.TargetCPUUtilizationPercentage != 80 || *old.Spec.MinReplicas != 2 {
		t.Errorf("read at v1: %+v %+v", old.Spec, old.Status)
	}
	h.Spec.MaxReplicas = 1
	if err := c.Update(ctx, h); err == nil || !strings.Contains(err.Error(), "spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`") {
		t.Errorf("maxReplicas below minReplicas: %v", err)
	}
}

// TestAutoscaling_Kubectl applies an HPA and an EndpointSlice with kubectl and reads
// them back with kube's columns, the hpa short name and the all category.
func TestAutoscaling_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	path := filepath.Join(t.TempDir(), "hpa.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 7
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-x
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.0.0.1]
- addresses: [10.0.0.2]
ports:
- {name: http, port: 80}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	es.mustKubectl(t, "apply", "-f", path)
	for _, tt := range []struct {
		args      []string
		head, row string
	}{
		{[]string{"get", "hpa"}, "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE", "web Deployment/web cpu: <unknown>/60% 1 7 0"},
		{[]string{"get", "horizontalpodautoscalers.v1.autoscaling"}, "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE", "web Deployment/web cpu: <unknown>/60% 1 7 0"},
		{[]string{"get", "endpointslices"}, "NAME ADDRESSTYPE PORTS ENDPOINTS AGE", "web-x IPv4 80 10.0.0.1,10.0.0.2"},
	} {
		out := es.mustKubectl(t, tt.args...)
		// default/kubernetes's slice is listed too, as on kube-apiserver.
		lines := slices.DeleteFunc(strings.Split(strings.TrimSpace(out.Stdout), "\n"), func(l string) bool { return strings.HasPrefix(l, "kubernetes ") })
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != tt.head || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), tt.row+" ") {
			t.Errorf("kubectl %s:\n%s", strings.Join(tt.args, " "), out.Stdout)
		}
	}
	out := es.mustKubectl(t, "get", "all", "-o", "name")
	if !strings.Contains(out.Stdout, "horizontalpodautoscaler.autoscaling/web") {
		t.Errorf("kubectl get all lacks the HPA:\n%s", out.Stdout)
	}
}
