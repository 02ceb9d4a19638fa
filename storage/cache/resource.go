package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/btree"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// item is one cached object. The object is the backend's watch event object, shared and
// read-only: readers get copies.
type item struct {
	key string
	obj scheme.Object
}

func lessKey(a, b *item) bool { return a.key < b.key }

// btreeDegree is the google/btree degree of the ordered stores (32 is its own suggestion
// for in-memory trees).
const btreeDegree = 32

type tree = btree.BTreeG[*item]

// snapshot is a past state of a resource: tree at rv, unchanged until the event at
// validUntil (0 while it is the current state). It serves reads at versions in
// [rv, validUntil).
type snapshot struct {
	rv         uint64
	validUntil uint64
	tree       *tree
}

func (s snapshot) holds(rv uint64) bool {
	return s.rv <= rv && (s.validUntil == 0 || rv < s.validUntil)
}

// resource is the cache of one resource prefix: an ordered store kept up to date by one
// backend watch, the broadcaster that fans the watch's events out to the cache's own
// watches, and a few snapshots for paginated lists.
type resource struct {
	c      *Cache
	prefix string

	mu    sync.RWMutex
	ready bool // the store holds the backend's state at rv
	// failing is set while the backend watch cannot be started: requests then go to the
	// backend at once rather than wait for a store that is not coming.
	failing bool
	live    *tree // changed in place by the backend watch's events
	// rv is the version the store has reached: the last event's, or a later one a
	// bookmark of the backend watch announced.
	rv uint64
	// lastEvent is the version of the last change applied, or of the state the store
	// started from: the store holds the state at every version in [lastEvent, rv].
	lastEvent uint64
	// current is a clone of live at rv, made for a read and kept until the next change,
	// so that reads share one clone and never hold the lock while they copy.
	current *tree
	snaps   []snapshot // oldest first, at most Options.Snapshots
	bc      *watch.Broadcaster
	changed chan struct{} // closed and replaced when rv or ready changes
}

func newResource(c *Cache, prefix string) *resource {
	return &resource{c: c, prefix: prefix, changed: make(chan struct{})}
}

// notifyLocked wakes the requests waiting for a version or for readiness.
func (r *resource) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// run keeps the resource's store up to date until ctx ends: it starts the backend watch
// with its initial state, applies its events and, when the watch ends (an ERROR such as
// 410 Expired, a closed channel, a failure to start), ends the cache's watches so that
// their clients re-watch, and starts again after a backoff.
func (r *resource) run(ctx context.Context) {
	defer r.stop()
	delay := r.c.opts.RetryMin
	for {
		synced, err := r.sync(ctx)
		if ctx.Err() != nil {
			return
		}
		r.stop()
		if synced {
			delay = r.c.opts.RetryMin
		} else {
			r.mu.Lock()
			r.failing = true
			r.notifyLocked()
			r.mu.Unlock()
		}
		r.c.opts.Logger.Warn("watch cache: backend watch ended, relisting", "prefix", r.prefix, "err", err, "retryIn", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, r.c.opts.RetryMax)
	}
}

// stop ends the cache's watches of the resource and sends reads to the backend until
// the store is filled again.
func (r *resource) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bc != nil {
		r.bc.Stop()
		r.bc = nil
	}
	r.ready, r.live, r.current, r.snaps = false, nil, nil, nil
	r.notifyLocked()
}

// sync runs one backend watch: its initial events fill a new store (a watch-list, one
// consistent request instead of a list and a watch), then its changes are applied until
// it ends. synced tells whether the store was filled.
func (r *resource) sync(ctx context.Context) (synced bool, err error) {
	initial := true
	w, err := r.c.backend.Watch(ctx, r.prefix, storage.WatchOptions{Recursive: true, Bookmarks: true, SendInitialEvents: &initial})
	if err != nil {
		return false, fmt.Errorf("start: %w", err)
	}
	defer w.Stop()
	fill := btree.NewG(btreeDegree, lessKey)
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return synced, ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return synced, errors.New("backend watch closed")
		}
		if ev.Type == watch.Error {
			return synced, fmt.Errorf("backend watch: %v", statusMessage(ev.Object))
		}
		obj, isObj := ev.Object.(scheme.Object)
		if !isObj {
			return synced, fmt.Errorf("backend watch: %s event carries %T", ev.Type, ev.Object)
		}
		rv, err := storage.ParseResourceVersion(obj.GetResourceVersion())
		if err != nil {
			return synced, fmt.Errorf("backend watch: %w", err)
		}
		switch {
		case !synced && ev.Type == watch.Added:
			fill.ReplaceOrInsert(&item{key: r.keyOf(obj), obj: obj})
		case !synced && ev.Type == watch.Bookmark && obj.GetAnnotations()[watch.InitialEventsAnnotation] == "true":
			r.start(fill, rv)
			fill, synced = nil, true
		case !synced && ev.Type == watch.Bookmark:
			// A periodic bookmark among the initial events says nothing of the state.
		case !synced:
			return false, fmt.Errorf("backend watch: %s event before the end of the initial events", ev.Type)
		case ev.Type == watch.Bookmark:
			r.progress(rv)
		default:
			if err := r.apply(ev.Type, obj, rv); err != nil {
				return true, err
			}
		}
	}
}

// keyOf returns the storage key of an object of the resource, as storage.Key makes it.
func (r *resource) keyOf(obj scheme.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return r.prefix + ns + "/" + obj.GetName()
	}
	return r.prefix + obj.GetName()
}

func statusMessage(obj scheme.Kinded) string {
	if st, ok := obj.(*scheme.Status); ok {
		return fmt.Sprintf("%d %s: %s", st.Code, st.Reason, st.Message)
	}
	return fmt.Sprintf("%T", obj)
}

// start makes filled, the state at rv, the store and opens the broadcaster at rv.
func (r *resource) start(filled *tree, rv uint64) {
	o := r.c.opts
	bc := watch.NewBroadcaster(watch.Options{
		HistorySize:      o.HistorySize,
		HistoryAge:       o.HistoryAge,
		WatcherBuffer:    o.WatchBuffer,
		BookmarkInterval: o.BookmarkInterval,
		ResourceVersion:  rv,
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live, r.current, r.snaps = filled, nil, nil
	r.rv, r.lastEvent, r.ready, r.failing, r.bc = rv, rv, true, false, bc
	r.notifyLocked()
}

// progress records a bookmark of the backend watch: every change up to rv was applied.
func (r *resource) progress(rv uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rv <= r.rv {
		return
	}
	r.rv = rv
	r.bc.Progress(rv)
	r.notifyLocked()
}

// apply applies one change of the backend watch and publishes it to the cache's watches.
func (r *resource) apply(typ watch.EventType, obj scheme.Object, rv uint64) error {
	key := r.keyOf(obj)
	r.mu.Lock()
	defer r.mu.Unlock()
	if rv <= r.rv {
		return fmt.Errorf("backend watch: %s of %s at %d after %d", typ, key, rv, r.rv)
	}
	var prev scheme.Object
	var old *item
	var found bool
	if typ == watch.Deleted {
		old, found = r.live.Delete(&item{key: key})
	} else {
		old, found = r.live.ReplaceOrInsert(&item{key: key, obj: obj})
	}
	if found {
		prev = old.obj
	}
	if err := r.bc.Publish(watch.Change{Type: typ, Object: obj, PrevObject: prev, ResourceVersion: rv, Key: key}); err != nil {
		return err
	}
	if n := len(r.snaps); n > 0 && r.snaps[n-1].validUntil == 0 {
		r.snaps[n-1].validUntil = rv
	}
	r.rv, r.lastEvent, r.current = rv, rv, nil
	r.notifyLocked()
	return nil
}

// requestProgress sends the cache's watches a bookmark at the version reached.
func (r *resource) requestProgress() {
	r.mu.RLock()
	bc := r.bc
	r.mu.RUnlock()
	if bc != nil {
		bc.RequestProgress()
	}
}

// waitReady waits up to d for the store to be filled, unless the backend watch is
// failing to start.
func (r *resource) waitReady(ctx context.Context, d time.Duration) bool {
	return r.waitUntil(ctx, d, func() bool { return r.ready || r.failing }) && r.isReady()
}

func (r *resource) isReady() bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ready
}

// waitUntil waits up to d (or until ctx ends) for cond, which is called with r.mu held
// for reading.
func (r *resource) waitUntil(ctx context.Context, d time.Duration, cond func() bool) bool {
	var timer *time.Timer
	for {
		r.mu.RLock()
		ok, ch := cond(), r.changed
		r.mu.RUnlock()
		if ok {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// waitFresh waits up to FutureWait for the store to reach rv, asking the backend's
// watches for a bookmark (again every progressRetry) if it has not: the writes since may
// all have been to other resources. False means the request should not be served from
// the cache.
func (r *resource) waitFresh(ctx context.Context, rv uint64) bool {
	if r.reached(rv) {
		return true
	}
	deadline := time.Now().Add(r.c.opts.FutureWait)
	for {
		r.c.requestBackendProgress()
		wait := min(progressRetry, time.Until(deadline))
		if wait <= 0 {
			return false
		}
		if r.waitUntil(ctx, wait, func() bool { return r.ready && r.rv >= rv }) {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
	}
}

// waitReached waits up to FutureWait for the store to reach rv, without asking for a
// bookmark: for a write to this resource, whose own event will come.
func (r *resource) waitReached(ctx context.Context, rv uint64) bool {
	return r.waitUntil(ctx, r.c.opts.FutureWait, func() bool { return r.ready && r.rv >= rv })
}

func (r *resource) reached(rv uint64) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ready && r.rv >= rv
}

// view is a state of the store for one read.
type view struct {
	tree *tree
	rv   uint64
}

// latest returns a clone of the current state, or false when the store is not ready.
func (r *resource) latest() (view, bool) {
	r.mu.RLock()
	if !r.ready {
		r.mu.RUnlock()
		return view{}, false
	}
	if r.current != nil {
		v := view{r.current, r.rv}
		r.mu.RUnlock()
		return v, true
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ready {
		return view{}, false
	}
	if r.current == nil {
		if n := len(r.snaps); n > 0 && r.snaps[n-1].validUntil == 0 {
			r.current = r.snaps[n-1].tree // nothing changed since it was taken
		} else {
			r.current = r.live.Clone()
			r.keepLocked(snapshot{rv: r.lastEvent, tree: r.current})
		}
	}
	return view{r.current, r.rv}, true
}

// keepLocked adds s to the snapshots, dropping the oldest beyond Options.Snapshots.
func (r *resource) keepLocked(s snapshot) {
	if len(r.snaps) >= r.c.opts.Snapshots {
		copy(r.snaps, r.snaps[1:])
		r.snaps[len(r.snaps)-1] = snapshot{}
		r.snaps = r.snaps[:len(r.snaps)-1]
	}
	r.snaps = append(r.snaps, s)
}

// at returns the state at rv, or false when neither the store nor a snapshot holds it.
func (r *resource) at(rv uint64) (view, bool) {
	r.mu.RLock()
	ready, lastEvent, cur := r.ready, r.lastEvent, r.rv
	if ready {
		for i := len(r.snaps) - 1; i >= 0; i-- {
			if s := r.snaps[i]; s.holds(rv) {
				r.mu.RUnlock()
				return view{s.tree, rv}, true
			}
		}
	}
	r.mu.RUnlock()
	if !ready || rv < lastEvent || rv > cur {
		return view{}, false
	}
	v, ok := r.latest()
	if !ok || v.rv < rv {
		return view{}, false
	}
	// The store may have moved on since: it holds rv only if no change came after it.
	r.mu.RLock()
	held := r.lastEvent <= rv
	r.mu.RUnlock()
	if !held {
		return r.at(rv)
	}
	return view{v.tree, rv}, true
}

// dropSnapshotsBelow forgets the snapshots that hold no state at or after rv.
func (r *resource) dropSnapshotsBelow(rv uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := 0
	for i < len(r.snaps) && r.snaps[i].validUntil != 0 && r.snaps[i].validUntil <= rv {
		i++
	}
	r.snaps = append(r.snaps[:0], r.snaps[i:]...)
}
