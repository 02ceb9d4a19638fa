package watch

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
)

func TestEvent_EncodedOncePerKeyAcrossWatchers(t *testing.T) {
	const watchers = 1000
	b := NewBroadcaster(Options{BookmarkInterval: -1})
	defer b.Stop()
	isBlue := func(o scheme.Object) bool { return o.GetLabels()["color"] == "blue" }
	var ws []Interface
	for i := 0; i < watchers; i++ {
		wo := everything
		if i%2 == 1 {
			wo.Predicate = isBlue // sees the change as DELETED
		}
		ws = append(ws, mustWatch(t, b, 0, wo))
	}
	mustPublish(t, b, Change{
		Type:            Modified,
		Object:          newWidget("w", 2, map[string]string{"color": "red"}),
		PrevObject:      newWidget("w", 1, map[string]string{"color": "blue"}),
		ResourceVersion: 2,
		Key:             widgetKey("w"),
	})
	var calls [2]atomic.Int64
	encoder := func(i int) func(scheme.Kinded) ([]byte, error) {
		return func(o scheme.Kinded) ([]byte, error) {
			calls[i].Add(1)
			return json.Marshal(o)
		}
	}
	type key struct{ mediaType string }
	keys := []key{{"application/json"}, {"application/yaml"}}
	results := make([][2][]byte, watchers)
	types := make([]EventType, watchers)
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := <-w.ResultChan()
			types[i] = ev.Type
			for k := range keys {
				data, err := ev.Encoded(keys[k], encoder(k))
				if err != nil {
					t.Error(err)
				}
				results[i][k] = data
			}
		}()
	}
	wg.Wait()
	// Two objects travel: the new one (MODIFIED) and the last matching state (DELETED).
	for k := range keys {
		if n := calls[k].Load(); n != 2 {
			t.Errorf("key %v encoded %d times, want 2 (once per object)", keys[k], n)
		}
	}
	for i := range results {
		want, color := Modified, `"red"`
		if i%2 == 1 {
			want, color = Deleted, `"blue"`
		}
		if types[i] != want {
			t.Fatalf("watcher %d got %s, want %s", i, types[i], want)
		}
		if !bytes.Equal(results[i][0], results[i%2][0]) || !bytes.Contains(results[i][0], []byte(color)) {
			t.Fatalf("watcher %d (%s) got bytes %s, want the shared encoding with %s", i, types[i], results[i][0], color)
		}
	}
}

func TestEvent_EncodedWithoutSharedCacheEncodesEachTime(t *testing.T) {
	ev := Event{Type: Added, Object: newWidget("w", 1, nil)}
	var calls int
	enc := func(o scheme.Kinded) ([]byte, error) { calls++; return json.Marshal(o) }
	for i := 0; i < 3; i++ {
		if _, err := ev.Encoded("json", enc); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 3 {
		t.Fatalf("encode called %d times, want 3", calls)
	}
}

func TestEvent_EncodedOnceForWatchersReplayingHistory(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1, ResourceVersion: 1})
	defer b.Stop()
	// Published before anyone watches: the shared cache is made by the first replay.
	mustPublish(t, b, added("w", 2))
	var calls int
	enc := func(o scheme.Kinded) ([]byte, error) { calls++; return json.Marshal(o) }
	var first []byte
	for i := 0; i < 3; i++ {
		w := mustWatch(t, b, 1, everything)
		ev := next(t, w)
		data, err := ev.Encoded("json", enc)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = data
		} else if !bytes.Equal(data, first) {
			t.Fatalf("watcher %d got %s, want the shared %s", i, data, first)
		}
		w.Stop()
	}
	if calls != 1 {
		t.Fatalf("encode called %d times for three replaying watchers, want 1", calls)
	}
}

func TestBroadcaster_PublishWithoutWatchersDoesNotAllocate(t *testing.T) {
	b := NewBroadcaster(Options{BookmarkInterval: -1, HistorySize: 16})
	defer b.Stop()
	c := added("w", 1)
	rv := uint64(0)
	publish := func() {
		rv++
		c.ResourceVersion = rv
		mustPublish(t, b, c)
	}
	for i := 0; i < 32; i++ { // fill the history ring to its limit
		publish()
	}
	if n := testing.AllocsPerRun(100, publish); n != 0 {
		t.Fatalf("Publish with no watcher allocated %v times per call, want 0", n)
	}
}
