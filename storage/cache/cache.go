package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Options configure a Cache. The zero value gives the defaults.
type Options struct {
	// Prefixes are resource prefixes ("/<group>/<resource>/", see storage.Prefix) whose
	// caches start with New rather than on their first use.
	Prefixes []string
	// HistorySize bounds each resource's window of events for watches from an older
	// resourceVersion (default watch.DefaultHistorySize).
	HistorySize int
	// HistoryAge bounds the window by age (default watch.DefaultHistoryAge).
	HistoryAge time.Duration
	// WatchBuffer is how many events each watch may have queued (default
	// watch.DefaultWatcherBuffer).
	WatchBuffer int
	// BookmarkInterval is how often a watch that allows bookmarks gets one (default
	// watch.DefaultBookmarkInterval; negative disables periodic bookmarks).
	BookmarkInterval time.Duration
	// Snapshots is how many past states of each resource are kept for the pages of
	// paginated lists (continue tokens) and Exact reads (default 64). Reads at a version
	// none of them holds go to the backend.
	Snapshots int
	// FutureWait is how long a read or watch at a resourceVersion the cache has not seen
	// waits for it (default 3s): then a version the backend has not reached either fails
	// with storage.ErrTooLargeResourceVersion and any other request goes to the backend.
	FutureWait time.Duration
	// ReadyWait is how long a request waits for a resource's cache to start (its first
	// list of the backend) before it goes to the backend instead (default 10s).
	ReadyWait time.Duration
	// RetryMin and RetryMax bound the backoff between attempts to restart a resource's
	// backend watch (defaults 100ms and 5s).
	RetryMin, RetryMax time.Duration
	// Logger receives a line whenever a backend watch ends and the resource relists
	// (default slog.Default()).
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Snapshots <= 0 {
		o.Snapshots = 64
	}
	if o.FutureWait <= 0 {
		o.FutureWait = 3 * time.Second
	}
	if o.ReadyWait <= 0 {
		o.ReadyWait = 10 * time.Second
	}
	if o.RetryMin <= 0 {
		o.RetryMin = 100 * time.Millisecond
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(5*time.Second, o.RetryMin)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Cache is a watch cache in front of a storage backend, like kube-apiserver's cacher: it
// keeps each resource's objects in memory, fed by one backend watch per resource, serves
// reads and every watch of the resource from there and passes writes to the backend. It
// implements storage.Interface, storage.Compactor, storage.Versioned and
// storage.ProgressRequester. It is safe for concurrent use; create one with Start and
// release it with Close.
type Cache struct {
	backend storage.Interface
	opts    Options

	ctx    context.Context // ends with Start's context or Close: the resources' backend watches stop
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	resources map[string]*resource
	closed    bool

	progress progressRequests

	// compacted is the version Compact was last called with: reads and watches below it
	// fail with ErrGone even where the cache or the backend could still serve them.
	compacted atomic.Uint64
}

var (
	_ storage.Interface         = (*Cache)(nil)
	_ storage.Compactor         = (*Cache)(nil)
	_ storage.Versioned         = (*Cache)(nil)
	_ storage.ProgressRequester = (*Cache)(nil)
)

// ErrUnsupported is wrapped by the methods of an optional interface (Compact's
// forwarding, CurrentResourceVersion) when the backend does not implement it.
var ErrUnsupported = errors.ErrUnsupported

// Start returns a Cache in front of backend and starts the caches of opts.Prefixes; each
// resource's cache runs in a goroutine of its own (started here or on the resource's
// first use) until ctx ends or Close is called, and requests made after that go to the
// backend. The backend's keys must be laid out as storage.Key lays them out: a watch
// event names no key, so the cache derives it from the resource prefix and the object's
// namespace and name.
func Start(ctx context.Context, backend storage.Interface, opts Options) (*Cache, error) {
	if backend == nil {
		return nil, errors.New("cache: backend is nil")
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Cache{backend: backend, opts: opts.withDefaults(), ctx: ctx, cancel: cancel, resources: map[string]*resource{}}
	for _, p := range opts.Prefixes {
		rp, ok := resourcePrefix(p)
		if !ok || rp != storage.EnsurePrefix(p) {
			cancel()
			return nil, fmt.Errorf("cache: %q is not a resource prefix /<group>/<resource>/", p)
		}
		c.resourceOf(rp)
	}
	return c, nil
}

// Close stops every resource's backend watch and ends every watch of the cache, as the
// end of Start's context does, and waits until their goroutines have returned. Requests
// made afterwards go to the backend. The backend is the caller's to close.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait()
}

// Backend returns the storage the cache is in front of.
func (c *Cache) Backend() storage.Interface { return c.backend }

// resourcePrefix returns the resource part "/<group>/<resource>/" of a key or prefix, or
// false when it has none (a prefix such as "/" or "/<group>/" spans resources).
func resourcePrefix(key string) (string, bool) {
	if !strings.HasPrefix(key, "/") {
		return "", false
	}
	i := strings.IndexByte(key[1:], '/')
	if i <= 0 {
		return "", false
	}
	j := strings.IndexByte(key[i+2:], '/')
	if j <= 0 {
		return "", false
	}
	return key[:i+2+j+1], true
}

// resourceOf returns the cache of the resource prefix rp, starting it on first use; nil
// after Close or the end of Start's context.
func (c *Cache) resourceOf(rp string) *resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.ctx.Err() != nil {
		return nil
	}
	r, ok := c.resources[rp]
	if !ok {
		r = newResource(c, rp)
		c.resources[rp] = r
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			r.run(c.ctx)
		}()
	}
	return r
}

// readyResource returns the cache of key's resource once it serves, or nil when the
// request should go to the backend: the key spans resources, the cache is closed, or the
// resource's cache did not start within ReadyWait.
func (c *Cache) readyResource(ctx context.Context, key string) *resource {
	rp, ok := resourcePrefix(key)
	if !ok {
		return nil
	}
	r := c.resourceOf(rp)
	if r == nil || !r.waitReady(ctx, c.opts.ReadyWait) {
		return nil
	}
	return r
}

// Create passes the write to the backend and returns once the cache holds it (see
// settle). The resource's cache is started first, so that its history holds the write.
func (c *Cache) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	r := c.readyResource(ctx, key)
	out, err := c.backend.Create(ctx, key, obj)
	return c.settle(ctx, r, out, err)
}

// GuaranteedUpdate passes the read-modify-write loop to the backend, with the cached
// object as the state to start from (a backend like etcd then saves a read), and returns
// once the cache holds the result.
func (c *Cache) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, tryUpdate storage.UpdateFunc) (scheme.Object, error) {
	r := c.readyResource(ctx, key)
	if opts.CachedExisting == nil {
		opts.CachedExisting = r.cached(key)
	}
	out, err := c.backend.GuaranteedUpdate(ctx, key, opts, tryUpdate)
	return c.settle(ctx, r, out, err)
}

// Delete passes the deletion to the backend, with the cached object as the state to
// start from, and returns once the cache holds it.
func (c *Cache) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	r := c.readyResource(ctx, key)
	if opts.CachedExisting == nil {
		opts.CachedExisting = r.cached(key)
	}
	out, err := c.backend.Delete(ctx, key, opts)
	if err != nil || r == nil {
		return out, err
	}
	// The returned object carries its last write's version, not the deletion's: wait for
	// the backend's current version, which is not older.
	if cur, ok := c.freshVersion(ctx); ok {
		r.waitFresh(ctx, cur)
	}
	return out, nil
}

// settle waits (up to FutureWait) until r holds the write that returned out, so that a
// client reading from this cache after its write sees it, whatever resourceVersion it
// reads at (read-your-writes: an informer that lists at "0" right after a create finds
// the object). The write's result is returned as it is.
func (c *Cache) settle(ctx context.Context, r *resource, out scheme.Object, err error) (scheme.Object, error) {
	if err != nil || r == nil {
		return out, err
	}
	if rv, perr := storage.ParseResourceVersion(out.GetResourceVersion()); perr == nil && rv != 0 {
		r.waitReached(ctx, rv)
	}
	return out, nil
}

// Count asks the backend, which counts without copying (kube-apiserver's object count
// comes from etcd too).
func (c *Cache) Count(ctx context.Context, prefix string) (int64, error) {
	return c.backend.Count(ctx, prefix)
}

// Compact discards history older than rv: the backend's, when it is a storage.Compactor,
// and the cache's own, so that reads and watches below rv fail with ErrGone whether
// they would be served from the cache or the backend.
func (c *Cache) Compact(ctx context.Context, rv uint64) error {
	if bc, ok := c.backend.(storage.Compactor); ok {
		if err := bc.Compact(ctx, rv); err != nil {
			return err
		}
	}
	for {
		cur := c.compacted.Load()
		if rv <= cur || c.compacted.CompareAndSwap(cur, rv) {
			break
		}
	}
	c.mu.Lock()
	rs := make([]*resource, 0, len(c.resources))
	for _, r := range c.resources {
		rs = append(rs, r)
	}
	c.mu.Unlock()
	for _, r := range rs {
		r.dropSnapshotsBelow(rv)
	}
	return nil
}

// CurrentResourceVersion returns the backend's: the cache is never ahead of it. It fails
// with ErrUnsupported when the backend is not a storage.Versioned.
func (c *Cache) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	v, ok := c.backend.(storage.Versioned)
	if !ok {
		return 0, fmt.Errorf("cache: backend %T does not report its resourceVersion: %w", c.backend, ErrUnsupported)
	}
	return v.CurrentResourceVersion(ctx)
}

// RequestWatchProgress sends every watch of the cache that allows bookmarks a BOOKMARK at
// the version its resource's cache has reached.
func (c *Cache) RequestWatchProgress(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.resources {
		r.requestProgress()
	}
	return nil
}

// tooOld returns ErrGone when rv is below the compacted version.
func (c *Cache) tooOld(key string, rv uint64) error {
	if floor := c.compacted.Load(); rv != 0 && rv < floor {
		return storage.NewErrorAt(storage.ErrGone, key, rv, "too old resource version: %d (%d)", rv, floor)
	}
	return nil
}

// freshVersion returns the backend's current resourceVersion for a consistent read, or
// false when the backend cannot tell it (the read then goes to the backend).
func (c *Cache) freshVersion(ctx context.Context) (uint64, bool) {
	v, ok := c.backend.(storage.Versioned)
	if !ok {
		return 0, false
	}
	rv, err := v.CurrentResourceVersion(ctx)
	return rv, err == nil
}

// tooLarge decides a read at rv the cache did not reach within FutureWait: the
// storage.ErrTooLargeResourceVersion of the spec when the backend has not reached rv
// either, else nil (the request goes to the backend).
func (c *Cache) tooLarge(ctx context.Context, key string, rv uint64) error {
	cur, ok := c.freshVersion(ctx)
	if !ok || cur >= rv {
		return nil
	}
	return storage.NewErrorAt(storage.ErrTooLargeResourceVersion, key, rv, "Too large resource version: %d, current: %d", rv, cur)
}

// requestBackendProgress asks the backend's watches for a bookmark, when it can.
func (c *Cache) requestBackendProgress() {
	if p, ok := c.backend.(storage.ProgressRequester); ok {
		// The cache's context: a pending request may be made on behalf of other reads.
		c.progress.request(c.ctx, p)
	}
}
