package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"
)

// testTimeout bounds each client-go test's waiting.
const testTimeout = 30 * time.Second

// newWidget returns an unstructured v1 Widget.
func newWidget(namespace, name, color string, replicas int64, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "toys.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec":       map[string]any{"color": color, "replicas": replicas},
	}}
	if labels != nil {
		u.SetLabels(labels)
	}
	return u
}

// forEachBackend runs f once per storage backend on a fresh example server.
func forEachBackend(t *testing.T, f func(t *testing.T, es *exampleServer)) {
	for _, backend := range storageBackends {
		t.Run("storage="+backend, func(t *testing.T) { f(t, startExampleServer(t, backend)) })
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// TestDynamicClient_CRUD drives widgets through client-go's dynamic client and checks the
// typed errors client-go derives from the server's Status responses.
func TestDynamicClient_CRUD(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("crud")

		created, err := widgets.Create(ctx, newWidget("crud", "w1", "red", 2, map[string]string{"app": "toy"}), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetCreationTimestamp().Time.IsZero() || created.GetGeneration() != 1 {
			t.Errorf("create did not set uid/resourceVersion/creationTimestamp/generation=1: %v", created.Object["metadata"])
		}

		got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
			t.Errorf("get = uid %s rv %s, want the created uid %s rv %s", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
		}
		if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "red" {
			t.Errorf("spec.color = %q, want red", color)
		}

		if _, err := widgets.Create(ctx, newWidget("crud", "w2", "blue", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create w2: %v", err)
		}
		list, err := widgets.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if len(list.Items) != 2 || list.GetResourceVersion() == "" || list.GetKind() != "WidgetList" {
			t.Errorf("list = kind %q, %d items, rv %q; want WidgetList, 2 items and a resourceVersion", list.GetKind(), len(list.Items), list.GetResourceVersion())
		}
		sel, err := widgets.List(ctx, metav1.ListOptions{LabelSelector: "app=toy", FieldSelector: "spec.color=red"})
		if err != nil || len(sel.Items) != 1 || sel.Items[0].GetName() != "w1" {
			t.Errorf("list by selectors = %v (err %v), want w1", itemNames(sel), err)
		}

		// Update the spec: generation goes up, resourceVersion changes.
		upd := got.DeepCopy()
		if err := unstructured.SetNestedField(upd.Object, "green", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		updated, err := widgets.Update(ctx, upd, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		if updated.GetGeneration() != 2 || updated.GetResourceVersion() == got.GetResourceVersion() {
			t.Errorf("after a spec update: generation %d, rv %s (was %s); want generation 2 and a new rv", updated.GetGeneration(), updated.GetResourceVersion(), got.GetResourceVersion())
		}

		// Status through /status, ignored on the main resource.
		st := updated.DeepCopy()
		_ = unstructured.SetNestedField(st.Object, "Ready", "status", "phase")
		withStatus, err := widgets.UpdateStatus(ctx, st, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update status: %v", err)
		}
		if phase, _, _ := unstructured.NestedString(withStatus.Object, "status", "phase"); phase != "Ready" || withStatus.GetGeneration() != 2 {
			t.Errorf("after UpdateStatus: phase %q generation %d; want Ready and generation 2", phase, withStatus.GetGeneration())
		}
		ignored := withStatus.DeepCopy()
		_ = unstructured.SetNestedField(ignored.Object, "Broken", "status", "phase")
		_ = unstructured.SetNestedField(ignored.Object, "blue", "spec", "color")
		afterMain, err := widgets.Update(ctx, ignored, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("update with status: %v", err)
		}
		if phase, _, _ := unstructured.NestedString(afterMain.Object, "status", "phase"); phase != "Ready" {
			t.Errorf("a PUT on the main resource changed status.phase to %q", phase)
		}
		statusOnly := afterMain.DeepCopy()
		_ = unstructured.SetNestedField(statusOnly.Object, "red", "spec", "color")
		_ = unstructured.SetNestedField(statusOnly.Object, "Done", "status", "phase")
		afterStatus, err := widgets.UpdateStatus(ctx, statusOnly, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("second update status: %v", err)
		}
		if color, _, _ := unstructured.NestedString(afterStatus.Object, "spec", "color"); color != "blue" {
			t.Errorf("a PUT to /status changed spec.color to %q", color)
		}

		tests := []struct {
			name  string
			call  func() error
			check func(error) bool
			want  string
		}{
			{"get of a missing widget is NotFound", func() error {
				_, err := widgets.Get(ctx, "missing", metav1.GetOptions{})
				return err
			}, apierrors.IsNotFound, "NotFound"},
			{"create of an existing name is AlreadyExists", func() error {
				_, err := widgets.Create(ctx, newWidget("crud", "w1", "red", 1, nil), metav1.CreateOptions{})
				return err
			}, apierrors.IsAlreadyExists, "AlreadyExists"},
			{"update with a stale resourceVersion is Conflict", func() error {
				_, err := widgets.Update(ctx, upd, metav1.UpdateOptions{}) // upd carries got's old resourceVersion
				return err
			}, apierrors.IsConflict, "Conflict"},
			{"create with a namespace other than the path's is BadRequest", func() error {
				_, err := dc.Resource(gvrWidgets).Namespace("crud").Create(ctx, newWidget("elsewhere", "w9", "red", 1, nil), metav1.CreateOptions{})
				return err
			}, apierrors.IsBadRequest, "BadRequest"},
			{"delete with a wrong uid precondition is Conflict", func() error {
				uid := types.UID("not-the-uid")
				return widgets.Delete(ctx, "w2", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
			}, apierrors.IsConflict, "Conflict"},
			{"delete with a stale resourceVersion precondition is Conflict", func() error {
				rv := got.GetResourceVersion()
				return widgets.Delete(ctx, "w1", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
			}, apierrors.IsConflict, "Conflict"},
			{"delete of a missing widget is NotFound", func() error {
				return widgets.Delete(ctx, "missing", metav1.DeleteOptions{})
			}, apierrors.IsNotFound, "NotFound"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.call()
				if !tt.check(err) {
					t.Errorf("error = %v (reason %q), want %s", err, apierrors.ReasonForError(err), tt.want)
				}
			})
		}

		t.Run("an invalid color is Invalid with a cause on spec.color", func(t *testing.T) {
			_, err := widgets.Create(ctx, newWidget("crud", "bad", "purple", -1, nil), metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("error = %v, want Invalid", err)
			}
			var status apierrors.APIStatus
			if !errorsAs(err, &status) || status.Status().Details == nil {
				t.Fatalf("error %v has no Status details", err)
			}
			d := status.Status().Details
			if d.Name != "bad" || d.Group != "toys.example.com" || d.Kind != "Widget" {
				t.Errorf("details = name %q group %q kind %q, want bad toys.example.com Widget", d.Name, d.Group, d.Kind)
			}
			causes := map[string]metav1.CauseType{}
			for _, c := range d.Causes {
				causes[c.Field] = c.Type
			}
			if causes["spec.color"] != metav1.CauseTypeFieldValueNotSupported || causes["spec.replicas"] != metav1.CauseTypeFieldValueInvalid {
				t.Errorf("causes = %+v, want spec.color FieldValueNotSupported and spec.replicas FieldValueInvalid", d.Causes)
			}
		})

		t.Run("generateName creates unique names", func(t *testing.T) {
			seen := map[string]bool{}
			for range 5 {
				w := newWidget("crud", "", "red", 1, nil)
				w.SetGenerateName("gen-")
				out, err := widgets.Create(ctx, w, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("create with generateName: %v", err)
				}
				if !strings.HasPrefix(out.GetName(), "gen-") || len(out.GetName()) <= len("gen-") || seen[out.GetName()] {
					t.Errorf("generated name %q: want a new gen-XXXXX name", out.GetName())
				}
				seen[out.GetName()] = true
			}
		})

		t.Run("delete removes the widget", func(t *testing.T) {
			if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := widgets.Get(ctx, "w1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
		})

		t.Run("deletecollection removes what the selector matches", func(t *testing.T) {
			if err := widgets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=w2"}); err != nil {
				t.Fatalf("deletecollection: %v", err)
			}
			rest, err := widgets.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := itemNames(rest); slices.Contains(got, "w2") || len(got) != 5 {
				t.Errorf("after deletecollection of w2: %q, want the 5 generated widgets", got)
			}
		})

		t.Run("cluster-scoped warehouses", func(t *testing.T) {
			wh := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "toys.example.com/v1", "kind": "Warehouse",
				"metadata": map[string]any{"name": "depot"},
				"spec":     map[string]any{"location": "Bergen", "capacity": int64(5)},
			}}
			whs := dc.Resource(gvrWarehouses)
			if _, err := whs.Create(ctx, wh, metav1.CreateOptions{}); err != nil {
				t.Fatalf("create warehouse: %v", err)
			}
			got, err := whs.Get(ctx, "depot", metav1.GetOptions{})
			if err != nil || got.GetNamespace() != "" {
				t.Errorf("get warehouse: ns %q err %v", got.GetNamespace(), err)
			}
		})
	})
}

// TestDynamicClient_FinalizersAndPropagation covers the DELETING state and the orphan
// propagation policy.
func TestDynamicClient_FinalizersAndPropagation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("lifecycle")

		held := newWidget("lifecycle", "held", "red", 1, nil)
		held.SetFinalizers([]string{"example.com/a", "example.com/b"})
		if _, err := widgets.Create(ctx, held, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := widgets.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		cur, err := widgets.Get(ctx, "held", metav1.GetOptions{})
		if err != nil || cur.GetDeletionTimestamp() == nil {
			t.Fatalf("after delete with finalizers: err %v, deletionTimestamp %v; want the object kept with a deletionTimestamp", err, cur)
		}
		gen := cur.GetGeneration()
		// Deleting again keeps it; a spec change is refused or does not undo the deletion.
		if err := widgets.Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
			t.Errorf("second delete: %v", err)
		}
		cur.SetFinalizers([]string{"example.com/b"})
		cur, err = widgets.Update(ctx, cur, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("removing one finalizer: %v", err)
		}
		if cur.GetDeletionTimestamp() == nil || cur.GetGeneration() != gen {
			t.Errorf("after removing one finalizer: deletionTimestamp %v generation %d (was %d)", cur.GetDeletionTimestamp(), cur.GetGeneration(), gen)
		}
		cur.SetFinalizers(nil)
		if _, err := widgets.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("removing the last finalizer: %v", err)
		}
		if _, err := widgets.Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after the last finalizer went: %v, want NotFound", err)
		}

		// Orphan: dependents lose their ownerReference, the owner goes.
		owner, err := widgets.Create(ctx, newWidget("lifecycle", "owner", "red", 1, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		child := newWidget("lifecycle", "child", "red", 1, nil)
		child.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "toys.example.com/v1", Kind: "Widget", Name: "owner", UID: owner.GetUID()}})
		if _, err := widgets.Create(ctx, child, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		orphan := metav1.DeletePropagationOrphan
		if err := widgets.Delete(ctx, "owner", metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
			t.Fatalf("delete with propagationPolicy=Orphan: %v", err)
		}
		if _, err := widgets.Get(ctx, "owner", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("owner after orphan delete: %v, want NotFound", err)
		}
		c, err := widgets.Get(ctx, "child", metav1.GetOptions{})
		if err != nil || len(c.GetOwnerReferences()) != 0 {
			t.Errorf("child after orphan delete: err %v, ownerReferences %v; want it kept without them", err, c.GetOwnerReferences())
		}

		bad := metav1.DeletionPropagation("Sideways")
		if err := widgets.Delete(ctx, "child", metav1.DeleteOptions{PropagationPolicy: &bad}); !apierrors.IsBadRequest(err) && !apierrors.IsInvalid(err) {
			t.Errorf("delete with propagationPolicy=Sideways: %v, want a 400/422", err)
		}
	})
}

func itemNames(l *unstructured.UnstructuredList) []string {
	if l == nil {
		return nil
	}
	var ns []string
	for _, it := range l.Items {
		ns = append(ns, it.GetName())
	}
	slices.Sort(ns)
	return ns
}

// eventLog collects informer notifications.
type eventLog struct {
	mu     sync.Mutex
	events []string
	notify chan struct{}
}

func newEventLog() *eventLog { return &eventLog{notify: make(chan struct{}, 1)} }

func (l *eventLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *eventLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// waitFor waits until the log holds want (in order, as a contiguous suffix of the events
// after the first n) or the context ends.
func (l *eventLog) waitFor(ctx context.Context, n int, want []string) ([]string, bool) {
	for {
		got := l.snapshot()
		if len(got) >= n+len(want) && slices.Equal(got[n:n+len(want)], want) {
			return got, true
		}
		select {
		case <-ctx.Done():
			return got, false
		case <-l.notify:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (l *eventLog) handler() cache.ResourceEventHandler {
	name := func(obj any) string {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Sprintf("%T", obj)
		}
		color, _, _ := unstructured.NestedString(u.Object, "spec", "color")
		return u.GetName() + "/" + color
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { l.add("add " + name(obj)) },
		UpdateFunc: func(_, obj any) { l.add("update " + name(obj)) },
		DeleteFunc: func(obj any) { l.add("delete " + name(obj)) },
	}
}

// TestInformer_SyncsAndSeesEveryChange runs a dynamic shared informer: it syncs with the
// existing widgets, then sees every add, update and delete made afterwards, in order.
func TestInformer_SyncsAndSeesEveryChange(t *testing.T) {
	// The classic list-then-watch informer (client-go 0.37 streams by default; see
	// TestWatchList_StreamsInitialEvents).
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("inf")
		for i := range 3 {
			if _, err := widgets.Create(ctx, newWidget("inf", fmt.Sprintf("pre-%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		runInformer(t, ctx, dc, widgets)
	})
}

// startWidgetInformer starts a dynamic informer of the widgets in namespace with
// handlers, stops it when the test ends, and waits until it has synced.
func startWidgetInformer(t *testing.T, ctx context.Context, dc dynamic.Interface, namespace string, handlers ...cache.ResourceEventHandler) cache.SharedIndexInformer {
	t.Helper()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, namespace, nil)
	informer := factory.ForResource(gvrWidgets).Informer()
	for _, h := range handlers {
		if _, err := informer.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); factory.Shutdown() })
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	return informer
}

func runInformer(t *testing.T, ctx context.Context, dc dynamic.Interface, widgets dynamic.ResourceInterface) {
	t.Helper()
	log := newEventLog()
	informer := startWidgetInformer(t, ctx, dc, "inf", log.handler())
	initial := log.snapshot()
	slices.Sort(initial)
	if want := []string{"add pre-0/red", "add pre-1/red", "add pre-2/red"}; !slices.Equal(initial, want) {
		t.Fatalf("events at sync = %q, want %q", initial, want)
	}
	n := len(initial)

	var want []string
	for i := range 3 {
		if _, err := widgets.Create(ctx, newWidget("inf", fmt.Sprintf("post-%d", i), "blue", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("add post-%d/blue", i))
	}
	w, err := widgets.Get(ctx, "pre-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(w.Object, "green", "spec", "color")
	if _, err := widgets.Update(ctx, w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "update pre-1/green")
	if err := widgets.Delete(ctx, "post-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "delete post-0/blue")
	if got, ok := log.waitFor(ctx, n, want); !ok {
		t.Fatalf("informer events after sync = %q, want %q", got[n:], want)
	}
	keys := informer.GetStore().ListKeys()
	slices.Sort(keys)
	if wantKeys := []string{"inf/post-1", "inf/post-2", "inf/pre-0", "inf/pre-1", "inf/pre-2"}; !slices.Equal(keys, wantKeys) {
		t.Errorf("informer store keys = %q, want %q", keys, wantKeys)
	}
}

// TestPager_ListsEveryPage lists with client-go's pager in pages of 2.
func TestPager_ListsEveryPage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("pages")
		const total = 7
		for i := range total {
			if _, err := widgets.Create(ctx, newWidget("pages", fmt.Sprintf("p%02d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// An object in another namespace must not show up.
		if _, err := dc.Resource(gvrWidgets).Namespace("other").Create(ctx, newWidget("other", "x", "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pages := 0
		p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			pages++
			l, err := widgets.List(ctx, opts)
			if err == nil && len(l.Items) > 2 {
				return nil, fmt.Errorf("page %d has %d items, limit was %d", pages, len(l.Items), opts.Limit)
			}
			return l, err
		})
		p.PageSize = 2
		var seen []string
		err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
			seen = append(seen, obj.(*unstructured.Unstructured).GetName())
			return nil
		})
		if err != nil {
			t.Fatalf("pager: %v", err)
		}
		want := []string{"p00", "p01", "p02", "p03", "p04", "p05", "p06"}
		if !slices.Equal(seen, want) {
			t.Errorf("pager listed %q, want %q in key order", seen, want)
		}
		if pages != 4 {
			t.Errorf("pager fetched %d pages, want 4", pages)
		}
		if reqs := es.requests.matching("GET /apis/toys.example.com/v1/namespaces/pages/widgets?", "limit=2", "continue="); len(reqs) != 3 {
			t.Errorf("requests with a continue token = %q, want 3", reqs)
		}

		// The full list at once through pager.List, and remainingItemCount on the first page.
		first, err := widgets.List(ctx, metav1.ListOptions{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if rc := first.GetRemainingItemCount(); rc == nil || *rc != total-2 || first.GetContinue() == "" {
			t.Errorf("first page: remainingItemCount %v, continue %q; want %d and a token", rc, first.GetContinue(), total-2)
		}
		// A write between pages does not show up in later pages (a consistent snapshot).
		if _, err := widgets.Create(ctx, newWidget("pages", "p99", "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var later []string
		opts := metav1.ListOptions{Limit: 2, Continue: first.GetContinue()}
		for {
			page, err := widgets.List(ctx, opts)
			if err != nil {
				t.Fatalf("continuing: %v", err)
			}
			later = append(later, itemNames(page)...)
			if page.GetContinue() == "" {
				break
			}
			opts.Continue = page.GetContinue()
		}
		slices.Sort(later)
		if want := []string{"p02", "p03", "p04", "p05", "p06"}; !slices.Equal(later, want) {
			t.Errorf("pages after a concurrent create = %q, want the snapshot %q", later, want)
		}
	})
}

// compactAll discards the storage's history up to its current resourceVersion.
func compactAll(t *testing.T, ctx context.Context, es *exampleServer, rv string) {
	t.Helper()
	c, ok := es.srv.Storage().(storage.Compactor)
	if !ok {
		t.Skipf("storage %T cannot compact", es.srv.Storage())
	}
	var n uint64
	if _, err := fmt.Sscan(rv, &n); err != nil {
		t.Fatalf("resourceVersion %q is not a number: %v", rv, err)
	}
	if err := c.Compact(ctx, n); err != nil {
		t.Fatalf("compact: %v", err)
	}
}

// TestWatch_ExpiredResourceVersion compacts the history and checks that a watch from an
// older resourceVersion ends with the 410 Expired ERROR event client-go's reflector
// expects, and that a reflector recovers by listing again.
func TestWatch_ExpiredResourceVersion(t *testing.T) {
	// The reflector below must list and then watch from the list's resourceVersion.
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("expire")
		first, err := widgets.Create(ctx, newWidget("expire", "e0", "red", 1, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		oldRV := first.GetResourceVersion()
		var last *unstructured.Unstructured
		for i := 1; i <= 3; i++ {
			if last, err = widgets.Create(ctx, newWidget("expire", fmt.Sprintf("e%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		compactAll(t, ctx, es, last.GetResourceVersion())

		t.Run("a watch from a compacted resourceVersion gets a 410 Expired", func(t *testing.T) {
			w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: oldRV})
			if err != nil {
				// Also acceptable to client-go: the request itself fails with 410.
				if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
					t.Fatalf("watch from rv %s: %v, want 410 Expired", oldRV, err)
				}
				return
			}
			defer w.Stop()
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatal("watch closed without an event")
				}
				if ev.Type != watch.Error {
					t.Fatalf("first event = %s, want ERROR", ev.Type)
				}
				err := apierrors.FromObject(ev.Object)
				if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
					t.Errorf("ERROR event = %v (reason %q), want 410 Expired", err, apierrors.ReasonForError(err))
				}
				if s, ok := err.(apierrors.APIStatus); !ok || s.Status().Code != 410 {
					t.Errorf("ERROR event status = %+v, want code 410", err)
				}
			case <-ctx.Done():
				t.Fatal("no event from a watch at a compacted resourceVersion")
			}
		})

		t.Run("a continue token from before the compaction is 410 Expired", func(t *testing.T) {
			// Make a token, then compact past it.
			page, err := widgets.List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil || page.GetContinue() == "" {
				t.Fatalf("first page: %v, continue %q", err, page.GetContinue())
			}
			w, err := widgets.Create(ctx, newWidget("expire", "e-late", "red", 1, nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			compactAll(t, ctx, es, w.GetResourceVersion())
			_, err = widgets.List(ctx, metav1.ListOptions{Limit: 1, Continue: page.GetContinue()})
			if !apierrors.IsResourceExpired(err) {
				t.Errorf("list with an expired continue token: %v, want 410 Expired", err)
			}
		})

		t.Run("a reflector whose watch expires lists again and catches up", func(t *testing.T) {
			var mu sync.Mutex
			lists := 0
			lw := &cache.ListWatch{
				ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
					l, err := widgets.List(ctx, opts)
					mu.Lock()
					defer mu.Unlock()
					lists++
					if err == nil && lists == 1 {
						l.SetResourceVersion(oldRV) // as if the history had gone since
					}
					return l, err
				},
				WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
					return widgets.Watch(ctx, opts)
				},
			}
			store := cache.NewStore(cache.MetaNamespaceKeyFunc)
			r := cache.NewReflector(lw, &unstructured.Unstructured{}, store, 0)
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() { r.Run(stop); close(done) }()
			defer func() { close(stop); <-done }()
			// After the 410 the reflector lists again (the second list) and then watches
			// from a current resourceVersion: a new widget shows up in its store.
			for {
				mu.Lock()
				n := lists
				mu.Unlock()
				if n >= 2 {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("the reflector listed %d times, want a relist after the 410", n)
				case <-time.After(20 * time.Millisecond):
				}
			}
			if _, err := widgets.Create(ctx, newWidget("expire", "after-relist", "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			for {
				if _, ok, _ := store.GetByKey("expire/after-relist"); ok {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("the reflector never saw after-relist; store keys %q", store.ListKeys())
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	})
}

// TestWatchList_StreamsInitialEvents runs an informer with client-go's WatchListClient
// feature: its initial list must come from a watch with sendInitialEvents=true.
func TestWatchList_StreamsInitialEvents(t *testing.T) {
	t.Setenv("KUBE_FEATURE_WatchListClient", "true")
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("inf")
		for i := range 3 {
			if _, err := widgets.Create(ctx, newWidget("inf", fmt.Sprintf("pre-%d", i), "red", 1, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		runInformer(t, ctx, dc, widgets)
		streams := es.requests.matching("GET /apis/toys.example.com/v1/namespaces/inf/widgets?", "sendInitialEvents=true", "watch=true", "resourceVersionMatch=NotOlderThan", "allowWatchBookmarks=true")
		if len(streams) == 0 {
			t.Errorf("no watch with sendInitialEvents=true, resourceVersionMatch=NotOlderThan and bookmarks; requests: %q", es.requests.matching("/widgets"))
		}
		for _, u := range es.requests.matching("GET /apis/toys.example.com/v1/namespaces/inf/widgets?") {
			if !strings.Contains(u, "watch=true") {
				t.Errorf("the informer listed (%s) instead of streaming its initial list", u)
			}
		}
	})
}

// TestMetadataClient_PartialObjectMetadata lists and gets widgets as PartialObjectMetadata.
func TestMetadataClient_PartialObjectMetadata(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		cfg := es.restConfig(t)
		dc := dynamic.NewForConfigOrDie(cfg)
		for i := range 3 {
			if _, err := dc.Resource(gvrWidgets).Namespace("meta").Create(ctx, newWidget("meta", fmt.Sprintf("m%d", i), "red", 1, map[string]string{"i": fmt.Sprint(i)}), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		mc := metadata.NewForConfigOrDie(cfg)
		list, err := mc.Resource(gvrWidgets).Namespace("meta").List(ctx, metav1.ListOptions{LabelSelector: "i!=1"})
		if err != nil {
			t.Fatalf("metadata list: %v", err)
		}
		// (client-go's decoder clears apiVersion and kind of typed results: that the client
		// decoded a PartialObjectMetadataList is the check.)
		if list.ResourceVersion == "" {
			t.Errorf("metadata list has no resourceVersion")
		}
		var got []string
		for _, it := range list.Items {
			got = append(got, it.Name+"/"+it.Labels["i"])
			if it.UID == "" || it.Namespace != "meta" {
				t.Errorf("item %s: uid %q namespace %q", it.Name, it.UID, it.Namespace)
			}
		}
		slices.Sort(got)
		if want := []string{"m0/0", "m2/2"}; !slices.Equal(got, want) {
			t.Errorf("metadata list = %q, want %q", got, want)
		}
		one, err := mc.Resource(gvrWidgets).Namespace("meta").Get(ctx, "m1", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("metadata get: %v", err)
		}
		if one.Name != "m1" || one.UID == "" || one.Labels["i"] != "1" {
			t.Errorf("metadata get = %s uid %q labels %v", one.Name, one.UID, one.Labels)
		}
		// A metadata watch sees a new widget as PartialObjectMetadata.
		w, err := mc.Resource(gvrWidgets).Namespace("meta").Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			t.Fatalf("metadata watch: %v", err)
		}
		defer w.Stop()
		if _, err := dc.Resource(gvrWidgets).Namespace("meta").Create(ctx, newWidget("meta", "m3", "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for {
			select {
			case ev := <-w.ResultChan():
				if ev.Type == watch.Bookmark {
					continue
				}
				pom, ok := ev.Object.(*metav1.PartialObjectMetadata)
				if ev.Type != watch.Added || !ok || pom.Name != "m3" {
					t.Errorf("metadata watch event = %s %T %v, want ADDED PartialObjectMetadata m3", ev.Type, ev.Object, ev.Object)
				}
				return
			case <-ctx.Done():
				t.Fatal("no metadata watch event")
			}
		}
	})
}

// errorsAs is errors.As for the APIStatus interface.
func errorsAs(err error, target *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*target = s
	}
	return ok
}
