package watch

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// nextBatch calls NextBatch on a goroutine and fails the test if it neither returns nor
// ends within a long time (a hang guard, not a timing assertion).
func nextBatch(t testing.TB, w Interface) ([]Event, bool) {
	t.Helper()
	type result struct {
		evs []Event
		ok  bool
	}
	done := make(chan result, 1)
	go func() {
		evs, ok := w.(Batcher).NextBatch(nil)
		done <- result{evs, ok}
	}()
	select {
	case r := <-done:
		return r.evs, r.ok
	case <-time.After(20 * time.Second):
		t.Fatal("NextBatch did not return within 20s")
	}
	return nil, false
}

// summary is what a test compares of an event: its type, object name and version.
type summary struct {
	typ  EventType
	name string
	rv   uint64
}

func summarize(t testing.TB, evs []Event) []summary {
	t.Helper()
	out := make([]summary, len(evs))
	for i, ev := range evs {
		obj, _ := ev.Object.(scheme.Object)
		out[i] = summary{ev.Type, obj.GetName(), rvOf(t, ev)}
	}
	return out
}

func TestBatchWatch_ReadsEveryChangeQueuedSinceTheLastBatchAtOnce(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	w := mustWatch(t, b, 0, WatchOptions{Key: widgetKey("a"), Batches: true})
	for rv := uint64(1); rv <= 6; rv++ {
		name := "a"
		if rv%2 == 0 {
			name = "b" // not watched
		}
		mustPublish(t, b, Change{Type: Modified, Object: newWidget(name, rv, nil), PrevObject: newWidget(name, rv-1, nil), ResourceVersion: rv, Key: widgetKey(name)})
	}
	evs, ok := nextBatch(t, w)
	want := []summary{{Modified, "a", 1}, {Modified, "a", 3}, {Modified, "a", 5}}
	if got := summarize(t, evs); !ok || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("NextBatch = %v, %v; want %v in one batch", got, ok, want)
	}
	mustPublish(t, b, Change{Type: Deleted, PrevObject: newWidget("a", 5, nil), ResourceVersion: 7, Key: widgetKey("a")})
	evs, ok = nextBatch(t, w)
	if got := summarize(t, evs); !ok || len(got) != 1 || got[0] != (summary{Deleted, "a", 7}) {
		t.Fatalf("NextBatch after a wait = %v, %v; want the DELETED at 7", got, ok)
	}
}

// TestBatchWatch_SeesWhatAChannelWatchSees runs the same changes past a channel watch
// and a batch watch with the same options: selector transitions, deletes published
// without their object, initial events, bookmarks.
func TestBatchWatch_SeesWhatAChannelWatchSees(t *testing.T) {
	blue := map[string]string{"color": "blue"}
	red := map[string]string{"color": "red"}
	isBlue := func(o scheme.Object) bool { return o.GetLabels()["color"] == "blue" }
	changes := []Change{
		{Type: Added, Object: newWidget("a", 2, blue), ResourceVersion: 2, Key: widgetKey("a")},
		{Type: Added, Object: newWidget("b", 3, red), ResourceVersion: 3, Key: widgetKey("b")},
		{Type: Modified, Object: newWidget("a", 4, red), PrevObject: newWidget("a", 2, blue), ResourceVersion: 4, Key: widgetKey("a")},
		{Type: Modified, Object: newWidget("b", 5, blue), PrevObject: newWidget("b", 3, red), ResourceVersion: 5, Key: widgetKey("b")},
		{Type: Deleted, PrevObject: newWidget("b", 5, blue), ResourceVersion: 6, Key: widgetKey("b")},
		{Type: Added, Object: newWidget("c", 7, blue), ResourceVersion: 7, Key: widgetKey("c")},
	}
	tests := []struct {
		name string
		from uint64
		opts WatchOptions
	}{
		{"everything from now", 1, WatchOptions{Recursive: true}},
		{"a selector, with its transitions", 1, WatchOptions{Recursive: true, Predicate: isBlue}},
		{"initial events, then changes", 1, WatchOptions{Recursive: true, Predicate: isBlue, SendInitialEvents: true,
			InitialObjects: []scheme.Object{newWidget("x", 1, blue), newWidget("y", 1, red)}, InitialRV: 1, NewBookmarkObject: newBookmarkWidget}},
		{"one key", 1, WatchOptions{Key: widgetKey("b")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBroadcaster(Options{ResourceVersion: 1, BookmarkInterval: -1})
			defer b.Stop()
			byChannel := mustWatch(t, b, tt.from, tt.opts)
			batched := tt.opts
			batched.Batches = true
			byBatch := mustWatch(t, b, tt.from, batched)
			for _, c := range changes {
				mustPublish(t, b, c)
			}
			var got []Event
			for len(got) == 0 || rvOf(t, got[len(got)-1]) < 7 && len(got) < 20 {
				evs, ok := nextBatch(t, byBatch)
				if !ok {
					t.Fatal("the batch watch ended")
				}
				got = append(got, evs...)
				if tt.opts.Key != "" && rvOf(t, got[len(got)-1]) == 6 {
					break // the last change of b
				}
			}
			want := make([]Event, 0, len(got))
			for range got {
				want = append(want, next(t, byChannel))
			}
			gs, ws := summarize(t, got), summarize(t, want)
			for i := range ws {
				if gs[i] != ws[i] {
					t.Fatalf("batch watch saw %v, the channel watch %v", gs, ws)
				}
			}
			if tt.opts.SendInitialEvents && got[1].Object.(scheme.Object).GetAnnotations()[InitialEventsAnnotation] != "true" {
				t.Errorf("second event %v is not the end of the initial events", gs[1])
			}
		})
	}
}

func TestBatchWatch_EndsWithExpiredWhenItFallsBehind(t *testing.T) {
	tests := []struct {
		name    string
		history int
		stall   func(clock *fakeClock)
		wantEnd bool
	}{
		{"out of the history window", 3, func(*fakeClock) {}, true},
		{"a change left unread longer than SlowWatcherTimeout", 100, func(c *fakeClock) { c.Advance(31 * time.Second) }, true},
		{"a change left unread for less is delivered", 100, func(c *fakeClock) { c.Advance(29 * time.Second) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			b := NewBroadcaster(Options{Clock: clock, HistorySize: tt.history, SlowWatcherTimeout: 30 * time.Second, BookmarkInterval: -1})
			defer b.Stop()
			w := mustWatch(t, b, 0, WatchOptions{Recursive: true, Batches: true})
			for rv := uint64(1); rv <= 5; rv++ {
				mustPublish(t, b, added("w"+string(rune('0'+rv)), rv))
			}
			tt.stall(clock)
			evs, ok := nextBatch(t, w)
			if !tt.wantEnd {
				if !ok || len(evs) != 5 {
					t.Fatalf("NextBatch = %d events, %v; want the 5 changes", len(evs), ok)
				}
				return
			}
			if !ok || len(evs) != 1 || evs[0].Type != Error {
				t.Fatalf("NextBatch = %v, %v; want one ERROR", evs, ok)
			}
			if st, _ := evs[0].Object.(*scheme.Status); st == nil || st.Code != http.StatusGone || st.Reason != scheme.StatusReasonExpired {
				t.Errorf("ERROR carries %#v, want 410 Expired", evs[0].Object)
			}
			if evs, ok := nextBatch(t, w); ok {
				t.Errorf("NextBatch after the ERROR = %v, true; want the end", evs)
			}
		})
	}
}

func TestBatchWatch_BookmarkOnRequestProgressOnceTheHistoryIsRead(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	w := mustWatch(t, b, 0, WatchOptions{Recursive: true, Batches: true, Bookmarks: true, NewBookmarkObject: newBookmarkWidget})
	mustPublish(t, b, added("a", 1))
	b.RequestProgress()
	b.Progress(9) // a write to another resource
	got := []Event{}
	for len(got) < 2 {
		evs, ok := nextBatch(t, w)
		if !ok {
			t.Fatal("the watch ended")
		}
		got = append(got, evs...)
	}
	if gs := summarize(t, got); len(gs) != 2 || gs[0] != (summary{Added, "a", 1}) || gs[1].typ != Bookmark || gs[1].rv != 9 {
		t.Fatalf("events = %v, want ADDED a at 1 then a BOOKMARK at 9", gs)
	}
}

func TestBatchWatch_EndOfTheWatchEndsAWaitingNextBatch(t *testing.T) {
	tests := []struct {
		name string
		end  func(b *Broadcaster, w Interface, cancel context.CancelFunc)
	}{
		{"Stop of the watch", func(_ *Broadcaster, w Interface, _ context.CancelFunc) { w.Stop() }},
		{"its context", func(_ *Broadcaster, _ Interface, cancel context.CancelFunc) { cancel() }},
		{"Stop of the Broadcaster", func(b *Broadcaster, _ Interface, _ context.CancelFunc) { b.Stop() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBroadcaster(Options{BookmarkInterval: -1})
			defer b.Stop()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := b.Watch(ctx, 0, WatchOptions{Recursive: true, Batches: true})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan bool, 1)
			go func() {
				_, ok := w.(Batcher).NextBatch(nil)
				done <- ok
			}()
			tt.end(b, w, cancel)
			select {
			case ok := <-done:
				if ok {
					t.Error("NextBatch returned events, want the end")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("NextBatch still waits 20s after the end of the watch")
			}
			if _, open := <-w.ResultChan(); open {
				t.Error("ResultChan is open after the end")
			}
		})
	}
}

func TestBatchWatch_WatchesThatStopWhileNothingIsPublishedDoNotPileUpAsIdle(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	const n = 200
	ended := make(chan struct{}, n)
	watches := make([]Interface, n)
	for i := range watches {
		watches[i] = mustWatch(t, b, 0, WatchOptions{Recursive: true, Batches: true})
		go func() {
			watches[i].(Batcher).NextBatch(nil)
			ended <- struct{}{}
		}()
	}
	waitIdle(t, b, n)
	for _, w := range watches {
		w.Stop()
		<-ended
	}
	if got := idleWatchers(b); got >= 64 {
		t.Errorf("%d stopped watches still on the idle list, want fewer than 64", got)
	}
}

// TestBatchWatch_ConsumersThatDoNotComeBackDoNotHoldUpTheOthers: a consumer that took a
// batch and is still busy with it (its write blocks) keeps its place in the notifier's
// window; the window grows past such consumers so that the others get their changes.
func TestBatchWatch_ConsumersThatDoNotComeBackDoNotHoldUpTheOthers(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	stuck, active := wakeWindow(), 3
	ws := make([]Interface, stuck+active)
	for i := range ws {
		ws[i] = mustWatch(t, b, 0, WatchOptions{Recursive: true, Batches: true})
	}
	got := make(chan uint64, len(ws))
	read := func(w Interface) {
		evs, ok := w.(Batcher).NextBatch(nil)
		if ok && len(evs) == 1 {
			got <- rvOrZero(evs[0])
		} else {
			got <- 0
		}
	}
	receive := func(n int, rv uint64) {
		t.Helper()
		for range n {
			select {
			case v := <-got:
				if v != rv {
					t.Fatalf("a watcher got %d, want the change at %d", v, rv)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("watchers still wait for the change at %d after 20s", rv)
			}
		}
	}
	for _, w := range ws {
		go read(w)
	}
	mustPublish(t, b, added("a", 1))
	receive(len(ws), 1)
	// None has asked for more: all hold their places. Only the active ones ask again.
	for _, w := range ws[stuck:] {
		go read(w)
	}
	waitIdle(t, b, active)
	mustPublish(t, b, added("b", 2))
	receive(active, 2)
}

func idleWatchers(b *Broadcaster) int {
	b.idleMu.Lock()
	defer b.idleMu.Unlock()
	return len(b.idle)
}

// waitIdle waits until n batch watchers wait for the notifier (a hang guard, not a
// timing assertion).
func waitIdle(t testing.TB, b *Broadcaster, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); idleWatchers(b) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d watches wait after 20s", idleWatchers(b), n)
		}
	}
}
