package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/examples/widgets/server"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// TestDryRun_EveryVerbStoresNothingAndSendsNoEvent runs every mutating verb with
// dryRun=All while a watch is open: nothing changes and the watch's first event is the
// real create made afterwards.
func TestDryRun_EveryVerbStoresNothingAndSendsNoEvent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		widgets := dc.Resource(gvrWidgets).Namespace("dry")
		base, err := widgets.Create(ctx, newWidget("dry", "base", "red", 1, nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: base.GetResourceVersion()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		dry := []string{metav1.DryRunAll}
		changed := base.DeepCopy()
		_ = unstructured.SetNestedField(changed.Object, "blue", "spec", "color")
		_ = unstructured.SetNestedField(changed.Object, "Ready", "status", "phase")
		steps := []struct {
			name string
			call func() (*unstructured.Unstructured, error)
		}{
			{"create", func() (*unstructured.Unstructured, error) {
				return widgets.Create(ctx, newWidget("dry", "ghost", "red", 1, nil), metav1.CreateOptions{DryRun: dry})
			}},
			{"update", func() (*unstructured.Unstructured, error) {
				return widgets.Update(ctx, changed, metav1.UpdateOptions{DryRun: dry})
			}},
			{"update status", func() (*unstructured.Unstructured, error) {
				return widgets.UpdateStatus(ctx, changed, metav1.UpdateOptions{DryRun: dry})
			}},
			{"merge patch", func() (*unstructured.Unstructured, error) {
				return widgets.Patch(ctx, "base", types.MergePatchType, []byte(`{"spec":{"color":"green"}}`), metav1.PatchOptions{DryRun: dry})
			}},
			{"json patch of scale", func() (*unstructured.Unstructured, error) {
				return widgets.Patch(ctx, "base", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":9}]`), metav1.PatchOptions{DryRun: dry}, "scale")
			}},
			{"delete", func() (*unstructured.Unstructured, error) {
				return nil, widgets.Delete(ctx, "base", metav1.DeleteOptions{DryRun: dry})
			}},
			{"deletecollection", func() (*unstructured.Unstructured, error) {
				return nil, widgets.DeleteCollection(ctx, metav1.DeleteOptions{DryRun: dry}, metav1.ListOptions{})
			}},
		}
		for _, s := range steps {
			out, err := s.call()
			if err != nil {
				t.Errorf("dry-run %s: %v", s.name, err)
				continue
			}
			if s.name == "create" && (out.GetName() != "ghost" || out.GetUID() == "" || out.GetCreationTimestamp().Time.IsZero()) {
				t.Errorf("dry-run create returned %v, want the object as it would be stored", out.Object["metadata"])
			}
			if s.name == "update" {
				if c, _, _ := unstructured.NestedString(out.Object, "spec", "color"); c != "blue" || out.GetGeneration() != 2 {
					t.Errorf("dry-run update returned color %q generation %d, want blue and 2", c, out.GetGeneration())
				}
			}
		}
		got, err := widgets.Get(ctx, "base", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("base after the dry runs: %v", err)
		}
		if got.GetResourceVersion() != base.GetResourceVersion() {
			t.Errorf("base changed (rv %s -> %s) after dry runs: %v", base.GetResourceVersion(), got.GetResourceVersion(), got.Object)
		}
		if _, err := widgets.Get(ctx, "ghost", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the dry-run widget exists: %v", err)
		}
		if _, err := widgets.Create(ctx, newWidget("dry", "sentinel", "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for {
			select {
			case ev := <-w.ResultChan():
				if ev.Type == watch.Bookmark {
					continue
				}
				u, _ := ev.Object.(*unstructured.Unstructured)
				if ev.Type != watch.Added || u == nil || u.GetName() != "sentinel" {
					t.Errorf("first watch event after the dry runs = %s %v, want ADDED sentinel", ev.Type, ev.Object)
				}
				return
			case <-ctx.Done():
				t.Fatal("no watch event for the real create")
			}
		}
	})
}

// TestResourceVersion_TooLarge checks kube's 504 "Too large resource version" Timeout,
// which client-go's reflector recognises by its cause.
func TestResourceVersion_TooLarge(t *testing.T) {
	es := startExampleServer(t, "memory")
	ctx := ctxFor(t)
	widgets := dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("big")
	tests := []struct {
		name string
		call func() error
	}{
		{"get", func() error {
			_, err := widgets.Get(ctx, "x", metav1.GetOptions{ResourceVersion: "999999"})
			return err
		}},
		{"list", func() error { _, err := widgets.List(ctx, metav1.ListOptions{ResourceVersion: "999999"}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !apierrors.IsTimeout(err) {
				t.Fatalf("error = %v, want a 504 Timeout", err)
			}
			s := err.(apierrors.APIStatus).Status()
			if s.Details == nil || len(s.Details.Causes) == 0 || s.Details.Causes[0].Type != metav1.CauseTypeResourceVersionTooLarge || s.Details.RetryAfterSeconds == 0 {
				t.Errorf("details = %+v, want a ResourceVersionTooLarge cause and retryAfterSeconds", s.Details)
			}
			// kube-apiserver: NewTimeoutError("Too large resource version: 999999, current: N").
			if want := "Timeout: Too large resource version: 999999, current: "; len(s.Message) < len(want) || s.Message[:len(want)] != want {
				t.Errorf("message = %q, want it to start %q", s.Message, want)
			}
		})
	}
}

// TestBolt_SurvivesRestart stops the example server on bolt storage and starts it again
// on the same data directory: objects, uids and resourceVersions survive, and new writes
// get larger resourceVersions.
func TestBolt_SurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	start := func() (*server.Server, dynamic.ResourceInterface) {
		srv, err := server.New(server.Config{
			Addr: "127.0.0.1:0", Storage: server.StorageBolt, DataDir: dir,
			KubeconfigPath: filepath.Join(dir, "kubeconfig"),
			Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		es := newExampleServer(t, srv, filepath.Join(dir, "kubeconfig"))
		return srv, dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("durable")
	}
	ctx := ctxFor(t)
	srv, widgets := start()
	created, err := widgets.Create(ctx, newWidget("durable", "keep", "red", 1, nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	srv, widgets = start()
	t.Cleanup(func() { _ = srv.Close() })
	got, err := widgets.Get(ctx, "keep", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get after restart: %v", err)
	}
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("after restart: uid %s rv %s, want %s %s", got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}
	next, err := widgets.Create(ctx, newWidget("durable", "next", "red", 1, nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b uint64
	fmt.Sscan(created.GetResourceVersion(), &a)
	fmt.Sscan(next.GetResourceVersion(), &b)
	if b <= a {
		t.Errorf("resourceVersion after restart %d is not above %d", b, a)
	}
}

// nextEvent returns the next non-bookmark watch event, failing the test when none comes.
func nextEvent(t *testing.T, ctx context.Context, w watch.Interface) (watch.EventType, *unstructured.Unstructured) {
	t.Helper()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("watch closed")
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			u, _ := ev.Object.(*unstructured.Unstructured)
			if u == nil {
				t.Fatalf("%s event with %T %v", ev.Type, ev.Object, ev.Object)
			}
			return ev.Type, u
		case <-ctx.Done():
			t.Fatal("no watch event")
		}
	}
}

// TestWatch_SelectorTransitions checks kube's filtered-watch semantics: an object that
// stops matching the selector arrives as DELETED, one that starts matching as ADDED.
func TestWatch_SelectorTransitions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		dc := dynamic.NewForConfigOrDie(es.restConfig(t))
		tests := []struct {
			name     string
			opts     metav1.ListOptions
			leave    string // merge patch that makes the object stop matching
			rejoin   string // merge patch that makes it match again
			objColor string
		}{
			{"label selector", metav1.ListOptions{LabelSelector: "app=x"}, `{"metadata":{"labels":{"app":"y"}}}`, `{"metadata":{"labels":{"app":"x"}}}`, "red"},
			{"field selector", metav1.ListOptions{FieldSelector: "spec.color=red"}, `{"spec":{"color":"blue"}}`, `{"spec":{"color":"red"}}`, "red"},
		}
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				name := fmt.Sprintf("s%d", i)
				widgets := dc.Resource(gvrWidgets).Namespace(name) // each case alone in its namespace
				w, err := widgets.Watch(ctx, tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				if _, err := widgets.Create(ctx, newWidget(name, name, tt.objColor, 1, map[string]string{"app": "x"}), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				var got []string
				typ, _ := nextEvent(t, ctx, w)
				got = append(got, string(typ))
				for _, p := range []string{tt.leave, tt.rejoin} {
					if _, err := widgets.Patch(ctx, name, types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
					typ, _ := nextEvent(t, ctx, w)
					got = append(got, string(typ))
				}
				if want := []string{"ADDED", "DELETED", "ADDED"}; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("events = %v, want %v", got, want)
				}
			})
		}
	})
}

// TestWatch_FinalizerDeleteEvents: a delete of an object with a finalizer is a MODIFIED
// event (deletionTimestamp set); removing the finalizer is the DELETED event.
func TestWatch_FinalizerDeleteEvents(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		widgets := dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("fin")
		obj := newWidget("fin", "f", "red", 1, nil)
		obj.SetFinalizers([]string{"example.com/x"})
		created, err := widgets.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if err := widgets.Delete(ctx, "f", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if typ, u := nextEvent(t, ctx, w); typ != watch.Modified || u.GetDeletionTimestamp() == nil {
			t.Errorf("event after delete = %s (deletionTimestamp %v), want MODIFIED with a deletionTimestamp", typ, u.GetDeletionTimestamp())
		}
		if _, err := widgets.Patch(ctx, "f", types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		// kube-apiserver's registry does not write the emptied object: it deletes it in
		// place of the update (errEmptiedFinalizers), so watchers see only DELETED.
		typ, u := nextEvent(t, ctx, w)
		if typ != watch.Deleted || u.GetName() != "f" {
			t.Errorf("event after removing the finalizer = %s %s (finalizers %q), want DELETED f", typ, u.GetName(), u.GetFinalizers())
			if typ == watch.Modified {
				if typ, u := nextEvent(t, ctx, w); typ != watch.Deleted || u.GetName() != "f" {
					t.Errorf("and then %s %s, want DELETED f", typ, u.GetName())
				}
			}
		}
	})
}

// TestConcurrentUpdates_RetryOnConflict increments a counter annotation from several
// goroutines with client-go's RetryOnConflict: optimistic concurrency must lose no update.
func TestConcurrentUpdates_RetryOnConflict(t *testing.T) {
	forEachBackend(t, func(t *testing.T, es *exampleServer) {
		ctx := ctxFor(t)
		widgets := dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("cc")
		if _, err := widgets.Create(ctx, newWidget("cc", "counter", "red", 1, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		const workers, each = 4, 10
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
						cur, err := widgets.Get(ctx, "counter", metav1.GetOptions{})
						if err != nil {
							return err
						}
						n, _ := strconv.Atoi(cur.GetAnnotations()["n"])
						cur.SetAnnotations(map[string]string{"n": strconv.Itoa(n + 1)})
						_, err = widgets.Update(ctx, cur, metav1.UpdateOptions{})
						return err
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			// DefaultRetry gives up after 5 conflicts in a row; that is contention, not a bug.
			if !apierrors.IsConflict(err) {
				t.Errorf("update: %v", err)
			}
		}
		cur, err := widgets.Get(ctx, "counter", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(cur.GetAnnotations()["n"])
		if n < 1 || n > workers*each {
			t.Fatalf("counter = %d, want 1..%d", n, workers*each)
		}
		if cur.GetGeneration() != 1 {
			t.Errorf("generation = %d after metadata-only updates, want 1", cur.GetGeneration())
		}
		t.Logf("counter = %d of %d attempted increments", n, workers*each)
	})
}

// TestList_RemainingItemCount: a page of an unfiltered list counts the items left; with a
// selector the count is unknown and kube leaves remainingItemCount unset (ListMeta docs).
func TestList_RemainingItemCount(t *testing.T) {
	es := startExampleServer(t, "memory")
	ctx := ctxFor(t)
	widgets := dynamic.NewForConfigOrDie(es.restConfig(t)).Resource(gvrWidgets).Namespace("rem")
	for i := range 5 {
		if _, err := widgets.Create(ctx, newWidget("rem", fmt.Sprintf("r%d", i), "red", 1, map[string]string{"i": fmt.Sprint(i)}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts metav1.ListOptions
		want *int64
	}{
		{"no selector", metav1.ListOptions{Limit: 2}, ptrTo(int64(3))},
		{"label selector", metav1.ListOptions{Limit: 2, LabelSelector: "i!=4"}, nil},
		{"field selector", metav1.ListOptions{Limit: 2, FieldSelector: "spec.color=red"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := widgets.List(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := l.GetRemainingItemCount()
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("remainingItemCount = %v, want %v", deref(got), deref(tt.want))
			}
			if len(l.Items) != 2 || l.GetContinue() == "" {
				t.Errorf("%d items, continue %q; want 2 and a token", len(l.Items), l.GetContinue())
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func deref(p *int64) any {
	if p == nil {
		return "unset"
	}
	return *p
}
