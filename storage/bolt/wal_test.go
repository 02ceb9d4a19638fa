package bolt

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"
)

// walOnly keeps every write in the write-ahead log until Load or Close checkpoints it.
var walOnly = Options{CheckpointBytes: 1 << 40, CheckpointInterval: time.Hour}

// crashLog stops l as a killed process would: queued writes are written, but nothing is
// checkpointed and the files are closed as they are. Close does nothing afterwards.
func crashLog(t *testing.T, l *Log) {
	t.Helper()
	l.closeOnce.Do(func() {
		l.stopWorkers()
		if err := errors.Join(l.wal.close(), l.db.Close()); err != nil {
			t.Fatalf("crash: %v", err)
		}
	})
}

// walFrames returns the frames of every segment of the log at path, in log order.
func walFrames(t *testing.T, path string) []walFrame {
	t.Helper()
	dir := path + walSuffix
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var frames []walFrame
	for _, e := range entries {
		seg, found, err := readSegment(osOpenFile, filepath.Join(dir, e.Name()), 0)
		if err != nil {
			t.Fatal(err)
		}
		_ = seg.f.Close()
		frames = append(frames, found...)
	}
	slices.SortFunc(frames, compareFrames)
	return frames
}

// damage changes the bytes at off in file with fn.
func damage(t *testing.T, file string, off int64, fn func([]byte)) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fn(data[off:])
	writeFile(t, file, data)
}

// snapshotDir returns the contents of every file under dir.
func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestWAL_ReopenAfterCrash(t *testing.T) {
	value := strings.Repeat("v", 600)
	commits := [][]Record{
		{put("/a", value, 1)},
		{put("/b", value, 2), del("/a", 3)},
		{put("/c", value, 4)},
	}
	all := []entry{{"/b", value, 2}, {"/c", value, 4}}
	tests := []struct {
		name    string
		segSize int64
		damage  func(t *testing.T, frames []walFrame) // of the frames of the three commits
		want    []entry
		wantRV  uint64
		wantErr error
	}{
		{
			name:   "every acknowledged frame is replayed",
			want:   all,
			wantRV: 4,
		},
		{
			name:    "frames spread over segments are replayed in order",
			segSize: 1024,
			want:    all,
			wantRV:  4,
		},
		{
			name: "a torn last frame was never acknowledged and is dropped",
			damage: func(t *testing.T, frames []walFrame) {
				last := frames[2]
				damage(t, last.seg.name, last.off+frameHeaderSize+10, func(b []byte) { b[0] ^= 0xff })
			},
			want:   []entry{{"/b", value, 2}},
			wantRV: 3,
		},
		{
			name: "a last frame cut short is dropped",
			damage: func(t *testing.T, frames []walFrame) {
				last := frames[2]
				damage(t, last.seg.name, last.off+frameHeaderSize+int64(len(last.payload))/2, func(b []byte) {
					clear(b[:len(last.payload)/2])
				})
			},
			want:   []entry{{"/b", value, 2}},
			wantRV: 3,
		},
		{
			name: "a corrupt frame followed by a valid one refuses to open",
			damage: func(t *testing.T, frames []walFrame) {
				damage(t, frames[1].seg.name, frames[1].off+frameHeaderSize+10, func(b []byte) { b[0] ^= 0xff })
			},
			wantErr: ErrCorruptWAL,
		},
		{
			name: "a corrupt frame length followed by a valid frame refuses to open",
			damage: func(t *testing.T, frames []walFrame) {
				damage(t, frames[0].seg.name, frames[0].off, func(b []byte) { b[7] ^= 0x40 })
			},
			wantErr: ErrCorruptWAL,
		},
		{
			name:    "a lost segment before a later one refuses to open",
			segSize: 1024,
			damage: func(t *testing.T, frames []walFrame) {
				if frames[1].seg.name == frames[2].seg.name {
					t.Fatal("frames 2 and 3 share a segment; the test needs them apart")
				}
				damage(t, frames[1].seg.name, 0, func(b []byte) { clear(b[:segmentHeaderSize]) })
			},
			wantErr: ErrCorruptWAL,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.db")
			opts := walOnly
			opts.WALSegmentSize = tt.segSize
			l := openTestLog(t, path, opts)
			for _, recs := range commits {
				if err := l.Commit(context.Background(), recs...); err != nil {
					t.Fatal(err)
				}
			}
			crashLog(t, l)
			frames := walFrames(t, path)
			if len(frames) != len(commits) {
				t.Fatalf("the log holds %d frames, want one per commit (%d)", len(frames), len(commits))
			}
			if tt.damage != nil {
				tt.damage(t, frames)
			}
			before := snapshotDir(t, filepath.Dir(path))

			if tt.wantErr != nil {
				openFails(t, path, tt.wantErr)
				if !maps.EqualFunc(before, snapshotDir(t, filepath.Dir(path)), bytes.Equal) {
					t.Errorf("Open() changed files it refused")
				}
				return
			}
			l = openTestLog(t, path, Options{})
			got, last := loadAll(t, l)
			if diff := cmp.Diff(tt.want, got); diff != "" || last != tt.wantRV {
				t.Errorf("state at %d, want %d (-want +got):\n%s", last, tt.wantRV, diff)
			}
			// Versions continue from the replayed state.
			if err := l.Commit(context.Background(), put("/d", "D", tt.wantRV+1)); err != nil {
				t.Fatalf("Commit() after replay = %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l = openTestLog(t, path, Options{})
			got, last = loadAll(t, l)
			want := append(slices.Clone(tt.want), entry{"/d", "D", tt.wantRV + 1})
			if diff := cmp.Diff(want, got); diff != "" || last != tt.wantRV+1 {
				t.Errorf("state after a write and a clean reopen at %d (-want +got):\n%s", last, diff)
			}
		})
	}
}

func TestWAL_ReplaysOnlyFramesAboveTheCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, walOnly)
	applied := &recorder{}
	l.checkpointHook = func(first, last uint64) error { return applied.hook(0, first, last) }
	ctx := context.Background()
	if err := l.Commit(ctx, put("/a", "1", 1), put("/b", "2", 2)); err != nil {
		t.Fatal(err)
	}
	loadAll(t, l) // checkpoints 1..2
	if err := l.Commit(ctx, put("/a", "3", 3)); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx, del("/b", 4)); err != nil {
		t.Fatal(err)
	}
	crashLog(t, l)
	if diff := cmp.Diff([]batch{{0, 1, 2}}, applied.get()); diff != "" {
		t.Errorf("checkpoints before the crash (-want +got):\n%s", diff)
	}

	l = openTestLog(t, path, walOnly)
	got, last := loadAll(t, l)
	if diff := cmp.Diff([]entry{{"/a", "3", 3}}, got); diff != "" || last != 4 {
		t.Errorf("state at %d, want 4 (-want +got):\n%s", last, diff)
	}
}

func TestWAL_SegmentsAreRecycledAndBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	opts := Options{WALSegmentSize: 4096, CheckpointBytes: 4096, MaxBatch: 4}
	l := openTestLog(t, path, opts)
	value := strings.Repeat("x", 300)
	const writes = 2000
	for rv := uint64(1); rv <= writes; rv++ {
		// Every 97th write is larger than a segment and gets a segment of its own.
		v := value
		if rv%97 == 0 {
			v = strings.Repeat("y", 5000)
		}
		if err := l.Commit(context.Background(), put(keyOf(rv%50), v, rv)); err != nil {
			t.Fatal(err)
		}
	}
	// Unapplied frames are bounded by 4*CheckpointBytes, that is by 4 segments and one
	// partly filled, plus the spares, the current segment and one of its own for a large
	// frame.
	entries, err := os.ReadDir(path + walSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if limit := 4 + 1 + maxSpareSegments + 1 + 1; len(entries) > limit {
		t.Errorf("%d segment files after %d writes, want at most %d", len(entries), writes, limit)
	}
	crashLog(t, l)

	l = openTestLog(t, path, opts)
	got, last := loadAll(t, l)
	if last != writes || len(got) != 50 {
		t.Fatalf("after reopen: %d keys at %d, want 50 at %d", len(got), last, writes)
	}
	for _, e := range got {
		if writes-e.RV >= 50 {
			t.Errorf("key %s at version %d, want its last write among the last 50", e.Key, e.RV)
		}
	}
}

func TestWAL_CheckpointFailureStopsWritesAndKeepsAcknowledgedOnes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, walOnly)
	injected := errors.New("injected disk failure")
	l.checkpointHook = func(uint64, uint64) error { return injected }
	ctx := context.Background()
	if err := l.Commit(ctx, put("/a", "A", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(func(string, []byte, uint64) error { return nil }); !errors.Is(err, injected) {
		t.Errorf("Load() with a failing checkpoint = %v, want the injected error", err)
	}
	if err := l.Commit(ctx, put("/b", "B", 2)); !errors.Is(err, injected) {
		t.Errorf("Commit() after a failed checkpoint = %v, want the injected error", err)
	}
	if err := l.Commit(ctx, put("/b", "B", 3)); !errors.Is(err, ErrFailed) {
		t.Errorf("second Commit() after a failed checkpoint = %v, want ErrFailed", err)
	}
	if err := l.Close(); !errors.Is(err, injected) {
		t.Errorf("Close() with a failing checkpoint = %v, want the injected error", err)
	}

	// The acknowledged write is still in the write-ahead log.
	l = openTestLog(t, path, Options{})
	got, last := loadAll(t, l)
	if diff := cmp.Diff([]entry{{"/a", "A", 1}}, got); diff != "" || last != 1 {
		t.Errorf("state after reopen at %d, want 1 (-want +got):\n%s", last, diff)
	}
}

func TestOpen_UpgradesAVersion1File(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	writeBoltFile(t, path, func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		state, err := tx.CreateBucket(stateBucket)
		if err != nil {
			return err
		}
		return errors.Join(
			meta.Put(magicKey, magic),
			meta.Put(versionKey, encodeRV(1)),
			meta.Put(rvKey, encodeRV(7)),
			state.Put([]byte("/a"), append(encodeRV(3), "A"...)),
		)
	})
	l := openTestLog(t, path, Options{})
	got, last := loadAll(t, l)
	if diff := cmp.Diff([]entry{{"/a", "A", 3}}, got); diff != "" || last != 7 {
		t.Errorf("version 1 state at %d, want 7 (-want +got):\n%s", last, diff)
	}
	if err := l.Commit(context.Background(), put("/b", "B", 8)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bbolt.Tx) error {
		if v, _ := decodeRV(tx.Bucket(metaBucket).Get(versionKey)); v != FormatVersion {
			t.Errorf("format version after open = %d, want %d", v, FormatVersion)
		}
		if got := tx.Bucket(stateBucket).Get([]byte("/b")); !bytes.Equal(got, append(encodeRV(8), "B"...)) {
			t.Errorf("/b after Close = %q, want it checkpointed", got)
		}
		return nil
	})
}

func TestWAL_GenerationOfAFrameWithoutItsHeaderIsNotReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, walOnly)
	if err := l.Commit(context.Background(), put("/a", "A", 1)); err != nil {
		t.Fatal(err)
	}
	crashLog(t, l)
	frames := walFrames(t, path)
	if len(frames) != 1 {
		t.Fatalf("the log holds %d frames, want 1", len(frames))
	}
	// The crash kept the first frame of the segment but not its new header: the header
	// names an earlier generation, so the frame (never acknowledged) is not replayed.
	gen := frames[0].seg.gen
	writeAt(t, frames[0].seg.name, 0, appendSegmentHeader(nil, gen-1))

	w, live, err := openWAL(path+walSuffix, DefaultWALSegmentSize, true, 0, osOpenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	if len(live) != 0 {
		t.Errorf("replayed %d frames of a segment whose header names another generation, want none", len(live))
	}
	if w.nextGen <= gen {
		t.Errorf("next generation %d, want above %d, the generation of the frame found", w.nextGen, gen)
	}
}

// writeAt writes data at off in file.
func writeAt(t *testing.T, file string, off int64, data []byte) {
	t.Helper()
	damage(t, file, off, func(b []byte) { copy(b, data) })
}

func TestWAL_WritesWaitForTheCheckpointerWhenTooMuchIsPending(t *testing.T) {
	const ckptBytes = 2048
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{MaxBatch: 1, CheckpointBytes: ckptBytes, CheckpointInterval: time.Hour})
	stuck := newGate(1, nil)
	l.checkpointHook = func(first, _ uint64) error { return stuck.pass(first) }

	value := strings.Repeat("v", 1000)
	var pending []*Pending
	for rv := uint64(1); rv <= 20; rv++ {
		pending = append(pending, enqueue(t, l, put(keyOf(rv), value, rv)))
	}
	waitFor(t, "the first checkpoint", stuck.entered)
	// The committer stops once four times CheckpointBytes are pending.
	deadline := time.Now().Add(guard)
	for {
		l.walMu.Lock()
		full := l.unappliedBytes >= 4*ckptBytes
		pendingBytes := l.unappliedBytes
		l.walMu.Unlock()
		if full {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes pending, want the committer to reach %d", pendingBytes, 4*ckptBytes)
		}
		time.Sleep(time.Millisecond)
	}
	done := 0
	for _, p := range pending {
		select {
		case <-p.Done():
			done++
		default:
		}
	}
	if done == 0 || done >= len(pending) {
		t.Errorf("%d of %d writes acknowledged while the checkpointer is stuck, want the committer held part of the way", done, len(pending))
	}
	l.walMu.Lock()
	// At most one frame beyond the bound: the one appended when it was reached.
	if limit := int64(4*ckptBytes + 1100); l.unappliedBytes > limit {
		t.Errorf("%d bytes pending, want at most %d", l.unappliedBytes, limit)
	}
	l.walMu.Unlock()

	close(stuck.release)
	for _, p := range pending {
		if err := wait(t, p); err != nil {
			t.Fatal(err)
		}
	}
	got, last := loadAll(t, l)
	if len(got) != 20 || last != 20 {
		t.Errorf("state: %d keys at %d, want 20 at 20", len(got), last)
	}
}
