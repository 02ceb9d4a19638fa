package bolt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// crashChildEnv, when set to a file path, turns the test binary into the crash test's
// child: it writes to a Log at that path until it is killed (see runCrashChild).
const crashChildEnv = "APIKIT_BOLT_CRASH_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		os.Exit(runCrashChild(path, Options{MaxBatch: 64}, false))
	}
	if path := os.Getenv(walCrashChildEnv); path != "" {
		os.Exit(runCrashChild(path, walCrashOptions, true))
	}
	if path := os.Getenv(storeCrashChildEnv); path != "" {
		os.Exit(runStoreCrashChild(path))
	}
	os.Exit(m.Run())
}

// crashRecord is the write at version rv of the crash test's deterministic workload: a
// put of a key of its own with a value whose size varies (some spill over several pages),
// or, every fifth version, the delete of the key written two versions before.
func crashRecord(rv uint64) Record {
	if rv%5 == 0 {
		return del(keyOf(rv-2), rv)
	}
	size := 64 + int(rv%1500)
	if rv%7 == 0 {
		size = 9000
	}
	prefix := []byte(strconv.FormatUint(rv, 10) + ":")
	value := bytes.Repeat(prefix, size/len(prefix)+1)[:size]
	return Record{Key: keyOf(rv), Value: value, ResourceVersion: rv}
}

// crashState is the state after versions 1..last of the workload, in key order.
func crashState(last uint64) []entry {
	state := map[string]entry{}
	for rv := uint64(1); rv <= last; rv++ {
		r := crashRecord(rv)
		if r.Value == nil {
			delete(state, r.Key)
			continue
		}
		state[r.Key] = entry{r.Key, string(r.Value), rv}
	}
	var out []entry
	for _, e := range state {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// runCrashChild opens the Log at path with opts and fsync on and, from 8 goroutines,
// writes the workload from the version after the last committed one, printing "ack <rv>"
// for each acknowledged write (and, with checkpoints, "ckpt <rv>" inside every
// checkpoint transaction, before it commits), until it is killed. It stops by itself
// after a bounded number of writes or time, so that it never outlives a parent that died.
func runCrashChild(path string, opts Options, checkpoints bool) int {
	const writers, maxWrites, maxTime = 8, 20000, 2 * time.Minute
	time.AfterFunc(maxTime, func() { os.Exit(3) })

	l, err := Open(path, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	start, err := l.Load(func(string, []byte, uint64) error { return nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("start %d\n", start)

	var (
		mu    sync.Mutex // orders version assignment with Enqueue
		next  = start
		outMu sync.Mutex
		wg    sync.WaitGroup
		code  = 0
	)
	if checkpoints {
		l.checkpointHook = func(_, last uint64) error {
			outMu.Lock()
			fmt.Printf("ckpt %d\n", last)
			outMu.Unlock()
			// Holds the transaction open a moment, so that a kill on this line lands in
			// the checkpoint more often than not.
			time.Sleep(time.Millisecond)
			return nil
		}
	}
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= start+maxWrites {
					mu.Unlock()
					return
				}
				next++
				rv := next
				p, err := l.Enqueue(crashRecord(rv))
				mu.Unlock()
				if err == nil {
					err = p.Wait(context.Background())
				}
				outMu.Lock()
				if err != nil {
					fmt.Fprintf(os.Stderr, "write %d: %v\n", rv, err)
					code = 2
				} else {
					fmt.Printf("ack %d\n", rv)
				}
				outMu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return code
}

func TestCrash_KillDuringWriteBurstLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses that fsync")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	path := filepath.Join(t.TempDir(), "log.db")

	// Each round restarts on the file the previous kill left behind.
	for round, killAfter := range []int{25, 100, 400, 1500} {
		acks, start, stderr := runAndKill(t, exe, path, killAfter)
		if len(acks) < killAfter {
			t.Fatalf("round %d: child acknowledged %d writes before it ended, want %d; stderr:\n%s", round, len(acks), killAfter, stderr)
		}
		last := checkAfterKill(t, round, path, acks, start)
		t.Logf("round %d: killed after %d acks; file holds versions up to %d", round, len(acks), last)
	}
}

// checkAfterKill reopens the log at path after the crash child that started at version
// start and acknowledged acks was killed, checks that it holds exactly the workload's
// writes 1..last (every acknowledged one, with its value, and nothing out of order or
// half written) and returns last.
func checkAfterKill(t *testing.T, round int, path string, acks []uint64, start uint64) (last uint64) {
	t.Helper()
	var maxAck uint64
	for _, rv := range acks {
		if rv <= start {
			t.Fatalf("round %d: child acknowledged version %d at or below its start %d", round, rv, start)
		}
		maxAck = max(maxAck, rv)
	}
	l, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatalf("round %d: reopen after kill: %v", round, err)
	}
	got, last := loadAll(t, l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if last < maxAck {
		t.Fatalf("round %d: file restored version %d, below the acknowledged %d", round, last, maxAck)
	}
	want := crashState(last)
	if len(got) != len(want) {
		t.Fatalf("round %d: %d keys at version %d, want %d", round, len(got), last, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("round %d: entry %d = %q at %d, want %q at %d", round, i, got[i].Key, got[i].RV, want[i].Key, want[i].RV)
		}
	}
	return last
}

// runAndKill runs the crash child on path, SIGKILLs it once it has acknowledged
// killAfter writes and returns every acknowledgement it printed before it died, the
// version it started from and its stderr.
func runAndKill(t *testing.T, exe, path string, killAfter int) (acks []uint64, start uint64, stderr string) {
	t.Helper()
	var lines []string
	acks, start, stderr = runAndKillEnv(t, exe, crashChildEnv+"="+path, killAfter, &lines)
	return acks, start, stderr
}

// runAndKillEnv runs the test binary as a crash child with env set, SIGKILLs it once it
// has printed killAfter "ack" lines and returns the version of each acknowledgement, the
// start version, its stderr and (in lines) the text after "ack " of each.
func runAndKillEnv(t *testing.T, exe, env string, killAfter int, lines *[]string) (acks []uint64, start uint64, stderr string) {
	t.Helper()
	return runAndKillWhen(t, exe, env, func(_ string, acks int) bool { return acks == killAfter }, lines)
}

// runAndKillWhen runs the test binary as a crash child with env set, SIGKILLs it the
// first time kill returns true for a line it printed (its verb, and the number of
// acknowledgements so far) and returns what runAndKillEnv does.
func runAndKillWhen(t *testing.T, exe, env string, kill func(verb string, acks int) bool, lines *[]string) (acks []uint64, start uint64, stderr string) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bound := time.AfterFunc(guard, func() { _ = cmd.Process.Kill() })
	defer bound.Stop()

	killed := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		verb, rest, _ := strings.Cut(sc.Text(), " ")
		arg, extra, _ := strings.Cut(rest, " ")
		n, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			t.Errorf("child printed %q", sc.Text())
			continue
		}
		switch verb {
		case "start":
			start = n
		case "ack":
			acks = append(acks, n)
			*lines = append(*lines, extra)
		}
		if !killed && kill(verb, len(acks)) {
			// Reading goes on to the end: acknowledgements printed before the kill count.
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if killed && !errors.As(err, &exitErr) {
		t.Errorf("child after SIGKILL: Wait() = %v, want it killed", err)
	}
	return acks, start, errBuf.String()
}
