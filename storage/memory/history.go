package memory

import (
	"time"

	"github.com/apikit-dev/apikit/storage"
)

// change is one write of the history window, kept to undo it: the state before the write
// at rv is the state after it with key set back to prev (absent when prev is nil).
type change struct {
	rv   uint64
	at   time.Duration // since the store's epoch: see Store.epoch
	key  string
	prev *entry // nil: key did not exist before the write
}

// snapshot is an immutable tree holding the state at version rv.
type snapshot struct {
	rv   uint64
	tree *tree
	used uint64 // LRU clock value of its last use
}

// snapCacheSize is how many reconstructed past states are kept, so that paginating a list
// at one resourceVersion reconstructs it once.
const snapCacheSize = 4

// logIndexLocked returns the index in s.log of the change at rv; the caller holds s.mu and
// knows rv is in the log (s.log[0].rv <= rv <= s.rv).
func (s *Store) logIndexLocked(rv uint64) int { return int(rv - s.log[0].rv) }

// getLocked returns the entry at key in the state at version v (v <= s.rv, within the
// window): the live entry with the writes after v undone. The caller holds s.mu.
func (s *Store) getLocked(key string, v uint64) (*entry, bool) {
	e, ok := s.index[key]
	if v < s.rv {
		// The earliest write after v to key, if any, holds its state at v.
		for i := len(s.log) - 1; i >= 0 && s.log[i].rv > v; i-- {
			if c := &s.log[i]; c.key == key {
				e, ok = c.prev, c.prev != nil
			}
		}
	}
	return e, ok
}

// snapshot returns an immutable tree holding the state at version v, or with latest the
// state at the visible version, together with the version. It fails with ErrGone when v
// left the history window. The caller must know v <= the visible version.
//
// The live tree is cloned (in O(1), copy-on-write) only when it changed since its last
// clone; an older state is rebuilt from the nearest newer tree at hand by undoing, newest
// first, the writes after v, and is cached for the next page of the same list.
func (s *Store) snapshot(key string, v uint64, latest bool) (*tree, uint64, error) {
	s.mu.RLock()
	if latest {
		v = s.visible
	}
	if v < s.oldest {
		oldest := s.oldest
		s.mu.RUnlock()
		return nil, 0, storage.NewErrorAt(storage.ErrGone, key, v, "resourceVersion %d is older than the oldest kept, %d", v, oldest)
	}
	s.snapMu.Lock()
	s.snapClock++
	if s.cur.tree != nil && s.cur.rv == v {
		t := s.cur.tree
		s.snapMu.Unlock()
		s.mu.RUnlock()
		return t, v, nil
	}
	// The base to undo from: the cached state nearest above v, else a clone of live.
	var base *snapshot
	for i := range s.past {
		p := &s.past[i]
		if p.tree == nil || p.rv < v {
			continue
		}
		if p.rv == v {
			p.used = s.snapClock
			t := p.tree
			s.snapMu.Unlock()
			s.mu.RUnlock()
			return t, v, nil
		}
		if base == nil || p.rv < base.rv {
			base = p
		}
	}
	if s.cur.tree != nil && s.cur.rv > v && (base == nil || s.cur.rv < base.rv) {
		base = &s.cur
	}
	if base == nil {
		if s.cur.tree == nil || s.cur.rv != s.rv {
			s.cur = snapshot{rv: s.rv, tree: s.live.clone()}
		}
		if s.rv == v {
			t := s.cur.tree
			s.snapMu.Unlock()
			s.mu.RUnlock()
			return t, v, nil
		}
		base = &s.cur
	}
	// Clone writes the base's copy-on-write context: it stays under snapMu.
	t, baseRV := base.tree.clone(), base.rv
	s.snapMu.Unlock()
	undo := make([]change, baseRV-v)
	copy(undo, s.log[s.logIndexLocked(v+1):s.logIndexLocked(baseRV)+1])
	s.mu.RUnlock()

	// t is private until cached: undo the writes after v, newest first.
	for i := len(undo) - 1; i >= 0; i-- {
		c := &undo[i]
		if c.prev != nil {
			t.replaceOrInsert(c.prev)
		} else {
			t.delete(c.key)
		}
	}
	s.snapMu.Lock()
	s.snapClock++
	slot := &s.past[0]
	for i := range s.past {
		if p := &s.past[i]; p.tree == nil || p.used < slot.used {
			slot = p
			if p.tree == nil {
				break
			}
		}
	}
	*slot = snapshot{rv: v, tree: t, used: s.snapClock}
	s.snapMu.Unlock()
	return t, v, nil
}

// trimLocked drops the changes that left the window, by count and then by age. The
// change of the visible version, and all after it, always stay: s.log[0] is the write
// that made the oldest state kept, whose time bounds its age.
func (s *Store) trimLocked(now time.Duration) {
	drop := 0
	for s.log[drop].rv < s.visible &&
		(len(s.log)-drop > s.opts.HistoryCount+1 || now-s.log[drop].at > s.opts.HistoryAge) {
		drop++
	}
	s.dropLogLocked(drop)
}

// appendLogLocked appends c to the log. Trimming drops changes from the front of the
// log's array; when the end is reached, the kept changes move down over the dropped ones
// if they left at least half as much room as the log holds, so that a store at its
// window's size appends without allocating, rather than re-growing an array every few
// thousand writes.
func (s *Store) appendLogLocked(c change) {
	if n := len(s.log); n == cap(s.log) {
		arr := s.logArr[:cap(s.logArr)]
		if dropped := len(arr) - n; dropped >= n/2 && dropped > 0 {
			copy(arr, s.log)
			clear(arr[n:]) // the old places of the moved changes
		} else {
			arr = make([]change, 2*n+16)
			copy(arr, s.log)
		}
		s.logArr, s.log = arr, arr[:n]
	}
	s.log = append(s.log, c)
}

func (s *Store) dropLogLocked(n int) {
	if n == 0 {
		return
	}
	clear(s.log[:n])
	s.log = s.log[n:]
	if first := s.log[0].rv; first > s.oldest {
		s.oldest = first
	}
}
