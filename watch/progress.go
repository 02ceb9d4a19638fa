package watch

// RequestProgress sends every live watcher that allows bookmarks a BOOKMARK at the current
// resourceVersion now, rather than at the next bookmark interval (as etcd's
// RequestProgress does). A storage backend calls it to answer
// storage.ProgressRequester: a watch cache in front of it then learns that it has seen
// every change up to that version. Watchers that are catching up or whose buffer is
// half full are skipped, as they are by the periodic bookmarks.
func (b *Broadcaster) RequestProgress() { b.sendBookmarks() }
