// Package bolt is apikit's durable embedded single-node storage backend, on
// go.etcd.io/bbolt.
//
// [New] returns a [Store]: a storage.Interface whose reads, history, snapshots and watches
// are served by the in-memory engine of storage/memory, and whose every write passes
// through a [Log], and is fsync'ed by it, before it is acknowledged. Objects are kept in
// the file encoded by [Options.Codec] (hosts pass SerializerCodec(codec.NewJSON(s))). On
// start the Store loads the file's state and continues its resourceVersion counter.
//
// # Writes, group commit and visibility
//
// Under the engine's lock a write is computed against the latest state, given the next
// resourceVersion, applied to the engine and queued to the Log ([Log.Enqueue]), so the
// Log receives writes in version order; the writer then waits for its commit outside
// the lock, so that concurrent writers share one transaction and one fsync. Reads,
// counts and watch events are served at a watermark that advances over durable writes
// only, in version order: nothing is seen before it is durable, and everything
// acknowledged is seen (read-your-writes). Read-modify-write calls (GuaranteedUpdate,
// Delete) compute on the latest state, durable or not, so concurrent writers to one key
// queue behind each other instead of retrying; their answers wait until the state they
// were based on is durable. When a commit fails, the write and every write queued
// behind it fail, the Store takes no more writes, and none of them is ever seen; reads
// go on at the last durable state. Close and open the Store again to recover.
//
// # Restart
//
// The history window starts empty after a restart: reads and watches at versions older
// than the loaded one fail with storage.ErrGone (clients list again), as they would
// after an etcd compaction. No version is shown to anyone before it is durable, so a
// crash can lose only versions that nobody has seen, and a version lost in a crash may
// be given to another write after the restart without confusing any client.
//
// # The Log
//
// The Log is the durable part alone and knows nothing about objects, only keys, opaque
// values and resource versions.
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
