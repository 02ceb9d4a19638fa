package watch

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// benchObject returns a widget whose JSON encoding is about 2 KB.
func benchObject() *widget {
	w := newWidget("bench", 1, map[string]string{"app": "bench", "tier": "backend"})
	w.Annotations = map[string]string{"note": strings.Repeat("a", 200)}
	w.Spec = strings.Repeat("x", 1650)
	return w
}

func jsonEncode(o scheme.Kinded) ([]byte, error) { return json.Marshal(o) }

type benchKey struct{ mediaType string }

// BenchmarkFanOut publishes one ~2 KB change per iteration to N watchers, each of which
// receives it and encodes it as JSON, either through the shared per-change cache
// (Event.Encoded) or on its own. ns/op is per published event, end to end.
func BenchmarkFanOut(b *testing.B) {
	if n, _ := jsonEncode(benchObject()); len(n) < 1900 || len(n) > 2200 {
		b.Fatalf("bench object encodes to %d bytes, want about 2 KB", len(n))
	}
	for _, watchers := range []int{1, 100, 1000} {
		for _, shared := range []bool{true, false} {
			name := fmt.Sprintf("watchers=%d/encode=", watchers)
			if shared {
				name += "shared"
			} else {
				name += "each"
			}
			b.Run(name, func(b *testing.B) { benchmarkFanOut(b, watchers, shared) })
		}
	}
}

func benchmarkFanOut(b *testing.B, watchers int, shared bool) {
	b.ReportAllocs()
	br := NewBroadcaster(Options{HistorySize: b.N + 1, WatcherBuffer: 256, SlowWatcherTimeout: time.Hour, BookmarkInterval: -1})
	defer br.Stop()
	var key any = benchKey{"application/json"} // boxed once, as a server does per watch
	failed := make(chan string, watchers)
	wg := consumeWatches(b, br, watchers, func(w Interface) {
		for n := 0; n < b.N; n++ {
			ev, ok := <-w.ResultChan()
			if !ok || ev.Type != Modified {
				failed <- fmt.Sprintf("watch ended or got %s after %d events", ev.Type, n)
				return
			}
			var data []byte
			var err error
			if shared {
				data, err = ev.Encoded(key, jsonEncode)
			} else {
				data, err = jsonEncode(ev.Object)
			}
			if err != nil || len(data) == 0 {
				failed <- fmt.Sprintf("encode: %v", err)
				return
			}
		}
	})
	obj := benchObject()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := br.Publish(Change{Type: Modified, Object: obj, PrevObject: obj, ResourceVersion: uint64(i + 2), Key: "/toys.example.com/widgets/ns1/bench"}); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(failed)
	for f := range failed {
		b.Fatal(f)
	}
	b.ReportMetric(float64(watchers)*float64(b.N)/elapsed.Seconds(), "events/s")
}

// BenchmarkPublishFilteredOut measures Publish alone with N live watchers that keep up, with a
// selector that matches nothing (the cost of filtering a change out).
func BenchmarkPublishFilteredOut(b *testing.B) {
	for _, watchers := range []int{100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			b.ReportAllocs()
			br := NewBroadcaster(Options{HistorySize: 1000, BookmarkInterval: -1})
			defer br.Stop()
			for i := 0; i < watchers; i++ {
				w, err := br.Watch(b.Context(), 0, WatchOptions{Key: fmt.Sprintf("/other/%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Stop()
			}
			// Let the watchers join the live list.
			for br.liveCount() < watchers {
				time.Sleep(time.Millisecond)
			}
			obj := benchObject()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := br.Publish(Change{Type: Modified, Object: obj, PrevObject: obj, ResourceVersion: uint64(i + 1), Key: "/toys.example.com/widgets/ns1/bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPublishWhileWritersAreBusy publishes one ~2 KB change per iteration to 1,000
// watchers whose consumers either take each event as it comes ("idle": parked on the
// channel, as a connection with nothing to write) or take everything queued and then
// spend a while in a write ("busy": a slow connection, simulated by a sleep). It reports
// the time spent inside Publish per event (publish-ns/event), which must not grow with
// how busy the writers are: Publish only queues into bounded per-watcher buffers and a
// watcher that falls behind is caught up from the history by its own goroutine.
//
//	go test ./watch -run '^$' -bench PublishWhileWritersAreBusy -count 6
func BenchmarkPublishWhileWritersAreBusy(b *testing.B) {
	for _, write := range []time.Duration{0, 200 * time.Microsecond, 2 * time.Millisecond} {
		name := "writers=idle"
		if write > 0 {
			name = "writers=busy/write=" + write.String()
		}
		b.Run(name, func(b *testing.B) { benchmarkPublishWhileWritersAreBusy(b, 1000, write) })
	}
}

func benchmarkPublishWhileWritersAreBusy(b *testing.B, watchers int, write time.Duration) {
	br := NewBroadcaster(Options{HistorySize: b.N + 1, SlowWatcherTimeout: time.Hour, BookmarkInterval: -1})
	defer br.Stop()
	wg := consumeWatches(b, br, watchers, func(w Interface) {
		for got := 0; got < b.N; {
			ev, ok := <-w.ResultChan()
			if !ok || ev.Type != Modified {
				return
			}
			got++
			for drained := false; !drained && got < b.N; {
				select {
				case ev, ok = <-w.ResultChan():
					if !ok || ev.Type != Modified {
						return
					}
					got++
				default:
					drained = true
				}
			}
			if write > 0 {
				time.Sleep(write)
			}
		}
	})
	obj := benchObject()
	var inPublish time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := br.Publish(Change{Type: Modified, Object: obj, PrevObject: obj, ResourceVersion: uint64(i + 2), Key: "/toys.example.com/widgets/ns1/bench"}); err != nil {
			b.Fatal(err)
		}
		inPublish += time.Since(start)
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(inPublish.Nanoseconds())/float64(b.N), "publish-ns/event")
}

// consumeWatches starts n watches of everything on br, each read by consume in a
// goroutine of its own, and returns what waits for them; each watch stops when its
// consume returns.
func consumeWatches(b *testing.B, br *Broadcaster, n int, consume func(Interface)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		w, err := br.Watch(b.Context(), 0, WatchOptions{Recursive: true})
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.Stop()
			consume(w)
		}()
	}
	return &wg
}
