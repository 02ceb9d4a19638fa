package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// mountSmallTmpfs mounts a tmpfs of size bytes in a temporary directory and unmounts it
// when the test ends; it skips the test where mounting is not permitted (not root, or
// a container without CAP_SYS_ADMIN).
func mountSmallTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs (%v): the fault-injecting file layer covers the same ground", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// freeBytes is the space left on the file system of dir.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

func TestStore_OnAFullTmpfsRefusesWritesUntilRestartedAndKeepsEveryAcknowledgedOne(t *testing.T) {
	ctx := context.Background()
	dir := mountSmallTmpfs(t, "2m")
	path := filepath.Join(dir, "state.db")
	opts := Options{Codec: testCodec(), WALSegmentSize: 256 << 10}
	s, err := New(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()

	padding := strings.Repeat("p", 2000)
	var acked []string
	var failed string
	var failure error
	start := time.Now()
	for i := range 3000 { // about 6 MB: three times the disk
		name := fmt.Sprintf("w%04d", i)
		obj := storagetest.NewWidget("ns", name, nil, int64(i))
		obj.Annotations = map[string]string{"padding": padding}
		if _, err := s.Create(ctx, widgetKey("ns", name), obj); err != nil {
			failed, failure = name, err
			break
		}
		acked = append(acked, name)
	}
	t.Logf("2 MiB tmpfs: %d creates of about 2 KB acknowledged, then %s failed after %s with %d bytes free",
		len(acked), failed, time.Since(start), freeBytes(t, dir))
	if failure == nil {
		t.Fatal("3000 creates of 2 KB fitted on a 2 MiB file system")
	}
	wantUnavailable(t, failure, widgetKey("ns", failed), dir)
	if err := s.Check(ctx); !errors.Is(err, storage.ErrUnavailable) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Check on the full disk = %v, want ErrUnavailable wrapping ENOSPC", err)
	}

	// Space is freed (the volume grows to what the restart needs to apply the
	// write-ahead log the failed checkpoint left): the store still refuses writes and
	// still fails its check.
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size=32m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	_, err = s.Create(ctx, widgetKey("ns", "after"), storagetest.NewWidget("ns", "after", nil, 1))
	wantUnavailable(t, err, widgetKey("ns", "after"), dir)
	if err := s.Check(ctx); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Check once space is freed = %v, want ErrUnavailable until a restart", err)
	}
	t.Logf("space freed: %d bytes free", freeBytes(t, dir))
	if got := namesIn(t, s, "ns"); !slices.Equal(got, acked) {
		t.Errorf("list on the full disk: %d objects, want the %d acknowledged", len(got), len(acked))
	}
	_ = s.Close() // its checkpoint may fail: the next Open applies the log

	// The restart: every acknowledged write is there, and writes are taken again.
	s2, err := New(path, opts)
	if err != nil {
		t.Fatalf("reopening after space was freed: %v", err)
	}
	defer func() { _ = s2.Close() }()
	got := namesIn(t, s2, "ns")
	want := acked
	if slices.Contains(got, failed) {
		want = append(slices.Clone(acked), failed) // its outcome was unknown
	}
	if !slices.Equal(got, want) {
		t.Errorf("after the restart: %d objects, want the %d acknowledged", len(got), len(acked))
	}
	if _, err := s2.Create(ctx, widgetKey("ns", "after"), storagetest.NewWidget("ns", "after", nil, 1)); err != nil {
		t.Errorf("create after the restart: %v", err)
	}
	if err := s2.Check(ctx); err != nil {
		t.Errorf("Check after the restart = %v", err)
	}
}
