package bolt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

// storeCrashChildEnv, when set to a file path, turns the test binary into the Store crash
// test's child (see runStoreCrashChild).
const storeCrashChildEnv = "APIKIT_BOLT_STORE_CRASH_CHILD"

// runStoreCrashChild opens a Store at path with fsync on and creates Widgets from 8
// goroutines, printing "ack <rv> <namespace>/<name>" for each acknowledged create, until
// it is killed. It stops by itself after a bounded number of writes or time.
func runStoreCrashChild(path string) int {
	const writers, writesEach, maxTime = 8, 2500, 2 * time.Minute
	time.AfterFunc(maxTime, func() { os.Exit(3) })

	s, err := New(path, Options{Codec: testCodec(), MaxBatch: 64})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	start, _ := s.CurrentResourceVersion(context.Background())
	fmt.Printf("start %d\n", start)
	ns := "run-" + strconv.FormatUint(start, 10) // unique per round
	var (
		outMu sync.Mutex
		wg    sync.WaitGroup
		code  = 0
	)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writesEach {
				name := fmt.Sprintf("w-%d-%05d", g, i)
				obj := storagetest.NewWidget(ns, name, map[string]string{"writer": strconv.Itoa(g)}, int64(i))
				out, err := s.Create(context.Background(), storage.Key(storagetest.Widgets, ns, name), obj)
				outMu.Lock()
				if err != nil {
					fmt.Fprintf(os.Stderr, "create %s: %v\n", name, err)
					code = 2
				} else {
					fmt.Printf("ack %s %s/%s\n", out.GetResourceVersion(), ns, name)
				}
				outMu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return code
}

func TestStoreCrash_KillDuringConcurrentCreatesLosesNoAcknowledgedObject(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses that fsync")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	path := filepath.Join(t.TempDir(), "state.db")
	ctx := context.Background()

	// Each round restarts on the file the previous kill left behind.
	total := 0
	for round, killAfter := range []int{20, 200, 1000} {
		var names []string
		acks, start, stderr := runAndKillEnv(t, exe, storeCrashChildEnv+"="+path, killAfter, &names)
		if len(acks) < killAfter {
			t.Fatalf("round %d: child acknowledged %d creates before it ended, want %d; stderr:\n%s", round, len(acks), killAfter, stderr)
		}
		s, err := New(path, Options{Codec: testCodec(), NoSync: true})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		cur, _ := s.CurrentResourceVersion(ctx)
		for i, rv := range acks {
			if rv <= start || rv > cur {
				t.Errorf("round %d: acknowledged version %d is not in (%d, %d]", round, rv, start, cur)
			}
			ns, name, _ := cutSlash(names[i])
			obj, err := s.Get(ctx, storage.Key(storagetest.Widgets, ns, name), storage.GetOptions{})
			if err != nil {
				t.Fatalf("round %d: acknowledged %s at %d: %v", round, names[i], rv, err)
			}
			if got := obj.GetResourceVersion(); got != strconv.FormatUint(rv, 10) {
				t.Errorf("round %d: %s at version %s, acknowledged at %d", round, names[i], got, rv)
			}
			if obj.(*storagetest.Widget).Labels["writer"] == "" {
				t.Errorf("round %d: %s lost its labels", round, names[i])
			}
		}
		n, err := s.Count(ctx, "/")
		if err != nil {
			t.Fatal(err)
		}
		// Nothing else is there: writes that were durable but not yet acknowledged may
		// be, but every object has a version of its own up to the counter.
		total += len(acks)
		if n < int64(total) || uint64(n) != cur {
			t.Errorf("round %d: %d objects at version %d, want at least %d and one per version", round, n, cur, total)
		}
		total = int(n)
		t.Logf("round %d: killed after %d acks; reopened with %d objects at version %d", round, len(acks), n, cur)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func cutSlash(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
