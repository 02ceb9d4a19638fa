package watch

import (
	"sort"
	"strconv"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// entry is one published change as the history keeps it.
type entry struct {
	change Change
	cache  *encodeCache // nil until a watcher receives the change: see sharedCache
	// at is when the change was published, as time since the Broadcaster's epoch: 8
	// bytes without a pointer instead of a time.Time's 24 with one, in every history slot.
	at time.Duration
	// left is what watchers whose selector the object left see: PrevObject at the
	// change's resourceVersion. Made on first use, under the Broadcaster's lock.
	left *view
}

// sharedCache returns the encodeCache of the change's object, made on first use so that
// a change no watcher receives costs no allocation. Called with the Broadcaster's lock held.
func (e *entry) sharedCache() *encodeCache {
	if e.cache == nil {
		e.cache = &encodeCache{}
	}
	return e.cache
}

// view is an object shared by several watchers with its encodings.
type view struct {
	obj   scheme.Object
	cache *encodeCache
}

// leftSelector returns the object of a DELETED event sent because a Modified change
// took the object out of a watcher's selector, or for a Deleted change published
// without its Object: like kube-apiserver, the last state that matched (PrevObject)
// carrying the change's resourceVersion. It is made once per change and shared by
// every such watcher. Called with the Broadcaster's lock held.
func (e *entry) leftSelector() *view {
	if e.left == nil {
		obj := scheme.DeepCopy(e.change.PrevObject)
		obj.SetResourceVersion(strconv.FormatUint(e.change.ResourceVersion, 10))
		e.left = &view{obj: obj, cache: &encodeCache{}}
	}
	return e.left
}

// ring is the history window: changes in increasing resourceVersion order, oldest first.
// It grows by doubling up to its limit, so an idle resource costs little memory.
type ring struct {
	buf   []entry
	head  int
	n     int
	limit int
}

func (r *ring) len() int { return r.n }

func (r *ring) at(i int) *entry { return &r.buf[(r.head+i)%len(r.buf)] }

// push appends e; the caller has made room (n < limit).
func (r *ring) push(e entry) {
	if r.n == len(r.buf) {
		size := max(16, 2*len(r.buf))
		size = min(size, r.limit)
		buf := make([]entry, size)
		for i := 0; i < r.n; i++ {
			buf[i] = *r.at(i)
		}
		r.buf, r.head = buf, 0
	}
	*r.at(r.n) = e
	r.n++
}

// popFront drops the oldest entry and returns its resourceVersion.
func (r *ring) popFront() uint64 {
	e := r.at(0)
	rv := e.change.ResourceVersion
	*e = entry{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return rv
}

// after returns the index of the first entry with a resourceVersion greater than rv.
func (r *ring) after(rv uint64) int {
	return sort.Search(r.n, func(i int) bool { return r.at(i).change.ResourceVersion > rv })
}
