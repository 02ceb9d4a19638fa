package bolt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// walCrashChildEnv, when set to a file path, turns the test binary into the child of the
// write-ahead log crash test: the crash child's workload with small segments and
// frequent checkpoints, printing each checkpoint.
const walCrashChildEnv = "APIKIT_BOLT_WAL_CRASH_CHILD"

// walCrashOptions make the crash child rotate segments every few batches (a batch of
// 9,000-byte values gets a segment of its own), recycle them and checkpoint all the time.
var walCrashOptions = Options{
	MaxBatch:           64,
	WALSegmentSize:     64 << 10,
	CheckpointBytes:    32 << 10,
	CheckpointInterval: 5 * time.Millisecond,
}

func TestWALCrash_KillAtRandomPointsLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses that fsync")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	path := filepath.Join(t.TempDir(), "log.db")

	// Each round restarts on the files the previous kill left behind. Even rounds kill
	// after a random number of acknowledgements, odd ones on a random checkpoint, inside
	// its transaction.
	var prevLast uint64
	for round := range 8 {
		var kill func(verb string, acks int) bool
		what := ""
		if round%2 == 0 {
			killAfter := 1 + rng.IntN(1500)
			what = fmt.Sprintf("after %d acknowledgements", killAfter)
			kill = func(_ string, acks int) bool { return acks >= killAfter }
		} else {
			killAt, seen := 1+rng.IntN(8), 0
			what = fmt.Sprintf("in checkpoint %d", killAt)
			kill = func(verb string, _ int) bool {
				if verb == "ckpt" {
					seen++
				}
				return seen >= killAt
			}
		}
		var lines []string
		acks, start, stderr := runAndKillWhen(t, exe, walCrashChildEnv+"="+path, kill, &lines)
		if stderr != "" {
			t.Fatalf("round %d: child stderr:\n%s", round, stderr)
		}
		if start != prevLast {
			t.Fatalf("round %d: child started at version %d, the reopened log was at %d", round, start, prevLast)
		}
		last := checkAfterKill(t, round, path, acks, start)
		t.Logf("round %d: killed %s (%d acks); the log holds versions up to %d", round, what, len(acks), last)
		prevLast = last
	}
}
