// Package memory is an ordered in-memory storage.Interface backend, for tests, caches and
// single-process servers that need no durability.
//
// Objects live in a copy-on-write B-tree (github.com/google/btree) ordered by key. After
// every write the tree is cloned in O(1), and the (resourceVersion, snapshot, change)
// records of a bounded window (by count and age, see [Options]) serve three things at
// once: consistent pages of a paginated list, Exact reads at older resourceVersions and
// watches that start in the past. Readers never hold the lock while they iterate.
package memory
