package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	bbolterrors "go.etcd.io/bbolt/errors"

	"github.com/apikit-dev/apikit/storage/memory"
)

// FormatVersion is the version of the file format this package writes (see the package
// documentation). Open refuses files of a higher version and upgrades files of version 1.
const FormatVersion = 2

// walSuffix names the write-ahead log directory beside the B+tree file.
const walSuffix = ".wal"

// starterSegmentSize bounds the segment a log without spares preallocates when it opens.
const starterSegmentSize = 1 << 20

// Defaults of the write-ahead log's Options.
const (
	// DefaultWALSegmentSize is the size of a write-ahead log segment when
	// Options.WALSegmentSize is 0.
	DefaultWALSegmentSize = 16 << 20
	// DefaultCheckpointBytes is Options.CheckpointBytes when it is 0.
	DefaultCheckpointBytes = 4 << 20
	// DefaultCheckpointInterval is Options.CheckpointInterval when it is 0.
	DefaultCheckpointInterval = time.Second
)

// DefaultMaxBatch is the number of records per transaction when Options.MaxBatch is 0.
const DefaultMaxBatch = 1000

// initialMmapSize is the address space bbolt maps at open: 1 GiB on 64-bit systems
// (etcd maps 10 GiB), only address space until the file grows into it. bbolt maps the
// file anew each time it outgrows its mapping, and then copies every key and value of
// the open write transaction out of the old one: a growing store paid about 11 KB of
// garbage per update in checkpoints, and each remap waits for readers.
const initialMmapSize = (math.MaxInt >> 62) << 30 // 0 on 32-bit systems

// DefaultLockTimeout is how long Open waits for another process's lock on the file when
// Options.LockTimeout is 0.
const DefaultLockTimeout = time.Second

var (
	// ErrNotLog reports a file that is not an apikit storage log: not a bbolt database at
	// all, or a bbolt database that holds someone else's buckets.
	ErrNotLog = errors.New("not an apikit storage log")
	// ErrUnsupportedVersion reports a log written in a newer format than this package knows.
	ErrUnsupportedVersion = errors.New("unsupported storage log format version")
	// ErrClosed reports a call on a closed (or closing) Log.
	ErrClosed = errors.New("storage log is closed")
	// ErrOutOfOrder reports records whose resource versions do not increase strictly, from
	// record to record and from call to call, above the last committed version.
	ErrOutOfOrder = errors.New("resource versions out of order")
	// ErrInvalidRecord reports a record that cannot be stored: an empty or too long key, or
	// a too large value.
	ErrInvalidRecord = errors.New("invalid record")
	// ErrFailed reports a call on a Log whose earlier commit failed: the Log accepts nothing
	// more and must be closed and opened again.
	ErrFailed = errors.New("storage log failed")
)

var (
	metaBucket  = []byte("meta")
	stateBucket = []byte("state")
	magicKey    = []byte("magic")
	versionKey  = []byte("version")
	rvKey       = []byte("rv")
	magic       = []byte("apikit-storage-bolt-log")
)

// rvSize is the length of an encoded resource version.
const rvSize = 8

// Options configure a Store (New) or a bare Log (Open, which ignores Codec and Memory).
// The zero value is ready for a Log; a Store needs a Codec.
type Options struct {
	// Codec encodes the objects a Store writes to the file and decodes them on start;
	// required by New. Hosts pass SerializerCodec(codec.NewJSON(theirScheme)).
	Codec Codec
	// Memory configures the in-memory engine of a Store: history window, future-version
	// wait, bookmarks and watch buffers. Its Journal field is set by New.
	Memory memory.Options
	// NoSync skips every fsync and fdatasync, and leaves write-ahead log segments sparse
	// instead of writing their zeros: a commit survives a crash of the process but not of
	// the machine. For tests only.
	NoSync bool
	// MaxBatch bounds the number of records written in one transaction; 0 means
	// DefaultMaxBatch. A single call with more records is still written whole, alone.
	MaxBatch int
	// MaxBatchDelay is how long the committer waits for more records once the first one is
	// queued, unless MaxBatch records are already waiting. 0 (the default) does not wait:
	// records that arrive while a transaction is being written form the next batch, which
	// already groups commits under load without delaying a lone writer.
	MaxBatchDelay time.Duration
	// LockTimeout is how long Open waits for a lock on the file held by another Log or
	// process; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Logger receives open, close and failure messages; nil discards them.
	Logger *slog.Logger
	// WALSegmentSize is the size of each preallocated file of the write-ahead log; 0 means
	// DefaultWALSegmentSize. A frame larger than a segment gets a segment of its own.
	WALSegmentSize int64
	// CheckpointBytes is how many bytes of write-ahead log frames not yet in the B+tree
	// start a checkpoint; 0 means DefaultCheckpointBytes. Writes wait for the checkpointer
	// when four times as many are pending, which bounds the memory they hold.
	CheckpointBytes int64
	// CheckpointInterval is how often the checkpointer runs while frames are pending,
	// whatever their size; 0 means DefaultCheckpointInterval.
	CheckpointInterval time.Duration
}

// Log is a durable, ordered log of key/value records on a bbolt file and a write-ahead
// log beside it, keeping the current value of every key and the highest resource version
// committed. It is safe for concurrent use. Create one with Open and end it with Close.
type Log struct {
	db       *bbolt.DB
	path     string
	logger   *slog.Logger
	maxBatch int
	maxDelay time.Duration

	wal        *wal
	frameBuf   []byte // the frame buffer of whoever holds writing, reused
	ckptBytes  int64
	ckptEvery  time.Duration
	maxPending int64 // unapplied bytes at which the committer waits for the checkpointer

	// walMu guards the checkpointer's side of the write-ahead log: the durable frames not
	// yet in the B+tree and the segments they are in. walCond is broadcast when a
	// checkpoint ends.
	walMu          sync.Mutex
	walCond        *sync.Cond
	unapplied      []appliedFrame
	unappliedBytes int64
	checkpointed   uint64 // resource version the B+tree holds
	ckptErr        error  // set when a checkpoint failed

	ckptMu    sync.Mutex    // serializes checkpoints
	ckptWake  chan struct{} // capacity 1: enough frames are pending
	spareWake chan struct{} // capacity 1: the committer took the last spare segment
	ckptStop  chan struct{} // closed by Close to stop the checkpointer
	ckptEnded chan struct{} // closed when the checkpointer goroutine has returned

	// durableRV is the highest resource version known to be durable.
	durableRV atomic.Uint64

	mu         sync.Mutex
	queue      []*Pending // FIFO of calls waiting for the committer
	queuedRecs int        // records in queue
	queuedRV   uint64     // resource version of the last record accepted
	closing    bool       // Close has begun; nothing more is accepted
	failed     error      // set when a commit failed; nothing more is accepted
	// writing is held by the one goroutine taking and writing a batch: the committer,
	// or a caller of Pending.TryCommit writing its own (see there).
	writing bool

	wake    chan struct{} // capacity 1: something was queued or Close began
	stopped chan struct{} // closed when the committer goroutine has returned

	closeOnce sync.Once
	closeErr  error

	// testHook, when set, runs before every frame is appended, with the number of records
	// and their resource version range; an error fails the batch before anything is
	// written. Tests use it to block the committer and to inject failures.
	testHook func(records int, firstRV, lastRV uint64) error
	// checkpointHook, when set, runs inside every checkpoint transaction just before it
	// commits, with the resource versions it applies; an error aborts the checkpoint.
	checkpointHook func(firstRV, lastRV uint64) error
}

// Open opens the log at path and its write-ahead log at path+".wal", creating them (and a
// new, empty log) if they do not exist, and applies the write-ahead log's frames that the
// file does not hold yet. It refuses, without writing to either, a file that is not an
// apikit storage log (ErrNotLog), has a newer format (ErrUnsupportedVersion) or whose
// write-ahead log is damaged before its tail (ErrCorruptWAL). A file locked by another
// Log fails after Options.LockTimeout. Open starts the committer and checkpointer
// goroutines; Close stops them.
func Open(path string, opts Options) (*Log, error) {
	return openLog(path, opts, osOpenFile)
}

// openLog is Open with the write-ahead log's segment files opened by open.
func openLog(path string, opts Options, open openFile) (*Log, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	lockTimeout := opts.LockTimeout
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	maxBatch := opts.MaxBatch
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}

	info, statErr := os.Stat(path)
	existed := statErr == nil && info.Size() > 0
	if statErr == nil && info.IsDir() {
		return nil, fmt.Errorf("bolt: open %s: is a directory", path)
	}

	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:         lockTimeout,
		NoSync:          opts.NoSync,
		FreelistType:    bbolt.FreelistMapType,
		InitialMmapSize: initialMmapSize,
	})
	if err != nil {
		var pathErr *fs.PathError
		switch {
		case errors.Is(err, bbolterrors.ErrTimeout):
			return nil, fmt.Errorf("bolt: open %s: file is locked by another process or Log: %w", path, err)
		case errors.As(err, &pathErr):
			return nil, fmt.Errorf("bolt: open %s: %w", path, err)
		case existed:
			return nil, fmt.Errorf("bolt: open %s: %w: %w", path, ErrNotLog, err)
		default:
			return nil, fmt.Errorf("bolt: open %s: %w", path, err)
		}
	}

	version, lastRV, fresh, err := checkFormat(db)
	if err == nil && fresh {
		version = FormatVersion
		err = initFormat(db)
		if err == nil && !existed && !opts.NoSync {
			err = syncDir(filepath.Dir(path))
		}
	}
	var (
		w    *wal
		live []walFrame
	)
	if err == nil {
		w, live, err = openWAL(path+walSuffix, orDefault(opts.WALSegmentSize, DefaultWALSegmentSize), opts.NoSync, lastRV, open)
	}
	if err == nil && (len(live) > 0 || version < FormatVersion) {
		lastRV, err = replay(db, live, lastRV)
	}
	if err != nil {
		if w != nil {
			_ = w.close()
		}
		_ = db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}

	ckptBytes := orDefault(opts.CheckpointBytes, DefaultCheckpointBytes)
	l := &Log{
		db:           db,
		path:         path,
		logger:       logger,
		maxBatch:     maxBatch,
		maxDelay:     opts.MaxBatchDelay,
		wal:          w,
		ckptBytes:    ckptBytes,
		ckptEvery:    orDefault(opts.CheckpointInterval, DefaultCheckpointInterval),
		maxPending:   4 * ckptBytes,
		checkpointed: lastRV,
		queuedRV:     lastRV,
		wake:         make(chan struct{}, 1),
		stopped:      make(chan struct{}),
		ckptWake:     make(chan struct{}, 1),
		spareWake:    make(chan struct{}, 1),
		ckptStop:     make(chan struct{}),
		ckptEnded:    make(chan struct{}),
	}
	l.walCond = sync.NewCond(&l.walMu)
	l.durableRV.Store(lastRV)
	// Every frame is in the B+tree now: keep a few segments for reuse and make sure the
	// first write finds one ready, so that it does not preallocate one itself. A new log
	// starts with a small segment, cheap to preallocate; the checkpointer prepares
	// full-size ones in the background from then on, and removes the small one once it
	// is checkpointed.
	l.trimSpares()
	if err := l.ensureSpareOf(min(l.wal.segSize, starterSegmentSize)); err != nil {
		_ = w.close()
		_ = db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	go l.run()
	go l.runCheckpointer()
	logger.Info("storage log opened", "path", path, "created", fresh, "resourceVersion", lastRV, "replayedFrames", len(live))
	return l, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// replay applies the write-ahead log frames above the B+tree's resource version to it, in
// one transaction that also records the current format version, and returns the
// resource version the B+tree then holds.
func replay(db *bbolt.DB, frames []walFrame, checkpointed uint64) (uint64, error) {
	last := checkpointed
	err := db.Update(func(tx *bbolt.Tx) error {
		state := tx.Bucket(stateBucket)
		for _, fr := range frames {
			recs, err := decodeFramePayload(fr.payload)
			if err != nil {
				return fmt.Errorf("write-ahead log: %w: frame of resource versions %d to %d at offset %d of %s: %w",
					ErrCorruptWAL, fr.firstRV, fr.lastRV, fr.off, fr.seg.name, err)
			}
			if err := applyRecords(state, recs); err != nil {
				return err
			}
			last = fr.lastRV
		}
		meta := tx.Bucket(metaBucket)
		if err := meta.Put(versionKey, encodeRV(FormatVersion)); err != nil {
			return err
		}
		return meta.Put(rvKey, encodeRV(last))
	})
	if err != nil {
		return 0, fmt.Errorf("replay write-ahead log: %w", err)
	}
	return last, nil
}

// applyRecords writes recs to the state bucket.
func applyRecords(state *bbolt.Bucket, recs []encodedRecord) error {
	for _, r := range recs {
		var err error
		if r.val == nil {
			err = state.Delete(r.key)
		} else {
			err = state.Put(r.key, r.val)
		}
		if err != nil {
			return fmt.Errorf("key %q: %w", r.key, err)
		}
	}
	return nil
}

// checkFormat reads the meta bucket. fresh reports a database without any bucket, which
// Open initializes; a database with other buckets is not ours.
func checkFormat(db *bbolt.DB) (version, lastRV uint64, fresh bool, err error) {
	err = db.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(metaBucket)
		if meta == nil {
			var names [][]byte
			_ = tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
				names = append(names, bytes.Clone(name))
				return nil
			})
			if len(names) == 0 {
				fresh = true
				return nil
			}
			return fmt.Errorf("%w: bbolt database with buckets %q and no %q bucket", ErrNotLog, names, metaBucket)
		}
		if m := meta.Get(magicKey); !bytes.Equal(m, magic) {
			return fmt.Errorf("%w: bucket %q has magic %q, want %q", ErrNotLog, metaBucket, m, magic)
		}
		var ok bool
		version, ok = decodeRV(meta.Get(versionKey))
		if !ok {
			return fmt.Errorf("%w: malformed format version %x", ErrNotLog, meta.Get(versionKey))
		}
		if version > FormatVersion {
			return fmt.Errorf("%w: file has version %d, this build reads up to %d", ErrUnsupportedVersion, version, FormatVersion)
		}
		if lastRV, ok = decodeRV(meta.Get(rvKey)); !ok {
			return fmt.Errorf("%w: malformed resource version %x", ErrNotLog, meta.Get(rvKey))
		}
		if tx.Bucket(stateBucket) == nil {
			return fmt.Errorf("%w: no %q bucket", ErrNotLog, stateBucket)
		}
		return nil
	})
	return version, lastRV, fresh, err
}

// initFormat writes the buckets and meta data of an empty log.
func initFormat(db *bbolt.DB) error {
	err := db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket(stateBucket); err != nil {
			return err
		}
		if err := meta.Put(magicKey, magic); err != nil {
			return err
		}
		if err := meta.Put(versionKey, encodeRV(FormatVersion)); err != nil {
			return err
		}
		return meta.Put(rvKey, encodeRV(0))
	})
	if err != nil {
		return fmt.Errorf("initialize new log: %w", err)
	}
	return nil
}

// syncDir makes a newly created file's directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

func encodeRV(rv uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, rvSize), rv)
}

func decodeRV(b []byte) (uint64, bool) {
	if len(b) != rvSize {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// Load calls fn for every key of the current state in key order, with the value and the
// resource version of the key's last write, and returns the highest resource version ever
// committed (deletes included): the counter a restarted store continues from. It reads
// one consistent snapshot, at the returned version, and may run while commits go on.
// It first checkpoints every durable write-ahead log frame, so that the snapshot holds
// every write acknowledged before the call.
//
// value is valid only until fn returns: copy it to keep it. fn must not wait for a
// commit of this Log (a long read can hold up the file's growth). An error from fn stops
// the iteration and is returned, wrapped.
func (l *Log) Load(fn func(key string, value []byte, rv uint64) error) (lastRV uint64, err error) {
	l.mu.Lock()
	closing := l.closing
	l.mu.Unlock()
	if closing {
		return 0, fmt.Errorf("bolt: load %s: %w", l.path, ErrClosed)
	}
	if err := l.checkpoint(); err != nil {
		return 0, fmt.Errorf("bolt: load %s: %w", l.path, err)
	}
	err = l.db.View(func(tx *bbolt.Tx) error {
		var ok bool
		if lastRV, ok = decodeRV(tx.Bucket(metaBucket).Get(rvKey)); !ok {
			return fmt.Errorf("%w: malformed resource version", ErrNotLog)
		}
		c := tx.Bucket(stateBucket).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			rv, ok := decodeRV(v[:min(len(v), rvSize)])
			if !ok {
				return fmt.Errorf("%w: key %q: malformed value of %d bytes", ErrNotLog, k, len(v))
			}
			if err := fn(string(k), v[rvSize:], rv); err != nil {
				return fmt.Errorf("key %q: %w", k, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("bolt: load %s: %w", l.path, err)
	}
	return lastRV, nil
}

// Err reports whether the log takes writes: nil while it does; once a commit (its write
// or its fdatasync) or a checkpoint has failed, that failure, wrapping ErrFailed: the log
// then takes no more writes until it is closed and opened again (see the package
// documentation); once Close has begun, ErrClosed.
func (l *Log) Err() error {
	l.mu.Lock()
	failed, closing := l.failed, l.closing
	l.mu.Unlock()
	if failed == nil {
		l.walMu.Lock()
		failed = l.ckptErr
		l.walMu.Unlock()
	}
	switch {
	case failed != nil:
		return fmt.Errorf("bolt: %s: %w: %w", l.path, ErrFailed, failed)
	case closing:
		return fmt.Errorf("bolt: %s: %w", l.path, ErrClosed)
	}
	return nil
}

// LastResourceVersion returns the highest resource version known to be durable: the
// last record of the latest successful commit, or the counter read at Open.
func (l *Log) LastResourceVersion() uint64 {
	return l.durableRV.Load()
}

// Path returns the file the Log was opened on.
func (l *Log) Path() string {
	return l.path
}

// Close stops accepting records (later calls fail with ErrClosed), lets the committer
// write everything already queued, without waiting for Options.MaxBatchDelay (or fail
// it, if the Log has failed), releases every waiting caller, checkpoints the write-ahead
// log into the B+tree and closes the files. It waits for no caller's context, only for
// those writes and for running Loads; later calls return the first one's result.
func (l *Log) Close() error {
	l.closeOnce.Do(func() {
		l.stopWorkers()
		var errs []error
		if err := l.checkpoint(); err != nil {
			errs = append(errs, err)
		}
		l.walMu.Lock()
		errs = append(errs, l.wal.close())
		l.walMu.Unlock()
		if err := l.db.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			l.closeErr = fmt.Errorf("bolt: close %s: %w", l.path, err)
		}
		l.logger.Info("storage log closed", "path", l.path, "resourceVersion", l.durableRV.Load())
	})
	return l.closeErr
}

// stopWorkers stops accepting records, lets the committer write everything queued and
// stops it, then stops the checkpointer.
func (l *Log) stopWorkers() {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.signal()
	<-l.stopped
	close(l.ckptStop)
	<-l.ckptEnded
}
