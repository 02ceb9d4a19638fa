package cache_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// safety bounds every wait of these tests so a broken cache fails instead of hanging; it
// is never an assertion about speed.
const safety = 30 * time.Second

// countingBackend is a memory store that counts the requests the cache makes of it and
// lets a test end the backend watches it has handed out.
type countingBackend struct {
	*memory.Store
	gets, lists, watches atomic.Int64
	open                 atomic.Int64 // backend watches not yet stopped

	mu      sync.Mutex
	running []*endableWatch
}

func newCountingBackend(t *testing.T) *countingBackend {
	b := &countingBackend{Store: memory.New(memory.Options{FutureWait: 50 * time.Millisecond})}
	t.Cleanup(b.Close)
	return b
}

func (b *countingBackend) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	b.gets.Add(1)
	return b.Store.Get(ctx, key, opts)
}

func (b *countingBackend) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	b.lists.Add(1)
	return b.Store.List(ctx, prefix, opts)
}

func (b *countingBackend) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	inner, err := b.Store.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	b.watches.Add(1)
	b.open.Add(1)
	w := &endableWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{}), end: make(chan *scheme.Status, 1)}
	go w.forward(&b.open)
	b.mu.Lock()
	b.running = append(b.running, w)
	b.mu.Unlock()
	return w, nil
}

// endRunning ends every backend watch handed out so far: with an ERROR event carrying
// status, or by closing the channel when status is nil.
func (b *countingBackend) endRunning(status *scheme.Status) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.running {
		w.end <- status
	}
	b.running = nil
}

// endableWatch forwards a backend watch until it is stopped or ended by the test.
type endableWatch struct {
	inner    watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
	end      chan *scheme.Status
}

func (w *endableWatch) ResultChan() <-chan watch.Event { return w.out }
func (w *endableWatch) Stop()                          { w.stopOnce.Do(func() { close(w.stop) }) }

func (w *endableWatch) forward(open *atomic.Int64) {
	defer open.Add(-1)
	defer close(w.out)
	defer w.inner.Stop()
	for {
		select {
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			case st := <-w.end:
				w.sendEnd(st)
				return
			}
		case <-w.stop:
			return
		case st := <-w.end:
			w.sendEnd(st)
			return
		}
	}
}

func (w *endableWatch) sendEnd(st *scheme.Status) {
	if st == nil {
		return
	}
	select {
	case w.out <- watch.Event{Type: watch.Error, Object: st}:
	case <-w.stop:
	}
}

func newCache(t *testing.T, backend storage.Interface, opts cache.Options) *cache.Cache {
	t.Helper()
	if opts.FutureWait == 0 {
		opts.FutureWait = safety
	}
	opts.RetryMin, opts.RetryMax = time.Millisecond, 10*time.Millisecond
	c, err := cache.Start(t.Context(), backend, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var widgets = storagetest.Widgets

func widgetKey(ns, name string) string { return storage.Key(widgets, ns, name) }

func createWidget(t *testing.T, s storage.Interface, ns, name string, size int64) scheme.Object {
	t.Helper()
	out, err := s.Create(context.Background(), widgetKey(ns, name), storagetest.NewWidget(ns, name, nil, size))
	if err != nil {
		t.Fatalf("Create(%s/%s): %v", ns, name, err)
	}
	return out
}

// nextEvent returns the next non-bookmark event of w; ok is false when the channel closed.
func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	timer := time.NewTimer(safety)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if ok && ev.Type == watch.Bookmark {
				continue
			}
			return ev, ok
		case <-timer.C:
			t.Fatal("no watch event before the safety deadline")
		}
	}
}

func TestWatch_OneBackendWatchPerResourceHoweverManyWatchers(t *testing.T) {
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{})
	start := createWidget(t, c, "ns0", "start", 0)
	const watchers = 50
	var ws []watch.Interface
	for i := range watchers {
		opts := storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true}
		key := storage.Prefix(widgets, "")
		if i%2 == 1 {
			key = storage.Prefix(widgets, fmt.Sprintf("ns%d", i%3))
		}
		w, err := c.Watch(context.Background(), key, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		ws = append(ws, w)
	}
	created := createWidget(t, c, "ns1", "a", 1)
	for i, w := range ws {
		if i%2 == 1 && i%3 != 1 {
			continue // watches another namespace
		}
		ev, ok := nextEvent(t, w)
		if !ok || ev.Type != watch.Added || ev.Object.(scheme.Object).GetResourceVersion() != created.GetResourceVersion() {
			t.Fatalf("watcher %d got %s (open %v), want ADDED at %s", i, ev.Type, ok, created.GetResourceVersion())
		}
	}
	// Lists at "0", at the current version and consistent ones are all served from memory.
	for _, opts := range []storage.ListOptions{{ResourceVersion: "0"}, {ResourceVersion: created.GetResourceVersion()}, {}, {Limit: 1}} {
		if _, err := c.List(context.Background(), storage.Prefix(widgets, ""), opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(context.Background(), widgetKey("ns1", "a"), storage.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := b.watches.Load(); n != 1 {
		t.Errorf("%d watchers made %d backend watches, want 1", watchers, n)
	}
	if g, l := b.gets.Load(), b.lists.Load(); g != 0 || l != 0 {
		t.Errorf("reads reached the backend: %d gets, %d lists", g, l)
	}
}

func TestRead_ConsistentReadSeesAWriteMadeStraightToTheBackend(t *testing.T) {
	for _, tc := range []struct {
		name string
		// after writes to the backend after the widget's update: none, or to another
		// resource, so that only a progress bookmark tells the cache it is caught up.
		after func(t *testing.T, b storage.Interface)
	}{
		{"last write to the same resource", func(*testing.T, storage.Interface) {}},
		{"last write to another resource", func(t *testing.T, b storage.Interface) {
			gadget := storagetest.NewGadget("ns1", "g", nil, 1)
			if _, err := b.Create(context.Background(), storage.Key(storagetest.Gadgets, "ns1", "g"), gadget); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCountingBackend(t)
			c := newCache(t, b, cache.Options{Prefixes: []string{storage.Prefix(widgets, "")}})
			createWidget(t, c, "ns1", "a", 1)
			if _, err := c.List(context.Background(), storage.Prefix(widgets, ""), storage.ListOptions{}); err != nil {
				t.Fatal(err) // the cache is started and caught up
			}
			updated, err := b.GuaranteedUpdate(context.Background(), widgetKey("ns1", "a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*storagetest.Widget).Spec.Size = 2
				return cur, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			tc.after(t, b.Store)
			want, _ := b.CurrentResourceVersion(context.Background())
			got, err := c.Get(context.Background(), widgetKey("ns1", "a"), storage.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if size := got.(*storagetest.Widget).Spec.Size; size != 2 || got.GetResourceVersion() != updated.GetResourceVersion() {
				t.Errorf("consistent get = size %d at %s, want the backend's write (2 at %s)", size, got.GetResourceVersion(), updated.GetResourceVersion())
			}
			list, err := c.List(context.Background(), storage.Prefix(widgets, ""), storage.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rv, _ := storage.ParseResourceVersion(list.ResourceVersion); rv < want || len(list.Items) != 1 || list.Items[0].(*storagetest.Widget).Spec.Size != 2 {
				t.Errorf("consistent list at %s with %v, want the backend's state at >= %d", list.ResourceVersion, list.Items, want)
			}
			if g, l := b.gets.Load(), b.lists.Load(); g != 0 || l != 0 {
				t.Errorf("consistent reads went to the backend: %d gets, %d lists", g, l)
			}
		})
	}
}

func TestWatch_CacheRecoversAfterTheBackendWatchEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status *scheme.Status
	}{
		{"channel closed", nil},
		{"410 Expired", &scheme.Status{Status: "Failure", Code: 410, Reason: scheme.StatusReasonExpired, Message: "too old resource version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCountingBackend(t)
			c := newCache(t, b, cache.Options{})
			start := createWidget(t, c, "ns1", "a", 1)
			w, err := c.Watch(context.Background(), storage.Prefix(widgets, ""), storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(w.Stop)
			b.endRunning(tc.status)
			// The cache's watches end, so that their clients re-watch or relist.
			for range 100 {
				if _, ok := nextEvent(t, w); !ok {
					break
				}
			}
			// Meanwhile a write reaches the backend; the relisted cache holds it.
			written := createWidget(t, b.Store, "ns1", "b", 2)
			res, err := c.List(context.Background(), storage.Prefix(widgets, ""), storage.ListOptions{ResourceVersion: written.GetResourceVersion()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range res.Items {
				got = append(got, o.GetName())
			}
			if !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("list after recovery = %v, want [a b]", got)
			}
			w2, err := c.Watch(context.Background(), storage.Prefix(widgets, ""), storage.WatchOptions{ResourceVersion: written.GetResourceVersion(), Recursive: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(w2.Stop)
			after := createWidget(t, c, "ns1", "c", 3)
			ev, ok := nextEvent(t, w2)
			if !ok || ev.Type != watch.Added || ev.Object.(scheme.Object).GetResourceVersion() != after.GetResourceVersion() {
				t.Errorf("watch after recovery got %s (open %v), want ADDED c at %s", ev.Type, ok, after.GetResourceVersion())
			}
			if n := b.watches.Load(); n != 2 {
				t.Errorf("backend watches = %d, want 2 (the first and the relist)", n)
			}
			if g, l := b.gets.Load(), b.lists.Load(); g != 0 || l != 0 {
				t.Errorf("reads after recovery went to the backend: %d gets, %d lists", g, l)
			}
		})
	}
}

func TestList_PagesAreServedFromASnapshotUnderConcurrentWrites(t *testing.T) {
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{})
	for i := range 10 {
		createWidget(t, c, "ns1", fmt.Sprintf("o%02d", i), 1)
	}
	opts := storage.ListOptions{Limit: 3}
	var got []int64
	var listRV string
	for page := 0; page < 10; page++ {
		res, err := c.List(context.Background(), storage.Prefix(widgets, ""), opts)
		if err != nil {
			t.Fatal(err)
		}
		if listRV == "" {
			listRV = res.ResourceVersion
		} else if res.ResourceVersion != listRV {
			t.Fatalf("page %d at %s, first at %s", page, res.ResourceVersion, listRV)
		}
		for _, o := range res.Items {
			got = append(got, o.(*storagetest.Widget).Spec.Size)
		}
		if res.Continue == "" {
			break
		}
		if res.RemainingItemCount == nil || *res.RemainingItemCount != int64(10-len(got)) {
			t.Errorf("page %d: remainingItemCount %v, want %d", page, res.RemainingItemCount, 10-len(got))
		}
		// Every object changes between pages; the pages keep the first page's state.
		for i := range 10 {
			if _, err := c.GuaranteedUpdate(context.Background(), widgetKey("ns1", fmt.Sprintf("o%02d", i)), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*storagetest.Widget).Spec.Size++
				return cur, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		opts.Continue = res.Continue
	}
	if want := slices.Repeat([]int64{1}, 10); !slices.Equal(got, want) {
		t.Errorf("sizes across pages = %v, want the first page's snapshot %v", got, want)
	}
	if l := b.lists.Load(); l != 0 {
		t.Errorf("%d pages went to the backend", l)
	}
}

func TestStop_EndsTheBackendWatchesAndTheCachesWatches(t *testing.T) {
	tests := []struct {
		name string
		stop func(c *cache.Cache, cancel context.CancelFunc)
	}{
		{name: "Close", stop: func(c *cache.Cache, _ context.CancelFunc) { c.Close() }},
		{name: "the end of Start's context", stop: func(_ *cache.Cache, cancel context.CancelFunc) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCountingBackend(t)
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c, err := cache.Start(ctx, b, cache.Options{Prefixes: []string{storage.Prefix(widgets, ""), storage.Prefix(storagetest.Gadgets, "")}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			w, err := c.Watch(context.Background(), storage.Prefix(widgets, ""), storage.WatchOptions{Recursive: true, Bookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			tt.stop(c, cancel)
			for range 100 {
				if _, ok := nextEvent(t, w); !ok {
					break
				}
			}
			// The test's backend wrapper forwards events on a goroutine of its own, which
			// ends soon after the cache stops the watch.
			deadline := time.Now().Add(safety)
			for (b.open.Load() > 0 || runtime.NumGoroutine() > before) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			t.Logf("after %s: %d backend watches open, %d goroutines (%d before Start)", tt.name, b.open.Load(), runtime.NumGoroutine(), before)
			if n := b.open.Load(); n != 0 {
				t.Errorf("%d backend watches still open after %s", n, tt.name)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after %s, %d before Start", n, tt.name, before)
			}
			// Requests afterwards go to the backend, and start no resource's cache.
			if _, err := c.Create(context.Background(), widgetKey("ns1", "late"), storagetest.NewWidget("ns1", "late", nil, 1)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get(context.Background(), widgetKey("ns1", "late"), storage.GetOptions{}); err != nil {
				t.Fatal(err)
			}
			watches := b.watches.Load()
			if _, err := c.List(context.Background(), storage.Prefix(scheme.GroupResource{Group: "other.example.com", Resource: "things"}, ""), storage.ListOptions{}); err != nil {
				t.Fatal(err)
			}
			if n := b.watches.Load() - watches; n != 0 {
				t.Errorf("a list of another resource after %s started %d backend watches", tt.name, n)
			}
		})
	}
}

func TestStart_RejectsAPrefixThatIsNotAResource(t *testing.T) {
	for _, p := range []string{"/", "/group/", "group/widgets/", "/group/widgets/ns1/"} {
		if c, err := cache.Start(t.Context(), memory.New(memory.Options{}), cache.Options{Prefixes: []string{p}}); err == nil {
			c.Close()
			t.Errorf("Start accepted prefix %q", p)
		}
	}
}

// unwatchableBackend is a memory store whose watches cannot be started, as a backend
// that is down for watches.
type unwatchableBackend struct{ *countingBackend }

func (b unwatchableBackend) Watch(context.Context, string, storage.WatchOptions) (watch.Interface, error) {
	return nil, errors.New("watch refused")
}

func TestRead_GoesToTheBackendAtOnceWhileTheBackendWatchCannotStart(t *testing.T) {
	b := unwatchableBackend{newCountingBackend(t)}
	// Requests would wait an hour for a store that is not coming; they must not.
	c := newCache(t, b, cache.Options{ReadyWait: time.Hour})
	done := make(chan error, 1)
	go func() {
		if _, err := c.Create(context.Background(), widgetKey("ns1", "a"), storagetest.NewWidget("ns1", "a", nil, 1)); err != nil {
			done <- err
			return
		}
		_, err := c.Get(context.Background(), widgetKey("ns1", "a"), storage.GetOptions{ResourceVersion: "0"})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(safety):
		t.Fatal("requests waited for a cache whose backend watch cannot start")
	}
	if g := b.gets.Load(); g != 1 {
		t.Errorf("backend gets = %d, want the 1 the cache could not serve", g)
	}
}

func TestList_ExactReadNoSnapshotHoldsGoesToTheBackend(t *testing.T) {
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{})
	old := createWidget(t, c, "ns1", "a", 1)
	createWidget(t, c, "ns1", "b", 1)
	res, err := c.List(context.Background(), storage.Prefix(widgets, ""), storage.ListOptions{ResourceVersion: old.GetResourceVersion(), ResourceVersionMatch: storage.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].GetName() != "a" || res.ResourceVersion != old.GetResourceVersion() {
		t.Errorf("exact list at %s = %d items at %s, want [a] at %s", old.GetResourceVersion(), len(res.Items), res.ResourceVersion, old.GetResourceVersion())
	}
	if l := b.lists.Load(); l != 1 {
		t.Errorf("backend lists = %d, want 1: no snapshot of the cache holds the state before b", l)
	}
}

func TestWatch_BookmarksCarryProgressMadeByWritesToOtherResources(t *testing.T) {
	b := newCountingBackend(t)
	c := newCache(t, b, cache.Options{BookmarkInterval: -1})
	start := createWidget(t, c, "ns1", "a", 1)
	w, err := c.Watch(context.Background(), storage.Prefix(widgets, ""), storage.WatchOptions{
		ResourceVersion: start.GetResourceVersion(), Recursive: true, Bookmarks: true,
		NewBookmarkObject: func() scheme.Object { return storagetest.NewWidget("", "", nil, 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	gadget, err := c.Create(context.Background(), storage.Key(storagetest.Gadgets, "ns1", "g"), storagetest.NewGadget("ns1", "g", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	// A consistent read of widgets brings their cache to the gadget's version.
	if _, err := c.List(context.Background(), storage.Prefix(widgets, ""), storage.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.RequestWatchProgress(context.Background()); err != nil {
		t.Fatal(err)
	}
	timer := time.NewTimer(safety)
	defer timer.Stop()
	select {
	case ev := <-w.ResultChan():
		obj := ev.Object.(scheme.Object)
		if ev.Type != watch.Bookmark || obj.GetResourceVersion() != gadget.GetResourceVersion() {
			t.Errorf("got %s at %s, want BOOKMARK at the gadget's version %s", ev.Type, obj.GetResourceVersion(), gadget.GetResourceVersion())
		}
		if _, ok := obj.(*storagetest.Widget); !ok {
			t.Errorf("bookmark carries %T, want the watch's own kind", obj)
		}
	case <-timer.C:
		t.Fatal("no bookmark before the safety deadline")
	}
}
