package storagetest

import (
	"context"
	"sync"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// ReadInBatches returns a watch of the backend's watch w, made with
// storage.WatchOptions.Batches, whose ResultChan is fed from w's NextBatch (watch.Batcher),
// as an HTTP watch reads it: a backend test wraps its Watch with it to run the suite's
// watch behaviours over batch watches. A w that is no watch.Batcher is returned as it is.
func ReadInBatches(w watch.Interface) watch.Interface {
	b, ok := w.(watch.Batcher)
	if !ok {
		return w
	}
	r := &batchReader{w: w, out: make(chan watch.Event), stopped: make(chan struct{})}
	go r.run(b)
	return r
}

// WatchInBatches is storage.Interface.Watch of s with opts.Batches set, read through
// ReadInBatches.
func WatchInBatches(s storage.Interface, ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	opts.Batches = true
	w, err := s.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return ReadInBatches(w), nil
}

type batchReader struct {
	w       watch.Interface
	out     chan watch.Event
	stopped chan struct{}
	once    sync.Once
}

func (r *batchReader) run(b watch.Batcher) {
	defer close(r.out)
	var batch []watch.Event
	for {
		var ok bool
		if batch, ok = b.NextBatch(batch[:0]); !ok {
			return
		}
		for _, ev := range batch {
			select {
			case r.out <- ev:
			case <-r.stopped:
				return
			}
		}
	}
}

func (r *batchReader) ResultChan() <-chan watch.Event { return r.out }

func (r *batchReader) Stop() {
	r.once.Do(func() { close(r.stopped) })
	r.w.Stop()
}
