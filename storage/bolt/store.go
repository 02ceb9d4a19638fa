package bolt

import (
	"context"
	"errors"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/watch"
)

// Store is the durable embedded storage backend: the in-memory engine of storage/memory
// (reads, history, snapshots, watches) with every write committed to a Log, and
// fsync'ed, before it is acknowledged. It implements storage.Interface,
// storage.Versioned and storage.Compactor. It is safe for concurrent use; create one
// with New and end it with Close.
//
// A write is computed against the latest state and given its resourceVersion under the
// engine's lock, which also queues it to the Log, so the Log receives writes in version
// order; the caller then waits for its group commit outside the lock, so concurrent
// writers share fsyncs. Reads and watches are served at a watermark that advances, in
// version order, only over durable writes: a write is never seen before it is durable,
// and an acknowledged write is always seen. If the Log fails, that write and every later
// one fail (wrapping ErrFailed or the cause) and none of them is ever seen; reads go on
// at the last durable state.
//
// After a restart the Store holds every acknowledged object and continues the
// resourceVersion counter; its history starts empty, so reads and watches at versions
// before the restart fail with storage.ErrGone, except at the current version. No
// version is ever shown before it is durable, so a version lost in a crash was never
// seen by anyone and may be given to another write after the restart.
type Store struct {
	log *Log
	mem *memory.Store
}

var (
	_ storage.Interface = (*Store)(nil)
	_ storage.Versioned = (*Store)(nil)
	_ storage.Compactor = (*Store)(nil)
)

// New opens (or creates) the store at path: it opens the Log (see Open), loads its state
// with opts.Codec and starts serving. opts.Codec is required.
func New(path string, opts Options) (*Store, error) {
	return newStore(path, opts, osOpenFile)
}

// newStore is New with the write-ahead log's segment files opened by open.
func newStore(path string, opts Options, open openFile) (*Store, error) {
	if opts.Codec == nil {
		return nil, fmt.Errorf("bolt: new store at %s: Options.Codec is required", path)
	}
	l, err := openLog(path, opts, open)
	if err != nil {
		return nil, err
	}
	mopts := opts.Memory
	mopts.Journal = journal{log: l, codec: opts.Codec}
	rv := l.LastResourceVersion() // nothing is committed before the store exists
	mem, err := memory.Restore(mopts, rv, func(add func(key string, obj scheme.Object) error) error {
		last, err := l.Load(func(key string, value []byte, objRV uint64) error {
			obj, err := opts.Codec.Decode(value)
			if err != nil {
				return fmt.Errorf("decode: %w", err)
			}
			obj.SetResourceVersion(storage.FormatResourceVersion(objRV))
			return add(key, obj)
		})
		if err == nil && last != rv {
			err = fmt.Errorf("bolt: load %s: counter moved from %d to %d while loading", path, rv, last)
		}
		return err
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("bolt: new store at %s: %w", path, err), l.Close())
	}
	return &Store{log: l, mem: mem}, nil
}

// journal is the memory engine's persistence seam on a Log.
type journal struct {
	log   *Log
	codec Codec
}

func (j journal) Encode(_ string, obj scheme.Object) ([]byte, error) { return j.codec.Encode(obj) }

func (j journal) Append(key string, value []byte, rv uint64) (memory.Durability, error) {
	// The memory store calls TryCommit before it waits (see memory.Durability): the
	// committer is woken only if the writer does not write the record itself.
	p, err := j.log.enqueue(false, Record{Key: key, Value: value, ResourceVersion: rv})
	switch {
	case errors.Is(err, ErrFailed):
		// The engine fails its writes alike once it sees the failure: a 503 whose
		// detail names no file (the Log logged the cause when it failed).
		return nil, storage.NewErrorf(storage.ErrUnavailable, "", failedDetail)
	case errors.Is(err, ErrClosed):
		return nil, storage.NewErrorf(storage.ErrUnavailable, "", closedDetail)
	case err != nil:
		return nil, err
	}
	return p, nil
}

// What a client reads of a write to a store that takes no more; the engine's own
// failure (storage/memory) reads as failedDetail.
const (
	failedDetail = "storage is unavailable: a write could not be made durable, and the store takes no more writes until it is restarted"
	closedDetail = "storage is unavailable: the store is closed"
)

// Check is the store's health, for a server's /livez and /readyz (a rest.HealthCheck):
// nil while the store takes writes; once a write to disk, its fdatasync or a checkpoint
// has failed, an error wrapping storage.ErrUnavailable and the cause, which names the
// file and is for the log. The store does not recover by itself (see the package
// documentation): the process must restart, which a failing /livez asks of its
// supervisor, and a failing /readyz takes it out of a load balancer meanwhile.
func (s *Store) Check(context.Context) error {
	if err := s.log.Err(); err != nil {
		return fmt.Errorf("%w: %w", storage.ErrUnavailable, err)
	}
	return nil
}

// Close commits the writes already queued, releases their callers, closes the file and
// ends every watch. The store must not be used afterwards.
func (s *Store) Close() error {
	err := s.log.Close()
	s.mem.Close()
	return err
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.log.Path() }

// Create stores a copy of obj at key once it is durable; see storage.Interface.
func (s *Store) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	return s.mem.Create(ctx, key, obj)
}

// Get returns a copy of the object at key; see storage.Interface.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	return s.mem.Get(ctx, key, opts)
}

// List returns one page of the objects under prefix; see storage.Interface.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return s.mem.List(ctx, prefix, opts)
}

// GuaranteedUpdate runs tryUpdate on the current object until its result is durably
// written; see storage.Interface.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	return s.mem.GuaranteedUpdate(ctx, key, opts, tryUpdate)
}

// Delete removes the object at key, durably; see storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	return s.mem.Delete(ctx, key, opts)
}

// Watch streams the durable changes to key (or under it); see storage.Interface.
func (s *Store) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	return s.mem.Watch(ctx, key, opts)
}

// Count returns the number of objects under prefix.
func (s *Store) Count(ctx context.Context, prefix string) (int64, error) {
	return s.mem.Count(ctx, prefix)
}

// CurrentResourceVersion returns the version of the latest durable, visible write.
func (s *Store) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	return s.mem.CurrentResourceVersion(ctx)
}

// Compact discards the in-memory history older than rv; the file keeps only the current
// state anyway.
func (s *Store) Compact(ctx context.Context, rv uint64) error {
	return s.mem.Compact(ctx, rv)
}
