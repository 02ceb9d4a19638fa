package bolt

import (
	"fmt"
	"os"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// maxSpareSegments bounds the checkpointed segments kept for reuse; more are removed.
const maxSpareSegments = 2

// appliedFrame is a durable write-ahead log frame waiting for the checkpointer: its
// records point into the memory of the calls that queued them.
type appliedFrame struct {
	firstRV, lastRV uint64
	bytes           int64 // size of the frame in its segment
	recs            []encodedRecord
}

// runCheckpointer is the checkpointer goroutine: it applies durable frames to the B+tree
// when enough are pending or an interval has passed, and keeps a spare segment ready, so
// that neither is on the path of an acknowledged write. It returns when Close stops it or
// a checkpoint fails (the log then refuses writes; Close tries once more).
func (l *Log) runCheckpointer() {
	defer close(l.ckptEnded)
	ticker := time.NewTicker(l.ckptEvery)
	defer ticker.Stop()
	for {
		due := true
		select {
		case <-l.ckptStop:
			return
		case <-l.ckptWake:
		case <-ticker.C:
		case <-l.spareWake:
			due = false
		}
		if due {
			if err := l.checkpoint(); err != nil {
				l.logger.Error("storage log checkpoint failed; the log accepts no more writes", "path", l.path, "error", err)
				return
			}
		}
		if err := l.ensureSpare(); err != nil {
			// Not fatal: the committer creates the segment it needs itself.
			l.logger.Warn("storage log could not prepare a write-ahead log segment", "path", l.path, "error", err)
		}
	}
}

// checkpoint applies every durable frame not yet in the B+tree to it in one transaction
// that also records the last resource version applied, and then hands the segments
// whose frames are all applied back to the spares. A failure leaves the frames pending
// (they stay in the write-ahead log, and Open replays them) and stops the log's writes.
func (l *Log) checkpoint() error {
	l.ckptMu.Lock()
	defer l.ckptMu.Unlock()
	l.walMu.Lock()
	frames := l.unapplied
	l.unapplied = nil
	l.walMu.Unlock()
	if len(frames) == 0 {
		return nil
	}
	first, last := frames[0].firstRV, frames[len(frames)-1].lastRV
	err := l.db.Update(func(tx *bbolt.Tx) error {
		state := tx.Bucket(stateBucket)
		for _, fr := range frames {
			if err := applyRecords(state, fr.recs); err != nil {
				return err
			}
		}
		if err := tx.Bucket(metaBucket).Put(rvKey, encodeRV(last)); err != nil {
			return err
		}
		if l.checkpointHook != nil {
			return l.checkpointHook(first, last)
		}
		return nil
	})

	l.walMu.Lock()
	defer l.walMu.Unlock()
	defer l.walCond.Broadcast()
	if err != nil {
		l.unapplied = append(frames, l.unapplied...)
		l.ckptErr = fmt.Errorf("checkpoint of resource versions %d to %d: %w", first, last, err)
		return l.ckptErr
	}
	for _, fr := range frames {
		l.unappliedBytes -= fr.bytes
	}
	l.checkpointed = last
	full := l.wal.full[:0]
	for _, seg := range l.wal.full {
		if seg.last <= last {
			l.recycle(seg)
		} else {
			full = append(full, seg)
		}
	}
	clear(l.wal.full[len(full):])
	l.wal.full = full
	return nil
}

// recycle makes seg, whose frames are all in the B+tree, a spare, or removes it when
// enough spares are kept. l.walMu must be held.
func (l *Log) recycle(seg *segment) {
	if len(l.wal.spares) < maxSpareSegments && seg.size == l.wal.segSize {
		l.wal.spares = append(l.wal.spares, seg)
		return
	}
	// Its frames are applied, so losing them loses nothing. The removal is made durable
	// before the generation it names can be handed out again by a later Open, so that a
	// crash cannot bring back a second segment of one generation.
	_ = seg.f.Close()
	err := os.Remove(seg.name)
	if err == nil && !l.wal.noSync {
		err = syncDir(l.wal.dir)
	}
	if err != nil {
		l.logger.Warn("storage log could not remove a write-ahead log segment", "path", seg.name, "error", err)
	}
}

// trimSpares removes the spares that the checkpointer would not keep: beyond
// maxSpareSegments, or of another size than the segments it creates.
func (l *Log) trimSpares() {
	l.walMu.Lock()
	defer l.walMu.Unlock()
	spares := l.wal.spares
	l.wal.spares = nil
	for _, seg := range spares {
		l.recycle(seg)
	}
}

// ensureSpare creates a segment for the committer to move to when the current one is
// full, unless one is ready.
func (l *Log) ensureSpare() error { return l.ensureSpareOf(l.wal.segSize) }

// ensureSpareOf creates a spare segment of size bytes unless one is ready.
func (l *Log) ensureSpareOf(size int64) error {
	l.walMu.Lock()
	if len(l.wal.spares) > 0 {
		l.walMu.Unlock()
		return nil
	}
	slot := l.wal.nextSlot
	l.wal.nextSlot++
	l.walMu.Unlock()
	seg, err := l.wal.createSegment(slot, size)
	if err != nil {
		return err
	}
	l.walMu.Lock()
	l.wal.spares = append(l.wal.spares, seg)
	l.walMu.Unlock()
	return nil
}

// waitForCheckpointer holds the committer while the frames not yet in the B+tree reach
// Options.CheckpointBytes four times over, which bounds the memory they hold, and fails
// once a checkpoint has failed.
func (l *Log) waitForCheckpointer() error {
	l.walMu.Lock()
	defer l.walMu.Unlock()
	for l.unappliedBytes >= l.maxPending && l.ckptErr == nil {
		select {
		case l.ckptWake <- struct{}{}:
		default:
		}
		l.walCond.Wait()
	}
	return l.ckptErr
}

// takeSegment returns a spare of at least need bytes for the committer, or none and the
// slot of a new segment file. Taking the last spare wakes the checkpointer to prepare the
// next one.
func (l *Log) takeSegment(need int64) (*segment, int) {
	l.walMu.Lock()
	defer l.walMu.Unlock()
	for i, seg := range l.wal.spares {
		if seg.size >= need {
			l.wal.spares = append(l.wal.spares[:i], l.wal.spares[i+1:]...)
			if len(l.wal.spares) == 0 {
				select {
				case l.spareWake <- struct{}{}:
				default:
				}
			}
			return seg, 0
		}
	}
	slot := l.wal.nextSlot
	l.wal.nextSlot++
	return nil, slot
}

// retireSegment hands the segment the committer leaves to the checkpointer.
func (l *Log) retireSegment(seg *segment) {
	l.walMu.Lock()
	defer l.walMu.Unlock()
	if seg.last > l.checkpointed {
		l.wal.full = append(l.wal.full, seg)
		return
	}
	l.recycle(seg)
}
