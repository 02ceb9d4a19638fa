package cache_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/bolt"
	"github.com/apikit-dev/apikit/storage/cache"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

func boltCodec(tb testing.TB) bolt.Codec {
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	return bolt.SerializerCodec(codec.NewJSON(s))
}

func newBolt(tb testing.TB, opts bolt.Options) *bolt.Store {
	opts.Codec = boltCodec(tb)
	s, err := bolt.New(filepath.Join(tb.TempDir(), "state.db"), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// The backends of the list benchmarks, each empty: the raw memory and bolt backends and
// the cache in front of each.
var listBackends = []struct {
	name string
	new  func(b *testing.B) storage.Interface
}{
	{"memory", func(b *testing.B) storage.Interface {
		s := memory.New(memory.Options{})
		b.Cleanup(s.Close)
		return s
	}},
	{"bolt", func(b *testing.B) storage.Interface { return newBolt(b, bolt.Options{NoSync: true}) }},
	{"cache-over-memory", func(b *testing.B) storage.Interface {
		s := memory.New(memory.Options{})
		b.Cleanup(s.Close)
		return newBenchCache(b, s)
	}},
	{"cache-over-bolt", func(b *testing.B) storage.Interface {
		return newBenchCache(b, newBolt(b, bolt.Options{NoSync: true}))
	}},
}

func newBenchCache(b *testing.B, backend storage.Interface) *cache.Cache {
	c, err := cache.Start(b.Context(), backend, cache.Options{Prefixes: []string{storage.Prefix(storagetest.Widgets, "")}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// BenchmarkList10k lists 10,000 BenchWidgets (about 1.5 KB of JSON each) from each
// backend side by side, in the read modes a client uses: consistent (resourceVersion
// unset), any ("0", what informers list with), a first page of 500 and the page after
// it, and one namespace of 1,000.
//
//	go test ./storage/cache -run '^$' -bench List10k -benchtime=200x
func BenchmarkList10k(b *testing.B) {
	ctx := context.Background()
	all := storage.Prefix(storagetest.Widgets, "")
	for _, be := range listBackends {
		b.Run(be.name, func(b *testing.B) {
			s := be.new(b)
			storagetest.Populate(b, s, 10000, 1000)
			first, err := s.List(ctx, all, storage.ListOptions{Limit: 500})
			if err != nil {
				b.Fatal(err)
			}
			for _, tc := range []struct {
				name   string
				prefix string
				opts   storage.ListOptions
				want   int
			}{
				{"Consistent", all, storage.ListOptions{}, 10000},
				{"RV0", all, storage.ListOptions{ResourceVersion: "0"}, 10000},
				{"FirstPage500", all, storage.ListOptions{Limit: 500}, 500},
				{"ContinuedPage500", all, storage.ListOptions{Limit: 500, Continue: first.Continue}, 500},
				{"Namespace1k", storage.Prefix(storagetest.Widgets, "ns-0003"), storage.ListOptions{}, 1000},
			} {
				b.Run(tc.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						res, err := s.List(ctx, tc.prefix, tc.opts)
						if err != nil {
							b.Fatal(err)
						}
						if len(res.Items) != tc.want {
							b.Fatalf("got %d items, want %d", len(res.Items), tc.want)
						}
					}
				})
			}
		})
	}
}

// The shared backend benchmarks of storagetest, on the cache in front of memory:
//
//	go test ./storage/cache -run '^$' -bench 'Writes|WatchFanOut' -benchtime=2000x
func newBenchCacheOverMemory(b *testing.B) storage.Interface {
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	c, err := cache.Start(b.Context(), s, cache.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

func BenchmarkWrites(b *testing.B) { storagetest.BenchmarkWrites(b, newBenchCacheOverMemory) }

func BenchmarkWatchFanOut(b *testing.B) {
	storagetest.BenchmarkWatchFanOut(b, newBenchCacheOverMemory)
}
