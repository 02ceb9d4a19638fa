package bolt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"
)

// entry is one key of a loaded state.
type entry struct {
	Key   string
	Value string
	RV    uint64
}

// openTestLog opens a Log without fsync (crash safety is tested separately) and closes it
// at the end of the test.
func openTestLog(t testing.TB, path string, opts Options) *Log {
	t.Helper()
	opts.NoSync = true
	l, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s) = %v", path, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// loadAll returns the state of l in key order and its counter.
func loadAll(t testing.TB, l *Log) ([]entry, uint64) {
	t.Helper()
	var got []entry
	last, err := l.Load(func(key string, value []byte, rv uint64) error {
		got = append(got, entry{key, string(value), rv})
		return nil
	})
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	return got, last
}

func put(key, value string, rv uint64) Record {
	return Record{Key: key, Value: []byte(value), ResourceVersion: rv}
}

func del(key string, rv uint64) Record {
	return Record{Key: key, ResourceVersion: rv}
}

func TestReopen_RestoresStateAndCounter(t *testing.T) {
	tests := []struct {
		name    string
		commits [][]Record
		want    []entry
		wantRV  uint64
	}{
		{
			name:   "new log is empty at version 0",
			want:   nil,
			wantRV: 0,
		},
		{
			name: "puts are loaded in key order with their versions",
			commits: [][]Record{
				{put("/core/pods/ns/b", "B", 1)},
				{put("/core/pods/ns/a", "A", 2), put("/apps/deployments/ns/c", "C", 3)},
			},
			want: []entry{
				{"/apps/deployments/ns/c", "C", 3},
				{"/core/pods/ns/a", "A", 2},
				{"/core/pods/ns/b", "B", 1},
			},
			wantRV: 3,
		},
		{
			name: "an update replaces value and version",
			commits: [][]Record{
				{put("/k", "v1", 1)},
				{put("/k", "v2", 5)},
			},
			want:   []entry{{"/k", "v2", 5}},
			wantRV: 5,
		},
		{
			name: "deletes persist",
			commits: [][]Record{
				{put("/a", "A", 1), put("/b", "B", 2)},
				{del("/a", 3)},
			},
			want:   []entry{{"/b", "B", 2}},
			wantRV: 3,
		},
		{
			name: "a trailing delete still advances the counter",
			commits: [][]Record{
				{put("/a", "A", 1)},
				{del("/a", 7)},
			},
			want:   nil,
			wantRV: 7,
		},
		{
			name: "deleting a missing key advances the counter",
			commits: [][]Record{
				{del("/never", 4)},
			},
			want:   nil,
			wantRV: 4,
		},
		{
			name: "an empty value is kept apart from a delete",
			commits: [][]Record{
				{{Key: "/empty", Value: []byte{}, ResourceVersion: 1}},
			},
			want:   []entry{{"/empty", "", 1}},
			wantRV: 1,
		},
		{
			name: "a later write to a key in the same call wins",
			commits: [][]Record{
				{put("/k", "first", 1), put("/k", "second", 2), del("/j", 3)},
			},
			want:   []entry{{"/k", "second", 2}},
			wantRV: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.db")
			l := openTestLog(t, path, Options{})
			for _, recs := range tt.commits {
				if err := l.Commit(context.Background(), recs...); err != nil {
					t.Fatalf("Commit(%v) = %v", recs, err)
				}
			}
			if got := l.LastResourceVersion(); got != tt.wantRV {
				t.Errorf("LastResourceVersion() before reopen = %d, want %d", got, tt.wantRV)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}

			l = openTestLog(t, path, Options{})
			got, lastRV := loadAll(t, l)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("state after reopen (-want +got):\n%s", diff)
			}
			if lastRV != tt.wantRV {
				t.Errorf("Load() lastRV = %d, want %d", lastRV, tt.wantRV)
			}
			if got := l.LastResourceVersion(); got != tt.wantRV {
				t.Errorf("LastResourceVersion() after reopen = %d, want %d", got, tt.wantRV)
			}
			// The counter restored on reopen is enforced: nothing at or below it is accepted.
			if tt.wantRV > 0 {
				err := l.Commit(context.Background(), put("/x", "x", tt.wantRV))
				if !errors.Is(err, ErrOutOfOrder) {
					t.Errorf("Commit at the restored version %d = %v, want ErrOutOfOrder", tt.wantRV, err)
				}
			}
			if err := l.Commit(context.Background(), put("/x", "x", tt.wantRV+1)); err != nil {
				t.Errorf("Commit above the restored version = %v", err)
			}
		})
	}
}

func TestLoad_StopsAtCallbackErrorAndWrapsIt(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	if err := l.Commit(context.Background(), put("/a", "A", 1), put("/b", "B", 2), put("/c", "C", 3)); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop here")
	var seen []string
	_, err := l.Load(func(key string, _ []byte, _ uint64) error {
		seen = append(seen, key)
		if key == "/b" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Errorf("Load() = %v, want it to wrap the callback's error", err)
	}
	if diff := cmp.Diff([]string{"/a", "/b"}, seen); diff != "" {
		t.Errorf("keys visited (-want +got):\n%s", diff)
	}
}

func TestLoad_AfterCloseFailsWithErrClosed(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(func(string, []byte, uint64) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Load() after Close = %v, want ErrClosed", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close() = %v, want the first one's nil", err)
	}
}

// writeBoltFile creates a bbolt database at path and lets fn fill it.
func writeBoltFile(t *testing.T, path string, fn func(tx *bbolt.Tx) error) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// rewriteMeta creates a valid log at path and then changes one meta key with raw bbolt.
func rewriteMeta(key, value []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		l, err := Open(path, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		writeBoltFile(t, path, func(tx *bbolt.Tx) error {
			return tx.Bucket(metaBucket).Put(key, value)
		})
	}
}

func TestOpen_RefusesFilesThatAreNotOurs(t *testing.T) {
	garbage := bytes.Repeat([]byte("not a database, just bytes. "), 1000)
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		wantErr error
	}{
		{
			name:    "garbage bytes",
			prepare: func(t *testing.T, path string) { writeFile(t, path, garbage) },
			wantErr: ErrNotLog,
		},
		{
			name:    "a few garbage bytes",
			prepare: func(t *testing.T, path string) { writeFile(t, path, []byte("hello")) },
			wantErr: ErrNotLog,
		},
		{
			name: "a bbolt file with someone else's buckets",
			prepare: func(t *testing.T, path string) {
				writeBoltFile(t, path, func(tx *bbolt.Tx) error {
					b, err := tx.CreateBucket([]byte("users"))
					if err != nil {
						return err
					}
					return b.Put([]byte("alice"), []byte("admin"))
				})
			},
			wantErr: ErrNotLog,
		},
		{
			name: "a bbolt file with a meta bucket of someone else",
			prepare: func(t *testing.T, path string) {
				writeBoltFile(t, path, func(tx *bbolt.Tx) error {
					b, err := tx.CreateBucket(metaBucket)
					if err != nil {
						return err
					}
					return b.Put([]byte("owner"), []byte("another program"))
				})
			},
			wantErr: ErrNotLog,
		},
		{
			name:    "a log with a malformed counter",
			prepare: rewriteMeta(rvKey, []byte("12")),
			wantErr: ErrNotLog,
		},
		{
			name:    "a log of a newer format version",
			prepare: rewriteMeta(versionKey, encodeRV(FormatVersion+1)),
			wantErr: ErrUnsupportedVersion,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.db")
			tt.prepare(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			err = openFails(t, path, tt.wantErr)
			if !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Errorf("Open() error %q does not name the file", err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("Open() changed a file it refused")
			}
		})
	}
}

func TestOpen_AdoptsEmptyFiles(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
	}{
		{"missing file", func(*testing.T, string) {}},
		{"zero-byte file", func(t *testing.T, path string) { writeFile(t, path, nil) }},
		{"bbolt file without buckets", func(t *testing.T, path string) {
			writeBoltFile(t, path, func(*bbolt.Tx) error { return nil })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.db")
			tt.prepare(t, path)
			l := openTestLog(t, path, Options{})
			if err := l.Commit(context.Background(), put("/a", "A", 1)); err != nil {
				t.Fatalf("Commit() = %v", err)
			}
			got, last := loadAll(t, l)
			if diff := cmp.Diff([]entry{{"/a", "A", 1}}, got); diff != "" || last != 1 {
				t.Errorf("Load() = %v at %d, want /a at 1 (%s)", got, last, diff)
			}
		})
	}
}

func TestOpen_FailsWhileAnotherLogHoldsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	openTestLog(t, path, Options{})
	l, err := Open(path, Options{NoSync: true, LockTimeout: 10 * time.Millisecond})
	if err == nil {
		_ = l.Close()
		t.Fatal("second Open() of a file in use succeeded")
	}
	if errors.Is(err, ErrNotLog) {
		t.Errorf("second Open() = %v, must not call a locked log foreign", err)
	}
}

func TestOpen_RefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	if l, err := Open(dir, Options{NoSync: true}); err == nil {
		_ = l.Close()
		t.Fatal("Open() of a directory succeeded")
	}
}

// openFails checks that Open refuses path with wantErr and returns its error.
func openFails(t *testing.T, path string, wantErr error) error {
	t.Helper()
	l, err := Open(path, Options{NoSync: true})
	if err == nil {
		_ = l.Close()
		t.Fatalf("Open() succeeded, want %v", wantErr)
	}
	t.Logf("Open() = %v", err)
	if !errors.Is(err, wantErr) {
		t.Errorf("Open() = %v, want %v", err, wantErr)
	}
	return err
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
