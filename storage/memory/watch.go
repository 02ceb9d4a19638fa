package memory

import (
	"context"
	"errors"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Watch streams the changes to key, or under the prefix key with opts.Recursive, from the
// store's watch.Broadcaster. Event objects are shared, read-only, between watches.
func (s *Store) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	wo := storage.BroadcastOptions(key, opts)
	key = wo.Key
	var rv uint64
	if opts.ResourceVersion != "" {
		var err error
		if rv, err = storage.ParseResourceVersion(opts.ResourceVersion); err != nil {
			return nil, storage.WithKey(err, key)
		}
	}
	// The table for watch: "" and "0" get the state first, N starts right after N;
	// sendInitialEvents overrides the first part.
	initial := rv == 0
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	if !initial {
		if rv == 0 {
			rv = s.visibleVersion()
		}
		if err := s.checkWatchable(ctx, key, rv); err != nil {
			return nil, err
		}
		w, err := s.broadcaster.Watch(ctx, rv, wo)
		return w, watchError(key, rv, err)
	}
	// Initial events: the state at a snapshot not older than rv, then changes after it.
	var objs []scheme.Object
	var at uint64
	if opts.Recursive {
		snap, v, err := s.latest(ctx, key, rv)
		if err != nil {
			return nil, err
		}
		at = v
		iterate(snap, key, key, func(e *entry) bool { objs = append(objs, e.obj); return true })
	} else {
		// One key needs no snapshot: read it at the visible version.
		if err := s.waitFor(ctx, key, rv); err != nil {
			return nil, err
		}
		s.mu.RLock()
		at = s.visible
		e, ok := s.getLocked(key, at)
		s.mu.RUnlock()
		if ok {
			objs = append(objs, e.obj)
		}
	}
	wo.SendInitialEvents, wo.InitialObjects, wo.InitialRV = true, objs, at
	// The legacy "state first" watch has no initial-events-end bookmark.
	wo.OmitInitialEventsEnd = opts.SendInitialEvents == nil
	w, err := s.broadcaster.Watch(ctx, at, wo)
	return w, watchError(key, at, err)
}

// checkWatchable fails with ErrGone below the history window and, after FutureWait, with
// ErrTooLargeResourceVersion above the current version.
func (s *Store) checkWatchable(ctx context.Context, key string, rv uint64) error {
	s.mu.RLock()
	cur, oldest := s.visible, s.oldest
	s.mu.RUnlock()
	if rv < oldest {
		return storage.NewErrorAt(storage.ErrGone, key, rv, "too old resource version: %d (%d)", rv, oldest)
	}
	if rv > cur {
		return s.waitFor(ctx, key, rv)
	}
	return nil
}

// watchError is the storage error of the broadcaster's failure to start a watch of key
// from rv.
func watchError(key string, rv uint64, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, watch.ErrTooOld):
		return storage.NewErrorAt(storage.ErrGone, key, rv, "%s", err.Error())
	}
	return storage.WithKey(err, key)
}
