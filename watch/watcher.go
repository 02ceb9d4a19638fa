package watch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// watchState says who feeds a watcher's result channel.
type watchState int

const (
	// stateCatchingUp: the watcher's own goroutine (initial events, history replay).
	stateCatchingUp watchState = iota
	// stateLive: Publish, directly, under the Broadcaster's lock; no goroutine.
	stateLive
	// stateClosed: nobody; the channel is closed.
	stateClosed
	// stateBatched: nobody; the consumer reads the history itself (see NextBatch).
	stateBatched
)

// watcher is one watch of a Broadcaster. While live it has no goroutine: Publish puts
// events straight into its buffered result channel. When it starts with events to replay,
// or when Publish finds its buffer full, a goroutine feeds it from the history window
// until it has caught up, puts it back on the live list and exits.
type watcher struct {
	b      *Broadcaster
	ctx    context.Context
	opts   WatchOptions
	minRV  uint64 // changes up to minRV are never delivered (the watch's from)
	out    chan Event
	stopCh chan struct{}
	stop   sync.Once

	// Guarded by b.mu.
	state      watchState
	cursor     uint64 // every change up to cursor has been queued for or skipped by w
	index      int    // position in b.live, -1 when not live
	releaseCtx func() bool

	// Owned by the catch-up goroutine of the moment (handed over under b.mu).
	batch []Event

	// Of a batch watcher (WatchOptions.Batches). The consumer owns cursor
	// and initialSent (changing cursor under the read lock); bookmarkDue is set under
	// the write lock and cleared by the consumer under the read lock.
	since       time.Duration // when it started, as time since the epoch
	initialSent int           // InitialObjects examined so far
	bookmarkDue bool
	ended       bool // an ERROR event was returned: the next NextBatch ends
	behind      bool // the last batch was full: more changes are waiting (see NextBatch)
	// Waiting for the notifier (see wait): waitState says whether w waits (waiting), was
	// woken (woken) or neither; a watcher the notifier woke holds a place in its window
	// (inWindow) until it asks for its next batch or stops.
	wake      chan struct{}
	waitState atomic.Int32
	inWindow  atomic.Bool
}

// feeder is one run of a watcher's catch-up goroutine, with its slow-watcher clock.
type feeder struct {
	*watcher
	slow  Timer
	slowC <-chan time.Time
}

// ResultChan returns the channel the watch's events arrive on.
func (w *watcher) ResultChan() <-chan Event { return w.out }

// Stop ends the watch; the result channel closes (at once when the watcher is live,
// otherwise as soon as its goroutine notices).
func (w *watcher) Stop() {
	w.stop.Do(func() { close(w.stopCh) })
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	switch w.state {
	case stateLive:
		w.b.removeLive(w)
		w.closeLocked()
	case stateBatched:
		w.b.removeBatched(w)
		w.closeLocked()
		w.leaveWindow()
	}
}

// closeLocked closes the result channel. Called with b.mu held, by whoever feeds w.
func (w *watcher) closeLocked() {
	if w.state == stateClosed {
		return
	}
	w.state = stateClosed
	close(w.out)
	if w.releaseCtx != nil {
		w.releaseCtx()
	}
}

func (w *watcher) stopping() bool {
	select {
	case <-w.stopCh:
		return true
	default:
		return false
	}
}

// filter turns a change into the event w sees, applying the key, the predicate and the
// selector transitions. Called with b.mu held, for reading only by a batch watcher.
func (w *watcher) filter(e *entry) (Event, bool) {
	c := &e.change
	if c.ResourceVersion <= w.minRV {
		return Event{}, false
	}
	if w.opts.Recursive {
		if !strings.HasPrefix(c.Key, w.opts.Key) {
			return Event{}, false
		}
	} else if c.Key != w.opts.Key {
		return Event{}, false
	}
	p := w.opts.Predicate
	if c.Type == Deleted && c.Object == nil {
		// The backend left the deleted object to be made on first use.
		if p != nil && !p(c.PrevObject) {
			return Event{}, false
		}
		v := w.leftOf(e)
		return Event{Type: Deleted, Object: v.obj, cache: v.cache}, true
	}
	ev := Event{Type: c.Type, Object: c.Object, cache: w.cacheOf(e)}
	if p == nil {
		return ev, true
	}
	switch c.Type {
	case Added:
		return ev, p(c.Object)
	case Deleted:
		last := c.PrevObject
		if last == nil {
			last = c.Object
		}
		return ev, p(last)
	default:
		now := p(c.Object)
		before := c.PrevObject != nil && p(c.PrevObject)
		switch {
		case now && before:
			return ev, true
		case now:
			ev.Type = Added
			return ev, true
		case before:
			v := w.leftOf(e)
			return Event{Type: Deleted, Object: v.obj, cache: v.cache}, true
		}
		return Event{}, false
	}
}

// cacheOf returns the encodeCache of e's object. A batch watcher, which holds only the
// read lock, does not make one: Publish makes it while batch watchers exist, and a
// change published before has none (its encoding is then not shared).
func (w *watcher) cacheOf(e *entry) *encodeCache {
	if w.opts.Batches {
		return e.cache
	}
	return e.sharedCache()
}

// leftOf returns e.leftSelector(), made under lazyMu by a batch watcher.
func (w *watcher) leftOf(e *entry) *view {
	if w.opts.Batches {
		w.b.lazyMu.Lock()
		defer w.b.lazyMu.Unlock()
	}
	return e.leftSelector()
}

// bookmark makes a BOOKMARK event at rv.
func (w *watcher) bookmark(rv uint64, initialEnd bool) Event {
	obj := w.opts.NewBookmarkObject(rv)
	obj.SetResourceVersion(strconv.FormatUint(rv, 10))
	if initialEnd {
		obj.SetAnnotations(map[string]string{InitialEventsAnnotation: "true"})
	}
	return Event{Type: Bookmark, Object: obj}
}

// run is the catch-up goroutine. lagged starts the slow-watcher clock: Publish found the
// buffer full.
func (w *watcher) run(lagged bool) {
	f := &feeder{watcher: w}
	if lagged {
		f.slow = w.b.clock.NewTimer(w.b.slow)
		f.slowC = f.slow.C()
	} else if w.opts.SendInitialEvents && !f.sendInitial() {
		f.finish()
		return
	}
	if !f.catchUp() {
		f.finish()
	}
}

func (w *feeder) sendInitial() bool {
	for _, obj := range w.opts.InitialObjects {
		if w.opts.Predicate != nil && !w.opts.Predicate(obj) {
			continue
		}
		if !w.send(Event{Type: Added, Object: obj}) {
			return false
		}
	}
	return w.opts.OmitInitialEventsEnd || w.send(w.bookmark(w.opts.InitialRV, true))
}

// catchUp delivers changes from the history window until w is back on the live list
// (true: the goroutine may exit) or the watch ends (false).
func (w *feeder) catchUp() bool {
	b := w.b
	for {
		b.mu.Lock()
		if b.stopped || w.stopping() {
			b.mu.Unlock()
			return false
		}
		joined, err := b.collect(w.watcher)
		b.mu.Unlock()
		if joined {
			// Publish feeds w again (and may lag it into a new feeder): hands off.
			w.disarm()
			return true
		}
		if err != nil {
			w.fail(err.Error())
			return false
		}
		for i, ev := range w.batch {
			if !w.send(ev) {
				return false
			}
			w.batch[i] = Event{}
		}
		w.batch = w.batch[:0]
	}
}

// send hands ev to the consumer, or reports false when the watch ends first (stopped, or
// behind for longer than the slow-watcher timeout, in which case it ends with an ERROR).
func (w *feeder) send(ev Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.slowC:
		w.slowC = nil
		w.fail(slowMessage(w.b.slow))
		return false
	case <-w.stopCh:
		return false
	case <-w.ctx.Done():
		return false
	case <-w.b.done:
		return false
	}
}

func (w *feeder) disarm() {
	if w.slow != nil {
		w.slow.Stop()
		w.slow = nil
	}
	w.slowC = nil
}

// fail sends a 410 Expired ERROR event (waiting for the consumer to take it or to stop).
func (w *feeder) fail(msg string) {
	select {
	case w.out <- expired(msg):
	case <-w.stopCh:
	case <-w.ctx.Done():
	case <-w.b.done:
	}
}

// expired is the 410 Expired ERROR event that ends a watcher that fell behind.
func expired(msg string) Event {
	return Event{Type: Error, Object: &scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   scheme.StatusFailure,
		Message:  msg,
		Reason:   scheme.StatusReasonExpired,
		Code:     http.StatusGone,
	}}
}

// slowMessage is the message of the ERROR event that ends a watcher whose consumer did
// not keep up for d.
func slowMessage(d time.Duration) string {
	return fmt.Sprintf("watch closed: the client did not keep up for %s; list again from the last resourceVersion seen", d)
}

// finish ends a watcher that its goroutine feeds.
func (w *feeder) finish() {
	w.disarm()
	w.b.mu.Lock()
	w.closeLocked()
	w.b.mu.Unlock()
}

// IsTooOld reports whether err is or wraps ErrTooOld.
func IsTooOld(err error) bool { return errors.Is(err, ErrTooOld) }
