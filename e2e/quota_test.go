package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// TestQuota_ClientGoTypedClientset does CRUD, status, scale and watch on
// ReplicationControllers, ResourceQuotas and LimitRanges with client-go's typed
// clientset, in JSON and in protobuf.
func TestQuota_ClientGoTypedClientset(t *testing.T) {
	srv := newBuiltinServer(t)
	for i, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			name := []string{"json", "proto"}[i]

			rcs := cs.CoreV1().ReplicationControllers("default")
			w, err := rcs.Watch(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			tmpl := podTemplate("rc-" + name)
			rc, err := rcs.Create(ctx, &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc-" + name},
				Spec: corev1.ReplicationControllerSpec{Template: &tmpl}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rc.Spec.Selector["app"] != "rc-"+name || rc.Labels["app"] != "rc-"+name || ptr.Deref(rc.Spec.Replicas, -1) != 1 || rc.Generation != 1 {
				t.Errorf("created RC: selector %v labels %v replicas %v generation %d, want kube's defaults", rc.Spec.Selector, rc.Labels, rc.Spec.Replicas, rc.Generation)
			}
			if ev := <-w.ResultChan(); ev.Type != "ADDED" {
				t.Errorf("watch: %s, want ADDED", ev.Type)
			}
			sc, err := rcs.GetScale(ctx, rc.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Status.Selector != "app=rc-"+name || sc.Spec.Replicas != 1 {
				t.Errorf("scale: %+v", sc)
			}
			if _, err := rcs.UpdateScale(ctx, rc.Name, &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: rc.Name},
				Spec: autoscalingv1.ScaleSpec{Replicas: 4}}, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			rc, err = rcs.Get(ctx, rc.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rc.Status = corev1.ReplicationControllerStatus{Replicas: 4, ReadyReplicas: 3, ObservedGeneration: rc.Generation}
			if rc, err = rcs.UpdateStatus(ctx, rc, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if ptr.Deref(rc.Spec.Replicas, 0) != 4 || rc.Status.ReadyReplicas != 3 || rc.Generation != 2 {
				t.Errorf("after scale and status: replicas %v ready %d generation %d", rc.Spec.Replicas, rc.Status.ReadyReplicas, rc.Generation)
			}

			quotas := cs.CoreV1().ResourceQuotas("default")
			q, err := quotas.Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q-" + name},
				Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("5"), "requests.cpu": resource.MustParse("1")}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			q.Status = corev1.ResourceQuotaStatus{Hard: q.Spec.Hard, Used: corev1.ResourceList{"pods": resource.MustParse("1"), "requests.cpu": resource.MustParse("250m")}}
			if q, err = quotas.UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if used := q.Status.Used["requests.cpu"]; used.String() != "250m" {
				t.Errorf("quota status.used requests.cpu = %s", used.String())
			}

			lrs := cs.CoreV1().LimitRanges("default")
			lr, err := lrs.Create(ctx, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr-" + name},
				Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{"cpu": resource.MustParse("2")}}}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := lr.Spec.Limits[0].Default["cpu"]; d.String() != "2" {
				t.Errorf("limit range default cpu = %s, want the max", d.String())
			}
			if err := lrs.Delete(ctx, lr.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := quotas.Delete(ctx, q.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestQuota_InformersAndControllerRuntime syncs informers over the three kinds in
// protobuf, and patches and lists them with controller-runtime's client.
func TestQuota_InformersAndControllerRuntime(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	factory := informers.NewSharedInformerFactory(cs, 0)
	rcs := factory.Core().V1().ReplicationControllers().Informer()
	_ = factory.Core().V1().ResourceQuotas().Informer()
	_ = factory.Core().V1().LimitRanges().Informer()
	factory.Start(ctx.Done())
	// The informers stop with ctx: cancel before Shutdown waits for them.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := podTemplate("cr")
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"}, Spec: corev1.ReplicationControllerSpec{Template: &tmpl}}
	if err := c.Create(ctx, rc); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, rc, ctrlclient.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"replicas":2}}`))); err != nil {
		t.Fatal(err)
	}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": resource.MustParse("3")}}}
	if err := c.Create(ctx, q); err != nil {
		t.Fatal(err)
	}
	var list corev1.ResourceQuotaList
	if err := c.List(ctx, &list, ctrlclient.InNamespace("default")); err != nil || len(list.Items) != 1 {
		t.Errorf("list quotas: %v %d", err, len(list.Items))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		obj, ok, _ := rcs.GetStore().GetByKey("default/cr")
		if ok && ptr.Deref(obj.(*corev1.ReplicationController).Spec.Replicas, 0) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the RC informer did not see the patched RC")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQuota_Kubectl reads the three kinds with kubectl's columns: rc's DESIRED CURRENT
// READY (wide: CONTAINERS IMAGES SELECTOR), quota's REQUEST and LIMIT, limit ranges'
// CREATED AT, and kubectl's short names.
func TestQuota_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	path := filepath.Join(t.TempDir(), "q.yaml")
	manifest := `apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: nginx:1.27}]
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute}
spec:
  hard: {requests.cpu: "1", limits.memory: 2Gi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits}
spec:
  limits: [{type: Container, max: {cpu: "1"}}]
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	es.mustKubectl(t, "apply", "-f", path)
	for _, c := range []struct {
		args         []string
		header, cell string
	}{
		{[]string{"get", "rc", "-o", "wide"}, "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR", "web 2 0 0"},
		{[]string{"get", "quota"}, "NAME REQUEST LIMIT AGE", "compute"},
		{[]string{"get", "limits"}, "NAME CREATED AT", "limits"},
	} {
		out := es.mustKubectl(t, c.args...)
		lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != c.header || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), c.cell) {
			t.Errorf("kubectl %s:\n%s", strings.Join(c.args, " "), out.Stdout)
		}
		if c.args[1] == "rc" && !strings.HasSuffix(strings.Join(strings.Fields(lines[1]), " "), "app nginx:1.27 app=web") {
			t.Errorf("rc wide row %q", lines[1])
		}
	}
}
