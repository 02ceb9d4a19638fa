// Package watch carries changes from storage to watching clients.
//
// Event, EventType and Interface are the watch contract every layer speaks: the five event
// types of the Kubernetes API and a channel of events that ends when the watch ends.
//
// Broadcaster is the fan-out every storage backend serves its watches from, like
// kube-apiserver's watch cache. The backend publishes each committed write as a Change, in
// strictly increasing resourceVersion order; the Broadcaster keeps a history window of
// recent changes (bounded by count and age) and delivers each change to every watch whose
// key and selector match:
//
//   - Watch(ctx, from, opts) replays the changes after from that are still in the window,
//     then continues live with no gap and no duplicate; a from older than the window is
//     ErrTooOld, which the storage layer reports as 410 Gone.
//   - Selector transitions follow kube-apiserver: an object that stops matching arrives
//     as DELETED, one that starts matching as ADDED.
//   - Streaming lists (sendInitialEvents) start with synthetic ADDED events and a BOOKMARK
//     annotated "k8s.io/initial-events-end"; watches may ask for periodic bookmarks.
//   - Publish never waits for a watcher. Each watcher has a bounded buffer; when it is
//     full the watcher catches up from the history window by itself, and a watcher that
//     stays behind longer than Options.SlowWatcherTimeout (or falls out of the window)
//     is ended with a 410 Expired ERROR event, which client-go answers by listing again.
//   - A batch watch (WatchOptions.Batches; read with Batcher.NextBatch, as an HTTP watch
//     stream is) has no buffer and costs Publish nothing: its consumer reads every change
//     it has not seen from the history window at once, from its own cursor. Idle batch
//     watchers are woken by the Broadcaster's notifier, in rounds (at most one per 20 ms
//     at 1,000 watchers, however many changes a round carries) and through a small window
//     of watchers busy at once, so that a thousand watchers' writes neither multiply with
//     the change rate nor crowd out the writers. One that leaves a change unread longer
//     than SlowWatcherTimeout, or falls out of the window, ends with the same ERROR.
//
// Objects in events are shared by every watcher and by the history: they are read-only.
// Encodings are shared too: Event.Encoded encodes the object of a change once per key
// (version and media type), however many watchers send it.
package watch
