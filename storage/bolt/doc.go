// Package bolt is the durable layer of apikit's embedded single-node storage backend: a
// write-ahead store on go.etcd.io/bbolt that every write passes through, and is fsync'ed
// by, before it is acknowledged.
//
// The full backend pairs a [Log] with the in-memory engine of storage/memory, which serves
// reads, history and watches: on start the engine is filled from [Log.Load], and every
// write is committed to the log before the engine applies it and the caller is answered.
// This package holds only the durable part; it knows nothing about objects, only keys,
// opaque values and resource versions.
//
// # Group commit
//
// [Log.Commit] (or [Log.Enqueue] followed by [Pending.Wait]) queues records in call order.
// A single committer goroutine takes as many queued records as are waiting, up to
// [Options.MaxBatch], writes them in one bbolt read-write transaction (one fsync) and then
// releases every caller in that batch. Records become durable in the order they were
// queued, and a transaction is atomic, so a record is never durable without every record
// queued before it. The caller chooses the resource versions; they must increase
// strictly from record to record and call to call, or the call fails with [ErrOutOfOrder].
//
// A failed transaction fails every caller in it with the cause, and the log then stops:
// every later call fails with [ErrFailed] until the log is closed and opened again, so
// nothing queued after a failed record can become durable without it.
//
// A caller whose context ends while it waits gets the context's error, but its records
// stay queued and may still become durable: the outcome is unknown, as with a timed-out
// request to etcd. A context that has already ended when Commit is called queues nothing.
//
// # File format (version 1)
//
// The file is a bbolt database with two top-level buckets:
//
//	"meta"   "magic"   -> "apikit-storage-bolt-log" (marks the file as ours)
//	         "version" -> format version, uint64 big-endian (currently 1)
//	         "rv"      -> the highest resource version ever committed, uint64 big-endian,
//	                      deletes included; the counter restored on restart
//	"state"  <key>     -> resource version of the key's last write, uint64 big-endian,
//	                      followed by the value bytes (possibly none)
//
// A delete removes the key from "state" and advances "rv". Keys are the storage keys
// themselves ("/apps/deployments/default/web"), so bbolt's byte order is the key order
// that [Log.Load] reports. [Open] refuses a file that is not a bbolt database, a bbolt
// database with buckets but without this meta data ([ErrNotLog]) and a newer format
// version ([ErrUnsupportedVersion]); it never writes to a file it refuses. An existing
// bbolt file with no buckets at all cannot be told apart from a new one and is adopted.
package bolt
