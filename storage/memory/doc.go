// Package memory is an ordered in-memory storage.Interface backend, for tests, caches and
// single-process servers that need no durability.
//
// Objects live in a copy-on-write B-tree (github.com/google/btree) ordered by key. After
// every write the tree is cloned in O(1), and the (resourceVersion, snapshot, change)
// records of a bounded window (by count and age, see [Options]) serve three things at
// once: consistent pages of a paginated list, Exact reads at older resourceVersions and
// watches that start in the past. Readers never hold the lock while they iterate.
//
// The store is also the engine of durable backends: with [Options.Journal] set, every
// write is handed to the journal in resourceVersion order and becomes visible to reads
// and watches only once the journal reports it durable ([Journal]); [Restore] starts a
// store from a saved state. storage/bolt is built this way.
package memory
