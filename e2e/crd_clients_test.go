package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/cel"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var gvrRobots = k8sschema.GroupVersionResource{Group: "fleet.example.com", Version: "v1", Resource: "robots"}

// startRobotServer starts an apitest server with the testdata Robot CRD (see robotsCRDFile)
// established and CEL enabled, and returns a client-go configuration for it.
func startRobotServer(t *testing.T) *rest.Config {
	t.Helper()
	crds, err := apiextensions.Load(robotsCRDFile(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, scheme.New(), apitest.Options{REST: apikitrest.Options{Rules: cel.New()}, CRDs: crds})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst, cfg.Timeout = -1, -1, 30*time.Second
	return cfg
}

func newUnstructuredRobot(ns, name, model string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fleet.example.com/v1", "kind": "Robot",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"model": model, "arms": []any{map[string]any{"name": "left"}}},
	}}
}

func TestDynamicClient_CRDResourceCRUDWatchStatusScale(t *testing.T) {
	cfg := startRobotServer(t)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	const ns = "dyn"
	robots := dc.Resource(gvrRobots).Namespace(ns)

	w, err := robots.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()

	created, err := robots.Create(ctx, newUnstructuredRobot(ns, "d1", "T100"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got, _, _ := unstructured.NestedInt64(created.Object, "spec", "replicas"); got != 1 {
		t.Errorf("created spec.replicas = %d, want the default 1", got)
	}
	if got, _, _ := unstructured.NestedSlice(created.Object, "spec", "arms"); len(got) != 1 || got[0].(map[string]any)["length"] != int64(10) {
		t.Errorf("created arms = %v, want the nested default length 10", got)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).GetName() != "d1" {
			t.Errorf("first watch event = %s %v, want ADDED d1", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event for the created robot")
	}

	list, err := robots.List(ctx, metav1.ListOptions{FieldSelector: "spec.model=T100"})
	if err != nil || len(list.Items) != 1 || list.GetKind() != "RobotList" {
		t.Fatalf("List by the selectable field spec.model = %v, %v; want the one robot in a RobotList", list, err)
	}

	_ = unstructured.SetNestedField(created.Object, "gold", "spec", "color")
	updated, err := robots.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	_ = unstructured.SetNestedField(updated.Object, int64(1), "status", "replicas")
	_ = unstructured.SetNestedField(updated.Object, "Running", "status", "phase")
	_ = unstructured.SetNestedField(updated.Object, "T800", "spec", "model") // ignored by /status
	withStatus, err := robots.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("UpdateStatus: %v", err)
	}
	if phase, _, _ := unstructured.NestedString(withStatus.Object, "status", "phase"); phase != "Running" {
		t.Errorf("status.phase = %q, want Running", phase)
	}
	if model, _, _ := unstructured.NestedString(withStatus.Object, "spec", "model"); model != "T100" {
		t.Errorf("spec.model after a status update = %q, want T100 (status updates leave spec alone)", model)
	}

	scale, err := robots.Get(ctx, "d1", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("Get scale: %v", err)
	}
	if scale.GetKind() != "Scale" || scale.GetAPIVersion() != "autoscaling/v1" {
		t.Errorf("scale is %s %s, want autoscaling/v1 Scale", scale.GetAPIVersion(), scale.GetKind())
	}
	if got, _, _ := unstructured.NestedInt64(scale.Object, "status", "replicas"); got != 1 {
		t.Errorf("scale status.replicas = %d, want 1", got)
	}
	_ = unstructured.SetNestedField(scale.Object, int64(5), "spec", "replicas")
	if _, err := robots.Update(ctx, scale, metav1.UpdateOptions{}, "scale"); err != nil {
		t.Fatalf("Update scale: %v", err)
	}
	got, err := robots.Get(ctx, "d1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); n != 5 {
		t.Errorf("spec.replicas after the scale update = %d, want 5", n)
	}

	bad := newUnstructuredRobot(ns, "d2", "T100")
	_ = unstructured.SetNestedField(bad.Object, "XX-1", "spec", "serial")
	if _, err := robots.Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("Create with a serial the CEL rule refuses = %v, want Invalid", err)
	}

	if err := robots.Delete(ctx, "d1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := robots.Get(ctx, "d1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want NotFound", err)
	}
	for ev := range w.ResultChan() { // bounded by ctx: the watch ends when it does
		if ev.Type == watch.Deleted {
			return
		}
	}
	t.Error("the watch ended without a DELETED event")
}

// Robot is the Robot kind as controller-gen's users write it: a Go type built on
// k8s.io/apimachinery, with a hand-written deep copy (controller-gen would generate it).
type Robot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RobotSpec   `json:"spec,omitempty"`
	Status            RobotStatus `json:"status,omitempty"`
}

// RobotSpec is a part of the CRD's spec.
type RobotSpec struct {
	Model    string `json:"model"`
	Replicas *int32 `json:"replicas,omitempty"`
	Color    string `json:"color,omitempty"`
	Arms     []Arm  `json:"arms,omitempty"`
}

// Arm is one arm of a robot, the list-map's item.
type Arm struct {
	Name   string `json:"name"`
	Length *int32 `json:"length,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// RobotStatus is the observed state of a Robot.
type RobotStatus struct {
	Replicas int32  `json:"replicas,omitempty"`
	Phase    string `json:"phase,omitempty"`
}

// RobotList is a list of Robots.
type RobotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Robot `json:"items"`
}

func (r *Robot) DeepCopy() *Robot {
	out := *r
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if r.Spec.Replicas != nil {
		out.Spec.Replicas = new(int32)
		*out.Spec.Replicas = *r.Spec.Replicas
	}
	if r.Spec.Arms != nil {
		out.Spec.Arms = make([]Arm, len(r.Spec.Arms))
		for i, a := range r.Spec.Arms {
			out.Spec.Arms[i] = a
			if a.Length != nil {
				out.Spec.Arms[i].Length = new(int32)
				*out.Spec.Arms[i].Length = *a.Length
			}
		}
	}
	return &out
}

func (r *Robot) DeepCopyObject() runtime.Object { return r.DeepCopy() }

func (l *RobotList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Robot, len(l.Items))
		for i := range l.Items {
			out.Items[i] = *l.Items[i].DeepCopy()
		}
	}
	return &out
}

var robotGV = k8sschema.GroupVersion{Group: "fleet.example.com", Version: "v1"}

func newRobotScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypes(robotGV, &Robot{}, &RobotList{})
	metav1.AddToGroupVersion(s, robotGV)
	return s
}

// runningReconciler sets status.phase Running and status.replicas to spec.replicas
// through the status subresource.
type runningReconciler struct{ c client.Client }

func (r *runningReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var robot Robot
	if err := r.c.Get(ctx, req.NamespacedName, &robot); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if robot.Status.Phase == "Running" && robot.Spec.Replicas != nil && robot.Status.Replicas == *robot.Spec.Replicas {
		return reconcile.Result{}, nil
	}
	robot.Status.Phase = "Running"
	if robot.Spec.Replicas != nil {
		robot.Status.Replicas = *robot.Spec.Replicas
	}
	return reconcile.Result{}, r.c.Status().Update(ctx, &robot)
}

func TestControllerRuntime_TypedClientAndManagerOnACRD(t *testing.T) {
	cfg := startRobotServer(t)
	sch := newRobotScheme(t)
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	const ns = "typed"

	t.Run("typed client", func(t *testing.T) {
		robot := &Robot{ObjectMeta: metav1.ObjectMeta{Name: "t1", Namespace: ns}, Spec: RobotSpec{Model: "R2", Arms: []Arm{{Name: "left"}}}}
		if err := c.Create(ctx, robot); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if robot.Spec.Replicas == nil || *robot.Spec.Replicas != 1 || robot.Spec.Color != "silver" || *robot.Spec.Arms[0].Length != 10 {
			t.Errorf("created robot spec = %+v, want the schema's defaults (replicas 1, color silver, arm length 10)", robot.Spec)
		}
		var got Robot
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "t1"}, &got); err != nil || got.UID == "" {
			t.Fatalf("Get: %v (uid %q)", err, got.UID)
		}
		var list RobotList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil || len(list.Items) != 1 {
			t.Fatalf("List: %v, %d items", err, len(list.Items))
		}
		got.Spec.Color = "red"
		if err := c.Update(ctx, &got); err != nil {
			t.Fatalf("Update: %v", err)
		}
		got.Status.Phase = "Pending"
		if err := c.Status().Update(ctx, &got); err != nil || got.Status.Phase != "Pending" {
			t.Fatalf("Status().Update: %v, phase %q", err, got.Status.Phase)
		}
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`))
		if err := c.Patch(ctx, &got, patch); err != nil || got.Spec.Color != "blue" || got.Status.Phase != "Pending" {
			t.Fatalf("merge Patch: %v, color %q, phase %q", err, got.Spec.Color, got.Status.Phase)
		}
		before := got.DeepCopy()
		got.Spec.Color = "green"
		if err := c.Patch(ctx, &got, client.MergeFrom(before)); err != nil || got.Spec.Color != "green" {
			t.Fatalf("MergeFrom Patch: %v, color %q", err, got.Spec.Color)
		}
		got.Spec.Model = "T800"
		if err := c.Update(ctx, &got); !apierrors.IsInvalid(err) {
			t.Errorf("changing the immutable model = %v, want Invalid from the CEL transition rule", err)
		}
		if err := c.Delete(ctx, &Robot{ObjectMeta: metav1.ObjectMeta{Name: "t1", Namespace: ns}}); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "t1"}, &got); !apierrors.IsNotFound(err) {
			t.Errorf("Get after Delete = %v, want NotFound", err)
		}
	})

	t.Run("a manager's cache watches robots", func(t *testing.T) {
		skipNameValidation := true
		mgr, err := manager.New(cfg, manager.Options{
			Scheme:                 sch,
			Logger:                 logr.Discard(),
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
			Controller:             config.Controller{SkipNameValidation: &skipNameValidation},
		})
		if err != nil {
			t.Fatalf("manager.New: %v", err)
		}
		if err := builder.ControllerManagedBy(mgr).For(&Robot{}).Complete(&runningReconciler{c: mgr.GetClient()}); err != nil {
			t.Fatalf("building the controller: %v", err)
		}
		replicas := int32(3)
		if err := c.Create(ctx, &Robot{ObjectMeta: metav1.ObjectMeta{Name: "m1", Namespace: ns}, Spec: RobotSpec{Model: "T100", Replicas: &replicas}}); err != nil {
			t.Fatal(err)
		}
		mgrCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- mgr.Start(mgrCtx) }()
		defer func() {
			stop()
			if err := <-done; err != nil {
				t.Errorf("manager.Start returned %v", err)
			}
		}()
		if err := c.Create(ctx, &Robot{ObjectMeta: metav1.ObjectMeta{Name: "m2", Namespace: ns}, Spec: RobotSpec{Model: "R2"}}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			name     string
			replicas int32
		}{{"m1", 3}, {"m2", 1}} {
			var got Robot
			for range int(testTimeout / crPollInterval) {
				if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: want.name}, &got); err == nil && got.Status.Phase == "Running" {
					break
				}
				time.Sleep(crPollInterval)
			}
			if got.Status.Phase != "Running" || got.Status.Replicas != want.replicas {
				t.Errorf("%s status = %+v, want Running with %d replicas from the reconciler", want.name, got.Status, want.replicas)
			}
		}
		var cached RobotList
		if err := mgr.GetCache().List(ctx, &cached, client.InNamespace(ns)); err != nil || len(cached.Items) != 2 {
			t.Errorf("the cache lists %d robots (%v), want 2", len(cached.Items), err)
		}
	})
}
