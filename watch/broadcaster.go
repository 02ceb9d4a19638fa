package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// Change is one committed write, as a storage backend publishes it.
type Change struct {
	// Type is Added, Modified or Deleted.
	Type EventType
	// Object is the state after the write; for Deleted, the last state, carrying the
	// deletion's resourceVersion. The Broadcaster shares it with every watcher: after
	// Publish nobody may modify it. A Deleted change may leave it nil and set
	// PrevObject: the Broadcaster then makes it (a copy of PrevObject at ResourceVersion)
	// when a watcher first receives the change, so a delete nobody watches costs no copy.
	Object scheme.Object
	// PrevObject is the state before the write: nil for Added. Selector transitions are
	// computed from it, and a Deleted change is matched against it when it is set.
	PrevObject scheme.Object
	// ResourceVersion is the write's resourceVersion; it increases strictly from one
	// Publish to the next.
	ResourceVersion uint64
	// Key is the storage key, e.g. "/toys.example.com/widgets/ns1/w1"; watches select
	// changes by key or key prefix.
	Key string
}

// Clock tells the time and makes timers; Options.Clock replaces the system clock in tests.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that fires once, after d.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a Clock, like *time.Timer.
type Timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// Defaults for the zero Options.
const (
	DefaultHistorySize        = 1000
	DefaultHistoryAge         = 5 * time.Minute
	DefaultWatcherBuffer      = 100
	DefaultSlowWatcherTimeout = 10 * time.Second
	DefaultBookmarkInterval   = time.Minute
)

// Options configure a Broadcaster. The zero value is usable: every zero field takes its
// default.
type Options struct {
	// HistorySize bounds the history window by count (DefaultHistorySize).
	HistorySize int
	// HistoryAge bounds the history window by age (DefaultHistoryAge, the 5 minutes etcd
	// keeps by default). Old changes are dropped when the next change is published.
	HistoryAge time.Duration
	// WatcherBuffer is how many events each watcher may have queued and not yet taken
	// (DefaultWatcherBuffer).
	WatcherBuffer int
	// SlowWatcherTimeout is how long a watcher may stay behind a full buffer before it is
	// ended with a 410 Expired ERROR event (DefaultSlowWatcherTimeout). Meanwhile it costs
	// no memory: it catches up from the history window once its consumer reads again.
	SlowWatcherTimeout time.Duration
	// BookmarkInterval is how often watchers that asked for bookmarks get one
	// (DefaultBookmarkInterval); negative disables periodic bookmarks.
	BookmarkInterval time.Duration
	// ResourceVersion is the storage's current resourceVersion when the Broadcaster is
	// created: watches from older versions get ErrTooOld, since their changes were never
	// published here.
	ResourceVersion uint64
	// Clock supplies the time for the history's age bound and the timers for bookmarks
	// and slow watchers (the system clock if nil).
	Clock Clock
}

// Errors of a Broadcaster.
var (
	// ErrTooOld means a watch asked for changes older than the history window holds; the
	// storage layer reports it as 410 Gone / Expired and the client lists again.
	ErrTooOld = errors.New("too old resource version")
	// ErrStopped means the Broadcaster was stopped.
	ErrStopped = errors.New("watch broadcaster stopped")
	// ErrOutOfOrder means a Change was published with a resourceVersion not above the
	// current one.
	ErrOutOfOrder = errors.New("change published out of resourceVersion order")
	// ErrNoObject means a Change was published without its Object, which only a
	// Deleted change with a PrevObject may leave out.
	ErrNoObject = errors.New("change published without an object")
)

// InitialEventsAnnotation marks the BOOKMARK that ends the initial events of a watch with
// sendInitialEvents=true.
const InitialEventsAnnotation = "k8s.io/initial-events-end"

// Tuning of the catch-up path: events collected and history entries examined per lock hold.
const (
	catchUpBatch = 256
	catchUpScan  = 4096
)

// Broadcaster fans one stream of committed changes out to any number of watches, like
// kube-apiserver's watch cache. A storage backend publishes every write into it, in
// resourceVersion order, and serves every watch from it.
//
// It keeps a history window of recent changes (bounded by count and by age) so that a
// watch can start from a past resourceVersion, and a per-watcher bounded buffer so that
// Publish never waits for a watcher. A watcher that keeps up costs no goroutine: Publish
// filters each change for it and puts the event straight into its result channel. A
// watcher whose buffer is full is taken off that path and caught up from the history
// window by a goroutine of its own, which returns it to the live path when done; it is
// ended with an ERROR event if it stays behind longer than Options.SlowWatcherTimeout or
// falls out of the window. A batch watch (WatchOptions.Batches) has no buffer: its
// consumer reads the history window itself (see Batcher), and Publish only wakes the
// idle ones, through a goroutine of the Broadcaster's (the notifier).
type Broadcaster struct {
	size       int
	age        time.Duration
	buffer     int
	slow       time.Duration
	clock      Clock
	epoch      time.Time // history times are durations since epoch: see entry.at
	done       chan struct{}
	stopOnce   sync.Once
	bookmarkWG sync.WaitGroup

	// mu guards the fields below. Batch watchers read the history under the read lock,
	// each on its own goroutine; everything that changes state takes the write lock.
	mu      sync.RWMutex
	stopped bool
	rv      uint64 // newest resourceVersion published (or announced by Progress)
	floor   uint64 // every change with a resourceVersion above floor is in history
	history ring
	live    []*watcher // watchers fed directly by Publish
	batched []*watcher // watchers that read the history themselves (WatchOptions.Batches)
	waiters chan struct{}

	// Waking idle batch watchers: Publish only kicks the notifier (see notifyLoop), so
	// that a write never waits while a thousand idle watchers are made runnable.
	kick   chan struct{}
	idleMu sync.Mutex
	idle   []*watcher // batch watchers waiting for a change, woken by the notifier
	gone   int        // watchers on idle that stopped waiting (see forgetIdle)
	// Watchers the notifier woke that have not asked for their next batch yet (see
	// wakeWindow), and back, signalled when one does.
	woken  atomic.Int32
	back   chan struct{}
	lazyMu sync.Mutex // guards entry.left when made by a batch watcher (read lock only)
}

// NewBroadcaster returns a running Broadcaster; Stop releases it.
func NewBroadcaster(opts Options) *Broadcaster {
	b := &Broadcaster{
		size:   opts.HistorySize,
		age:    opts.HistoryAge,
		buffer: opts.WatcherBuffer,
		slow:   opts.SlowWatcherTimeout,
		clock:  opts.Clock,
		done:   make(chan struct{}),
		kick:   make(chan struct{}, 1),
		back:   make(chan struct{}, 1),
		rv:     opts.ResourceVersion,
		floor:  opts.ResourceVersion,
	}
	if b.size <= 0 {
		b.size = DefaultHistorySize
	}
	if b.age <= 0 {
		b.age = DefaultHistoryAge
	}
	if b.buffer <= 0 {
		b.buffer = DefaultWatcherBuffer
	}
	if b.slow <= 0 {
		b.slow = DefaultSlowWatcherTimeout
	}
	if b.clock == nil {
		b.clock = systemClock{}
	}
	b.epoch = b.clock.Now()
	b.history.limit = b.size
	interval := opts.BookmarkInterval
	if interval == 0 {
		interval = DefaultBookmarkInterval
	}
	if interval > 0 {
		b.bookmarkWG.Add(1)
		go b.bookmarkLoop(interval)
	}
	b.bookmarkWG.Add(1)
	go b.notifyLoop()
	return b
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }

// Publish records a committed change and hands it to every matching watcher. It never
// waits for a watcher. Changes must come in strictly increasing resourceVersion order;
// an out-of-order change is refused with ErrOutOfOrder, one without its object with
// ErrNoObject. After Stop, Publish does nothing.
func (b *Broadcaster) Publish(c Change) error {
	if c.Object == nil && (c.Type != Deleted || c.PrevObject == nil) {
		return fmt.Errorf("%w: %s at %d (key %q)", ErrNoObject, c.Type, c.ResourceVersion, c.Key)
	}
	now := b.clock.Now().Sub(b.epoch)
	e := entry{change: c, at: now} // its encodeCache is made for the first watcher
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return nil
	}
	if len(b.batched) > 0 {
		// Batch watchers share the cache and may not make it: they hold the read lock.
		e.cache = &encodeCache{}
		b.notify()
	}
	if c.ResourceVersion <= b.rv {
		return fmt.Errorf("%w: %d after %d (key %q)", ErrOutOfOrder, c.ResourceVersion, b.rv, c.Key)
	}
	for b.history.len() > 0 && (b.history.len() >= b.size || now-b.history.at(0).at > b.age) {
		b.floor = b.history.popFront()
	}
	b.history.push(e)
	ep := b.history.at(b.history.len() - 1) // the stored entry: filter may add to it
	prev := b.rv
	b.rv = c.ResourceVersion
	// Backwards, so that a watcher removed from live by lag (swapped with the last) does
	// not hide one not yet visited.
	for i := len(b.live) - 1; i >= 0; i-- {
		w := b.live[i]
		ev, ok := w.filter(ep)
		if !ok {
			continue
		}
		select {
		case w.out <- ev:
		default:
			b.lag(w, prev)
		}
	}
	if b.waiters != nil {
		close(b.waiters)
		b.waiters = nil
	}
	return nil
}

// Progress announces that the storage has reached resourceVersion rv without a change
// for this Broadcaster (a write to another resource, an etcd progress notification), so
// that bookmarks and WaitForRV see it. Versions not above the current one are ignored;
// later changes must be above rv.
func (b *Broadcaster) Progress(rv uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || rv <= b.rv {
		return
	}
	b.rv = rv
	if len(b.batched) > 0 {
		b.notify() // a bookmark that waits for the end of the history may now be due
	}
	if b.waiters != nil {
		close(b.waiters)
		b.waiters = nil
	}
}

// ResourceVersion returns the newest resourceVersion published or announced.
func (b *Broadcaster) ResourceVersion() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rv
}

// OldestResourceVersion returns the oldest resourceVersion a watch may start from:
// Watch(from) with from below it fails with ErrTooOld.
func (b *Broadcaster) OldestResourceVersion() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.floor
}

// WaitForRV blocks until the Broadcaster has reached resourceVersion rv, ctx ends (its
// error is returned) or the Broadcaster stops (ErrStopped). The storage layer uses it to
// serve reads and watches at a resourceVersion it has not seen yet, with its own deadline.
func (b *Broadcaster) WaitForRV(ctx context.Context, rv uint64) error {
	for {
		b.mu.Lock()
		if b.rv >= rv {
			b.mu.Unlock()
			return nil
		}
		if b.stopped {
			b.mu.Unlock()
			return ErrStopped
		}
		if b.waiters == nil {
			b.waiters = make(chan struct{})
		}
		ch := b.waiters
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-b.done:
			return ErrStopped
		}
	}
}

// Stop ends every watch (their result channels close) and the Broadcaster's own
// goroutine. Publish and Watch do nothing after Stop. It is safe to call more than once.
func (b *Broadcaster) Stop() {
	b.stopOnce.Do(func() {
		b.mu.Lock()
		b.stopped = true
		close(b.done)
		for _, w := range b.live {
			w.index = -1
			w.closeLocked()
		}
		for _, w := range b.batched {
			w.index = -1
			w.closeLocked()
		}
		b.live, b.batched = nil, nil
		b.mu.Unlock()
		b.bookmarkWG.Wait()
	})
}

// WatchOptions select what one watch receives.
type WatchOptions struct {
	// Key selects changes to one storage key, or with Recursive to every key under the
	// prefix Key (a "/" is added to a prefix that lacks one, so "/widgets/ns1" does not
	// match "/widgets/ns10/x"). An empty Key with Recursive selects every change.
	Key       string
	Recursive bool
	// Predicate is the label and field selector; nil matches everything. It is called
	// with shared objects, under the Broadcaster's lock (for a batch watch, its read lock,
	// on the consumer's goroutine, while other watches' predicates run): it must be fast,
	// must not modify the object and must not call the Broadcaster. As in kube-apiserver, a Modified
	// change whose PrevObject matches and whose Object does not is delivered as DELETED
	// of the last matching state (a copy of PrevObject carrying the change's
	// resourceVersion, made once per change and shared), the opposite as ADDED of
	// Object, neither matching not at all.
	Predicate func(obj scheme.Object) bool
	// Bookmarks asks for a BOOKMARK event every Options.BookmarkInterval, carrying the
	// current resourceVersion (allowWatchBookmarks=true).
	Bookmarks bool
	// SendInitialEvents starts the watch with a synthetic ADDED event for each of
	// InitialObjects (those Predicate matches), the state at InitialRV, then a BOOKMARK at
	// InitialRV annotated "k8s.io/initial-events-end": "true", then every change after
	// InitialRV. The from argument of Watch is then ignored; InitialRV 0 means the current
	// resourceVersion. (kube-apiserver requires allowWatchBookmarks=true with
	// sendInitialEvents=true; the HTTP layer enforces that.)
	SendInitialEvents bool
	InitialObjects    []scheme.Object
	InitialRV         uint64
	// OmitInitialEventsEnd leaves out the final bookmark of the initial events: the
	// legacy watch from resourceVersion "" or "0" without sendInitialEvents sends the
	// state as ADDED events and continues without one.
	OmitInitialEventsEnd bool
	// Batches makes a watch whose consumer reads it with NextBatch (see Batcher) instead
	// of ResultChan: its events are read from the history window by the consumer's own
	// goroutine, several at a time, so that Publish does no work per such watcher and
	// wakes an idle one once, however many changes it then reads. It is as far behind as
	// the window allows (no WatcherBuffer), and ends with the 410 ERROR below when it
	// falls out of the window or leaves a change unread for longer than
	// Options.SlowWatcherTimeout. Nothing is sent on its ResultChan, which closes when
	// the watch ends.
	Batches bool
	// NewBookmarkObject returns an empty object of the watched kind (apiVersion and kind
	// set) for a bookmark at rv; the Broadcaster sets its resourceVersion (and the
	// initial-events annotation). Required with Bookmarks or SendInitialEvents. It is
	// called under the Broadcaster's lock: keep it cheap.
	NewBookmarkObject func(rv uint64) scheme.Object
}

// Watch starts a watch. With from > 0 it first replays every matching change with a
// resourceVersion above from, then continues with new changes, with no gap and no
// duplicate; from == 0 means from now. A from older than the history window fails with
// ErrTooOld (wrapped). A from newer than the current resourceVersion is allowed: the
// watch then skips changes up to from (the storage layer decides how long a client may
// wait for a future version, see WaitForRV). Replay and initial events are sent at the
// consumer's pace, without the slow-watcher timeout (as kube-apiserver does); a watcher
// that falls out of the history window meanwhile ends with the ERROR below.
//
// The watch ends, and its result channel closes, when ctx ends, when Stop is called on it
// or on the Broadcaster, or after an ERROR event: a *scheme.Status with code 410 and
// reason Expired when the watcher fell out of the history window or stayed behind longer
// than Options.SlowWatcherTimeout. client-go's reflector treats 410 Expired as "relist
// from the last resourceVersion seen", quietly, which is exactly what such a client needs;
// kube-apiserver itself closes such a watch without an event, which the reflector answers
// by re-watching from a resourceVersion that may already be gone.
func (b *Broadcaster) Watch(ctx context.Context, from uint64, wo WatchOptions) (Interface, error) {
	if (wo.Bookmarks || wo.SendInitialEvents && !wo.OmitInitialEventsEnd) && wo.NewBookmarkObject == nil {
		return nil, errors.New("watch: NewBookmarkObject is required with Bookmarks or SendInitialEvents")
	}
	if wo.Recursive && wo.Key != "" && !strings.HasSuffix(wo.Key, "/") {
		wo.Key += "/"
	}
	if wo.SendInitialEvents {
		from = wo.InitialRV
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return nil, ErrStopped
	}
	if from == 0 {
		from = b.rv
	}
	if from < b.floor {
		return nil, fmt.Errorf("%w: %d (%d)", ErrTooOld, from, b.floor)
	}
	if wo.SendInitialEvents {
		wo.InitialRV = from
	}
	w := &watcher{
		b:      b,
		ctx:    ctx,
		opts:   wo,
		cursor: from,
		minRV:  from,
		index:  -1,
		out:    make(chan Event, b.buffer),
		stopCh: make(chan struct{}),
	}
	if wo.Batches {
		// Read by NextBatch from the history: no channel buffer, no goroutine.
		w.out = make(chan Event)
		w.wake = make(chan struct{}, 1)
		w.state = stateBatched
		w.since = b.clock.Now().Sub(b.epoch)
		w.index = len(b.batched)
		b.batched = append(b.batched, w)
	}
	w.releaseCtx = context.AfterFunc(ctx, w.Stop)
	if wo.Batches {
		return w, nil
	}
	if !wo.SendInitialEvents && b.history.after(from) == b.history.len() {
		// Nothing to replay: Publish feeds it from now on, no goroutine needed.
		w.state = stateLive
		b.addLive(w)
		return w, nil
	}
	w.state = stateCatchingUp
	go w.run(false)
	return w, nil
}

// lag takes w off the live list: its buffer is full. Everything up to rv has been queued
// for it; a goroutine catches it up from the history, under the slow-watcher clock.
// Called with b.mu held.
func (b *Broadcaster) lag(w *watcher, rv uint64) {
	b.removeLive(w)
	w.state = stateCatchingUp
	w.cursor = rv
	go w.run(true)
}

func (b *Broadcaster) addLive(w *watcher) {
	w.index = len(b.live)
	b.live = append(b.live, w)
}

func (b *Broadcaster) removeLive(w *watcher) { removeWatcher(&b.live, w) }

// removeWatcher takes w out of list (b.live or b.batched), where w.index is its place.
func removeWatcher(list *[]*watcher, w *watcher) {
	i := w.index
	if i < 0 {
		return
	}
	l := *list
	last := len(l) - 1
	l[i] = l[last]
	l[i].index = i
	l[last] = nil
	*list = l[:last]
	w.index = -1
}

// collect fills w.batch with the next changes w has not seen, up to catchUpBatch events;
// when there are none left (and the last batch was delivered) it puts w back on the live
// list instead (joined). Called with b.mu held.
func (b *Broadcaster) collect(w *watcher) (joined bool, err error) {
	if w.cursor < b.floor {
		return false, fmt.Errorf("%w: %d (%d)", ErrTooOld, w.cursor, b.floor)
	}
	i := b.history.after(w.cursor)
	for scanned := 0; i < b.history.len() && len(w.batch) < catchUpBatch && scanned < catchUpScan; scanned++ {
		e := b.history.at(i)
		if ev, ok := w.filter(e); ok {
			w.batch = append(w.batch, ev)
		}
		w.cursor = e.change.ResourceVersion
		i++
	}
	if i < b.history.len() || len(w.batch) > 0 {
		return false, nil
	}
	w.state = stateLive
	b.addLive(w)
	return true, nil
}

func (b *Broadcaster) bookmarkLoop(interval time.Duration) {
	defer b.bookmarkWG.Done()
	for {
		t := b.clock.NewTimer(interval)
		select {
		case <-t.C():
			b.sendBookmarks()
		case <-b.done:
			t.Stop()
			return
		}
	}
}

// sendBookmarks queues a bookmark at the current resourceVersion for every live watcher
// that asked, unless its buffer is half full (a busy watcher does not need one); a batch
// watcher gets it once it has read the history to its end.
func (b *Broadcaster) sendBookmarks() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.batched {
		if w.opts.Bookmarks && b.rv >= w.minRV {
			w.bookmarkDue = true
		}
	}
	if len(b.batched) > 0 {
		b.notify()
	}
	for _, w := range b.live {
		if !w.opts.Bookmarks || b.rv < w.minRV || len(w.out) > cap(w.out)/2 {
			continue
		}
		select {
		case w.out <- w.bookmark(b.rv, false):
		default:
		}
	}
}
