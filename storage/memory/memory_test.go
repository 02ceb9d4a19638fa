package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		s := memory.New(memory.Options{FutureWait: 50 * time.Millisecond})
		t.Cleanup(s.Close)
		return s
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}

// batchWatches is a memory store whose watches are batch watches (the HTTP layer's),
// read through storagetest.ReadInBatches.
type batchWatches struct{ *memory.Store }

func (s batchWatches) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	return storagetest.WatchInBatches(s.Store, ctx, key, opts)
}

func TestConformance_BatchWatches(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		s := memory.New(memory.Options{FutureWait: 50 * time.Millisecond})
		t.Cleanup(s.Close)
		return batchWatches{s}
	}, storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true})
}
