package cache

import (
	"context"
	"errors"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Get serves the object from the cache: at resourceVersion "0" at once, at N once the
// cache has reached N, and unset (Most Recent) once it has reached the backend's current
// version. A read the cache cannot serve (not started, behind the backend for longer
// than FutureWait, a backend that cannot tell its version) goes to the backend.
func (c *Cache) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	spec, err := storage.ResolveGet(opts)
	if err != nil {
		return nil, storage.WithKey(err, key)
	}
	r, err := c.serving(ctx, key, spec)
	if r == nil {
		if err != nil {
			return nil, err
		}
		return c.backend.Get(ctx, key, opts)
	}
	obj, ready := r.get(key)
	switch {
	case !ready:
		return c.backend.Get(ctx, key, opts)
	case obj == nil:
		return nil, storage.NewError(storage.ErrNotFound, key)
	}
	return scheme.DeepCopy(obj), nil
}

// serving returns the resource cache that serves a read of key at spec, after the waits
// spec asks for; nil with a nil error when the backend should serve it, nil with the
// read's error (ErrTooLargeResourceVersion) when nobody should.
func (c *Cache) serving(ctx context.Context, key string, spec storage.ReadSpec) (*resource, error) {
	r := c.readyResource(ctx, key)
	if r == nil {
		return nil, nil
	}
	if served, err := c.reached(ctx, r, key, spec); !served {
		return nil, err
	}
	return r, nil
}

// reached waits until r may serve a read of spec's mode from its current state: true
// when it may; false with nil when the backend should serve it, or with the read's
// error (ErrTooLargeResourceVersion).
func (c *Cache) reached(ctx context.Context, r *resource, key string, spec storage.ReadSpec) (bool, error) {
	switch spec.Mode {
	case storage.ReadMostRecent:
		cur, ok := c.freshVersion(ctx)
		return ok && r.waitFresh(ctx, cur), nil
	case storage.ReadNotOlderThan, storage.ReadExact:
		if r.waitFresh(ctx, spec.ResourceVersion) {
			return true, nil
		}
		return false, c.tooLarge(ctx, key, spec.ResourceVersion)
	}
	return true, nil
}

// get returns the cached object at key (nil: none) and whether the store is ready.
func (r *resource) get(key string) (scheme.Object, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if !r.ready {
		return nil, false
	}
	it, ok := r.live.Get(&item{key: key})
	if !ok {
		return nil, true
	}
	return it.obj, true
}

// cached returns the object the cache holds at key for the backend's writes to start
// from (storage.UpdateOptions.CachedExisting): nil when r is nil, not ready, or holds
// no such object. It is the cache's own object, which the backend does not modify.
func (r *resource) cached(key string) scheme.Object {
	if r == nil {
		return nil
	}
	obj, _ := r.get(key)
	return obj
}

// List serves a page from the cache: the current state for "0", NotOlderThan and Most
// Recent reads (after the waits Get makes), a snapshot for Exact reads and the pages
// after the first (continue tokens carry the version of the first page's snapshot).
// Reads at a version no snapshot holds go to the backend, which keeps a longer history.
func (c *Cache) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return c.list(ctx, prefix, opts, false)
}

// ListShared is List without the copies: a page the cache serves holds the objects it
// holds, which it never changes and shares read-only with every reader (as its watch
// events do), like the lists of kube-apiserver's watch cache; a page the backend serves
// is the backend's ListShared when it has one, else its List. The caller must not
// modify the items. A list response, which encodes its items one at a time, then holds
// a pointer per item rather than a copy of the whole page.
func (c *Cache) ListShared(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return c.list(ctx, prefix, opts, true)
}

// backendList is List or ListShared of the backend.
func (c *Cache) backendList(ctx context.Context, prefix string, opts storage.ListOptions, shared bool) (*storage.ListResult, error) {
	if sl, ok := c.backend.(storage.SharedLister); ok && shared {
		return sl.ListShared(ctx, prefix, opts)
	}
	return c.backend.List(ctx, prefix, opts)
}

// list is List, or ListShared when shared is set.
func (c *Cache) list(ctx context.Context, prefix string, opts storage.ListOptions, shared bool) (*storage.ListResult, error) {
	prefix = storage.EnsurePrefix(prefix)
	spec, err := storage.ResolveList(prefix, opts)
	if err != nil {
		return nil, storage.WithKey(err, prefix)
	}
	if spec.Mode == storage.ReadExact {
		if err := c.tooOld(prefix, spec.ResourceVersion); err != nil {
			return nil, err
		}
	}
	r, err := c.serving(ctx, prefix, spec)
	if r == nil {
		if err != nil {
			return nil, err
		}
		return c.backendList(ctx, prefix, opts, shared)
	}
	var v view
	var ok bool
	if spec.Mode == storage.ReadExact {
		v, ok = r.at(spec.ResourceVersion)
	} else {
		v, ok = r.latest()
	}
	if !ok {
		return c.backendList(ctx, prefix, opts, shared)
	}
	return v.page(prefix, spec.From, opts.Limit, opts.Predicate, shared)
}

// page returns the objects under prefix from the key from (a continued list's, under
// prefix; "" for the first page) that match pred, at most limit of them (0: all), with
// the continue token and, without a selector, the count of those left. The objects are
// copies, or the cached objects themselves when shared is set.
func (v view) page(prefix, from string, limit int64, pred storage.Predicate, shared bool) (*storage.ListResult, error) {
	if from == "" {
		from = prefix
	}
	res := &storage.ListResult{ResourceVersion: storage.FormatResourceVersion(v.rv)}
	// Room for every item only when the list may take them all; a namespace's list grows.
	capacity := 0
	if whole := !strings.Contains(prefix[1+strings.IndexByte(prefix[1:], '/')+1:len(prefix)-1], "/"); whole || limit > 0 {
		capacity = v.tree.Len()
		if limit > 0 && int64(capacity) > limit {
			capacity = int(limit)
		}
	}
	res.Items = make([]scheme.Object, 0, capacity)
	var (
		last      string
		more      bool
		remaining int64
		matchErr  error
	)
	selects := !pred.Empty()
	v.tree.AscendGreaterOrEqual(&item{key: from}, func(it *item) bool {
		if !strings.HasPrefix(it.key, prefix) {
			return false
		}
		if more {
			remaining++
			return true
		}
		if selects {
			ok, err := pred.Matches(it.obj)
			if err != nil {
				matchErr = err
				return false
			}
			if !ok {
				return true
			}
		}
		if limit > 0 && int64(len(res.Items)) == limit {
			more, remaining = true, 1
			return !selects // counting what is left is only for lists without a selector
		}
		obj := it.obj
		if !shared {
			obj = scheme.DeepCopy(obj)
		}
		res.Items = append(res.Items, obj)
		last = it.key
		return true
	})
	if matchErr != nil {
		return nil, storage.WithKey(matchErr, prefix)
	}
	if more {
		var err error
		if res.Continue, err = storage.EncodeContinue(v.rv, prefix, last); err != nil {
			return nil, storage.WithKey(err, prefix)
		}
		if !selects {
			res.RemainingItemCount = &remaining
		}
	}
	return res, nil
}

// Watch serves the watch from the resource's broadcaster, which every watch of the
// resource shares: one backend watch however many clients watch. resourceVersion ""
// (Most Recent, with or without initial events) waits for the cache to reach the
// backend's current version, as a consistent list does; a version older than the cache's history fails
// with ErrGone, and the client relists.
func (c *Cache) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	if opts.Recursive {
		key = storage.EnsurePrefix(key)
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, storage.WithKey(err, key)
	}
	initial := rv == 0
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	if err := c.tooOld(key, rv); err != nil {
		return nil, err
	}
	spec := storage.ReadSpec{Mode: storage.ReadNotOlderThan, ResourceVersion: rv}
	switch {
	case opts.ResourceVersion == "":
		spec.Mode = storage.ReadMostRecent
	case rv == 0:
		spec.Mode = storage.ReadAny
	}
	r, err := c.serving(ctx, key, spec)
	if r == nil {
		if err != nil {
			return nil, err
		}
		return c.backend.Watch(ctx, key, opts)
	}
	wo := storage.BroadcastOptions(key, opts)
	if initial {
		wo.SendInitialEvents = true
		// The legacy "state first" watch has no initial-events-end bookmark.
		wo.OmitInitialEventsEnd = opts.SendInitialEvents == nil
	}
	w, from, err := r.watch(ctx, rv, wo)
	switch {
	case err == nil:
		return w, nil
	case errors.Is(err, watch.ErrTooOld):
		return nil, storage.NewErrorAt(storage.ErrGone, key, from, "%s", err.Error())
	case errors.Is(err, errNotReady), errors.Is(err, watch.ErrStopped):
		return c.backend.Watch(ctx, key, opts) // relisting meanwhile
	}
	return nil, storage.WithKey(err, key)
}

var errNotReady = errors.New("watch cache is not ready")

// watch starts a watch of the broadcaster from rv (0: now) or, with initial events, from
// the current state, read under the same lock so that no change falls between the state
// and the first event. It returns the version the watch starts from.
func (r *resource) watch(ctx context.Context, rv uint64, wo watch.WatchOptions) (watch.Interface, uint64, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if !r.ready {
		return nil, rv, errNotReady
	}
	if wo.SendInitialEvents {
		wo.InitialRV = r.rv
		if wo.Recursive {
			r.live.AscendGreaterOrEqual(&item{key: wo.Key}, func(it *item) bool {
				if !strings.HasPrefix(it.key, wo.Key) {
					return false
				}
				wo.InitialObjects = append(wo.InitialObjects, it.obj)
				return true
			})
		} else if it, ok := r.live.Get(&item{key: wo.Key}); ok {
			wo.InitialObjects = append(wo.InitialObjects, it.obj)
		}
		rv = r.rv
	} else if rv == 0 {
		rv = r.rv
	}
	w, err := r.bc.Watch(ctx, rv, wo)
	return w, rv, err
}
