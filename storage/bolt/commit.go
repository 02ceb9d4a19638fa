package bolt

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Record is one write: the new value of a key, or its deletion, at a resource version.
type Record struct {
	// Key is the storage key; it must not be empty or longer than bbolt.MaxKeySize bytes.
	Key string
	// Value is the key's new value; nil deletes the key (an empty, non-nil slice stores an
	// empty value). Deleting a key that does not exist is not an error.
	Value []byte
	// ResourceVersion is the version of this write, chosen by the caller; it must be
	// greater than that of every record queued before.
	ResourceVersion uint64
}

// encodedRecord is a Record as the committer writes it: val is nil for a delete, else the
// resource version followed by the value.
type encodedRecord struct {
	key []byte
	val []byte
}

// Pending is a queued call of Enqueue: its records become durable together, after every
// record queued before them, or fail together.
type Pending struct {
	log     *Log
	recs    []encodedRecord
	one     [1]encodedRecord // recs of a single-record call, saving an allocation
	firstRV uint64
	lastRV  uint64
	done    chan struct{}
	err     error
}

// closedChan is the Done channel of a Pending that had nothing to write.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Done returns a channel that is closed when the records are durable or have failed.
func (p *Pending) Done() <-chan struct{} {
	return p.done
}

// Err returns nil if the records are durable and the error that failed them otherwise.
// It is valid once Done is closed; before that it returns nil.
func (p *Pending) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Wait blocks until the records are durable (nil) or have failed (the error), or until
// ctx ends (ctx.Err()). When ctx ends first the records stay queued and may still become
// durable.
func (p *Pending) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		select {
		case <-p.done:
			return p.err
		default:
			return ctx.Err()
		}
	}
}

// TryCommit writes the records on the calling goroutine, and returns once they are
// durable or have failed, when nothing else is being written and they are first in
// line; otherwise it returns at once and the committer writes them. A caller about to
// wait for its records calls it first: a write when the log is idle (one client, one
// write at a time) then costs no handoff to the committer goroutine and back, about 5%
// of a create's time on the example server. What was queued behind the records is
// written with them, up to Options.MaxBatch records, as the committer would.
//
// It leaves the write to the committer when Options.MaxBatchDelay is set (the committer
// waits for more) and when the checkpointer is behind (a write would wait for it): the
// caller then waits on Done, which its context can end. An inline write is one append
// and one fdatasync, which no context ends.
func (p *Pending) TryCommit() {
	l := p.log
	if l == nil {
		return
	}
	l.walMu.Lock()
	behind := l.unappliedBytes >= l.maxPending // a write would wait for a checkpoint
	l.walMu.Unlock()
	if behind {
		l.signal()
		return
	}
	l.mu.Lock()
	if l.writing || l.maxDelay > 0 || l.failed != nil || len(l.queue) == 0 || l.queue[0] != p {
		l.mu.Unlock()
		l.signal() // the committer writes them, or already has
		return
	}
	l.writing = true
	var buf [4]*Pending
	batch := l.take(buf[:0])
	l.mu.Unlock()
	l.commit(batch, nil) // l.failed was nil when the batch was taken
	if l.release() {     // the committer does not write while a caller does
		l.signal()
	}
}

// Commit writes recs durably (fsync'ed, unless Options.NoSync) and atomically, after
// every record of earlier calls, and returns nil once they are. It is Enqueue followed
// by Pending.TryCommit and Pending.Wait: a ctx that has already ended queues nothing and
// returns ctx.Err(); a ctx that ends while waiting for the committer returns ctx.Err()
// with the outcome unknown (the records may still become durable). Commit does not keep
// recs or their values after it returns.
func (l *Log) Commit(ctx context.Context, recs ...Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.Enqueue(recs...)
	if err != nil {
		return err
	}
	p.TryCommit()
	return p.Wait(ctx)
}

// Enqueue validates recs and queues them for the committer, in call order, and returns
// at once; the returned Pending reports when they are durable. Their resource versions
// must increase strictly and exceed those of every earlier record (else ErrOutOfOrder);
// a caller that assigns versions should do so and call Enqueue under one lock, and wait
// outside it. Enqueue copies what it needs: recs and their values may be reused as soon
// as it returns. It fails with ErrClosed after Close and ErrFailed after a failed commit.
func (l *Log) Enqueue(recs ...Record) (*Pending, error) {
	return l.enqueue(true, recs...)
}

// enqueue is Enqueue; without wake it leaves the committer asleep, for a caller that
// calls TryCommit on the Pending before it waits, which writes the records or wakes it.
func (l *Log) enqueue(wake bool, recs ...Record) (*Pending, error) {
	if len(recs) == 0 {
		return &Pending{done: closedChan}, nil
	}
	size := 0
	for i, r := range recs {
		switch {
		case r.Key == "":
			return nil, fmt.Errorf("bolt: record at resource version %d: %w: empty key", r.ResourceVersion, ErrInvalidRecord)
		case len(r.Key) > bbolt.MaxKeySize:
			return nil, fmt.Errorf("bolt: record at resource version %d: %w: key of %d bytes is longer than %d", r.ResourceVersion, ErrInvalidRecord, len(r.Key), bbolt.MaxKeySize)
		case int64(len(r.Value)) > bbolt.MaxValueSize-rvSize:
			return nil, fmt.Errorf("bolt: record %q: %w: value of %d bytes is too large", r.Key, ErrInvalidRecord, len(r.Value))
		case i > 0 && r.ResourceVersion <= recs[i-1].ResourceVersion:
			return nil, fmt.Errorf("bolt: record %q: %w: resource version %d follows %d in the same call",
				r.Key, ErrOutOfOrder, r.ResourceVersion, recs[i-1].ResourceVersion)
		}
		size += len(r.Key)
		if r.Value != nil {
			size += rvSize + len(r.Value)
		}
	}

	p := &Pending{
		log:     l,
		firstRV: recs[0].ResourceVersion,
		lastRV:  recs[len(recs)-1].ResourceVersion,
		done:    make(chan struct{}),
	}
	enc := p.one[:]
	if len(recs) > 1 {
		enc = make([]encodedRecord, len(recs))
	}
	// One buffer holds every key and encoded value of the call.
	buf := make([]byte, 0, size)
	for i, r := range recs {
		buf = append(buf, r.Key...)
		enc[i].key = buf[len(buf)-len(r.Key):]
		if r.Value != nil {
			start := len(buf)
			buf = binary.BigEndian.AppendUint64(buf, r.ResourceVersion)
			buf = append(buf, r.Value...)
			enc[i].val = buf[start:]
		}
	}
	p.recs = enc

	l.mu.Lock()
	switch {
	case l.closing:
		l.mu.Unlock()
		return nil, fmt.Errorf("bolt: commit to %s: %w", l.path, ErrClosed)
	case l.failed != nil:
		err := l.failed
		l.mu.Unlock()
		return nil, fmt.Errorf("bolt: commit to %s: %w: %w", l.path, ErrFailed, err)
	case p.firstRV <= l.queuedRV:
		last := l.queuedRV
		l.mu.Unlock()
		return nil, fmt.Errorf("bolt: record %q: %w: resource version %d is not above %d, the last one queued",
			recs[0].Key, ErrOutOfOrder, p.firstRV, last)
	}
	l.queuedRV = p.lastRV
	l.queue = append(l.queue, p)
	l.queuedRecs += len(p.recs)
	l.mu.Unlock()
	if wake {
		l.signal()
	}
	return p, nil
}

// signal wakes the committer without blocking.
func (l *Log) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run is the committer goroutine: it writes queued calls in batches until Close has begun
// and the queue is empty, taking turns with callers of TryCommit.
func (l *Log) run() {
	defer close(l.stopped)
	var batch []*Pending // reused from batch to batch
	for {
		l.mu.Lock()
		for len(l.queue) == 0 || l.writing {
			if l.closing && len(l.queue) == 0 && !l.writing {
				l.mu.Unlock()
				return
			}
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		l.writing = true
		if l.maxDelay > 0 && l.queuedRecs < l.maxBatch && !l.closing && l.failed == nil {
			l.mu.Unlock()
			l.linger()
			l.mu.Lock()
		}
		batch = l.take(batch[:0])
		failed := l.failed
		l.mu.Unlock()
		l.commit(batch, failed)
		l.release()
	}
}

// commit writes batch, which the holder of writing took from the queue, and releases
// its callers. failed is the log's failure as the holder saw it when it took the batch:
// the batch then fails with it, unwritten. A failed write fails the log, and everything
// queued after it.
func (l *Log) commit(batch []*Pending, failed error) {
	if failed != nil {
		complete(batch, fmt.Errorf("bolt: commit to %s: %w: %w", l.path, ErrFailed, failed))
		return
	}
	first, last := batch[0].firstRV, batch[len(batch)-1].lastRV
	if err := l.write(batch, first, last); err != nil {
		err = fmt.Errorf("bolt: commit of resource versions %d to %d to %s: %w", first, last, l.path, err)
		l.logger.Error("storage log commit failed; the log accepts no more writes", "path", l.path, "error", err)
		l.mu.Lock()
		l.failed = err
		l.mu.Unlock()
		complete(batch, err)
		return
	}
	l.durableRV.Store(last)
	complete(batch, nil)
}

// release gives up writing and reports whether anything is queued or Close has begun.
func (l *Log) release() (more bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writing = false
	return len(l.queue) > 0 || l.closing
}

// linger waits up to MaxBatchDelay for MaxBatch records to be queued, or for Close.
func (l *Log) linger() {
	timer := time.NewTimer(l.maxDelay)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return
		case <-l.wake:
			l.mu.Lock()
			enough := l.queuedRecs >= l.maxBatch || l.closing
			l.mu.Unlock()
			if enough {
				return
			}
		}
	}
}

// take moves the next batch from the queue to the end of batch: whole calls, oldest
// first, up to maxBatch records, but at least one call however large. l.mu must be held.
func (l *Log) take(batch []*Pending) []*Pending {
	n, recs := 0, 0
	for n < len(l.queue) {
		size := len(l.queue[n].recs)
		if n > 0 && recs+size > l.maxBatch {
			break
		}
		n++
		recs += size
	}
	batch = append(batch, l.queue[:n]...)
	rest := copy(l.queue, l.queue[n:])
	clear(l.queue[rest:])
	l.queue = l.queue[:rest]
	l.queuedRecs -= recs
	return batch
}

// write appends batch to the write-ahead log as one frame, made durable by one
// fdatasync, and hands its records to the checkpointer.
func (l *Log) write(batch []*Pending, first, last uint64) error {
	records := 0
	for _, p := range batch {
		records += len(p.recs)
	}
	frame := append(l.frameBuf[:0], make([]byte, frameHeaderSize)...)
	frame = appendFramePayload(frame, batch)
	defer func() {
		if cap(frame) <= maxKeptFrameBuffer {
			l.frameBuf = frame[:0]
		}
	}()
	if l.testHook != nil {
		if err := l.testHook(records, first, last); err != nil {
			return err
		}
	}
	if err := l.waitForCheckpointer(); err != nil {
		return err
	}
	// The frame chains to the last durable one: the committer alone advances durableRV.
	if err := l.wal.append(frame, l.durableRV.Load(), first, last, l.takeSegment, l.retireSegment); err != nil {
		return err
	}

	applied := appliedFrame{firstRV: first, lastRV: last, bytes: alignFrame(int64(len(frame))), recs: make([]encodedRecord, 0, records)}
	for _, p := range batch {
		applied.recs = append(applied.recs, p.recs...)
	}
	l.walMu.Lock()
	l.unapplied = append(l.unapplied, applied)
	l.unappliedBytes += applied.bytes
	due := l.unappliedBytes >= l.ckptBytes
	l.walMu.Unlock()
	if due {
		select {
		case l.ckptWake <- struct{}{}:
		default:
		}
	}
	return nil
}

// maxKeptFrameBuffer bounds the frame buffer the committer keeps from batch to batch.
const maxKeptFrameBuffer = 4 << 20

// complete releases the callers of batch with err and forgets them.
func complete(batch []*Pending, err error) {
	for i, p := range batch {
		p.err = err
		p.recs, p.one = nil, [1]encodedRecord{}
		close(p.done)
		batch[i] = nil
	}
}
