package storagetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

type seen struct {
	typ  watch.EventType
	name string
	rv   uint64
}

func (e env) expect(t *testing.T, w watch.Interface, want ...seen) []seen {
	t.Helper()
	var got []seen
	for range want {
		ev := nextChange(t, w)
		obj := eventObject(t, ev)
		got = append(got, seen{ev.Type, obj.GetNamespace() + "/" + obj.GetName(), rvOf(t, obj.GetResourceVersion())})
	}
	for i := range want {
		if got[i].typ != want[i].typ || got[i].name != want[i].name || (want[i].rv != 0 && got[i].rv != want[i].rv) {
			t.Fatalf("events = %v, want %v", got, want)
		}
	}
	return got
}

func rvFrom(t *testing.T, obj scheme.Object) uint64 { return rvOf(t, obj.GetResourceVersion()) }

var watchBehaviours = []behaviour{
	{"Watch_FromAVersionSendsLaterChangesInOrder", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "before", nil, 1)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true})
		a := e.create(t, "ns1", "a", nil, 1)
		m := e.setSize(t, "ns1", "a", 2)
		d, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := e.expect(t, w,
			seen{watch.Added, "ns1/a", rvFrom(t, a)},
			seen{watch.Modified, "ns1/a", rvFrom(t, m)},
			seen{watch.Deleted, "ns1/a", 0},
		)
		if got[2].rv <= rvFrom(t, d) {
			t.Errorf("DELETED carries resourceVersion %d, want the deletion's, after %d", got[2].rv, rvFrom(t, d))
		}
	}},
	{"Watch_DeletedEventCarriesTheLastState", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "a", nil, 1)
		e.setSize(t, "ns1", "a", 33)
		w := e.watch(t, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion()})
		if _, err := e.s.Delete(e.ctx, e.k.key("ns1", "a"), storage.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		nextChange(t, w) // MODIFIED
		ev := nextChange(t, w)
		if ev.Type != watch.Deleted || e.k.size(eventObject(t, ev)) != 33 {
			t.Errorf("got %s with size %d, want DELETED with the last state (33)", ev.Type, e.k.size(eventObject(t, ev)))
		}
		if rvFrom(t, eventObject(t, ev)) != e.currentRV(t) {
			t.Errorf("DELETED at %s, want the deletion's version %d", eventObject(t, ev).GetResourceVersion(), e.currentRV(t))
		}
	}},
	{"Watch_OneKeyIgnoresOtherKeys", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "a", nil, 1)
		w := e.watch(t, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion()})
		e.create(t, "ns1", "ab", nil, 1)
		e.create(t, "ns1", "b", nil, 1)
		m := e.setSize(t, "ns1", "a", 2)
		e.expect(t, w, seen{watch.Modified, "ns1/a", rvFrom(t, m)})
	}},
	{"Watch_RecursiveStaysUnderItsPrefix", func(t *testing.T, e env) {
		start := e.create(t, "ns0", "x", nil, 1)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true})
		e.create(t, "ns10", "a", nil, 1)
		e.create(t, "ns0", "a", nil, 1)
		c := e.create(t, "ns1", "a", nil, 1)
		e.expect(t, w, seen{watch.Added, "ns1/a", rvFrom(t, c)})
	}},
	{"Watch_WithoutAVersionStartsWithTheState", func(t *testing.T, e env) {
		for i, rv := range []string{"", "0"} {
			t.Run("rv="+rv, func(t *testing.T) {
				ns := fmt.Sprintf("ns%d", i)
				e.create(t, ns, "a", nil, 1)
				e.create(t, ns, "b", nil, 1)
				w := e.watch(t, e.k.prefix(ns), storage.WatchOptions{ResourceVersion: rv, Recursive: true, Bookmarks: true})
				e.expect(t, w, seen{watch.Added, ns + "/a", 0}, seen{watch.Added, ns + "/b", 0})
				c := e.create(t, ns, "c", nil, 1)
				ev := next(t, w) // no initial-events-end bookmark unless sendInitialEvents asks for it
				if obj := eventObject(t, ev); ev.Type != watch.Added || obj.GetName() != "c" || rvFrom(t, obj) != rvFrom(t, c) {
					t.Errorf("after the state got %s %s, want ADDED c", ev.Type, obj.GetName())
				}
			})
		}
	}},
	{"Watch_SendInitialEventsEndsWithAnnotatedBookmark", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		at := e.currentRV(t)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{
			Recursive: true, Bookmarks: true, SendInitialEvents: ptr(true),
			ResourceVersion:   storage.FormatResourceVersion(at),
			NewBookmarkObject: func() scheme.Object { return e.k.new("", "", nil, 0) },
		})
		e.expect(t, w, seen{watch.Added, "ns1/a", 0})
		ev := next(t, w)
		if ev.Type != watch.Bookmark {
			t.Fatalf("got %s after the initial events, want BOOKMARK", ev.Type)
		}
		bm := eventObject(t, ev)
		if bm.GetAnnotations()[watch.InitialEventsAnnotation] != "true" || rvFrom(t, bm) < at {
			t.Errorf("bookmark annotations %v at %s, want the initial-events-end mark at >= %d", bm.GetAnnotations(), bm.GetResourceVersion(), at)
		}
		b := e.create(t, "ns1", "b", nil, 1)
		e.expect(t, w, seen{watch.Added, "ns1/b", rvFrom(t, b)})
	}},
	{"Watch_SendInitialEventsFalseStartsWithoutState", func(t *testing.T, e env) {
		e.create(t, "ns1", "a", nil, 1)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{Recursive: true, SendInitialEvents: ptr(false)})
		b := e.create(t, "ns1", "b", nil, 1)
		e.expect(t, w, seen{watch.Added, "ns1/b", rvFrom(t, b)})
	}},
	{"Watch_PredicateTransitionsBecomeAddedAndDeleted", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "a", map[string]string{"env": "dev"}, 1)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{
			ResourceVersion: start.GetResourceVersion(), Recursive: true,
			Predicate: storage.Predicate{Label: mustLabels(t, "env=prod")},
		})
		relabel := func(env string) scheme.Object {
			out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key("ns1", "a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetLabels(map[string]string{"env": env})
				return cur, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		in := relabel("prod")
		mod := e.setSize(t, "ns1", "a", 5)
		out := relabel("dev")
		e.setSize(t, "ns1", "a", 6) // not matching before or after: not sent
		e.create(t, "ns1", "z", map[string]string{"env": "prod"}, 1)
		e.expect(t, w,
			seen{watch.Added, "ns1/a", rvFrom(t, in)},
			seen{watch.Modified, "ns1/a", rvFrom(t, mod)},
			seen{watch.Deleted, "ns1/a", rvFrom(t, out)},
			seen{watch.Added, "ns1/z", 0},
		)
	}},
	{"Watch_ConcurrentWritersLoseAndDuplicateNoEvent", func(t *testing.T, e env) {
		start := e.create(t, "ns0", "start", nil, 1)
		w := e.watch(t, e.k.prefix(""), storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true})
		const writers, each = 4, 40
		var mu sync.Mutex
		want := map[uint64]string{}
		var wg sync.WaitGroup
		for g := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ns := fmt.Sprintf("ns%d", g)
				for i := range each {
					name := fmt.Sprintf("o%d", i%5)
					var out scheme.Object
					var err error
					if i < 5 {
						out, err = e.s.Create(e.ctx, e.k.key(ns, name), e.k.new(ns, name, nil, 0))
					} else {
						out, err = e.s.GuaranteedUpdate(e.ctx, e.k.key(ns, name), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
							e.k.setSize(cur, int64(i))
							return cur, nil
						})
					}
					if err != nil {
						t.Errorf("write: %v", err)
						return
					}
					rv, err := storage.ParseResourceVersion(out.GetResourceVersion())
					if err != nil {
						t.Errorf("write returned resourceVersion %q: %v", out.GetResourceVersion(), err)
						return
					}
					mu.Lock()
					want[rv] = ns + "/" + name
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		var last uint64
		got := map[uint64]string{}
		for range writers * each {
			ev := nextChange(t, w)
			obj := eventObject(t, ev)
			rv := rvFrom(t, obj)
			if rv <= last {
				t.Fatalf("event at %d after %d: not strictly increasing", rv, last)
			}
			last = rv
			got[rv] = obj.GetNamespace() + "/" + obj.GetName()
		}
		if len(got) != len(want) {
			t.Fatalf("got %d events, want %d", len(got), len(want))
		}
		for rv, name := range want {
			if got[rv] != name {
				t.Errorf("write %s at %d: event %q", name, rv, got[rv])
			}
		}
	}},
	{"Watch_TooOldVersionFailsWithGone", func(t *testing.T, e env) {
		c, ok := e.s.(storage.Compactor)
		if !e.caps.Compaction || !ok {
			t.Skip("backend does not compact")
		}
		old := e.create(t, "ns1", "a", nil, 1)
		e.setSize(t, "ns1", "a", 2)
		e.setSize(t, "ns1", "a", 3)
		if err := c.Compact(e.ctx, e.currentRV(t)); err != nil {
			t.Fatal(err)
		}
		_, err := e.s.Watch(e.ctx, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: old.GetResourceVersion()})
		wantErrorAt(t, err, storage.ErrGone, e.k.key("ns1", "a"), rvOf(t, old.GetResourceVersion()))
	}},
	{"Watch_TooLargeVersionFails", func(t *testing.T, e env) {
		if !e.caps.TooLargeResourceVersion {
			t.Skip("backend does not report too large resource versions")
		}
		e.create(t, "ns1", "a", nil, 1)
		future := e.currentRV(t) + 1000
		_, err := e.s.Watch(e.ctx, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: storage.FormatResourceVersion(future)})
		wantErrorAt(t, err, storage.ErrTooLargeResourceVersion, e.k.key("ns1", "a"), future)
	}},
	{"Watch_InvalidVersionFails", func(t *testing.T, e env) {
		_, err := e.s.Watch(e.ctx, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: "abc"})
		wantError(t, err, storage.ErrInvalidResourceVersion, e.k.key("ns1", "a"))
	}},
	{"Watch_StopClosesTheResultChannel", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "a", nil, 1)
		w := e.watch(t, e.k.key("ns1", "a"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion()})
		e.setSize(t, "ns1", "a", 2) // an event nobody reads must not keep the watch alive
		w.Stop()
		w.Stop()
		for range 100 {
			if _, ok := <-w.ResultChan(); !ok {
				return
			}
		}
		t.Error("result channel still open after Stop")
	}},
	{"Watch_EventsFromAllKindsOfWriteArriveInVersionOrder", func(t *testing.T, e env) {
		start := e.create(t, "ns1", "x", nil, 1)
		w := e.watch(t, e.k.prefix("ns1"), storage.WatchOptions{ResourceVersion: start.GetResourceVersion(), Recursive: true})
		var rvs []uint64
		for i := range 10 {
			name := fmt.Sprintf("o%d", i%3)
			if _, err := e.s.Get(e.ctx, e.k.key("ns1", name), storage.GetOptions{}); err == nil {
				if _, err := e.s.Delete(e.ctx, e.k.key("ns1", name), storage.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			} else {
				rvs = append(rvs, rvFrom(t, e.create(t, "ns1", name, nil, 1)))
			}
		}
		var got []uint64
		var last uint64
		for range 10 {
			ev := nextChange(t, w)
			rv := rvFrom(t, eventObject(t, ev))
			if rv <= last {
				t.Fatalf("event at %d after %d", rv, last)
			}
			last = rv
			if ev.Type == watch.Added {
				got = append(got, rv)
			}
		}
		if !slices.Equal(got, rvs) {
			t.Errorf("ADDED at %v, want creates at %v", got, rvs)
		}
	}},
}
