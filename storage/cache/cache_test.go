package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/bolt"
	"github.com/apikit-dev/apikit/storage/cache"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// newCachedMemory returns a cache in front of a fresh memory store; both are closed
// when the test ends.
func newCachedMemory(t testing.TB, opts cache.Options) (*cache.Cache, *memory.Store) {
	t.Helper()
	backend := memory.New(memory.Options{FutureWait: 50 * time.Millisecond})
	if opts.FutureWait == 0 {
		opts.FutureWait = 50 * time.Millisecond
	}
	c, err := cache.Start(t.Context(), backend, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		backend.Close()
	})
	return c, backend
}

func TestConformance_OverMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		c, _ := newCachedMemory(t, cache.Options{})
		return c
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}

func TestConformance_OverBolt(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		backend := newBolt(t, bolt.Options{NoSync: true, Memory: memory.Options{FutureWait: 50 * time.Millisecond}})
		c, err := cache.Start(t.Context(), backend, cache.Options{FutureWait: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}

// batchWatches is a cache whose watches are batch watches (the HTTP layer's), read
// through storagetest.ReadInBatches.
type batchWatches struct{ *cache.Cache }

func (c batchWatches) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	return storagetest.WatchInBatches(c.Cache, ctx, key, opts)
}

func TestConformance_BatchWatchesOverMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		c, _ := newCachedMemory(t, cache.Options{})
		return batchWatches{c}
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}
