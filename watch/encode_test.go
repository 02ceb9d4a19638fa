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
