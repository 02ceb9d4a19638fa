package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/apikit-dev/apikit/apitest"
)

// The content types client-go and controller-runtime speak: JSON, and protobuf, which
// controller-runtime's client uses for every built-in kind.
var builtinContentTypes = []string{"application/json", "application/vnd.kubernetes.protobuf"}

func contentTypeClientset(t *testing.T, srv *apitest.Server, contentType string) (*kubernetes.Clientset, *rest.Config) {
	t.Helper()
	cfg := &rest.Config{Host: srv.URL, BearerToken: srv.Token(), TLSClientConfig: rest.TLSClientConfig{CAData: srv.CertificateAuthority}}
	cfg.ContentType = contentType
	if contentType != "application/json" {
		cfg.AcceptContentTypes = contentType
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg
}

// podTemplate is a pod template of two containers, labelled app=<app>.
func podTemplate(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("500m"), "memory": resource.MustParse("128Mi")}}},
			{Name: "log", Image: "busybox"},
		}},
	}
}

// TestApps_ClientGoTypedClientsetServesEveryKind does CRUD and watch on every apps/v1 kind
// through client-go's typed clientset in JSON and in protobuf, with status and scale updates
// where kube serves them.
func TestApps_ClientGoTypedClientsetServesEveryKind(t *testing.T) {
	srv := newBuiltinServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			apps := cs.AppsV1()
			ns := "default"
			sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			t.Run("deployments", func(t *testing.T) {
				name := "web" + suffix
				crudWatch(t, apps.Deployments(ns), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.DeploymentSpec{Selector: sel, Template: podTemplate("web"),
						Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(2))}}}}, name,
					func(d *appsv1.Deployment) {
						if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType ||
							d.Spec.Strategy.RollingUpdate.MaxUnavailable.String() != "25%" || d.Spec.Strategy.RollingUpdate.MaxSurge.IntValue() != 2 {
							t.Errorf("stored deployment spec lacks kube's defaults: %+v", d.Spec)
						}
						if q := d.Spec.Template.Spec.Containers[0].Resources.Limits["cpu"]; q.String() != "500m" {
							t.Errorf("cpu limit %s, want 500m", q.String())
						}
						d.Spec.Template.Spec.Containers[1].Image = "busybox:1.37"
					})
				workloadStatusAndScale(t, apps.Deployments(ns), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name + "-s"},
					Spec: appsv1.DeploymentSpec{Selector: sel, Template: podTemplate("web")}},
					func(d *appsv1.Deployment) { d.Status.Replicas, d.Status.ReadyReplicas = 1, 1 },
					func(d *appsv1.Deployment) int32 { return *d.Spec.Replicas })
			})
			t.Run("statefulsets", func(t *testing.T) {
				name := "db" + suffix
				crudWatch(t, apps.StatefulSets(ns), &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.StatefulSetSpec{Selector: sel, Template: podTemplate("web"), ServiceName: "db"}}, name,
					func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](3) })
				workloadStatusAndScale(t, apps.StatefulSets(ns), &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-s"},
					Spec: appsv1.StatefulSetSpec{Selector: sel, Template: podTemplate("web")}},
					func(s *appsv1.StatefulSet) { s.Status.Replicas, s.Status.ReadyReplicas = 1, 1 },
					func(s *appsv1.StatefulSet) int32 { return *s.Spec.Replicas })
			})
			t.Run("replicasets", func(t *testing.T) {
				name := "rs" + suffix
				crudWatch(t, apps.ReplicaSets(ns), &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.ReplicaSetSpec{Selector: sel, Template: podTemplate("web")}}, name,
					func(r *appsv1.ReplicaSet) { r.Spec.Replicas = ptr.To[int32](2) })
				workloadStatusAndScale(t, apps.ReplicaSets(ns), &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name + "-s"},
					Spec: appsv1.ReplicaSetSpec{Selector: sel, Template: podTemplate("web")}},
					func(r *appsv1.ReplicaSet) { r.Status.Replicas, r.Status.ReadyReplicas = 1, 1 },
					func(r *appsv1.ReplicaSet) int32 { return *r.Spec.Replicas })
			})
			t.Run("daemonsets", func(t *testing.T) {
				name := "agent" + suffix
				crudWatch(t, apps.DaemonSets(ns), &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.DaemonSetSpec{Selector: sel, Template: podTemplate("web")}}, name,
					func(d *appsv1.DaemonSet) {
						if d.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
							t.Errorf("daemonset updateStrategy %+v, want kube's RollingUpdate default", d.Spec.UpdateStrategy)
						}
						d.Spec.MinReadySeconds = 5
					})
				ctx := context.Background()
				d, err := apps.DaemonSets(ns).Get(ctx, name+"-gone", metav1.GetOptions{})
				if err == nil {
					t.Fatalf("get of a missing daemonset: %+v", d)
				}
			})
			t.Run("controllerrevisions", func(t *testing.T) {
				name := "rev" + suffix
				crudWatch(t, apps.ControllerRevisions(ns), &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name},
					Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"labels":{"app":"web"}}}}}`)}, Revision: 1}, name,
					func(c *appsv1.ControllerRevision) {
						var data map[string]any
						if err := json.Unmarshal(c.Data.Raw, &data); err != nil || data["spec"] == nil {
							t.Errorf("controllerrevision data %q: %v", c.Data.Raw, err)
						}
						c.Labels = map[string]string{"x": "y"}
					})
			})
		})
	}
}

// workloadStatusAndScale creates obj, writes its status through /status (which must
// leave the spec alone), and scales it through /scale (which must change only
// spec.replicas).
func workloadStatusAndScale[T interface {
	*appsv1.Deployment | *appsv1.StatefulSet | *appsv1.ReplicaSet
	metav1.Object
	runtime.Object
}](t *testing.T, c interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
	GetScale(context.Context, string, metav1.GetOptions) (*autoscalingv1.Scale, error)
	UpdateScale(context.Context, string, *autoscalingv1.Scale, metav1.UpdateOptions) (*autoscalingv1.Scale, error)
}, obj T, setStatus func(T), replicas func(T) int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	name := created.GetName()
	setStatus(created)
	if _, err := c.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update status: %v", err)
	}
	sc, err := c.GetScale(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get scale: %v", err)
	}
	if sc.Spec.Replicas != 1 || sc.Status.Replicas != 1 || sc.Status.Selector != "app=web" || sc.Name != name {
		t.Errorf("scale = %+v, want spec and status replicas 1 and selector app=web", sc)
	}
	sc.Spec.Replicas = 4
	if _, err := c.UpdateScale(ctx, name, sc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	got, err := c.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if replicas(got) != 4 {
		t.Errorf("replicas after scaling to 4: %d", replicas(got))
	}
	if sc, err = c.GetScale(ctx, name, metav1.GetOptions{}); err != nil {
		t.Fatalf("get scale: %v", err)
	}
	sc.Spec.Replicas = -1
	if _, err := c.UpdateScale(ctx, name, sc, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "spec.replicas: Invalid value: -1: must be greater than or equal to 0") {
		t.Errorf("scale to -1: %v, want kube's 422 on spec.replicas", err)
	}
}

// TestApps_InformersSync starts client-go informers over every apps/v1 kind and the pods, in
// protobuf as controllers run them, and waits until each has synced and seen an object.
func TestApps_InformersSync(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "inf"}}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "inf"},
		Spec: appsv1.DeploymentSpec{Selector: sel, Template: podTemplate("inf")}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	deployments := factory.Apps().V1().Deployments().Informer()
	// Asking for an informer registers it with the factory.
	_ = []cache.SharedIndexInformer{factory.Apps().V1().StatefulSets().Informer(),
		factory.Apps().V1().DaemonSets().Informer(), factory.Apps().V1().ReplicaSets().Informer(),
		factory.Apps().V1().ControllerRevisions().Informer(), factory.Core().V1().Pods().Informer()}
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx ends: cancel first.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	if _, ok, err := deployments.GetStore().GetByKey("default/inf"); !ok || err != nil {
		t.Errorf("the deployments informer lacks default/inf: %v", err)
	}
}

// TestApps_ControllerRuntimeClient creates, patches (strategic merge and merge), updates
// the status of and scales a Deployment through controller-runtime's client over protobuf.
func TestApps_ControllerRuntimeClient(t *testing.T) {
	srv := newBuiltinServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cr"}}, Template: podTemplate("cr")}}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	// A strategic merge patch of one container (by its name) keeps the other.
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"busybox:1.37"}]}}}}`)
	if err := c.Patch(ctx, d, ctrlclient.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	if got := d.Spec.Template.Spec.Containers; len(got) != 2 || got[0].Image != "nginx:1.27" || got[1].Image != "busybox:1.37" {
		t.Errorf("containers after a strategic merge patch of one: %+v", got)
	}
	if d.Generation != 2 {
		t.Errorf("generation after a spec change %d, want 2", d.Generation)
	}
	d.Status.ObservedGeneration = d.Generation
	d.Status.Replicas = 1
	if err := c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	if d.Status.ObservedGeneration != 2 || d.Generation != 2 {
		t.Errorf("status update: observedGeneration %d, generation %d; want 2 and 2", d.Status.ObservedGeneration, d.Generation)
	}
	sc := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
	if err := c.SubResource("scale").Update(ctx, d, ctrlclient.WithSubResourceBody(sc)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, ctrlclient.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 3 || d.Status.Replicas != 1 {
		t.Errorf("after scaling to 3: spec.replicas %d, status.replicas %d", *d.Spec.Replicas, d.Status.Replicas)
	}
	// The selector is immutable, with kube's message.
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	d.Spec.Template.Labels = map[string]string{"app": "other"}
	err = c.Update(ctx, d)
	if err == nil || !strings.Contains(err.Error(), "spec.selector: Invalid value:") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("selector change: %v, want kube's field is immutable", err)
	}
}

// TestApps_Kubectl applies a Deployment with kubectl, applies it again with one container
// changed (kubectl's strategic merge patch merges containers by name), scales it, and reads
// it back with kube's columns.
func TestApps_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	dir := t.TempDir()
	manifest := func(image string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: %s
        ports: [{containerPort: 8080, name: http}]
      - name: log
        image: busybox
`, image)
	}
	path := filepath.Join(dir, "web.yaml")
	for _, image := range []string{"nginx:1.27", "nginx:1.28"} {
		if err := os.WriteFile(path, []byte(manifest(image)), 0o644); err != nil {
			t.Fatal(err)
		}
		es.mustKubectl(t, "apply", "-f", path)
	}
	out := es.mustKubectl(t, "get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[*].image} {.metadata.generation} {.spec.strategy.rollingUpdate.maxSurge}")
	if got := strings.TrimSpace(out.Stdout); got != "nginx:1.28 busybox 2 25%" {
		t.Errorf("after the second apply: %q, want %q", got, "nginx:1.28 busybox 2 25%")
	}
	es.mustKubectl(t, "scale", "deployment", "web", "--replicas=5")
	out = es.mustKubectl(t, "get", "deployments", "-o", "wide")
	lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR" {
		t.Fatalf("kubectl get deployments -o wide:\n%s", out.Stdout)
	}
	if f := strings.Fields(lines[1]); len(f) != 8 || f[0] != "web" || f[1] != "0/5" || f[2] != "0" || f[5] != "app,log" || f[6] != "nginx:1.28,busybox" || f[7] != "app=web" {
		t.Errorf("row %q", lines[1])
	}
}
