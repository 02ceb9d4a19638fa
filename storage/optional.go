package storage

import "context"

// ProgressRequester is implemented by backends whose watches can be asked to report how
// far they have got, as etcd's RequestProgress does: after RequestWatchProgress returns,
// every running watch that allows bookmarks soon receives a BOOKMARK at the store's
// current resourceVersion, queued after every event up to it. A watch cache in front of
// the backend uses it to learn that it has seen every change up to a version when the
// writes since were to other resources, so that a consistent read can be served from the
// cache rather than the backend. A watch whose buffer is busy may be skipped: callers
// wait for the bookmark with a bound of their own.
type ProgressRequester interface {
	RequestWatchProgress(ctx context.Context) error
}

// SharedLister is implemented by backends that can list their stored objects themselves
// instead of a copy of each (storage/memory, storage/bolt and the watch cache, as
// kube-apiserver's watch cache lists the objects it holds). ListShared is List without
// the copies: the backend never changes an object once stored, and shares the items
// read-only with every reader, as it shares watch event objects; the caller must not
// modify them nor anything they refer to. A list response encodes its items one at a
// time, so copies made up front for the whole page would be the largest thing it holds.
type SharedLister interface {
	ListShared(ctx context.Context, prefix string, opts ListOptions) (*ListResult, error)
}
