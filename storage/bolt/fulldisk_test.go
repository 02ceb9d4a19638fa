package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// A fault of the file layer under the write-ahead log.
type fault int

const (
	// faultNone: files behave.
	faultNone fault = iota
	// faultFullNewBlocks: the disk is full; a write that goes past what a file already
	// holds (the preallocation of a new segment) fails with ENOSPC after writing half.
	faultFullNewBlocks
	// faultFullEveryWrite: the disk is full and the file system allocates on every
	// write (copy-on-write); every write fails with ENOSPC after writing half.
	faultFullEveryWrite
	// faultSyncEIO: the device fails every fsync and fdatasync with EIO, after the write
	// reached the page cache.
	faultSyncEIO
)

// faultyFiles opens write-ahead log segments (as openFile) that fail as set.
type faultyFiles struct {
	fault  atomic.Int32
	failed atomic.Int64 // calls that failed
}

func (ff *faultyFiles) set(f fault) { ff.fault.Store(int32(f)) }

func (ff *faultyFiles) open(name string, flag int, perm os.FileMode) (walFile, error) {
	f, err := osOpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	var held int64
	if info, err := os.Stat(name); err == nil {
		held = info.Size()
	}
	return &faultyFile{walFile: f, ff: ff, name: name, held: held}, nil
}

// faultyFile is a segment file of faultyFiles.
type faultyFile struct {
	walFile
	ff   *faultyFiles
	name string
	mu   sync.Mutex
	held int64 // bytes written to the file: its allocated blocks
}

func (f *faultyFile) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch fault(f.ff.fault.Load()) {
	case faultFullEveryWrite:
		return f.torn(b, off)
	case faultFullNewBlocks:
		if off+int64(len(b)) > f.held {
			return f.torn(b, off)
		}
	}
	n, err := f.walFile.WriteAt(b, off)
	f.held = max(f.held, off+int64(n))
	return n, err
}

// torn writes half of b, as a write that runs out of space does, and fails with ENOSPC.
func (f *faultyFile) torn(b []byte, off int64) (int, error) {
	f.ff.failed.Add(1)
	n, _ := f.walFile.WriteAt(b[:len(b)/2], off)
	return n, &os.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
}

func (f *faultyFile) Sync() error {
	if fault(f.ff.fault.Load()) == faultSyncEIO {
		f.ff.failed.Add(1)
		return &os.PathError{Op: "fsync", Path: f.name, Err: syscall.EIO}
	}
	return f.walFile.Sync()
}

func (f *faultyFile) Datasync() error {
	if fault(f.ff.fault.Load()) == faultSyncEIO {
		f.ff.failed.Add(1)
		return &os.PathError{Op: "fdatasync", Path: f.name, Err: syscall.EIO}
	}
	return f.walFile.Datasync()
}

// fillResult is what writeUntilRefused saw.
type fillResult struct {
	acked   []string // names of the creates acknowledged
	failed  string   // name of the create that failed
	err     error    // its error
	elapsed time.Duration
}

// writeUntilRefused creates widgets in namespace ns, named prefix000, prefix001, ...,
// until one fails, at most limit of them or for at most a minute (a safety net).
func writeUntilRefused(t *testing.T, s *Store, ns, prefix string, limit int) fillResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	var r fillResult
	for i := range limit {
		name := fmt.Sprintf("%s%03d", prefix, i)
		if _, err := s.Create(ctx, widgetKey(ns, name), storagetest.NewWidget(ns, name, map[string]string{"padding": strings.Repeat("p", 60)}, int64(i))); err != nil {
			r.failed, r.err = name, err
			break
		}
		r.acked = append(r.acked, name)
	}
	r.elapsed = time.Since(start)
	return r
}

// wantUnavailable checks that err is the 503 of a store that takes no more writes,
// about key, with a detail that names no file.
func wantUnavailable(t *testing.T, err error, key, dir string) {
	t.Helper()
	var se *storage.Error
	if !errors.As(err, &se) || se.Err != storage.ErrUnavailable {
		t.Fatalf("error = %v (%T), want a *storage.Error of ErrUnavailable", err, err)
	}
	if se.Key != key {
		t.Errorf("error about %q, want %q", se.Key, key)
	}
	if se.Detail == "" || strings.Contains(se.Detail, dir) || strings.Contains(se.Detail, "/") {
		t.Errorf("detail %q: want words for a client, naming no file", se.Detail)
	}
}

// namesIn lists the names of the widgets in namespace ns.
func namesIn(t *testing.T, s *Store, ns string) []string {
	t.Helper()
	res, err := s.List(context.Background(), storage.Prefix(storagetest.Widgets, ns), storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range res.Items {
		out = append(out, o.GetName())
	}
	return out
}

func TestStore_AFailedWriteOrSyncRefusesWritesWith503AndFailsCheckUntilReopened(t *testing.T) {
	const never = time.Hour
	for _, tc := range []struct {
		name  string
		fault fault
		cause error
		// checkpointEvery is Options.CheckpointInterval: never, so that no segment is
		// recycled and the writes need new ones, or often, so that the B+tree's growth
		// is tried soon.
		checkpointEvery time.Duration
	}{
		{"a full disk when a segment is preallocated", faultFullNewBlocks, syscall.ENOSPC, never},
		{"a full disk under a file system that allocates on every write", faultFullEveryWrite, syscall.ENOSPC, never},
		{"a device that fails fdatasync", faultSyncEIO, syscall.EIO, never},
		{"a full disk when a checkpoint grows the B+tree", faultNone, syscall.ENOSPC, 5 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			path := filepath.Join(dir, "state.db")
			ff := &faultyFiles{}
			var btreeFull atomic.Bool
			opts := Options{
				Codec:              testCodec(),
				WALSegmentSize:     8 << 10, // the writes reach a new segment soon
				CheckpointInterval: tc.checkpointEvery,
			}
			s, err := newStore(path, opts, ff.open)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			s.log.checkpointHook = func(uint64, uint64) error {
				if btreeFull.Load() {
					ff.failed.Add(1)
					return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
				}
				return nil
			}

			before := writeUntilRefused(t, s, "ns", "ok", 20)
			if before.err != nil || s.Check(ctx) != nil {
				t.Fatalf("healthy store: create %s = %v, Check = %v", before.failed, before.err, s.Check(ctx))
			}

			// The fault: writes go on until one meets it, then every one is refused.
			ff.set(tc.fault)
			btreeFull.Store(tc.fault == faultNone)
			during := writeUntilRefused(t, s, "ns", "fill", 500)
			t.Logf("%s: %d creates acknowledged after the fault, then %s failed after %s (%d failed file calls)",
				tc.name, len(during.acked), during.failed, during.elapsed, ff.failed.Load())
			if during.err == nil {
				t.Fatalf("500 creates on a faulty disk all succeeded")
			}
			wantUnavailable(t, during.err, widgetKey("ns", during.failed), dir)
			checkErr := s.Check(ctx)
			if !errors.Is(checkErr, storage.ErrUnavailable) || !errors.Is(checkErr, tc.cause) {
				t.Errorf("Check after the failure = %v, want ErrUnavailable wrapping %v", checkErr, tc.cause)
			}

			// Space is freed (the device answers again): the store still refuses writes,
			// since a failed fsync cannot be retried and its state holds the failed write.
			ff.set(faultNone)
			btreeFull.Store(false)
			_, err = s.Create(ctx, widgetKey("ns", "after"), storagetest.NewWidget("ns", "after", nil, 1))
			wantUnavailable(t, err, widgetKey("ns", "after"), dir)
			_, err = s.GuaranteedUpdate(ctx, widgetKey("ns", before.acked[0]), storage.UpdateOptions{}, setSize(99))
			wantUnavailable(t, err, widgetKey("ns", before.acked[0]), dir)
			if err := s.Check(ctx); !errors.Is(err, storage.ErrUnavailable) {
				t.Errorf("Check once the disk works again = %v, want ErrUnavailable until a restart", err)
			}
			// Reads go on at the last durable state: every acknowledged write, nothing else.
			acked := append(slices.Clone(before.acked), during.acked...)
			slices.Sort(acked) // a list's order
			if got := namesIn(t, s, "ns"); !slices.Equal(got, acked) {
				t.Errorf("list after the failure = %v, want the %d acknowledged creates", got, len(acked))
			}
			_ = s.Close() // may fail: the last checkpoint is tried again

			// A restart recovers: every acknowledged write is there, the refused ones
			// are not, and writes are taken again.
			s2 := openStore(t, path, Options{})
			got := namesIn(t, s2, "ns")
			want := acked
			if slices.Contains(got, during.failed) {
				// Its outcome was unknown, as after a crash: it may have reached the disk.
				want = append(slices.Clone(acked), during.failed)
				slices.Sort(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("after the restart: %v, want the %d acknowledged creates", got, len(acked))
			}
			if _, err := s2.Create(ctx, widgetKey("ns", "after"), storagetest.NewWidget("ns", "after", nil, 1)); err != nil {
				t.Errorf("create after the restart: %v", err)
			}
			if err := s2.Check(ctx); err != nil {
				t.Errorf("Check after the restart = %v", err)
			}
		})
	}
}
