package watch

import (
	"sync"
	"sync/atomic"

	"github.com/apikit-dev/apikit/scheme"
)

// EventType is the type of a watch event, exactly as it travels on the wire.
type EventType string

// The five watch event types of the Kubernetes API.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// Event is one change seen by a watch. For Added and Modified, Object is the object after
// the change; for Deleted, the last state before deletion (with the deletion's
// resourceVersion); for Bookmark, an object of the watched kind carrying only a
// resourceVersion (and annotations); for Error, a *scheme.Status.
//
// Events delivered by a Broadcaster share their Object with every other watcher of the
// same change and with the Broadcaster's history: the Object is read-only. A consumer that
// must change it (to convert it, to strip fields) works on a copy (scheme.DeepCopy).
type Event struct {
	Type   EventType
	Object scheme.Kinded

	// cache holds the encodings of Object, shared by every Event made from one change.
	cache *encodeCache
}

// Encoded returns encode(e.Object), computing it at most once per key for all the events
// made from one published change, whichever watcher asks first: a thousand watchers that
// want the same encoding of a change (one version, one media type) cost one encode.
// The key names the encoding and must be comparable, for example
// struct{ GroupVersion scheme.GroupVersion; MediaType string }{...}, best converted to an
// interface value once per watch (converting a struct or string to any allocates);
// encode must give the same result for the same key. The result (and an encode error) is remembered while the
// change stays in the Broadcaster's history, so the returned bytes are shared and must not
// be modified.
//
// The bytes are those of the object only, not of the event envelope: a change delivered
// as MODIFIED to one watcher and as DELETED or ADDED to another (a selector transition)
// shares them. Events not made from a published change (initial events, bookmarks,
// errors, events built by hand) call encode every time.
func (e Event) Encoded(key any, encode func(scheme.Kinded) ([]byte, error)) ([]byte, error) {
	if e.cache == nil {
		return encode(e.Object)
	}
	return e.cache.get(key, e.Object, encode)
}

// encodeCache memoises the encodings of one object. It is created once per published
// change and usually holds one encoding (kept inline) or two, so a slice beats a map.
// The first encoding is found without the lock: a thousand watchers that take the same
// encoding of a change do not queue on one mutex.
type encodeCache struct {
	// firstSet is stored once first.key is written: first.key never changes after.
	firstSet atomic.Bool
	mu       sync.Mutex
	first    encoding
	more     []*encoding
}

type encoding struct {
	key  any
	once sync.Once
	data []byte
	err  error
}

func (c *encodeCache) get(key any, obj scheme.Kinded, encode func(scheme.Kinded) ([]byte, error)) ([]byte, error) {
	en := &c.first
	if !c.firstSet.Load() || c.first.key != key {
		en = c.slow(key)
	}
	en.once.Do(func() { en.data, en.err = encode(obj) })
	return en.data, en.err
}

// slow finds or makes the encoding for key under the lock.
func (c *encodeCache) slow(key any) *encoding {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.firstSet.Load() {
		c.first.key = key
		c.firstSet.Store(true)
		return &c.first
	}
	if c.first.key == key {
		return &c.first
	}
	for _, x := range c.more {
		if x.key == key {
			return x
		}
	}
	en := &encoding{key: key}
	c.more = append(c.more, en)
	return en
}

// Interface is a running watch. Events arrive on ResultChan until the watch ends, when the
// channel is closed. Stop ends the watch and releases its resources; it is safe to call
// more than once and from any goroutine.
type Interface interface {
	ResultChan() <-chan Event
	Stop()
}
