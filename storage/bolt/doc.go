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
// the lock, so that concurrent writers share one log frame and one fdatasync. Reads,
// counts and watch events are served at a watermark that advances over durable writes
// only, in version order: nothing is seen before it is durable, and everything
// acknowledged is seen (read-your-writes). Read-modify-write calls (GuaranteedUpdate,
// Delete) compute on the latest state, durable or not, so concurrent writers to one key
// queue behind each other instead of retrying; their answers wait until the state they
// were based on is durable. When a commit fails, the write and every write queued
// behind it fail, the Store takes no more writes, and none of them is ever seen; reads
// go on at the last durable state. Close and open the Store again to recover (see
// below).
//
// # A full disk or a failing device
//
// A write to the write-ahead log, its fdatasync, or a checkpoint that fails (ENOSPC when
// a segment is preallocated or the B+tree grows, EIO from the device) stops the Store's
// writes for good: they stay refused when space is freed, until the Store is closed and
// opened again, in practice until the process restarts. The Store does not resume by
// itself, because that is not safe. After a failed fdatasync, Linux may have dropped the
// dirty pages, and a retry then reports success ("fsyncgate"): the frame may be on the
// disk, only in the page cache, or torn, and nothing the process can do tells which. And
// the engine's latest state already holds the failed write, which the writes queued
// behind it were computed on. A new Store reads only what the log holds, and is right.
//
// Until then reads and watches go on at the last durable state, and the failed write,
// the writes queued behind it and every later one fail with storage.ErrUnavailable,
// which the REST layer answers with 503 ServiceUnavailable and a message that names no
// file ("storage is unavailable: a write could not be made durable, and the store takes
// no more writes until it is restarted"). The cause is logged once, when the Log fails,
// and [Store.Check] returns it. A server runs Check as a health check of both /readyz
// and /livez (the example server names it "bolt"), so that a load balancer stops sending
// it requests and a supervisor restarts it; after the restart every acknowledged write
// is there. The write that failed may or may not be, as after a crash: its outcome is
// unknown, as a client of etcd whose request timed out does not know it either.
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
// [Options.MaxBatch], appends them to the write-ahead log as one frame, makes it durable
// with one fdatasync and then releases every caller in that batch. Records become
// durable in the order they were queued, and a frame is atomic (it checks whole or not at
// all), so a record is never durable without every record queued before it. The caller
// chooses the resource versions; they must increase strictly from record to record and
// call to call, or the call fails with [ErrOutOfOrder].
//
// A failed append fails every caller in its batch with the cause, and the log then stops:
// every later call fails with [ErrFailed] until the log is closed and opened again, so
// nothing queued after a failed record can become durable without it; [Log.Err] reports
// it (see "A full disk or a failing device" above). (Whether the
// failed frame itself reached the disk is unknown, as after a crash during a write.)
//
// When nothing is being written and a caller's records are first in line, the caller
// writes that batch itself ([Pending.TryCommit], which Commit and the Store call before
// they wait), saving the handoff to the committer goroutine and back; one writer at a
// time, the committer or a caller, takes and writes a batch, so the order and the
// grouping are as above.
//
// A caller whose context ends while it waits gets the context's error, but its records
// stay queued and may still become durable: the outcome is unknown, as with a timed-out
// request to etcd. A caller writing its own batch waits for that one append and sync
// whatever its context does. A context that has already ended when Commit is called
// queues nothing.
//
// # Write-ahead log and checkpoints
//
// An acknowledged write costs one fdatasync per group, not the two fsyncs and the page
// writes of a bbolt commit: the B+tree is brought up to date off the request path. A
// checkpointer goroutine applies the durable frames to the B+tree in one bbolt
// transaction, which also records the last resource version applied, whenever
// [Options.CheckpointBytes] of frames are pending or [Options.CheckpointInterval] has
// passed, on [Log.Load] (so that it reads every acknowledged write) and on Close. Segments
// whose frames are all applied are reused. Writes wait for the checkpointer when four
// times CheckpointBytes are pending, which bounds the memory that holds their records
// until they are applied; a failed checkpoint stops the log's writes as a failed commit
// does (the frames stay in the log and the next Open applies them).
//
// Segments are preallocated: written with zeros and synced once when created, so that an
// append changes neither a segment's size nor its block allocation, and the fdatasync
// that acknowledges a group flushes its data and no file system metadata. The committer
// moves to a spare segment (prepared by the checkpointer) when a frame does not fit; a
// frame larger than a segment gets a segment of its own.
//
// Durability: a frame is appended, and synced, only after every earlier frame is durable,
// so a crash can tear at most the last frame of the log, which nobody was told about. On
// Open the log is read in order, a torn tail ends it, and every frame above the resource
// version the B+tree records is applied to it before anything else happens; the B+tree is
// never ahead of the log, because it only receives durable frames. Damage anywhere else
// would lose acknowledged writes silently, so Open refuses it with [ErrCorruptWAL]: a
// frame that does not check followed by a valid one not yet applied, or a frame whose
// predecessor is missing (each frame names the last resource version before it).
//
// # File format (version 2)
//
// The file is a bbolt database with two top-level buckets:
//
//	"meta"   "magic"   -> "apikit-storage-bolt-log" (marks the file as ours)
//	         "version" -> format version, uint64 big-endian (currently 2)
//	         "rv"      -> the highest resource version applied to this file, uint64
//	                      big-endian, deletes included: the checkpointed version
//	"state"  <key>     -> resource version of the key's last write, uint64 big-endian,
//	                      followed by the value bytes (possibly none)
//
// A delete removes the key from "state" and advances "rv". Keys are the storage keys
// themselves ("/apps/deployments/default/web"), so bbolt's byte order is the key order
// that [Log.Load] reports. [Open] refuses a file that is not a bbolt database, a bbolt
// database with buckets but without this meta data ([ErrNotLog]) and a newer format
// version ([ErrUnsupportedVersion]); it never writes to a file it refuses. An existing
// bbolt file with no buckets at all cannot be told apart from a new one and is adopted.
//
// Beside the file, the directory <file>.wal holds the write-ahead log: segment files
// named 00000000.seg, 00000001.seg and so on, in no particular order. A segment starts
// with a 32-byte header, rewritten each time the segment is (re)used: "apikitwl", its
// generation (uint64, increasing from segment to segment, which orders the log) and the
// CRC32C (Castagnoli) of those 16 bytes. Frames follow, each at an 8-byte aligned offset:
//
//	payload length    uint64
//	CRC32C            uint32, of the bytes after it to the end of the payload
//	reserved          uint32, zero
//	generation        uint64, the segment's: frames left from an earlier use do not match
//	previous version  uint64, the last resource version of the frame before
//	first, last       uint64, the resource versions of the first and last records
//	payload           per record: uvarint key length, key, then uvarint 0 for a delete or
//	                  the length of the "state" value plus one and that value
//
// All integers are big-endian. The log ends at the first offset that does not hold a
// valid frame of the segment's generation. The file and its directory go together: copy,
// move or delete both. Open refuses a damaged write-ahead log without writing to either.
//
// Version 1 is version 2 without the write-ahead log, its "rv" being the last committed
// version. Open reads it unchanged and records version 2 before its first write: a build
// that knows only version 1 would ignore the write-ahead log and lose the acknowledged
// writes that are only there, so it must refuse the file instead.
package bolt
