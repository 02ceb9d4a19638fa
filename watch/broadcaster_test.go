package watch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

func TestBroadcaster_ConcurrentPublishingDeliversEveryChangeOnceInOrder(t *testing.T) {
	const changes = 3000
	tests := []struct {
		name   string
		buffer int
	}{
		{name: "buffer larger than bursts", buffer: 4096},
		{name: "tiny buffer forces catch-up from history", buffer: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBroadcaster(Options{HistorySize: changes + 1, WatcherBuffer: tt.buffer, SlowWatcherTimeout: time.Hour, BookmarkInterval: -1})
			defer b.Stop()
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			// Watchers start from 0 before publishing and from past resourceVersions
			// while publishing goes on; each must see exactly (from, changes].
			reader := func(w Interface, from uint64) {
				defer wg.Done()
				defer w.Stop()
				want := from + 1
				for want <= changes {
					ev, ok := <-w.ResultChan()
					if !ok {
						errs <- errors.New("channel closed early")
						return
					}
					if ev.Type != Added {
						errs <- fmt.Errorf("unexpected event %s", ev.Type)
						return
					}
					if rv := rvOrZero(ev); rv != want {
						errs <- fmt.Errorf("watch from %d: got rv %d, want %d", from, rv, want)
						return
					}
					want++
				}
			}
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go reader(mustWatch(t, b, 0, everything), 0)
			}
			published := make(chan uint64, changes)
			go func() {
				for rv := uint64(1); rv <= changes; rv++ {
					mustPublish(t, b, added("w", rv))
					published <- rv
				}
			}()
			for rv := range published {
				if rv%500 == 0 {
					wg.Add(1)
					go reader(mustWatch(t, b, rv-100, everything), rv-100)
				}
				if rv == changes {
					break
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestBroadcaster_WatchFromPastReplaysHistoryThenContinuesLive(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	for rv := uint64(1); rv <= 10; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	w := mustWatch(t, b, 5, everything)
	for rv := uint64(11); rv <= 15; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	for want := uint64(6); want <= 15; want++ {
		if got := rvOf(t, next(t, w)); got != want {
			t.Fatalf("got rv %d, want %d", got, want)
		}
	}
}

func TestBroadcaster_WatchFromZeroStartsNow(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	mustPublish(t, b, added("a", 1))
	w := mustWatch(t, b, 0, everything)
	mustPublish(t, b, added("b", 2))
	if got := rvOf(t, next(t, w)); got != 2 {
		t.Fatalf("first event rv %d, want 2", got)
	}
}

func TestBroadcaster_WatchFromFutureSkipsChangesUpToFrom(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	w := mustWatch(t, b, 3, everything)
	for rv := uint64(1); rv <= 5; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	if got := rvOf(t, next(t, w)); got != 4 {
		t.Fatalf("first event rv %d, want 4", got)
	}
}

func TestBroadcaster_WatchOlderThanWindowIsTooOld(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		publish int    // changes 1..publish, one minute apart
		from    uint64 // watch from
		wantOld bool   // ErrTooOld expected
	}{
		{name: "count window keeps the last 3", opts: Options{HistorySize: 3}, publish: 10, from: 6, wantOld: true},
		{name: "from the newest evicted change is still complete", opts: Options{HistorySize: 3}, publish: 10, from: 7},
		{name: "age window drops changes older than HistoryAge", opts: Options{HistoryAge: 150 * time.Second}, publish: 10, from: 6, wantOld: true},
		{name: "age window keeps recent changes", opts: Options{HistoryAge: 150 * time.Second}, publish: 10, from: 7},
		{name: "versions before the broadcaster existed", opts: Options{ResourceVersion: 100}, publish: 0, from: 99, wantOld: true},
		{name: "the starting version itself", opts: Options{ResourceVersion: 100}, publish: 0, from: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			tt.opts.Clock, tt.opts.BookmarkInterval = clock, -1
			b := NewBroadcaster(tt.opts)
			defer b.Stop()
			base := tt.opts.ResourceVersion
			for i := 1; i <= tt.publish; i++ {
				clock.Advance(time.Minute)
				mustPublish(t, b, added("w", base+uint64(i)))
			}
			w, err := b.Watch(context.Background(), tt.from, everything)
			if tt.wantOld {
				if !IsTooOld(err) {
					t.Fatalf("Watch(%d) error = %v, want ErrTooOld (oldest %d)", tt.from, err, b.OldestResourceVersion())
				}
				return
			}
			if err != nil {
				t.Fatalf("Watch(%d): %v", tt.from, err)
			}
			defer w.Stop()
			if tt.publish == 0 {
				mustPublish(t, b, added("w", base+1))
			}
			if got := rvOf(t, next(t, w)); got != tt.from+1 {
				t.Fatalf("first event rv %d, want %d", got, tt.from+1)
			}
		})
	}
}

func TestBroadcaster_KeySelection(t *testing.T) {
	keys := []string{"/widgets/ns1/a", "/widgets/ns10/b", "/widgets/ns1/c", "/gadgets/ns1/a"}
	tests := []struct {
		name string
		wo   WatchOptions
		want []string
	}{
		{name: "one key", wo: WatchOptions{Key: "/widgets/ns1/a"}, want: []string{"/widgets/ns1/a"}},
		{name: "prefix without slash stops at the segment", wo: WatchOptions{Key: "/widgets/ns1", Recursive: true}, want: []string{"/widgets/ns1/a", "/widgets/ns1/c"}},
		{name: "prefix with slash", wo: WatchOptions{Key: "/widgets/", Recursive: true}, want: []string{"/widgets/ns1/a", "/widgets/ns10/b", "/widgets/ns1/c"}},
		{name: "empty recursive key is everything", wo: WatchOptions{Recursive: true}, want: keys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBroadcaster(Options{BookmarkInterval: -1})
			defer b.Stop()
			w := mustWatch(t, b, 0, tt.wo)
			for i, k := range keys {
				c := added("x", uint64(i+1))
				c.Key = k
				mustPublish(t, b, c)
			}
			// A sentinel matched by every watch ends the stream.
			mustPublish(t, b, Change{Type: Added, Object: newWidget("end", 99, nil), ResourceVersion: 99, Key: tt.want[0]})
			var got []string
			for {
				ev := next(t, w)
				rv := rvOf(t, ev)
				if rv == 99 {
					break
				}
				got = append(got, keys[rv-1])
			}
			if !equalStrings(got, tt.want) {
				t.Fatalf("keys seen %v, want %v", got, tt.want)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBroadcaster_PredicateAndSelectorTransitions(t *testing.T) {
	blue := map[string]string{"color": "blue"}
	red := map[string]string{"color": "red"}
	isBlue := func(o scheme.Object) bool { return o.GetLabels()["color"] == "blue" }
	tests := []struct {
		name     string
		typ      EventType
		prev     map[string]string // nil: no PrevObject
		now      map[string]string
		want     EventType // "" = not delivered
		wantPrev bool      // the object sent is PrevObject's content at the change's version
	}{
		{name: "added matching", typ: Added, now: blue, want: Added},
		{name: "added not matching", typ: Added, now: red},
		{name: "modified, both match", typ: Modified, prev: blue, now: blue, want: Modified},
		{name: "modified into the selector is ADDED of the new object", typ: Modified, prev: red, now: blue, want: Added},
		{name: "modified out of the selector is DELETED of the last matching state", typ: Modified, prev: blue, now: red, want: Deleted, wantPrev: true},
		{name: "modified, neither matches", typ: Modified, prev: red, now: red},
		{name: "modified without PrevObject that matches is ADDED", typ: Modified, now: blue, want: Added},
		{name: "deleted matching (by last state)", typ: Deleted, prev: blue, now: blue, want: Deleted},
		{name: "deleted not matching", typ: Deleted, prev: red, now: red},
		{name: "deleted without PrevObject matches by Object", typ: Deleted, now: blue, want: Deleted},
		{name: "deleted without Object is sent as PrevObject at the change's version", typ: Deleted, prev: blue, want: Deleted, wantPrev: true},
		{name: "deleted without Object not matching", typ: Deleted, prev: red},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBroadcaster(Options{BookmarkInterval: -1})
			defer b.Stop()
			w := mustWatch(t, b, 0, WatchOptions{Recursive: true, Predicate: isBlue})
			c := Change{Type: tt.typ, ResourceVersion: 2, Key: widgetKey("w")}
			if tt.now != nil {
				c.Object = newWidget("w", 2, tt.now)
			}
			if tt.prev != nil {
				c.PrevObject = newWidget("w", 1, tt.prev)
			}
			mustPublish(t, b, c)
			mustPublish(t, b, Change{Type: Added, Object: newWidget("end", 3, blue), ResourceVersion: 3, Key: widgetKey("end")})
			ev := next(t, w)
			if tt.want == "" {
				if rvOf(t, ev) != 3 {
					t.Fatalf("got %s at rv %d, want the change filtered out", ev.Type, rvOf(t, ev))
				}
				return
			}
			if ev.Type != tt.want {
				t.Fatalf("event type %s, want %s", ev.Type, tt.want)
			}
			if rvOf(t, ev) != 2 {
				t.Fatalf("event rv %d, want the change's 2", rvOf(t, ev))
			}
			if !tt.wantPrev {
				if ev.Object != scheme.Kinded(c.Object) {
					t.Fatal("event object is not the change's Object")
				}
				return
			}
			got := ev.Object.(*widget)
			if got == c.PrevObject || got.Labels["color"] != "blue" || got.Name != "w" {
				t.Fatalf("event object %+v, want a copy of PrevObject", got.ObjectMeta)
			}
			if c.PrevObject.GetResourceVersion() != "1" {
				t.Fatalf("PrevObject was modified: rv %s", c.PrevObject.GetResourceVersion())
			}
		})
	}
}

func TestBroadcaster_SendInitialEventsThenBookmarkThenChanges(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	for rv := uint64(1); rv <= 7; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	initial := []scheme.Object{
		newWidget("foo", 3, map[string]string{"keep": "yes"}),
		newWidget("skipped", 4, nil),
		newWidget("bar", 6, map[string]string{"keep": "yes"}),
	}
	w := mustWatch(t, b, 0, WatchOptions{
		Recursive:         true,
		Predicate:         func(o scheme.Object) bool { return o.GetName() == "w" || o.GetLabels()["keep"] == "yes" },
		SendInitialEvents: true,
		InitialObjects:    initial,
		InitialRV:         7,
		NewBookmarkObject: newBookmarkWidget,
	})
	mustPublish(t, b, added("w", 8))

	for _, name := range []string{"foo", "bar"} {
		ev := next(t, w)
		if ev.Type != Added || ev.Object.(scheme.Object).GetName() != name {
			t.Fatalf("got %s %s, want ADDED %s", ev.Type, ev.Object.(scheme.Object).GetName(), name)
		}
	}
	ev := next(t, w)
	if ev.Type != Bookmark {
		t.Fatalf("got %s, want BOOKMARK", ev.Type)
	}
	obj := ev.Object.(scheme.Object)
	if obj.GetResourceVersion() != "7" || obj.GetAnnotations()[InitialEventsAnnotation] != "true" {
		t.Fatalf("bookmark rv %q annotations %v, want rv 7 with %s=true", obj.GetResourceVersion(), obj.GetAnnotations(), InitialEventsAnnotation)
	}
	if obj.GetObjectKind().GroupVersionKind() != widgetGVK {
		t.Fatalf("bookmark kind %v, want %v", obj.GetObjectKind().GroupVersionKind(), widgetGVK)
	}
	if ev := next(t, w); ev.Type != Added || rvOf(t, ev) != 8 {
		t.Fatalf("after the bookmark got %s rv %d, want ADDED rv 8", ev.Type, rvOf(t, ev))
	}
}

func TestBroadcaster_BookmarksCarryCurrentResourceVersionOnlyWhenAsked(t *testing.T) {
	clock := newFakeClock()
	b := NewBroadcaster(Options{Clock: clock, BookmarkInterval: time.Second})
	defer b.Stop()
	tick := clock.nextTimer(t)
	with := mustWatch(t, b, 0, WatchOptions{Recursive: true, Bookmarks: true, NewBookmarkObject: newBookmarkWidget})
	without := mustWatch(t, b, 0, everything)
	for rv := uint64(1); rv <= 3; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	for want := uint64(1); want <= 3; want++ {
		if ev := next(t, with); ev.Type != Added || rvOf(t, ev) != want {
			t.Fatalf("got %s rv %d, want ADDED %d", ev.Type, rvOf(t, ev), want)
		}
	}
	// Both watchers are live now (they received live changes), so the tick reaches them.
	tick.Fire()
	ev := next(t, with)
	if ev.Type != Bookmark || rvOf(t, ev) != 3 {
		t.Fatalf("got %s rv %d, want BOOKMARK at 3", ev.Type, rvOf(t, ev))
	}
	clock.nextTimer(t) // the loop re-armed: the tick has been handled
	mustPublish(t, b, added("w", 4))
	for want := uint64(1); want <= 4; want++ {
		if ev := next(t, without); ev.Type != Added || rvOf(t, ev) != want {
			t.Fatalf("watch without bookmarks got %s rv %d, want ADDED %d", ev.Type, rvOf(t, ev), want)
		}
	}
}

func TestBroadcaster_WatchEnds(t *testing.T) {
	tests := []struct {
		name string
		end  func(b *Broadcaster, w Interface, cancel context.CancelFunc)
	}{
		{name: "watcher Stop", end: func(_ *Broadcaster, w Interface, _ context.CancelFunc) { w.Stop() }},
		{name: "watcher Stop twice", end: func(_ *Broadcaster, w Interface, _ context.CancelFunc) { w.Stop(); w.Stop() }},
		{name: "context cancelled", end: func(_ *Broadcaster, _ Interface, cancel context.CancelFunc) { cancel() }},
		{name: "broadcaster Stop", end: func(b *Broadcaster, _ Interface, _ context.CancelFunc) { b.Stop() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			b := NewBroadcaster(Options{BookmarkInterval: time.Hour, WatcherBuffer: 1})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var watches []Interface
			for i := 0; i < 20; i++ {
				w, err := b.Watch(ctx, 0, WatchOptions{Recursive: true, Bookmarks: true, NewBookmarkObject: newBookmarkWidget})
				if err != nil {
					t.Fatal(err)
				}
				watches = append(watches, w)
			}
			// Leave some watchers blocked on undelivered and lagging events.
			for rv := uint64(1); rv <= 5; rv++ {
				mustPublish(t, b, added("w", rv))
			}
			for _, w := range watches {
				tt.end(b, w, cancel)
				expectClosed(t, w)
			}
			if _, err := b.Watch(context.Background(), 0, everything); tt.name == "broadcaster Stop" && !errors.Is(err, ErrStopped) {
				t.Fatalf("Watch after Stop: %v, want ErrStopped", err)
			}
			b.Stop()
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines fails unless the goroutine count comes back to at most n (hang guard only).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
}

func TestBroadcaster_StalledWatcherDoesNotDelayOthers(t *testing.T) {
	const watchers, changes = 1000, 100
	b := NewBroadcaster(Options{HistorySize: 4 * changes, WatcherBuffer: 8, SlowWatcherTimeout: time.Hour, BookmarkInterval: -1})
	defer b.Stop()
	stalled := mustWatch(t, b, 0, everything) // never read
	var wg sync.WaitGroup
	missing := make([]uint64, watchers-1)
	for i := range missing {
		w := mustWatch(t, b, 0, everything)
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := uint64(1)
			for ev := range w.ResultChan() {
				if ev.Type == Added && rvOrZero(ev) == want {
					want++
				}
				if want > changes {
					return
				}
			}
			missing[i] = changes - want + 1
		}()
	}
	// Publish returns without waiting for anybody: were it blocked by the stalled
	// watcher, this loop would never end.
	for rv := uint64(1); rv <= changes; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	wg.Wait()
	for i, m := range missing {
		if m != 0 {
			t.Errorf("watcher %d missed %d changes", i, m)
		}
	}
	select {
	case ev := <-stalled.ResultChan():
		if ev.Type != Added || rvOf(t, ev) != 1 {
			t.Fatalf("stalled watcher's first event: %s rv %d, want ADDED 1", ev.Type, rvOf(t, ev))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("stalled watcher lost its first event")
	}
}

func TestBroadcaster_SlowWatcherGetsExpiredErrorAndCloses(t *testing.T) {
	tests := []struct {
		name string
		// stall makes the watcher fall behind and returns after the ERROR is certain.
		stall func(t *testing.T, b *Broadcaster, clock *fakeClock)
		// before is how many changes may arrive before the ERROR: what the buffer held,
		// plus what the history still had when the watcher fell out of it.
		before  int
		history int
	}{
		{
			name:    "behind a full buffer longer than SlowWatcherTimeout",
			history: 100,
			before:  2,
			stall: func(t *testing.T, b *Broadcaster, clock *fakeClock) {
				for rv := uint64(2); rv <= 10; rv++ {
					mustPublish(t, b, added("w", rv))
				}
				tm := clock.nextTimer(t)
				if tm.d != 30*time.Second {
					t.Fatalf("slow timer armed for %s, want SlowWatcherTimeout", tm.d)
				}
				tm.Fire()
				// Wait until the watcher has taken the tick, so that reading cannot race it.
				for i := 0; len(tm.c) > 0; i++ {
					if i > 2000 {
						t.Fatal("the watcher never took the timer's tick")
					}
					time.Sleep(10 * time.Millisecond)
				}
			},
		},
		{
			name: "fell out of the history window while behind",
			stall: func(t *testing.T, b *Broadcaster, clock *fakeClock) {
				for rv := uint64(2); rv <= 50; rv++ {
					mustPublish(t, b, added("w", rv))
				}
			},
			history: 5,
			before:  7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := NewBroadcaster(Options{Clock: clock, HistorySize: tt.history, WatcherBuffer: 2, SlowWatcherTimeout: 30 * time.Second, BookmarkInterval: -1})
			defer b.Stop()
			w := mustWatch(t, b, 0, everything)
			// Once it has received a change published after Watch, the watcher is live.
			mustPublish(t, b, added("w", 1))
			if got := rvOf(t, next(t, w)); got != 1 {
				t.Fatalf("first event rv %d, want 1", got)
			}
			tt.stall(t, b, clock)
			got := expectClosed(t, w)
			if len(got) == 0 {
				t.Fatal("no events, want an ERROR")
			}
			last := got[len(got)-1]
			st, ok := last.Object.(*scheme.Status)
			if last.Type != Error || !ok {
				t.Fatalf("last event %s %T, want ERROR *scheme.Status", last.Type, last.Object)
			}
			if st.Code != http.StatusGone || st.Reason != scheme.StatusReasonExpired || st.Status != scheme.StatusFailure || st.Kind != "Status" {
				t.Fatalf("status %+v, want 410 Expired Failure", st)
			}
			if len(got)-1 > tt.before {
				t.Fatalf("%d changes before the ERROR, want at most %d", len(got)-1, tt.before)
			}
			for i, ev := range got[:len(got)-1] {
				if rvOf(t, ev) != uint64(i+2) {
					t.Fatalf("event %d has rv %d, want %d", i, rvOf(t, ev), i+2)
				}
			}
		})
	}
}

func TestBroadcaster_SlowWatcherThatCatchesUpIsKept(t *testing.T) {
	clock := newFakeClock()
	b := NewBroadcaster(Options{Clock: clock, HistorySize: 100, WatcherBuffer: 2, SlowWatcherTimeout: 30 * time.Second, BookmarkInterval: -1})
	defer b.Stop()
	w := mustWatch(t, b, 0, everything)
	mustPublish(t, b, added("w", 1))
	if got := rvOf(t, next(t, w)); got != 1 {
		t.Fatalf("first event rv %d, want 1", got)
	}
	for rv := uint64(2); rv <= 20; rv++ {
		mustPublish(t, b, added("w", rv))
	}
	tm := clock.nextTimer(t) // it lagged
	for want := uint64(2); want <= 20; want++ {
		if ev := next(t, w); rvOf(t, ev) != want {
			t.Fatalf("got rv %d, want %d", rvOf(t, ev), want)
		}
	}
	mustPublish(t, b, added("w", 21))
	if ev := next(t, w); rvOf(t, ev) != 21 {
		t.Fatalf("got rv %d, want 21", rvOf(t, ev))
	}
	tm.mu.Lock()
	stopped := tm.stopped
	tm.mu.Unlock()
	if !stopped {
		t.Fatal("slow timer still armed after the watcher caught up")
	}
}

func TestBroadcaster_PublishOutOfOrderIsRefused(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	mustPublish(t, b, added("w", 5))
	for _, rv := range []uint64{5, 4} {
		if err := b.Publish(added("w", rv)); !errors.Is(err, ErrOutOfOrder) {
			t.Errorf("Publish(%d) after 5: %v, want ErrOutOfOrder", rv, err)
		}
	}
	if got := b.ResourceVersion(); got != 5 {
		t.Fatalf("ResourceVersion() = %d, want 5", got)
	}
}

func TestBroadcaster_ChangeWithoutObjectIsRefusedUnlessADeleteWithPrevObject(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	for i, c := range []Change{
		{Type: Added, Key: widgetKey("w")},
		{Type: Modified, PrevObject: newWidget("w", 1, nil), Key: widgetKey("w")},
		{Type: Deleted, Key: widgetKey("w")},
	} {
		c.ResourceVersion = uint64(i + 1)
		if err := b.Publish(c); !errors.Is(err, ErrNoObject) {
			t.Errorf("Publish(%s without Object): %v, want ErrNoObject", c.Type, err)
		}
	}
	if got := b.ResourceVersion(); got != 0 {
		t.Errorf("ResourceVersion() = %d after refused changes, want 0", got)
	}
}

// Watchers that receive the same delete published without its Object share one copy
// of PrevObject, made once.
func TestBroadcaster_DeleteWithoutObjectIsMadeOnceForAllWatchers(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	w1 := mustWatch(t, b, 0, WatchOptions{Recursive: true})
	w2 := mustWatch(t, b, 0, WatchOptions{Key: widgetKey("w")})
	prev := newWidget("w", 1, map[string]string{"a": "b"})
	mustPublish(t, b, Change{Type: Deleted, PrevObject: prev, ResourceVersion: 7, Key: widgetKey("w")})
	e1, e2 := next(t, w1), next(t, w2)
	if e1.Type != Deleted || e1.Object != e2.Object || e1.Object == scheme.Kinded(prev) {
		t.Fatalf("events %s %p and %s %p: want one shared copy of PrevObject %p", e1.Type, e1.Object, e2.Type, e2.Object, prev)
	}
	if rvOf(t, e1) != 7 || prev.GetResourceVersion() != "1" {
		t.Errorf("event rv %d, PrevObject rv %s: want 7 and 1", rvOf(t, e1), prev.GetResourceVersion())
	}
	// A watch from the past replays it from the history the same way.
	w3 := mustWatch(t, b, 6, WatchOptions{Recursive: true})
	if e3 := next(t, w3); e3.Object != e1.Object {
		t.Errorf("replayed delete object %p, want the shared %p", e3.Object, e1.Object)
	}
}

func TestBroadcaster_WaitForRV(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	done := make(chan error, 2)
	go func() { done <- b.WaitForRV(context.Background(), 3) }()
	mustPublish(t, b, added("w", 1))
	b.Progress(3)
	if err := <-done; err != nil {
		t.Fatalf("WaitForRV(3) after Progress(3): %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- b.WaitForRV(ctx, 10) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForRV with cancelled ctx: %v, want context.Canceled", err)
	}
	if err := b.Publish(added("w", 3)); !errors.Is(err, ErrOutOfOrder) {
		t.Fatalf("Publish(3) after Progress(3): %v, want ErrOutOfOrder", err)
	}
}

func TestBroadcaster_WatchNeedsBookmarkObjectForBookmarks(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	for _, wo := range []WatchOptions{{Bookmarks: true}, {SendInitialEvents: true}} {
		if _, err := b.Watch(context.Background(), 0, wo); err == nil {
			t.Errorf("Watch(%+v) succeeded, want an error", wo)
		}
	}
}

// liveCount is how many watchers Publish feeds directly.
func (b *Broadcaster) liveCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.live)
}

func TestBroadcaster_LegacyInitialStateOmitsEndBookmark(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	mustPublish(t, b, added("a", 1))
	w := mustWatch(t, b, 0, WatchOptions{
		Recursive:            true,
		SendInitialEvents:    true,
		OmitInitialEventsEnd: true,
		InitialObjects:       []scheme.Object{newWidget("a", 1, nil)},
		InitialRV:            1,
	})
	mustPublish(t, b, added("b", 2))
	for _, want := range []uint64{1, 2} {
		if ev := next(t, w); ev.Type != Added || rvOf(t, ev) != want {
			t.Fatalf("got %s rv %d, want ADDED %d", ev.Type, rvOf(t, ev), want)
		}
	}
}

func TestBroadcaster_LiveWatchersCostNoGoroutine(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	mustPublish(t, b, added("w", 1))
	before := runtime.NumGoroutine()
	for i := 0; i < 1000; i++ {
		mustWatch(t, b, 0, everything) // from now: nothing to replay
	}
	if grown := runtime.NumGoroutine() - before; grown > 10 {
		t.Fatalf("1000 live watchers started %d goroutines, want none", grown)
	}
	if n := b.liveCount(); n != 1000 {
		t.Fatalf("%d watchers on the live list, want 1000", n)
	}
}
