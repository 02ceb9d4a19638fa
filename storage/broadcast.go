package storage

import (
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// BroadcastOptions returns the options of a watch.Broadcaster watch that serves a
// storage watch of key with opts: the key (a prefix with its "/" when recursive), the
// predicate as the broadcaster's function (an object it cannot evaluate does not match)
// and bookmarks with their objects. Backends that serve watches from a Broadcaster share
// it; the initial events are theirs to add.
func BroadcastOptions(key string, opts WatchOptions) watch.WatchOptions {
	if opts.Recursive {
		key = EnsurePrefix(key)
	}
	wo := watch.WatchOptions{
		Key:               key,
		Recursive:         opts.Recursive,
		Bookmarks:         opts.Bookmarks,
		NewBookmarkObject: bookmarkFactory(opts.NewBookmarkObject),
		Batches:           opts.Batches,
	}
	if !opts.Predicate.Empty() {
		pred := opts.Predicate
		wo.Predicate = func(obj scheme.Object) bool {
			ok, err := pred.Matches(obj)
			return err == nil && ok
		}
	}
	return wo
}

// bookmarkFactory adapts WatchOptions.NewBookmarkObject to the broadcaster's; without
// one, bookmarks carry a *scheme.Unstructured with only metadata.
func bookmarkFactory(newObj func() scheme.Object) func(uint64) scheme.Object {
	if newObj == nil {
		return func(uint64) scheme.Object { return &scheme.Unstructured{Object: map[string]any{}} }
	}
	return func(uint64) scheme.Object { return newObj() }
}
