package e2e

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/cache"
	etcdstore "github.com/apikit-dev/apikit/storage/etcd"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// watchCacheBenchObjects is the size of the collection the watch cache benchmark lists.
const watchCacheBenchObjects = 10000

// populateEtcd creates n storagetest.BenchWidgets (about 1.5 KB each) in st, named and
// spread over namespaces as storagetest.Populate does, with a few writers at once: one
// writer would spend most of the benchmark's setup waiting for etcd's round trips.
func populateEtcd(b *testing.B, st storage.Interface, n, perNS int) {
	b.Helper()
	const writers = 8
	ctx := context.Background()
	err := concurrently(writers, func(w int) error {
		for i := w; i < n; i += writers {
			ns, name := fmt.Sprintf("ns-%04d", i/perNS), fmt.Sprintf("w-%06d", i)
			if _, err := st.Create(ctx, storage.Key(storagetest.Widgets, ns, name), storagetest.BenchWidget(ns, name, i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// heapAfterGC is the heap in use once the garbage collector has freed what it can.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC() // the second cycle frees what the first one's finalizers released
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// listCountingStore is the etcd Store with its lists counted: every list of the cache
// benchmark that reaches it is one the cache did not serve from memory. The Store is
// embedded, so that the cache still finds its optional interfaces (storage.Versioned,
// storage.ProgressRequester).
type listCountingStore struct {
	*etcdstore.Store
	lists atomic.Int64
}

func (s *listCountingStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	s.lists.Add(1)
	return s.Store.List(ctx, prefix, opts)
}

// BenchmarkEtcdWatchCache_List10k lists 10,000 widgets of about 1.5 KB in an embedded
// etcd: through the watch cache in front of the etcd Store (via=cache) and from the
// Store directly (via=etcd), both as a consistent list (resourceVersion unset: the
// cache asks etcd for its revision and serves once it has caught up, kube's
// consistent reads from cache) and as an informer's first list (resourceVersion "0").
// Each also reports retained-B: what the reader holds on the heap after a GC once it
// has served a list (the cache's objects, B-tree and snapshot; nothing for the Store),
// measured with the embedded etcd in the same process, so as a difference of heaps
// before the reader was made and after. Compare with
//
//	go test -run '^$' -bench 'BenchmarkEtcdWatchCache_List10k' -benchmem -count 6 ./e2e | benchstat -col /via -
func BenchmarkEtcdWatchCache_List10k(b *testing.B) {
	e := startTestEtcd(b)
	st := newEtcdStore(b, e, etcdstore.Options{})
	backend := &listCountingStore{Store: st}
	populateEtcd(b, st, watchCacheBenchObjects, 1000)
	ctx := context.Background()
	all := storage.Prefix(storagetest.Widgets, "")

	for _, via := range []struct {
		name string
		// reader returns what the lists go through, made after the heap's baseline.
		reader func(b *testing.B) storage.Interface
	}{
		{"cache", func(b *testing.B) storage.Interface {
			c, err := cache.Start(b.Context(), backend, cache.Options{Prefixes: []string{all}})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			return c
		}},
		{"etcd", func(*testing.B) storage.Interface { return st }},
	} {
		for _, read := range []struct {
			name string
			opts storage.ListOptions
		}{
			{"consistent", storage.ListOptions{}},
			{"rv0", storage.ListOptions{ResourceVersion: "0"}},
		} {
			b.Run(fmt.Sprintf("read=%s/via=%s", read.name, via.name), func(b *testing.B) {
				before := heapAfterGC()
				s := via.reader(b)
				if _, err := s.List(ctx, all, read.opts); err != nil {
					b.Fatal(err)
				}
				retained := int64(heapAfterGC()) - int64(before)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					res, err := s.List(ctx, all, read.opts)
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Items) != watchCacheBenchObjects {
						b.Fatalf("got %d items, want %d", len(res.Items), watchCacheBenchObjects)
					}
				}
				b.ReportMetric(float64(retained), "retained-B")
				// A cache that passed the lists to etcd would measure etcd twice.
				if n := backend.lists.Load(); via.name == "cache" && n != 0 {
					b.Errorf("the cache sent %d of its lists to etcd", n)
				}
				runtime.KeepAlive(s)
			})
		}
	}
}
