// Package cache is a watch cache in front of any storage backend, like kube-apiserver's
// cacher: all the watches of a resource share one backend watch, and reads are served
// from memory.
//
// For each resource prefix ("/<group>/<resource>/"), started on its first use or by
// Options.Prefixes, the cache runs one backend watch with initial events (a watch-list:
// the state, then every change) and keeps an ordered store of the resource's objects up
// to date from it. Every watch of the resource is served by a watch.Broadcaster fed from
// that store, with a history window for watches from an older resourceVersion.
//
// Reads follow the spec's resourceVersion tables: "0" reads the cache at once; a
// version N (NotOlderThan) waits until the cache has reached N; unset (Most Recent) asks
// the backend for its current version (storage.Versioned) and waits until the cache has
// reached it, asking the backend's watches for a bookmark (storage.ProgressRequester)
// when the writes since were to other resources: kube's consistent reads from cache.
// Exact reads and the pages of a paginated list are served from snapshots of the store
// (copy-on-write B-tree clones kept for the versions that lists were read at). What the
// cache cannot serve within its bounds goes to the backend. Writes and counts go to the
// backend; a write returns once the cache holds it, so that a client reading from the
// same cache after its write sees it at any resourceVersion, "0" included.
//
// When the backend watch ends (an ERROR such as 410 Expired, or the channel closes), the
// cache ends its watches of the resource, so that their clients re-watch or relist, and
// starts again with a fresh watch-list after a backoff.
//
// # Use
//
// A host wraps the backend it built and hands the cache to the REST layer as its
// storage; writes still reach the backend, which must outlive the cache:
//
//	backend := memory.New(memory.Options{})          // or bolt.New, an etcd backend
//	c, err := cache.Start(ctx, backend, cache.Options{ // ctx bounds the cache's goroutines
//		Prefixes: []string{storage.Prefix(widgets, "")}, // warm these up front
//	})
//	if err != nil { ... }
//	defer c.Close()
//	// serve with c as the storage.Interface
//
// Keys must be laid out as storage.Key lays them out.
package cache
