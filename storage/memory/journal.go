package memory

import (
	"context"
	"fmt"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Journal is the persistence seam of a Store: a durable backend (storage/bolt) sets
// Options.Journal and the store becomes its engine for reads, history and watches while
// every write passes through the journal before it is acknowledged.
//
// A write is computed against the latest state under the store's lock, given the next
// resourceVersion, applied to the live state and handed to Append, all under that lock
// and so in resourceVersion order. The writer then waits, outside the lock, for the
// returned Durability. Reads, counts and watches see a write only once it is durable and
// every write before it too: they are served at a watermark that advances in version
// order, so an acknowledged write is always visible and a write that is never
// acknowledged is never seen. When a Durability fails, the store takes no more writes and
// never shows the failed write or any after it: that write, the writes queued behind it
// and every later one fail with storage.ErrUnavailable (a 503 at the REST layer) and a
// detail that names neither key nor file, while reads and watches go on at the last
// durable state. The store does not resume: its live state holds the failed writes, and
// only a new store, restored from what the journal made durable, is right again.
type Journal interface {
	// Encode turns an object about to be written into the bytes the journal keeps. It is
	// called outside the store's lock, before the write's resourceVersion is known: the
	// resourceVersion inside the bytes is stale and the version given to Append is the
	// one that counts. Encode must not modify or keep obj.
	Encode(key string, obj scheme.Object) ([]byte, error)
	// Append queues the write of value (nil: the deletion of key) at rv. It is called
	// under the store's write lock, with strictly increasing versions, and must not block
	// on durability: it returns a handle that reports it. Handles must complete in the
	// order they were returned. An error means nothing was queued.
	Append(key string, value []byte, rv uint64) (Durability, error)
}

// Durability reports when one journal write is durable; *bolt.Pending implements it.
// One that also has a TryCommit() method (as *bolt.Pending does) gets it called, once,
// by the writer just before it waits: the journal may then make the write durable on
// the writer's goroutine, and may leave it queued until that call.
type Durability interface {
	// Done is closed once the write is durable or has failed.
	Done() <-chan struct{}
	// Err is nil when the write is durable and the cause when it failed; it is valid
	// once Done is closed.
	Err() error
}

// inflightWrite is a write applied to the live tree and queued to the journal but not
// yet visible.
type inflightWrite struct {
	change  watch.Change
	durable Durability
}

// journalFailedDetail is what a client reads of the writes of a store whose journal
// failed; the journal's own error, which names files, is for the journal's log.
const journalFailedDetail = "storage is unavailable: a write could not be made durable, and the store takes no more writes until it is restarted"

// settle makes sure the caller's write at rv (acknowledged with d; nil when the write is
// already visible or was none) or, for a decision taken on the live state at version rv
// without writing, the state it saw, is durable and visible before the caller is
// answered. It returns the store's failure when that write or one up to rv failed, and
// ctx's error when ctx ends first (the write may still become durable and visible).
func (s *Store) settle(ctx context.Context, key string, rv uint64, d Durability) error {
	if d != nil {
		if c, ok := d.(interface{ TryCommit() }); ok {
			c.TryCommit()
		}
		select {
		case <-d.Done():
		case <-ctx.Done():
			// Keep the watermark moving even if no other writer comes.
			go func() {
				<-d.Done()
				s.advance()
			}()
			return &storage.Error{Err: ctx.Err(), Key: key, Detail: "the write may still be committed"}
		}
		if d.Err() != nil {
			s.advance()
			s.mu.Lock()
			err := s.failLocked()
			s.mu.Unlock()
			return storage.WithKey(err, key)
		}
	}
	for {
		if done, err := s.reached(key, rv); done {
			return err
		}
		// An earlier write may be durable and not shown yet: show what is ready.
		s.advance()
		s.mu.RLock()
		notify := s.notifyLocked()
		s.mu.RUnlock()
		if done, err := s.reached(key, rv); done {
			return err
		}
		// An earlier write is still in flight: its writer (or the goroutine watching it
		// for a writer that gave up) advances the watermark once it is durable.
		select {
		case <-notify:
		case <-ctx.Done():
			return storage.WithKey(ctx.Err(), key)
		}
	}
}

// reached reports whether waiting for version rv is over: it is visible (nil), or the
// store failed first (the failure).
func (s *Store) reached(key string, rv uint64) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch {
	case s.visible >= rv:
		return true, nil
	case s.failed != nil:
		return true, storage.WithKey(s.failed, key)
	case s.closed:
		return true, storage.WithKey(fmt.Errorf("memory: store is closed before resourceVersion %d became visible", rv), key)
	}
	return false, nil
}

// advance shows the in-flight writes that are durable, oldest first, up to the first
// one that is not; a failed one fails the store, and none after it is ever shown.
func (s *Store) advance() {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for ; n < len(s.inflight); n++ {
		w := s.inflight[n]
		select {
		case <-w.durable.Done():
		default:
			s.dropInflightLocked(n)
			return
		}
		if w.durable.Err() != nil {
			s.failLocked()
			// Wake the waiters so they see the failure; nothing after is shown.
			s.dropInflightLocked(len(s.inflight))
			s.wakeLocked()
			return
		}
		s.showLocked(w.change)
	}
	s.dropInflightLocked(n)
}

// failLocked fails the store, if it has not failed yet, and returns the error of its
// writes from now on. The caller holds s.mu for writing.
func (s *Store) failLocked() error {
	if s.failed == nil {
		s.failed = storage.NewErrorf(storage.ErrUnavailable, "", journalFailedDetail)
	}
	return s.failed
}

func (s *Store) dropInflightLocked(n int) {
	if n == 0 {
		return
	}
	rest := copy(s.inflight, s.inflight[n:])
	clear(s.inflight[rest:])
	s.inflight = s.inflight[:rest]
}
