package storagetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// BenchmarkWatchFanOut measures watch delivery from a backend: each iteration updates one
// ~2 KB Widget while 1, 100 or 1,000 watchers watch its collection. Besides ns/op (per
// write) it reports delivered events per second, the process CPU time per delivered
// event and the 99th percentile of the time from the start of a write to its delivery.
// "rate=max" writes back to back; "rate=200" paces writes at 200 per second, the load of
// the real-apiserver figures in BENCHMARKS.md (run it with -benchtime=300x).
func BenchmarkWatchFanOut(b *testing.B, newBackend func(b *testing.B) storage.Interface) {
	for _, rate := range []int{0, 200} {
		for _, watchers := range []int{1, 100, 1000} {
			name := fmt.Sprintf("rate=%d/watchers=%d", rate, watchers)
			if rate == 0 {
				name = fmt.Sprintf("rate=max/watchers=%d", watchers)
			}
			b.Run(name, func(b *testing.B) {
				benchmarkWatchFanOut(b, newBackend(b), watchers, rate)
			})
		}
	}
}

func benchmarkWatchFanOut(b *testing.B, s storage.Interface, watchers, rate int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := storage.Key(Widgets, "ns", "w")
	w := BenchWidget("ns", "w", 0)
	w.Annotations["description"] = strings.Repeat("d", 1100) // about 2 KB of JSON
	created, err := s.Create(ctx, key, w)
	if err != nil {
		b.Fatal(err)
	}
	arrivals := make([][]time.Time, watchers)
	var wg sync.WaitGroup
	for i := range watchers {
		wi, err := s.Watch(ctx, storage.Prefix(Widgets, "ns"), storage.WatchOptions{
			ResourceVersion: created.GetResourceVersion(), Recursive: true,
		})
		if err != nil {
			b.Fatal(err)
		}
		arrivals[i] = make([]time.Time, 0, b.N)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer wi.Stop()
			for len(arrivals[i]) < b.N {
				if _, ok := <-wi.ResultChan(); !ok {
					return
				}
				arrivals[i] = append(arrivals[i], time.Now())
			}
		}(i)
	}
	starts := make([]time.Time, b.N)
	cpu0, cpuOK := processCPU()
	b.ReportAllocs()
	b.ResetTimer()
	began := time.Now()
	var interval time.Duration
	if rate > 0 {
		interval = time.Second / time.Duration(rate)
	}
	for n := 0; n < b.N; n++ {
		if interval > 0 {
			time.Sleep(time.Until(began.Add(time.Duration(n) * interval)))
		}
		starts[n] = time.Now()
		_, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			cur.SetGeneration(int64(n + 2))
			return cur, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	elapsed := time.Since(began)
	b.StopTimer()
	cpu1, _ := processCPU()

	var lat []time.Duration
	delivered := 0
	for _, a := range arrivals {
		delivered += len(a)
		for n, t := range a {
			lat = append(lat, t.Sub(starts[n]))
		}
	}
	if delivered != watchers*b.N {
		b.Fatalf("delivered %d events, want %d", delivered, watchers*b.N)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
	if cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(delivered), "cpu-ns/event")
	}
}
