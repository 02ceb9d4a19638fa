// Package memory is an ordered in-memory storage.Interface backend, for tests, caches and
// single-process servers that need no durability.
//
// Objects live in one copy-on-write B-tree ordered by key (github.com/google/btree's
// B-tree specialized for string keys, exact and faster side by side, see
// BenchmarkKeyTree), changed in place by writes. Every write is also logged with the entry it replaced, for a bounded window
// (by count and age, see [Options]); from that log any state of the window can be rebuilt
// by undoing the writes after it: this serves consistent pages of a paginated list and
// Exact reads at older resourceVersions (watches that start in the past are served by the
// window of the store's watch.Broadcaster). A reader that needs a stable view takes a
// copy-on-write clone of the tree (O(1)), only when the tree changed since the last clone; older states are rebuilt from the
// nearest newer clone and a few are cached, so the pages of one list rebuild their state
// once. Readers never hold the lock while they iterate.
//
// The store is also the engine of durable backends: with [Options.Journal] set, every
// write is handed to the journal in resourceVersion order and becomes visible to reads
// and watches only once the journal reports it durable ([Journal]); [Restore] starts a
// store from a saved state. storage/bolt is built this way.
package memory
