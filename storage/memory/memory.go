package memory

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Options configure a Store. The zero value gives the defaults.
type Options struct {
	// HistoryCount is how many writes the history window keeps (default 10000).
	HistoryCount int
	// HistoryAge is how long a write stays in the history window (default 5 minutes,
	// like etcd's default compaction). Older writes leave the window on the next write.
	HistoryAge time.Duration
	// FutureWait is how long a read or watch at a resourceVersion newer than the store's
	// waits for it before failing with storage.ErrTooLargeResourceVersion (default 3s).
	FutureWait time.Duration
	// BookmarkInterval is how often a watch that allows bookmarks gets one
	// (default 1 minute; negative disables periodic bookmarks).
	BookmarkInterval time.Duration
	// WatchBuffer is how many events each watch may have queued (default 100).
	WatchBuffer int
	// Now is the clock of the history window's age bound (default time.Now).
	Now func() time.Time
	// Journal, when set, makes every write durable before it is shown: see [Journal].
	// storage/bolt sets it; nil keeps the store purely in memory.
	Journal Journal
}

func (o Options) withDefaults() Options {
	if o.HistoryCount <= 0 {
		o.HistoryCount = 10000
	}
	if o.HistoryAge <= 0 {
		o.HistoryAge = 5 * time.Minute
	}
	if o.FutureWait <= 0 {
		o.FutureWait = 3 * time.Second
	}
	if o.BookmarkInterval == 0 {
		o.BookmarkInterval = time.Minute
	}
	if o.WatchBuffer <= 0 {
		o.WatchBuffer = 100
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// entry is one stored object. Entries are immutable once in a tree: callers get copies of
// the object, except a deletion hook, which may only read it (storage.ValidateDeletionFunc).
type entry struct {
	key string
	obj scheme.Object
	rv  uint64 // the resourceVersion of obj's last write
}

// tree is the ordered index of entries, with O(1) copy-on-write snapshots.
type tree = keyTree

// Store is the in-memory backend. It is safe for concurrent use. Create one with New.
//
// Writes are computed and applied under one lock against the latest state (the live
// tree, changed in place), each at the next resourceVersion, and logged with the entry
// they replaced so that any state of the history window can be rebuilt. Without a Journal
// a write is visible at once; with one it is visible (to reads, counts and watches) only
// once the journal reports it durable, in resourceVersion order: visible is that watermark.
type Store struct {
	opts Options
	// epoch is when the store was made; the log keeps times as durations since it, which
	// take no pointer and a third of a time.Time's room.
	epoch time.Time
	// systemClock tells that Options.Now was left to its default, so that the time since
	// epoch is read from the monotonic clock alone (see sinceEpoch).
	systemClock bool

	mu   sync.RWMutex
	live *tree
	// index holds the entries of live by key: point lookups and writes find an entry
	// with one hash lookup instead of a tree descent (and no probe allocation).
	index    map[string]*entry
	rv       uint64   // the latest write, visible or not
	visible  uint64   // the latest write readers and watches see; <= rv
	log      []change // one change per version, ascending and contiguous, up to rv
	logArr   []change // the whole array s.log is a window of (see appendLogLocked)
	oldest   uint64   // smallest resourceVersion still servable exactly; >= log[0].rv
	inflight []inflightWrite
	failed   error // set when a journal write failed: the store takes no more writes (see Journal)
	notify   chan struct{}
	// notifyTaken tells whether a reader took notify since it was made; it is set under
	// s.mu held for reading and cleared under s.mu held for writing.
	notifyTaken atomic.Bool
	closed      bool

	// snapMu guards the snapshot cache and the cloning of trees (Clone writes the cloned
	// tree's copy-on-write context). Lock order: mu, then snapMu.
	snapMu    sync.Mutex
	cur       snapshot // the last clone of live
	past      [snapCacheSize]snapshot
	snapClock uint64

	broadcaster *watch.Broadcaster
}

var (
	_ storage.Interface = (*Store)(nil)
	_ storage.Compactor = (*Store)(nil)
	_ storage.Versioned = (*Store)(nil)
)

// New returns an empty store at resourceVersion 0.
func New(opts Options) *Store {
	s, _ := Restore(opts, 0, nil)
	return s
}

// Restore returns a store holding the objects that fill passes to add, at resourceVersion
// rv: what a durable backend does on start. Each object must carry the resourceVersion of
// its last write (at most rv); the store keeps it without copying. The history window
// starts at rv, so reads and watches at older versions fail with storage.ErrGone. An error
// from fill or add (a duplicate key, a bad resourceVersion) is returned and no store is
// made. A nil fill gives an empty store.
func Restore(opts Options, rv uint64, fill func(add func(key string, obj scheme.Object) error) error) (*Store, error) {
	s := &Store{
		opts:        opts.withDefaults(),
		systemClock: opts.Now == nil,
		live:        newKeyTree(),
		index:       make(map[string]*entry),
		notify:      make(chan struct{}),
		rv:          rv,
		visible:     rv,
		oldest:      rv,
	}
	if fill != nil {
		err := fill(func(key string, obj scheme.Object) error {
			if obj == nil {
				return storage.NewErrorf(storage.ErrInvalidObject, key, "object is nil")
			}
			orv, err := storage.ParseResourceVersion(obj.GetResourceVersion())
			if err != nil || orv == 0 || orv > rv {
				return storage.NewErrorf(storage.ErrInvalidObject, key, "resourceVersion %q is not in 1..%d", obj.GetResourceVersion(), rv)
			}
			if _, dup := s.index[key]; dup {
				return storage.NewErrorf(storage.ErrInvalidObject, key, "restored twice")
			}
			e := &entry{key: key, obj: obj, rv: orv}
			s.index[key] = e
			s.live.replaceOrInsert(e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// The log starts with a placeholder change for the restored state: its version and
	// time bound the window like any other.
	s.epoch = s.opts.Now()
	s.log = []change{{rv: rv}}
	s.logArr = s.log
	s.broadcaster = watch.NewBroadcaster(watch.Options{
		HistorySize:      s.opts.HistoryCount,
		HistoryAge:       s.opts.HistoryAge,
		WatcherBuffer:    s.opts.WatchBuffer,
		BookmarkInterval: s.opts.BookmarkInterval,
		ResourceVersion:  rv,
	})
	return s, nil
}

// Close ends every watch and stops the store's background work. The store must not be
// used afterwards.
func (s *Store) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.notify)
	}
	s.mu.Unlock()
	s.broadcaster.Stop()
}

// CurrentResourceVersion returns the version of the latest visible write.
func (s *Store) CurrentResourceVersion(context.Context) (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.visible, nil
}

// commitLocked applies one change to the live tree at the next resourceVersion, logs it
// with the entry it replaced and, with a journal, queues value (nil for a delete) to it.
// It returns the write's version and the journal's handle (nil without a journal: the
// write is already visible). The caller holds s.mu for writing and waits for the handle, if
// any, after unlocking (see settle). A failed store or a journal that refuses the write
// fails it before anything changes. old is the live entry at key the caller found under
// the same lock (nil: none) and obj the new object (nil: delete old).
func (s *Store) commitLocked(typ watch.EventType, key string, old *entry, obj scheme.Object, value []byte) (uint64, Durability, error) {
	if s.failed != nil {
		return 0, nil, storage.WithKey(s.failed, key)
	}
	rv := s.rv + 1
	var d Durability
	if s.opts.Journal != nil {
		var err error
		if d, err = s.opts.Journal.Append(key, value, rv); err != nil {
			return 0, nil, storage.WithKey(err, key)
		}
	}
	s.rv = rv
	var prev scheme.Object
	if old != nil {
		prev = old.obj
	}
	if obj != nil {
		obj.SetResourceVersion(storage.FormatResourceVersion(rv))
		e := &entry{key: key, obj: obj, rv: rv}
		s.index[key] = e
		s.live.replaceOrInsert(e)
	} else if old != nil {
		delete(s.index, key)
		s.live.delete(key)
	}
	now := s.sinceEpoch()
	s.appendLogLocked(change{rv: rv, at: now, key: key, prev: old})
	// A Deleted change leaves Object nil: the broadcaster makes the last state at the
	// deletion's resourceVersion only if a watcher receives the event.
	change := watch.Change{Type: typ, Object: obj, PrevObject: prev, ResourceVersion: rv, Key: key}
	if d == nil {
		s.showLocked(change)
	} else {
		s.inflight = append(s.inflight, inflightWrite{change: change, durable: d})
	}
	s.trimLocked(now)
	return rv, d, nil
}

// sinceEpoch is the time since the store's epoch on its clock, taken once per write.
// With the default clock it is time.Since, which reads only the monotonic clock (all that
// a difference of two readings of time.Now uses) instead of the wall clock too.
func (s *Store) sinceEpoch() time.Duration {
	if s.systemClock {
		return time.Since(s.epoch)
	}
	return s.opts.Now().Sub(s.epoch)
}

// showLocked makes a write visible: it publishes it to the watches, advances the
// watermark and wakes the readers waiting for a version. Writes are shown in version order.
func (s *Store) showLocked(c watch.Change) {
	// Publish only fails for out-of-order versions, which the lock rules out.
	_ = s.broadcaster.Publish(c)
	s.visible = c.ResourceVersion
	s.wakeLocked()
}

// wakeLocked wakes the readers waiting on s.notify; the caller holds s.mu for writing.
// While nobody took the channel there is nobody to wake, and no channel is made.
func (s *Store) wakeLocked() {
	if !s.closed && s.notifyTaken.Load() {
		close(s.notify)
		s.notify = make(chan struct{})
		s.notifyTaken.Store(false)
	}
}

// notifyLocked returns the channel that the next wake closes; the caller holds s.mu
// (for reading suffices: no wake runs meanwhile).
func (s *Store) notifyLocked() <-chan struct{} {
	s.notifyTaken.Store(true)
	return s.notify
}

// Compact discards the history older than rv: reads at and watches from a version below
// rv then fail with storage.ErrGone.
func (s *Store) Compact(_ context.Context, rv uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv > s.visible {
		rv = s.visible
	}
	if rv <= s.oldest {
		return nil
	}
	s.oldest = rv
	// Keep the change at rv: its time bounds the age of the oldest state kept.
	if rv > s.log[0].rv {
		s.dropLogLocked(s.logIndexLocked(rv))
	}
	return nil
}

// visibleVersion returns the version readers see.
func (s *Store) visibleVersion() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.visible
}

// waitFor blocks until the store's visible version reaches rv. It fails with
// ErrTooLargeResourceVersion after FutureWait.
func (s *Store) waitFor(ctx context.Context, key string, rv uint64) error {
	var timer *time.Timer
	for {
		s.mu.RLock()
		cur, closed := s.visible, s.closed
		if cur >= rv {
			s.mu.RUnlock()
			return nil
		}
		notify := s.notifyLocked()
		s.mu.RUnlock()
		if closed {
			return storage.NewErrorAt(storage.ErrTooLargeResourceVersion, key, rv, "store is closed")
		}
		if timer == nil {
			timer = time.NewTimer(s.opts.FutureWait)
			defer timer.Stop()
		}
		select {
		case <-notify:
		case <-timer.C:
			return storage.NewErrorAt(storage.ErrTooLargeResourceVersion, key, rv,
				"Too large resource version: %d, current: %d", rv, cur)
		case <-ctx.Done():
			return storage.WithKey(ctx.Err(), key)
		}
	}
}

// latest returns a snapshot of the visible state not older than rv (0: any), waiting
// for rv if needed, and its version.
func (s *Store) latest(ctx context.Context, key string, rv uint64) (*tree, uint64, error) {
	if rv != 0 {
		if err := s.waitFor(ctx, key, rv); err != nil {
			return nil, 0, err
		}
	}
	return s.snapshot(key, 0, true)
}

func copyObject(obj scheme.Object) scheme.Object { return scheme.DeepCopy(obj) }

// Create stores a copy of obj at key and gives obj its resourceVersion.
func (s *Store) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, storage.WithKey(err, key)
	}
	if obj == nil {
		return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "object is nil")
	}
	if rv := obj.GetResourceVersion(); rv != "" {
		return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "resourceVersion should not be set on objects to be created")
	}
	stored := copyObject(obj)
	value, err := s.encode(key, stored)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if e, ok := s.index[key]; ok {
		s.mu.Unlock()
		if err := s.settle(ctx, key, e.rv, nil); err != nil {
			return nil, err
		}
		return nil, storage.NewError(storage.ErrAlreadyExists, key)
	}
	rv, d, err := s.commitLocked(watch.Added, key, nil, stored, value)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := s.settle(ctx, key, rv, d); err != nil {
		return nil, err
	}
	obj.SetResourceVersion(stored.GetResourceVersion()) // stored is read-only now
	return obj, nil
}

// encode gives the journal's bytes for obj, or nil without a journal.
func (s *Store) encode(key string, obj scheme.Object) ([]byte, error) {
	if s.opts.Journal == nil {
		return nil, nil
	}
	b, err := s.opts.Journal.Encode(key, obj)
	if err != nil {
		return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "encode: %v", err)
	}
	return b, nil
}

// Get returns a copy of the object at key.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	spec, err := storage.ResolveGet(opts)
	if err != nil {
		return nil, storage.WithKey(err, key)
	}
	if spec.Mode == storage.ReadNotOlderThan {
		if err := s.waitFor(ctx, key, spec.ResourceVersion); err != nil {
			return nil, err
		}
	}
	s.mu.RLock()
	e, ok := s.getLocked(key, s.visible)
	s.mu.RUnlock()
	if !ok {
		return nil, storage.NewError(storage.ErrNotFound, key)
	}
	return copyObject(e.obj), nil
}

// List returns one page of the objects under prefix.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return s.list(ctx, prefix, opts, copyObject)
}

// ListShared is List without the copies: the items are the stored objects themselves,
// which the Store never changes once stored and shares read-only with every reader, as
// it shares watch event objects. The caller must not modify them (nor anything they
// refer to). A list response encodes its items one at a time, so a copy of each, made
// up front, would be the largest thing it holds: with shared items it holds one pointer
// per item, and copies (or converts) an item only when its turn comes.
func (s *Store) ListShared(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return s.list(ctx, prefix, opts, func(obj scheme.Object) scheme.Object { return obj })
}

// list is List, with item giving the result's object for a stored one.
func (s *Store) list(ctx context.Context, prefix string, opts storage.ListOptions, item func(scheme.Object) scheme.Object) (*storage.ListResult, error) {
	prefix = storage.EnsurePrefix(prefix)
	spec, err := storage.ResolveList(prefix, opts)
	if err != nil {
		return nil, storage.WithKey(err, prefix)
	}
	var snap *tree
	var rv uint64
	switch spec.Mode {
	case storage.ReadExact:
		if err = s.waitFor(ctx, prefix, spec.ResourceVersion); err == nil {
			snap, rv, err = s.snapshot(prefix, spec.ResourceVersion, false)
		}
	case storage.ReadNotOlderThan:
		snap, rv, err = s.latest(ctx, prefix, spec.ResourceVersion)
	default:
		snap, rv, err = s.latest(ctx, prefix, 0)
	}
	if err != nil {
		return nil, err
	}
	from := prefix
	if spec.From != "" {
		from = spec.From // under prefix: ResolveList made it so
	}
	res := &storage.ListResult{ResourceVersion: storage.FormatResourceVersion(rv)}
	if limit := opts.Limit; limit > 0 && limit < 1<<16 {
		res.Items = make([]scheme.Object, 0, limit)
	}
	var matchErr error
	var more bool
	var remaining int64
	var lastKey string
	full := false
	pred := opts.Predicate
	countRest := pred.Empty()
	iterate(snap, from, prefix, func(e *entry) bool {
		if full {
			more = true
			if !countRest {
				return false
			}
			remaining++
			return true
		}
		ok, err := pred.Matches(e.obj)
		if err != nil {
			matchErr = storage.NewErrorf(storage.ErrInvalidObject, e.key, "%v", err)
			return false
		}
		if ok {
			res.Items = append(res.Items, item(e.obj))
			lastKey = e.key
			if opts.Limit > 0 && int64(len(res.Items)) >= opts.Limit {
				full = true
			}
		}
		return true
	})
	if matchErr != nil {
		return nil, matchErr
	}
	if more {
		if res.Continue, err = storage.EncodeContinue(rv, prefix, lastKey); err != nil {
			return nil, storage.WithKey(err, prefix)
		}
		if countRest {
			res.RemainingItemCount = &remaining
		}
	}
	return res, nil
}

// iterate calls fn for each entry of t with from <= key and key under prefix, in order,
// until fn returns false.
func iterate(t *tree, from, prefix string, fn func(*entry) bool) {
	t.ascendFrom(from, func(e *entry) bool {
		if !strings.HasPrefix(e.key, prefix) {
			return false
		}
		return fn(e)
	})
}

// Count returns the number of objects under prefix.
func (s *Store) Count(ctx context.Context, prefix string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, storage.WithKey(err, prefix)
	}
	snap, _, err := s.snapshot(prefix, 0, true)
	if err != nil {
		return 0, err
	}
	var n int64
	iterate(snap, storage.EnsurePrefix(prefix), storage.EnsurePrefix(prefix), func(*entry) bool { n++; return true })
	return n, nil
}

// unchanged reports whether next equals cur apart from resourceVersion. It sets next's
// resourceVersion to cur's.
func unchanged(cur, next scheme.Object) bool {
	next.SetResourceVersion(cur.GetResourceVersion())
	if metaDiffers(cur, next) {
		return false
	}
	return reflect.DeepEqual(cur, next)
}

// metaDiffers is unchanged's cheap first test: a different generation (the counter of
// spec changes, read in O(1) from typed and unstructured objects alike) means the objects
// differ, and the reflective comparison is skipped. It never reports a difference
// reflect.DeepEqual would not find.
func metaDiffers(a, b scheme.Object) bool {
	return a.GetGeneration() != b.GetGeneration()
}

// readLive returns the live entry at key and the version of the state it was read from:
// the entry's own version, or the latest version when key does not exist.
func (s *Store) readLive(key string) (e *entry, found bool, seen uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, found = s.index[key]
	if found {
		return e, true, e.rv
	}
	return nil, false, s.rv
}

// answer returns err once the state seen (at version seen) is visible, so that no answer
// reveals a write that is not durable yet; a store failure takes precedence.
func (s *Store) answer(ctx context.Context, key string, seen uint64, err error) error {
	if serr := s.settle(ctx, key, seen, nil); serr != nil {
		return serr
	}
	return err
}

// GuaranteedUpdate runs tryUpdate on the current object until its result is written.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, storage.WithKey(err, key)
		}
		e, found, seen := s.readLive(key)
		var cur scheme.Object
		if found {
			if err := opts.Preconditions.Check(key, e.obj); err != nil {
				return nil, s.answer(ctx, key, seen, err)
			}
			cur = copyObject(e.obj)
		} else if !opts.IgnoreNotFound {
			return nil, s.answer(ctx, key, seen, storage.NewError(storage.ErrNotFound, key))
		}
		next, err := tryUpdate(cur)
		if err != nil {
			return nil, s.answer(ctx, key, seen, err)
		}
		if next == nil {
			return nil, storage.NewErrorf(storage.ErrInvalidObject, key, "update function returned no object")
		}
		newRV := next.GetResourceVersion()
		if found && newRV != "" && newRV != e.obj.GetResourceVersion() {
			return nil, s.answer(ctx, key, seen, storage.NewErrorf(storage.ErrConflict, key,
				"the object has been modified; please apply your changes to the latest version and try again"))
		}
		if !found && newRV != "" {
			return nil, s.answer(ctx, key, seen, storage.NewErrorf(storage.ErrNotFound, key,
				"cannot update an object at resourceVersion %s that does not exist", newRV))
		}
		// next is the caller's: the store keeps a copy. When next is cur, the copy this
		// call made for tryUpdate, it is already the caller's own object and is returned
		// as the result, saving a deep copy.
		own := cur != nil && next == cur
		stored := copyObject(next)
		if found && unchanged(e.obj, stored) {
			if err := s.settle(ctx, key, seen, nil); err != nil {
				return nil, err
			}
			if own {
				next.SetResourceVersion(e.obj.GetResourceVersion())
				return next, nil
			}
			return copyObject(e.obj), nil
		}
		value, err := s.encode(key, stored)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		now, ok := s.index[key]
		if ok != found || (found && now != e) {
			s.mu.Unlock()
			continue // somebody else wrote in between: read again
		}
		var rv uint64
		var d Durability
		if found {
			rv, d, err = s.commitLocked(watch.Modified, key, e, stored, value)
		} else {
			rv, d, err = s.commitLocked(watch.Added, key, nil, stored, value)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		// Settled before the copy: a journal may write the change on this goroutine
		// (see Durability), and nothing need come before that write.
		if err := s.settle(ctx, key, rv, d); err != nil {
			return nil, err
		}
		out := next
		if own {
			out.SetResourceVersion(storage.FormatResourceVersion(rv))
		} else {
			out = copyObject(stored) // stored is read-only now
		}
		return out, nil
	}
}

// Delete removes the object at key after checking preconditions and the validation hook.
func (s *Store) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, storage.WithKey(err, key)
		}
		if opts.Validate == nil {
			return s.deleteChecked(ctx, key, opts.Preconditions)
		}
		e, found, seen := s.readLive(key)
		if !found {
			return nil, s.answer(ctx, key, seen, storage.NewError(storage.ErrNotFound, key))
		}
		if err := opts.Preconditions.Check(key, e.obj); err != nil {
			return nil, s.answer(ctx, key, seen, err)
		}
		// The hook runs outside the lock: it is the caller's code.
		if err := opts.Validate(ctx, e.obj); err != nil { // read-only: see ValidateDeletionFunc
			return nil, s.answer(ctx, key, seen, err)
		}
		s.mu.Lock()
		if now, ok := s.index[key]; !ok || now != e {
			s.mu.Unlock()
			continue
		}
		return s.removeAndUnlock(ctx, key, e)
	}
}

// deleteChecked is Delete without a validation hook: the preconditions are checked under
// the same lock as the removal, so one lookup does.
func (s *Store) deleteChecked(ctx context.Context, key string, p *storage.Preconditions) (scheme.Object, error) {
	s.mu.Lock()
	e, found := s.index[key]
	if !found {
		seen := s.rv
		s.mu.Unlock()
		return nil, s.answer(ctx, key, seen, storage.NewError(storage.ErrNotFound, key))
	}
	if err := p.Check(key, e.obj); err != nil {
		s.mu.Unlock()
		return nil, s.answer(ctx, key, e.rv, err)
	}
	return s.removeAndUnlock(ctx, key, e)
}

// removeAndUnlock removes e, the live entry at key, and returns the caller's copy of its
// object once the removal is visible. The caller holds s.mu for writing; it is released.
func (s *Store) removeAndUnlock(ctx context.Context, key string, e *entry) (scheme.Object, error) {
	rv, d, err := s.commitLocked(watch.Deleted, key, e, nil, nil)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := s.settle(ctx, key, rv, d); err != nil {
		return nil, err
	}
	out := copyObject(e.obj) // e.obj is read-only
	return out, nil
}
