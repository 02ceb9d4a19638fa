package etcd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// watchBuffer is how many events a watch may have converted and not yet taken; etcd's
// own stream holds the rest (and the server cancels a watcher that stays behind).
const watchBuffer = 100

// Watch streams the changes under key from an etcd watch; see storage.Interface. The
// checks a client must see as an error of the request (an invalid, compacted or future
// resourceVersion) are made before it returns; the state sent first (resourceVersion ""
// or "0", or sendInitialEvents) is listed by the watch's goroutine, at one revision,
// and the etcd watch starts right after it.
func (s *Store) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	if opts.Recursive {
		key = storage.EnsurePrefix(key)
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, storage.WithKey(err, key)
	}
	unset := opts.ResourceVersion == "" || opts.ResourceVersion == "0"
	initial := unset
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	var from int64 // the revision after which changes are sent; 0: after the initial list
	switch {
	case initial:
		if rv != 0 {
			if err := s.waitFor(ctx, key, rv); err != nil {
				return nil, err
			}
		}
	case unset:
		if from, err = s.currentRevision(ctx, key); err != nil {
			return nil, err
		}
	default:
		if err := s.checkWatchable(ctx, key, rv); err != nil {
			return nil, err
		}
		from = int64(rv)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, storage.WithKey(errClosed, key)
	}
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	w := &etcdWatch{
		s: s, key: key, opts: opts, ctx: wctx, cancel: cancel,
		out: make(chan watch.Event, watchBuffer), done: make(chan struct{}),
	}
	s.wg.Add(1)
	go w.run(initial, from)
	return w, nil
}

// checkWatchable fails with ErrGone when etcd has compacted rv, so a watch from rv would
// miss changes, and with ErrTooLargeResourceVersion when etcd has not reached rv within
// FutureWait. A count-only read at rv answers both.
func (s *Store) checkWatchable(ctx context.Context, key string, rv uint64) error {
	err := s.call(ctx, key, func(ctx context.Context) error {
		_, err := s.client.Get(ctx, s.opts.Prefix+healthKey, clientv3.WithCountOnly(), clientv3.WithRev(int64(rv)))
		if err != nil {
			if rerr := revisionError(err, key, rv); rerr != nil {
				return rerr
			}
		}
		return err
	})
	if se, ok := err.(*storage.Error); ok && se.Err == storage.ErrTooLargeResourceVersion {
		return s.waitFor(ctx, key, rv)
	}
	return err
}

// etcdWatch is one storage watch on one etcd watch.
type etcdWatch struct {
	s      *Store
	key    string
	opts   storage.WatchOptions
	ctx    context.Context
	cancel context.CancelFunc
	out    chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func (w *etcdWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop ends the watch: its goroutine cancels the etcd watch and closes the channel.
func (w *etcdWatch) Stop() { w.once.Do(func() { close(w.done); w.cancel() }) }

// send hands ev to the consumer, or reports false when the watch ends first.
func (w *etcdWatch) send(ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.done:
	case <-w.ctx.Done():
	case <-w.s.done:
	}
	return false
}

// run sends the initial state if asked, then the etcd watch's changes, until the watch
// ends; it closes the result channel.
func (w *etcdWatch) run(initial bool, from int64) {
	defer w.s.wg.Done()
	defer close(w.out)
	defer w.cancel()
	go func() { // the Store closing ends the watch
		select {
		case <-w.s.done:
			w.cancel()
		case <-w.ctx.Done():
		}
	}()
	if initial {
		rev, ok := w.sendInitial()
		if !ok {
			return
		}
		from = rev
	}
	wopts := []clientv3.OpOption{clientv3.WithRev(from + 1), clientv3.WithPrevKV(), clientv3.WithProgressNotify()}
	if w.opts.Recursive {
		wopts = append(wopts, clientv3.WithPrefix())
	}
	if w.opts.Bookmarks {
		w.s.bookmarkWatches.Add(1)
		defer w.s.bookmarkWatches.Add(-1)
	}
	last := from
	for resp := range w.s.client.Watch(w.ctx, w.s.etcdKey(w.key), wopts...) {
		if resp.CompactRevision != 0 {
			w.fail(http.StatusGone, scheme.StatusReasonExpired,
				fmt.Sprintf("too old resource version: %d (%d)", last, resp.CompactRevision))
			return
		}
		if err := resp.Err(); err != nil {
			w.s.log.Warn("etcd: watch ended", "key", w.key, "err", err)
			w.fail(http.StatusInternalServerError, scheme.StatusReasonInternalError, "the watch on storage ended; list and watch again")
			return
		}
		if resp.IsProgressNotify() {
			if w.opts.Bookmarks && resp.Header.Revision > last {
				last = resp.Header.Revision
				if !w.send(w.bookmark(uint64(last), false)) {
					return
				}
			}
			continue
		}
		for _, ev := range resp.Events {
			out, ok, err := w.convert(ev)
			if errors.Is(err, errPrevCompacted) {
				w.s.log.Warn("etcd: watch ended", "key", w.key, "err", err)
				w.fail(http.StatusGone, scheme.StatusReasonExpired, fmt.Sprintf("too old resource version: %d", last))
				return
			}
			if err != nil {
				w.s.log.Error("etcd: watch event", "key", string(ev.Kv.Key), "err", err)
				w.fail(http.StatusInternalServerError, scheme.StatusReasonInternalError, "a watch event could not be read from storage")
				return
			}
			last = ev.Kv.ModRevision
			if ok && !w.send(out) {
				return
			}
		}
	}
	// The channel closed: the watch was stopped, its context ended or the client closed.
	if w.ctx.Err() == nil {
		w.fail(http.StatusInternalServerError, scheme.StatusReasonInternalError, "the watch on storage ended; list and watch again")
	}
}

// sendInitial sends the state as ADDED events, listed at one revision in bounded pages,
// and with bookmarks and sendInitialEvents the BOOKMARK that ends them. It returns the
// revision listed at.
func (w *etcdWatch) sendInitial() (int64, bool) {
	opts := storage.ListOptions{Limit: listChunk, Predicate: w.opts.Predicate}
	var rev int64
	for {
		var items []scheme.Object
		if w.opts.Recursive {
			res, err := w.s.List(w.ctx, w.key, opts)
			if err != nil {
				w.failWith(err)
				return 0, false
			}
			items = res.Items
			rev = mustRV(res.ResourceVersion)
			opts.Continue = res.Continue
		} else {
			obj, rv, err := w.s.getAt(w.ctx, w.key)
			if err != nil {
				w.failWith(err)
				return 0, false
			}
			rev = rv
			if obj != nil {
				if ok, err := w.opts.Predicate.Matches(obj); err == nil && ok {
					items = []scheme.Object{obj}
				}
			}
		}
		for _, obj := range items {
			if !w.send(watch.Event{Type: watch.Added, Object: obj}) {
				return 0, false
			}
		}
		if opts.Continue == "" {
			break
		}
	}
	if w.opts.Bookmarks && w.opts.SendInitialEvents != nil && *w.opts.SendInitialEvents {
		if !w.send(w.bookmark(uint64(rev), true)) {
			return 0, false
		}
	}
	return rev, true
}

func mustRV(s string) int64 {
	rv, _ := storage.ParseResourceVersion(s)
	return int64(rv)
}

// getAt returns the object at key (nil if none) and the revision it was read at.
func (s *Store) getAt(ctx context.Context, key string) (scheme.Object, int64, error) {
	resp, err := s.get(ctx, key)
	if err != nil {
		return nil, 0, err
	}
	if len(resp.Kvs) == 0 {
		return nil, resp.Header.Revision, nil
	}
	obj, err := s.decode(key, resp.Kvs[0])
	return obj, resp.Header.Revision, err
}

// errPrevCompacted is an event whose previous value etcd compacted before the watch
// read it: what changed cannot be told, so the watch ends with 410 for the client to
// list again.
var errPrevCompacted = errors.New("previous value compacted")

// convert makes the watch event of an etcd event, or reports false when the predicate
// hides it. An object that starts matching is ADDED, one that stops matching DELETED
// (its last matching state, at the revision of the write that moved it out).
func (w *etcdWatch) convert(ev *clientv3.Event) (watch.Event, bool, error) {
	key := w.s.storageKey(ev.Kv.Key)
	var cur, prev scheme.Object
	var err error
	if ev.Type == mvccpb.PUT {
		if cur, err = w.s.decode(key, ev.Kv); err != nil {
			return watch.Event{}, false, err
		}
	}
	if ev.PrevKv != nil && (ev.Type == mvccpb.DELETE || !w.opts.Predicate.Empty()) {
		if prev, err = w.s.decode(key, ev.PrevKv); err != nil {
			return watch.Event{}, false, err
		}
		prev.SetResourceVersion(storage.FormatResourceVersion(uint64(ev.Kv.ModRevision)))
	}
	if ev.Type == mvccpb.DELETE {
		if prev == nil {
			// etcd compacted the previous value before the watch read it: the deletion
			// cannot be described, so the watch must end for the client to relist.
			return watch.Event{}, false, fmt.Errorf("%w: deletion of %s at %d", errPrevCompacted, key, ev.Kv.ModRevision)
		}
		ok, err := w.opts.Predicate.Matches(prev)
		return watch.Event{Type: watch.Deleted, Object: prev}, ok && err == nil, err
	}
	curOK, err := w.opts.Predicate.Matches(cur)
	if err != nil {
		return watch.Event{}, false, err
	}
	if ev.IsCreate() {
		return watch.Event{Type: watch.Added, Object: cur}, curOK, nil
	}
	prevOK := true
	if !w.opts.Predicate.Empty() {
		if prev == nil {
			return watch.Event{}, false, fmt.Errorf("%w: update of %s at %d", errPrevCompacted, key, ev.Kv.ModRevision)
		}
		if prevOK, err = w.opts.Predicate.Matches(prev); err != nil {
			return watch.Event{}, false, err
		}
	}
	switch {
	case curOK && prevOK:
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	case curOK:
		return watch.Event{Type: watch.Added, Object: cur}, true, nil
	case prevOK:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return watch.Event{}, false, nil
}

// RequestWatchProgress asks etcd for a progress notification on the Store's watch
// stream: every watch that allows bookmarks and has changes pending from nobody else
// then gets a BOOKMARK at the cluster's revision, after every event up to it (etcd
// sends it once the watch is synced). This is storage.ProgressRequester, which a watch
// cache in front of the Store uses to learn that it is caught up when the writes since
// were to other resources.
func (s *Store) RequestWatchProgress(ctx context.Context) error {
	return s.call(ctx, "", func(ctx context.Context) error { return s.client.RequestProgress(ctx) })
}

// runProgressRequester asks etcd every BookmarkInterval for a progress notification
// while some watch allows bookmarks; each becomes a BOOKMARK. etcd sends one on its own
// only every 10 minutes. All the Store's watches share one gRPC watch stream (their
// contexts carry the same metadata) and etcd answers a request with a notification to
// every watch on the stream, so one request per interval serves them all, however many
// watches there are.
func (s *Store) runProgressRequester() {
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(context.Background()))
	defer cancel()
	t := time.NewTicker(s.opts.BookmarkInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if s.bookmarkWatches.Load() == 0 {
				continue
			}
			if err := s.RequestWatchProgress(ctx); err != nil {
				s.log.Debug("etcd: progress request failed", "err", err)
			}
		case <-s.done:
			return
		}
	}
}

// bookmark makes a BOOKMARK event at rv.
func (w *etcdWatch) bookmark(rv uint64, initialEnd bool) watch.Event {
	var obj scheme.Object
	if w.opts.NewBookmarkObject != nil {
		obj = w.opts.NewBookmarkObject()
	} else {
		obj = &scheme.Unstructured{Object: map[string]any{}}
	}
	obj.SetResourceVersion(storage.FormatResourceVersion(rv))
	if initialEnd {
		obj.SetAnnotations(map[string]string{watch.InitialEventsAnnotation: "true"})
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}

// failWith ends the watch with the ERROR event of a storage error.
func (w *etcdWatch) failWith(err error) {
	if w.ctx.Err() != nil {
		return
	}
	if se, ok := err.(*storage.Error); ok && se.Err == storage.ErrGone {
		w.fail(http.StatusGone, scheme.StatusReasonExpired, se.Detail)
		return
	}
	w.s.log.Warn("etcd: watch failed", "key", w.key, "err", err)
	w.fail(http.StatusInternalServerError, scheme.StatusReasonInternalError, "the watch on storage failed; list and watch again")
}

// fail sends an ERROR event, unless the watch ends first.
func (w *etcdWatch) fail(code int32, reason scheme.StatusReason, msg string) {
	w.send(watch.Event{Type: watch.Error, Object: &scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   scheme.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Code:     code,
	}})
}
