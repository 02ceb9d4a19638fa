package watch

import (
	"fmt"
	"runtime"
	"time"
)

// Batcher is implemented by the watches of a Broadcaster. A consumer that writes events
// out in batches (an HTTP watch writes every event it has in one write) reads them with
// NextBatch rather than one at a time from ResultChan.
type Batcher interface {
	// NextBatch waits until the watch has at least one event for the consumer, then
	// appends every event it has (up to a batch's worth) to dst and returns it. It
	// returns false when the watch has ended: stopped, its context done, the Broadcaster
	// stopped, or after the ERROR event that ended it was returned. Calls must not
	// overlap.
	NextBatch(dst []Event) ([]Event, bool)
}

var _ Batcher = (*watcher)(nil)

// NextBatch reads the watch's next events; see Batcher. A watch made without
// WatchOptions.Batches hands out what its result channel holds; a batch watch reads the
// history window from its cursor, so that Publish does nothing per batch watcher.
func (w *watcher) NextBatch(dst []Event) ([]Event, bool) {
	if !w.opts.Batches {
		return w.drain(dst)
	}
	w.leaveWindow()
	if w.behind {
		// The last batch was full: more is waiting. Other watchers go first, once, so
		// that watchers behind by many changes read them at about the same time and
		// find them in the processor's cache, instead of each racing through the whole
		// backlog on its own.
		w.behind = false
		runtime.Gosched()
	}
	start := len(dst)
	for {
		if w.ended || w.stopping() || w.ctx.Err() != nil {
			return dst, false
		}
		if w.opts.SendInitialEvents {
			if dst = w.appendInitial(dst); len(dst) > start {
				return dst, true
			}
		}
		b := w.b
		b.mu.RLock()
		if w.state != stateBatched {
			b.mu.RUnlock()
			return dst, false
		}
		var ended bool
		dst, ended = w.appendChanges(dst)
		if len(dst) > start || ended {
			b.mu.RUnlock()
			w.ended = ended
			w.behind = len(dst)-start >= catchUpBatch
			return dst, true
		}
		// Nothing to read: wait for the notifier, registered before the read lock is
		// let go, so that no change published meanwhile goes unnoticed.
		b.idleMu.Lock()
		w.waitState.Store(waiting)
		b.idle = append(b.idle, w)
		b.idleMu.Unlock()
		b.mu.RUnlock()
		if !w.wait() {
			return dst, false
		}
	}
}

// States of a batch watcher's wait for the notifier.
const (
	notWaiting int32 = iota
	waiting
	woken
)

// wait waits for the notifier to wake w, or reports false when the watch ends first.
func (w *watcher) wait() bool {
	select {
	case <-w.wake:
		w.waitState.Store(notWaiting)
		return true
	case <-w.stopCh:
	case <-w.ctx.Done():
	case <-w.b.done:
	}
	if w.waitState.CompareAndSwap(waiting, notWaiting) {
		w.b.forgetIdle()
	} else {
		// The notifier woke w meanwhile: give its place in the window back.
		<-w.wake
		w.waitState.Store(notWaiting)
		w.leaveWindow()
	}
	return false
}

// forgetIdle counts a watcher that stopped waiting without being woken: it stays on the
// idle list until the notifier takes the list, or until such watchers are half of it and
// the list is compacted, so that watches that come and go while nothing is published do
// not pile up there.
func (b *Broadcaster) forgetIdle() {
	b.idleMu.Lock()
	defer b.idleMu.Unlock()
	b.gone++
	if b.gone < 64 || b.gone < len(b.idle)/2 {
		return
	}
	kept := b.idle[:0]
	for _, w := range b.idle {
		if w.waitState.Load() == waiting {
			kept = append(kept, w)
		}
	}
	clear(b.idle[len(kept):])
	b.idle, b.gone = kept, 0
}

// leaveWindow gives back the place in the notifier's window of a watcher it woke: w has
// written what it read and asks for more, or has stopped.
func (w *watcher) leaveWindow() {
	if !w.inWindow.CompareAndSwap(true, false) {
		return
	}
	b := w.b
	b.woken.Add(-1)
	select {
	case b.back <- struct{}{}:
	default: // the notifier has one already
	}
}

// drain receives one event from the result channel, waiting for it, and then those
// already queued behind it, up to catchUpBatch.
func (w *watcher) drain(dst []Event) ([]Event, bool) {
	ev, ok := <-w.out
	if !ok {
		return dst, false
	}
	dst = append(dst, ev)
	for range catchUpBatch - 1 {
		if ev.Type == Error {
			break // the last event of a watch
		}
		select {
		case ev, ok = <-w.out:
			if !ok {
				return dst, true
			}
			dst = append(dst, ev)
			continue
		default:
		}
		break
	}
	return dst, true
}

// appendInitial appends the next initial events (SendInitialEvents) of a batch watcher,
// up to catchUpBatch, and the bookmark that ends them.
func (w *watcher) appendInitial(dst []Event) []Event {
	objs := w.opts.InitialObjects
	if w.initialSent > len(objs) {
		return dst
	}
	start := len(dst)
	for ; w.initialSent < len(objs) && len(dst)-start < catchUpBatch; w.initialSent++ {
		obj := objs[w.initialSent]
		if w.opts.Predicate == nil || w.opts.Predicate(obj) {
			dst = append(dst, Event{Type: Added, Object: obj})
		}
	}
	if w.initialSent == len(objs) && len(dst)-start < catchUpBatch {
		w.initialSent++ // past the end: done
		if !w.opts.OmitInitialEventsEnd {
			dst = append(dst, w.bookmark(w.opts.InitialRV, true))
		}
	}
	return dst
}

// appendChanges appends the changes after w's cursor that w selects, up to catchUpBatch
// events and catchUpScan changes examined, or a due bookmark when there are none; or the
// 410 ERROR that ends w (ended) when it fell out of the history window or left a change
// published after it started unread for longer than the slow-watcher timeout. Called
// with b.mu held for reading.
func (w *watcher) appendChanges(dst []Event) (_ []Event, ended bool) {
	b := w.b
	if w.cursor < b.floor {
		return append(dst, expired(fmt.Sprintf("%s: %d (%d)", ErrTooOld, w.cursor, b.floor))), true
	}
	i := b.history.after(w.cursor)
	if i < b.history.len() {
		if e := b.history.at(i); e.at >= w.since && b.clock.Now().Sub(b.epoch)-e.at > b.slow {
			return append(dst, expired(slowMessage(b.slow))), true
		}
	}
	start := len(dst)
	for scanned := 0; i < b.history.len() && len(dst)-start < catchUpBatch && scanned < catchUpScan; scanned++ {
		e := b.history.at(i)
		if ev, ok := w.filter(e); ok {
			dst = append(dst, ev)
		}
		w.cursor = e.change.ResourceVersion
		i++
	}
	if i == b.history.len() && len(dst) == start && w.bookmarkDue {
		w.bookmarkDue = false
		w.cursor = max(w.cursor, b.rv)
		dst = append(dst, w.bookmark(b.rv, false))
	}
	return dst, false
}

// notify wakes the batch watchers waiting for a change, through the notifier: the
// caller, a writer holding b.mu, does not wait while they are made runnable. Called with
// b.mu held.
func (b *Broadcaster) notify() {
	select {
	case b.kick <- struct{}{}:
	default: // a wake-up is pending already: it covers this change too
	}
}

// Wake-up rounds of idle batch watchers: after one round, the next waits until
// wakeRoundPerWatcher for each batch watcher has passed, at most wakeRoundMax. An idle
// Broadcaster wakes its watchers at once; a busy one wakes each at most once per round,
// however many changes the round carries: with 1,000 watchers, a round every 20 ms
// costs each watcher one wake-up and one write(2) per 20 ms, whether 1 or 100 changes
// were published meanwhile, instead of one per change.
const (
	wakeRoundPerWatcher = 20 * time.Microsecond
	wakeRoundMax        = 20 * time.Millisecond
)

// A round wakes its watchers through a window: at most wakeWindow of those it woke are
// still busy with what they read (have not asked for their next batch), the next one is
// woken when one of them asks. So only a few watchers are runnable at once, and a
// writer's goroutines, made runnable by the network meanwhile, queue behind those rather
// than behind a thousand watchers' writes. When none asks within windowWait (their
// clients do not read and their writes block) the next is woken anyway.
const windowWait = 500 * time.Microsecond

// wakeWindow is how many woken watchers may be busy at once: enough to keep every
// processor busy while some wait in write(2) or their thread is off the CPU, few enough
// that a writer's goroutine queues behind well under a millisecond of watch writes. (On
// 2 cores shared with other load, 1,000 watchers over TLS: 16 gave a median writer PUT
// p99 of 934 ms and delivery p99 of 2.0 s over 3 runs, 4 gave 1,135 ms and 2.2 s, the
// unwindowed fan-out before batch watches 1,515 ms and 2.1 s.)
func wakeWindow() int { return max(16, 8*runtime.GOMAXPROCS(0)) }

// notifyLoop wakes the idle batch watchers whenever notify asks, in rounds at most
// wakeRound apart, through the window, until the Broadcaster stops. Changes published
// meanwhile are read by the next round, so under load one wake-up serves many changes.
// The rounds keep the system clock: they pace the work, not what a watcher receives.
func (b *Broadcaster) notifyLoop() {
	defer b.bookmarkWG.Done()
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	defer pause.Stop()
	var spare []*watcher
	for {
		select {
		case <-b.kick:
		case <-b.done:
			return
		}
		b.idleMu.Lock()
		idle := b.idle
		b.idle, b.gone = spare[:0], 0
		b.idleMu.Unlock()
		if len(idle) == 0 {
			spare = idle
			continue
		}
		start := time.Now()
		if !b.wakeAll(idle, pause) {
			return
		}
		clear(idle)
		spare = idle
		b.mu.RLock()
		round := min(wakeRoundMax, time.Duration(len(b.batched))*wakeRoundPerWatcher)
		b.mu.RUnlock()
		if !b.sleep(pause, round-time.Since(start)) {
			return
		}
	}
}

// wakeAll wakes the watchers through the window (see windowWait); false when the
// Broadcaster stopped meanwhile. Each time none of the busy watchers asks for more within
// windowWait, the window grows by one for the rest of the round: a watcher whose write
// blocks (its client does not read) takes no processor, and costs the round one
// windowWait, not one per watcher woken after it.
func (b *Broadcaster) wakeAll(idle []*watcher, pause *time.Timer) bool {
	window := int32(wakeWindow())
	for _, w := range idle {
	wait:
		for b.woken.Load() >= window {
			pause.Reset(windowWait)
			select {
			case <-b.back:
				if !pause.Stop() {
					<-pause.C
				}
			case <-pause.C:
				window++
				break wait
			case <-b.done:
				return false
			}
		}
		if w.waitState.CompareAndSwap(waiting, woken) {
			w.inWindow.Store(true)
			b.woken.Add(1)
			w.wake <- struct{}{}
		}
	}
	return true
}

// sleep waits for d, or reports false when the Broadcaster stops first.
func (b *Broadcaster) sleep(pause *time.Timer, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	pause.Reset(d)
	select {
	case <-pause.C:
		return true
	case <-b.done:
		return false
	}
}

func (b *Broadcaster) removeBatched(w *watcher) { removeWatcher(&b.batched, w) }
