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
