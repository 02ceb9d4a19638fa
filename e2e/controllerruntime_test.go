package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toysv1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// crPollInterval is how often the controller-runtime test re-reads the server while it
// waits for the reconciler or the manager's cache to catch up; testTimeout bounds the wait.
const crPollInterval = 20 * time.Millisecond

// TestControllerRuntime_ClientAndManager drives the example server with controller-runtime:
// its client (typed, unstructured, server-side apply) and a manager whose cache lists and
// watches widgets for a reconciler that writes status through the status subresource.
func TestControllerRuntime_ClientAndManager(t *testing.T) {
	logs := &syncBuffer{}
	logger := logr.FromSlogHandler(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// controller-runtime's global logger: set so that it neither warns nor drops what the
	// test wants to show when it fails.
	ctrllog.SetLogger(logger)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("controller-runtime log:\n%s", logs.String())
		}
	})

	es := startExampleServer(t, server.StorageMemory)
	cfg := es.restConfig(t)
	sch := newK8sScheme()
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}

	t.Run("typed client", func(t *testing.T) { testCRTypedClient(t, c) })
	t.Run("unstructured client", func(t *testing.T) { testCRUnstructuredClient(t, c) })
	t.Run("server-side apply", func(t *testing.T) { testCRApply(t, c) })
	t.Run("manager reconciles through its informer", func(t *testing.T) {
		testCRManager(t, es, c, logger)
	})
}

// newTypedWidget returns a k8sWidget with the given fields.
func newTypedWidget(namespace, name, color string, replicas int32, labels map[string]string) *k8sWidget {
	w := &k8sWidget{Spec: k8sWidgetSpec{Color: color, Replicas: &replicas}}
	w.Namespace, w.Name, w.Labels = namespace, name, labels
	return w
}

func testCRTypedClient(t *testing.T, c client.Client) {
	ctx := ctxFor(t)
	const ns = "cr-typed"

	w1 := newTypedWidget(ns, "w1", "red", 1, map[string]string{"app": "a"})
	for _, w := range []*k8sWidget{
		w1,
		newTypedWidget(ns, "w2", "blue", 2, map[string]string{"app": "a"}),
		newTypedWidget(ns, "w3", "green", 3, map[string]string{"app": "b"}),
		newTypedWidget("cr-typed-other", "w4", "red", 1, map[string]string{"app": "a"}),
	} {
		if err := c.Create(ctx, w); err != nil {
			t.Fatalf("Create %s/%s: %v", w.Namespace, w.Name, err)
		}
	}
	if w1.UID == "" || w1.ResourceVersion == "" || w1.CreationTimestamp.IsZero() || w1.Generation != 1 {
		t.Errorf("Create did not fill the server-set metadata into the object: uid=%q rv=%q created=%v generation=%d",
			w1.UID, w1.ResourceVersion, w1.CreationTimestamp, w1.Generation)
	}
	if err := c.Create(ctx, newTypedWidget(ns, "w1", "red", 1, nil)); !apierrors.IsAlreadyExists(err) {
		t.Errorf("creating w1 again: got %v, want AlreadyExists", err)
	}

	var got k8sWidget
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w1"}, &got); err != nil {
		t.Fatalf("Get w1: %v", err)
	}
	if got.Spec.Color != "red" || got.Spec.Replicas == nil || *got.Spec.Replicas != 1 || got.UID != w1.UID {
		t.Errorf("Get w1 = spec %+v uid %q, want color red, replicas 1, uid %q", got.Spec, got.UID, w1.UID)
	}

	var list k8sWidgetList
	if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"app": "a"}); err != nil {
		t.Fatalf("List: %v", err)
	}
	if names := typedNames(list.Items); !slices.Equal(names, []string{"cr-typed/w1", "cr-typed/w2"}) {
		t.Errorf("List in %s with app=a = %v, want [cr-typed/w1 cr-typed/w2]", ns, names)
	}
	if list.ResourceVersion == "" {
		t.Errorf("List returned no list resourceVersion")
	}

	// Update, then the same update from a stale copy: optimistic concurrency.
	stale := got.DeepCopy()
	got.Spec.Color = "green"
	if err := c.Update(ctx, &got); err != nil {
		t.Fatalf("Update w1: %v", err)
	}
	if got.ResourceVersion == stale.ResourceVersion || got.Generation != 2 || got.Spec.Color != "green" {
		t.Errorf("after Update: rv %q (was %q), generation %d, color %q; want a new rv, generation 2, color green",
			got.ResourceVersion, stale.ResourceVersion, got.Generation, got.Spec.Color)
	}
	stale.Spec.Color = "blue"
	if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("Update from a stale copy: got %v, want Conflict", err)
	}

	// A merge patch computed by MergeFrom.
	base := got.DeepCopy()
	five := int32(5)
	got.Spec.Replicas = &five
	got.Labels["patched"] = "yes"
	if err := c.Patch(ctx, &got, client.MergeFrom(base)); err != nil {
		t.Fatalf("Patch w1 (MergeFrom): %v", err)
	}
	var patched k8sWidget
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w1"}, &patched); err != nil {
		t.Fatalf("Get w1 after Patch: %v", err)
	}
	if patched.Spec.Replicas == nil || *patched.Spec.Replicas != 5 || patched.Spec.Color != "green" || patched.Labels["patched"] != "yes" || patched.Labels["app"] != "a" {
		t.Errorf("after the merge patch: spec %+v labels %v, want replicas 5, color green, labels app=a,patched=yes", patched.Spec, patched.Labels)
	}
	// The same kind of patch with the optimistic lock and the stale resourceVersion.
	staleBase := stale.DeepCopy()
	stale.Spec.Color = "red"
	if err := c.Patch(ctx, stale, client.MergeFromWithOptions(staleBase, client.MergeFromWithOptimisticLock{})); !apierrors.IsConflict(err) {
		t.Errorf("optimistic-lock merge patch from a stale copy: got %v, want Conflict", err)
	}

	// The status subresource keeps status changes and drops spec changes.
	patched.Status.Phase = "Manual"
	patched.Status.Replicas = 5
	patched.Spec.Color = "blue"
	if err := c.Status().Update(ctx, &patched); err != nil {
		t.Fatalf("Status().Update w1: %v", err)
	}
	var afterStatus k8sWidget
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w1"}, &afterStatus); err != nil {
		t.Fatalf("Get w1 after Status().Update: %v", err)
	}
	if afterStatus.Status.Phase != "Manual" || afterStatus.Status.Replicas != 5 {
		t.Errorf("after Status().Update: status %+v, want phase Manual, replicas 5", afterStatus.Status)
	}
	if afterStatus.Spec.Color != "green" || afterStatus.Generation != 3 {
		t.Errorf("after Status().Update: color %q generation %d, want the spec change ignored (color green, generation 3 from the patch)",
			afterStatus.Spec.Color, afterStatus.Generation)
	}
	// A main-resource update must not touch status.
	afterStatus.Status.Phase = "Overwritten"
	afterStatus.Spec.Color = "red"
	if err := c.Update(ctx, &afterStatus); err != nil {
		t.Fatalf("Update w1 with a status change: %v", err)
	}
	if afterStatus.Status.Phase != "Manual" || afterStatus.Spec.Color != "red" {
		t.Errorf("Update with a changed status: returned status phase %q color %q, want phase Manual kept and color red", afterStatus.Status.Phase, afterStatus.Spec.Color)
	}

	if err := c.Delete(ctx, &afterStatus); err != nil {
		t.Fatalf("Delete w1: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w1"}, &k8sWidget{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete: got %v, want NotFound", err)
	}
	if err := c.Delete(ctx, &afterStatus); !apierrors.IsNotFound(err) {
		t.Errorf("Delete of a deleted widget: got %v, want NotFound", err)
	}
	if err := c.DeleteAllOf(ctx, &k8sWidget{}, client.InNamespace(ns), client.MatchingLabels{"app": "b"}); err != nil {
		t.Fatalf("DeleteAllOf app=b: %v", err)
	}
	list = k8sWidgetList{}
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatalf("List after DeleteAllOf: %v", err)
	}
	if names := typedNames(list.Items); !slices.Equal(names, []string{"cr-typed/w2"}) {
		t.Errorf("List after deleting w1 and app=b = %v, want [cr-typed/w2]", names)
	}
}

func typedNames(items []k8sWidget) []string {
	var out []string
	for _, w := range items {
		out = append(out, w.Namespace+"/"+w.Name)
	}
	slices.Sort(out)
	return out
}

func testCRUnstructuredClient(t *testing.T, c client.Client) {
	ctx := ctxFor(t)
	const ns = "cr-unstructured"
	widgetGVK := k8sWidgetGV.WithKind("Widget")

	for _, u := range []*unstructured.Unstructured{
		newWidget(ns, "u1", "red", 1, map[string]string{"app": "a"}),
		newWidget(ns, "u2", "blue", 2, map[string]string{"app": "b"}),
	} {
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("Create %s: %v", u.GetName(), err)
		}
		if u.GetUID() == "" || u.GetResourceVersion() == "" {
			t.Errorf("Create %s did not fill uid and resourceVersion: %v", u.GetName(), u.Object["metadata"])
		}
	}

	get := func(name string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(widgetGVK)
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
			t.Fatalf("Get %s: %v", name, err)
		}
		return u
	}
	u1 := get("u1")
	if color, _, _ := unstructured.NestedString(u1.Object, "spec", "color"); color != "red" || u1.GetKind() != "Widget" {
		t.Errorf("Get u1: kind %q color %q, want Widget red", u1.GetKind(), color)
	}

	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(k8sWidgetGV.WithKind("WidgetList"))
	if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": "b"}); err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetName() != "u2" {
		t.Errorf("List app=b returned %d items, want only u2", len(list.Items))
	}

	stale := u1.DeepCopy()
	if err := unstructured.SetNestedField(u1.Object, "green", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, u1); err != nil {
		t.Fatalf("Update u1: %v", err)
	}
	if u1.GetGeneration() != 2 {
		t.Errorf("Update u1: generation %d, want 2", u1.GetGeneration())
	}
	if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("Update u1 from a stale copy: got %v, want Conflict", err)
	}

	base := u1.DeepCopy()
	if err := unstructured.SetNestedField(u1.Object, int64(7), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, u1, client.MergeFrom(base)); err != nil {
		t.Fatalf("Patch u1 (MergeFrom): %v", err)
	}
	u1 = get("u1")
	if replicas, _, _ := unstructured.NestedInt64(u1.Object, "spec", "replicas"); replicas != 7 {
		t.Errorf("after the merge patch replicas = %d, want 7", replicas)
	}

	if err := unstructured.SetNestedField(u1.Object, "Unstructured", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u1.Object, "blue", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, u1); err != nil {
		t.Fatalf("Status().Update u1: %v", err)
	}
	u1 = get("u1")
	phase, _, _ := unstructured.NestedString(u1.Object, "status", "phase")
	color, _, _ := unstructured.NestedString(u1.Object, "spec", "color")
	if phase != "Unstructured" || color != "green" {
		t.Errorf("after Status().Update: phase %q color %q, want phase Unstructured and the color change ignored (green)", phase, color)
	}

	if err := c.Delete(ctx, u1); err != nil {
		t.Fatalf("Delete u1: %v", err)
	}
	gone := &unstructured.Unstructured{}
	gone.SetGroupVersionKind(widgetGVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "u1"}, gone); !apierrors.IsNotFound(err) {
		t.Errorf("Get u1 after Delete: got %v, want NotFound", err)
	}
}

// applyWidget returns the apply configuration of a widget with only the given spec fields.
func applyWidget(namespace, name string, spec map[string]any) runtime.ApplyConfiguration {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
	return client.ApplyConfigurationFromUnstructured(u)
}

func testCRApply(t *testing.T, c client.Client) {
	ctx := ctxFor(t)
	const ns = "cr-apply"
	key := client.ObjectKey{Namespace: ns, Name: "a1"}

	if err := c.Apply(ctx, applyWidget(ns, "a1", map[string]any{"color": "red", "replicas": int64(2)}), client.FieldOwner("alice")); err != nil {
		t.Fatalf("alice's apply (create): %v", err)
	}
	var w k8sWidget
	if err := c.Get(ctx, key, &w); err != nil {
		t.Fatalf("Get a1: %v", err)
	}
	if w.Spec.Color != "red" || w.Spec.Replicas == nil || *w.Spec.Replicas != 2 {
		t.Errorf("after alice's apply: spec %+v, want color red, replicas 2", w.Spec)
	}
	if m := applyManagers(&w); !slices.Equal(m, []string{"alice"}) {
		t.Errorf("after alice's apply: Apply managers %v, want [alice]", m)
	}

	err := c.Apply(ctx, applyWidget(ns, "a1", map[string]any{"color": "blue"}), client.FieldOwner("bob"))
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "alice") {
		t.Errorf("bob's apply of alice's color without force: got %v, want a Conflict naming alice", err)
	}

	if err := c.Apply(ctx, applyWidget(ns, "a1", map[string]any{"color": "blue"}), client.FieldOwner("bob"), client.ForceOwnership); err != nil {
		t.Fatalf("bob's forced apply: %v", err)
	}
	w = k8sWidget{}
	if err := c.Get(ctx, key, &w); err != nil {
		t.Fatalf("Get a1: %v", err)
	}
	if w.Spec.Color != "blue" || w.Spec.Replicas == nil || *w.Spec.Replicas != 2 {
		t.Errorf("after bob's forced apply: spec %+v, want color blue and alice's replicas 2 kept", w.Spec)
	}
	if m := applyManagers(&w); !slices.Equal(m, []string{"alice", "bob"}) {
		t.Errorf("after bob's forced apply: Apply managers %v, want [alice bob]", m)
	}

	// alice drops replicas from her configuration: the field she alone owned is removed,
	// and defaulting sets it again to the default (1), not to alice's 2.
	if err := c.Apply(ctx, applyWidget(ns, "a1", map[string]any{}), client.FieldOwner("alice")); err != nil {
		t.Fatalf("alice's apply without replicas: %v", err)
	}
	w = k8sWidget{}
	if err := c.Get(ctx, key, &w); err != nil {
		t.Fatalf("Get a1: %v", err)
	}
	if w.Spec.Replicas == nil || *w.Spec.Replicas != toysv1.DefaultReplicas || w.Spec.Color != "blue" {
		t.Errorf("after alice dropped replicas: color %q replicas %v, want replicas back at the default %d and bob's color blue kept",
			w.Spec.Color, ptrString(w.Spec.Replicas), toysv1.DefaultReplicas)
	}
}

// ptrString formats an optional int32 for a failure message.
func ptrString(p *int32) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// applyManagers returns the sorted managers of w's managedFields entries with operation Apply.
func applyManagers(w *k8sWidget) []string {
	var out []string
	for _, e := range w.ManagedFields {
		if e.Operation == "Apply" {
			out = append(out, e.Manager)
		}
	}
	slices.Sort(out)
	return out
}

// phaseReconciler sets a widget's status.phase to "Seen-<spec.color>" and its
// status.observedGeneration to its generation, through the status subresource.
type phaseReconciler struct {
	c client.Client

	reconciles atomic.Int64
	mu         sync.Mutex
	errs       []string
}

// Reconcile implements reconcile.Reconciler.
func (r *phaseReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	var w k8sWidget
	if err := r.c.Get(ctx, req.NamespacedName, &w); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, r.record(req, "get", err)
	}
	want := "Seen-" + w.Spec.Color
	if w.Status.Phase == want && w.Status.ObservedGeneration == w.Generation {
		return reconcile.Result{}, nil
	}
	w.Status.Phase = want
	w.Status.ObservedGeneration = w.Generation
	if err := r.c.Status().Update(ctx, &w); err != nil {
		// A conflict means the cache was behind a write; controller-runtime requeues.
		return reconcile.Result{}, r.record(req, "status update", err)
	}
	return reconcile.Result{}, nil
}

func (r *phaseReconciler) record(req reconcile.Request, op string, err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf("%s %s: %v", req.NamespacedName, op, err))
	return err
}

func (r *phaseReconciler) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// crManagerCase is one way of running the manager: how its informer fills the cache and
// whether its client reads its own writes.
type crManagerCase struct {
	name string
	// watchList is client-go's WatchListClient feature (on by default since 1.35): the
	// informer's initial list is a watch with sendInitialEvents=true; off, it is a LIST
	// followed by a WATCH from the list's resourceVersion.
	watchList bool
	// readYourWrites is the client's EnableReadYourWritesConsistency: cache reads wait
	// until the cache has seen the resourceVersion of the client's own writes.
	readYourWrites bool
	// informerRequests are substrings every one of which some informer request must contain
	// (each inner slice: the substrings of one request).
	informerRequests [][]string
}

func testCRManager(t *testing.T, es *exampleServer, c client.Client, logger logr.Logger) {
	const coll = "GET /apis/toys.example.com/v1/widgets?"
	for i, tc := range []crManagerCase{
		{name: "streaming initial list (WatchListClient, client-go's default)", watchList: true,
			informerRequests: [][]string{{coll, "watch=true", "sendInitialEvents=true", "resourceVersionMatch=NotOlderThan", "allowWatchBookmarks=true"}}},
		{name: "list then watch from its resourceVersion", watchList: false,
			informerRequests: [][]string{{coll, "resourceVersion=0"}, {coll, "watch=true", "allowWatchBookmarks=true", "resourceVersion="}}},
		{name: "read-your-writes consistency", watchList: true, readYourWrites: true,
			informerRequests: [][]string{{coll, "watch=true"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, tc.watchList)
			testCRManagerCase(t, es, c, logger, fmt.Sprintf("cr-manager-%d", i), tc)
		})
	}
}

func testCRManagerCase(t *testing.T, es *exampleServer, c client.Client, logger logr.Logger, ns string, tc crManagerCase) {
	ctx := ctxFor(t)
	requestsBefore := len(es.requests.matching("/apis/toys.example.com/v1/widgets?"))
	skipNameValidation := true
	mgr, err := manager.New(es.restConfig(t), manager.Options{
		Scheme:                 newK8sScheme(),
		Logger:                 logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Client:                 client.Options{Cache: &client.CacheOptions{EnableReadYourWritesConsistency: &tc.readYourWrites}},
		// Every case's controller is named "widget".
		Controller: config.Controller{SkipNameValidation: &skipNameValidation},
	})
	if err != nil {
		t.Fatalf("manager.New: %v", err)
	}
	r := &phaseReconciler{c: mgr.GetClient()}
	if err := builder.ControllerManagedBy(mgr).For(&k8sWidget{}).Complete(r); err != nil {
		t.Fatalf("building the controller: %v", err)
	}

	// Widgets that exist before the manager starts reach it through the initial list;
	// those created afterwards through the watch.
	for _, w := range []*k8sWidget{newTypedWidget(ns, "m1", "red", 1, nil), newTypedWidget(ns, "m2", "green", 1, nil)} {
		if err := c.Create(ctx, w); err != nil {
			t.Fatalf("Create %s: %v", w.Name, err)
		}
	}

	mgrCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager.Start returned %v", err)
			}
		case <-time.After(testTimeout):
			t.Errorf("the manager did not stop within %s of its context's cancellation", testTimeout)
		}
	})
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatalf("the manager's cache did not sync; widget requests: %q", es.requests.matching("/widgets"))
	}

	for _, w := range []*k8sWidget{newTypedWidget(ns, "m3", "blue", 1, nil), newTypedWidget(ns, "m4", "red", 1, nil)} {
		if err := c.Create(ctx, w); err != nil {
			t.Fatalf("Create %s: %v", w.Name, err)
		}
	}
	want := map[string]string{"m1": "Seen-red", "m2": "Seen-green", "m3": "Seen-blue", "m4": "Seen-red"}
	waitForPhases(ctx, t, es, c, r, ns, want)

	// A spec change made by another client must reach the reconciler through the watch.
	var m1 k8sWidget
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m1"}, &m1); err != nil {
		t.Fatalf("Get m1: %v", err)
	}
	base := m1.DeepCopy()
	m1.Spec.Color = "blue"
	if err := c.Patch(ctx, &m1, client.MergeFrom(base)); err != nil {
		t.Fatalf("Patch m1's color: %v", err)
	}
	want["m1"] = "Seen-blue"
	waitForPhases(ctx, t, es, c, r, ns, want)

	cached := mgr.GetClient()
	if tc.readYourWrites {
		// The manager's own write is visible to its next cached read, without polling.
		var m3 k8sWidget
		if err := cached.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m3"}, &m3); err != nil {
			t.Fatalf("cached Get m3: %v", err)
		}
		base := m3.DeepCopy()
		m3.Spec.Color = "green"
		if err := cached.Patch(ctx, &m3, client.MergeFrom(base)); err != nil {
			t.Fatalf("Patch m3 through the manager's client: %v", err)
		}
		var read k8sWidget
		if err := cached.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m3"}, &read); err != nil {
			t.Fatalf("cached Get m3 after the write: %v", err)
		}
		if read.Spec.Color != "green" || read.ResourceVersion != m3.ResourceVersion {
			t.Errorf("cached Get right after the manager's own patch: color %q rv %q, want green at rv %q", read.Spec.Color, read.ResourceVersion, m3.ResourceVersion)
		}
		want["m3"] = "Seen-green"
		waitForPhases(ctx, t, es, c, r, ns, want)
	}

	// A deletion must reach the manager's cache through the watch.
	if err := c.Delete(ctx, newTypedWidget(ns, "m2", "", 0, nil)); err != nil {
		t.Fatalf("Delete m2: %v", err)
	}
	for {
		err := cached.Get(ctx, client.ObjectKey{Namespace: ns, Name: "m2"}, &k8sWidget{})
		if apierrors.IsNotFound(err) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the manager's cache still has m2 after its deletion (last Get: %v); widget requests: %q", err, es.requests.matching("/widgets"))
		}
		time.Sleep(crPollInterval)
	}
	var cachedList k8sWidgetList
	if err := cached.List(ctx, &cachedList, client.InNamespace(ns)); err != nil {
		t.Fatalf("List from the manager's cache: %v", err)
	}
	if names := typedNames(cachedList.Items); !slices.Equal(names, []string{ns + "/m1", ns + "/m3", ns + "/m4"}) {
		t.Errorf("the manager's cache lists %v, want [%[2]s/m1 %[2]s/m3 %[2]s/m4]", names, ns)
	}

	informer := es.requests.matching("/apis/toys.example.com/v1/widgets?")[requestsBefore:]
	for _, parts := range tc.informerRequests {
		if !slices.ContainsFunc(informer, func(req string) bool { return containsAll(req, parts) }) {
			t.Errorf("no informer request with all of %q; the informer sent %q", parts, informer)
		}
	}
	t.Logf("informer requests: %q", informer)
	if errs := r.errors(); len(errs) > 0 {
		t.Logf("reconcile errors (retried): %q", errs)
	}
}

// containsAll reports whether s contains every one of parts.
func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// waitForPhases polls the server (not the manager's cache) until every widget in ns named
// in want has that status.phase and an observedGeneration equal to its generation.
func waitForPhases(ctx context.Context, t *testing.T, es *exampleServer, c client.Client, r *phaseReconciler, ns string, want map[string]string) {
	t.Helper()
	for {
		var list k8sWidgetList
		err := c.List(ctx, &list, client.InNamespace(ns))
		got := map[string]string{}
		ok := err == nil
		for _, w := range list.Items {
			got[w.Name] = fmt.Sprintf("%s@%d/%d", w.Status.Phase, w.Status.ObservedGeneration, w.Generation)
			if p, named := want[w.Name]; named && (w.Status.Phase != p || w.Status.ObservedGeneration != w.Generation) {
				ok = false
			}
		}
		for name := range want {
			if _, present := got[name]; !present {
				ok = false
			}
		}
		if ok {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the reconciler did not bring the widgets to %v: phase@observedGeneration/generation %v (last List error: %v); %d reconciles, reconcile errors %q; widget requests: %q",
				want, got, err, r.reconciles.Load(), r.errors(), es.requests.matching("/widgets"))
		}
		time.Sleep(crPollInterval)
	}
}

var _ reconcile.Reconciler = (*phaseReconciler)(nil)
