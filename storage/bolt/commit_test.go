package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bbolt "go.etcd.io/bbolt"
)

// guard bounds waits that only a bug would make long, so that a broken committer fails
// the test instead of hanging it. It is not a measure of speed.
const guard = time.Minute

// batch is what the test hook saw of one transaction.
type batch struct {
	Records         int
	FirstRV, LastRV uint64
}

// recorder collects the batches the committer writes.
type recorder struct {
	mu      sync.Mutex
	batches []batch
}

func (r *recorder) hook(records int, first, last uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, batch{records, first, last})
	return nil
}

func (r *recorder) get() []batch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]batch(nil), r.batches...)
}

// gate blocks the committer inside the transaction whose first resource version is at:
// entered is closed when it gets there, and it goes on (returning err) once release is
// closed.
type gate struct {
	at      uint64
	err     error
	entered chan struct{}
	release chan struct{}
}

func newGate(at uint64, err error) *gate {
	return &gate{at: at, err: err, entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) pass(first uint64) error {
	if first != g.at {
		return nil
	}
	close(g.entered)
	<-g.release
	return g.err
}

// gates chains gates into a test hook.
func gates(r *recorder, gs ...*gate) func(int, uint64, uint64) error {
	return func(records int, first, last uint64) error {
		if r != nil {
			_ = r.hook(records, first, last)
		}
		for _, g := range gs {
			if err := g.pass(first); err != nil {
				return err
			}
		}
		return nil
	}
}

func waitFor(t *testing.T, what string, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(guard):
		t.Fatalf("gave up waiting for %s", what)
	}
}

// waitUntil polls cond, for a state no channel reports (how much the log has queued).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(guard); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// queued returns how many records l has queued and the resource version of the last.
func queued(l *Log) (recs int, lastRV uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queuedRecs, l.queuedRV
}

func wait(t *testing.T, p *Pending) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	err := p.Wait(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("gave up waiting for resource versions %d to %d", p.firstRV, p.lastRV)
	}
	return err
}

func enqueue(t *testing.T, l *Log, recs ...Record) *Pending {
	t.Helper()
	p, err := l.Enqueue(recs...)
	if err != nil {
		t.Fatalf("Enqueue(%v) = %v", recs, err)
	}
	return p
}

func keyOf(rv uint64) string { return fmt.Sprintf("/test/items/%08d", rv) }

func valueOf(rv uint64) string { return fmt.Sprintf("value of %d", rv) }

func TestCommit_ConcurrentCommittersAreAllDurableInCallOrder(t *testing.T) {
	const writers, callsEach = 16, 50
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{MaxBatch: 64})
	rec := &recorder{}
	l.testHook = rec.hook

	// Writers assign versions and enqueue under one lock, then wait outside it: the
	// pattern of the memory engine. Odd writers send two records per call.
	var (
		mu   sync.Mutex
		next uint64
		wg   sync.WaitGroup
		errs = make(chan error, writers*callsEach)
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range callsEach {
				mu.Lock()
				var recs []Record
				for range 1 + w%2 {
					next++
					recs = append(recs, put(keyOf(next), valueOf(next), next))
				}
				p, err := l.Enqueue(recs...)
				mu.Unlock()
				if err == nil {
					err = p.Wait(context.Background())
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("commit failed: %v", err)
		}
	}
	total := next

	// Batches follow one another without gaps or overlaps, none above MaxBatch.
	var sum int
	var prev uint64
	for i, b := range rec.get() {
		if b.FirstRV != prev+1 || b.Records > 64 || uint64(b.Records) != b.LastRV-b.FirstRV+1 {
			t.Errorf("batch %d = %+v after resource version %d: want the next %d versions, at most 64", i, b, prev, b.Records)
		}
		prev = b.LastRV
		sum += b.Records
	}
	if uint64(sum) != total {
		t.Errorf("batches hold %d records, want %d", sum, total)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openTestLog(t, path, Options{})
	got, last := loadAll(t, l)
	if last != total || uint64(len(got)) != total {
		t.Fatalf("after reopen: %d keys at version %d, want %d at %d", len(got), last, total, total)
	}
	for i, e := range got {
		rv := uint64(i + 1)
		if want := (entry{keyOf(rv), valueOf(rv), rv}); e != want {
			t.Fatalf("entry %d = %+v, want %+v", i, e, want)
		}
	}
}

func TestCommit_GroupsQueuedCallsIntoBatchesOfAtMostMaxBatch(t *testing.T) {
	tests := []struct {
		name        string
		maxBatch    int
		calls       []int // records per call, queued while the committer is busy
		wantBatches []int // records per batch written after the busy one
	}{
		{"single records fill batches to MaxBatch", 10, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []int{10, 10, 5}},
		{"calls are never split", 10, []int{3, 3, 3, 3, 3, 3, 3}, []int{9, 9, 3}},
		{"a call larger than MaxBatch is written alone", 10, []int{2, 15, 2}, []int{2, 15, 2}},
		{"everything waiting goes in one batch", 1000, []int{5, 1, 7, 1, 1}, []int{15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{MaxBatch: tt.maxBatch})
			rec := &recorder{}
			busy := newGate(1, nil)
			l.testHook = gates(rec, busy)

			pending := []*Pending{enqueue(t, l, put(keyOf(1), "busy", 1))}
			waitFor(t, "the first transaction", busy.entered)
			rv := uint64(1)
			for _, n := range tt.calls {
				var recs []Record
				for range n {
					rv++
					recs = append(recs, put(keyOf(rv), valueOf(rv), rv))
				}
				pending = append(pending, enqueue(t, l, recs...))
			}
			close(busy.release)
			for _, p := range pending {
				if err := wait(t, p); err != nil {
					t.Fatalf("Wait() = %v", err)
				}
			}

			var got []int
			for _, b := range rec.get()[1:] {
				got = append(got, b.Records)
			}
			if diff := cmp.Diff(tt.wantBatches, got); diff != "" {
				t.Errorf("records per batch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommit_RejectsRecordsThatCannotBeStored(t *testing.T) {
	tests := []struct {
		name    string
		recs    []Record
		wantErr error
	}{
		{"version zero", []Record{put("/a", "A", 0)}, ErrOutOfOrder},
		{"version equal to the last committed", []Record{put("/a", "A", 5)}, ErrOutOfOrder},
		{"version below the last committed", []Record{put("/a", "A", 3)}, ErrOutOfOrder},
		{"repeated version within a call", []Record{put("/a", "A", 6), put("/b", "B", 6)}, ErrOutOfOrder},
		{"decreasing versions within a call", []Record{put("/a", "A", 8), put("/b", "B", 7)}, ErrOutOfOrder},
		{"a bad record after a good one", []Record{put("/a", "A", 6), put("/b", "B", 2)}, ErrOutOfOrder},
		{"empty key", []Record{put("", "A", 6)}, ErrInvalidRecord},
		{"key longer than bbolt allows", []Record{put(strings.Repeat("k", bbolt.MaxKeySize+1), "A", 6)}, ErrInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.db")
			l := openTestLog(t, path, Options{})
			if err := l.Commit(context.Background(), put("/base", "base", 5)); err != nil {
				t.Fatal(err)
			}
			err := l.Commit(context.Background(), tt.recs...)
			t.Logf("Commit() = %v", err)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Commit() = %v, want %v", err, tt.wantErr)
			}
			// A rejected call writes nothing and leaves the log working.
			if err := l.Commit(context.Background(), put("/after", "after", 10)); err != nil {
				t.Fatalf("Commit() after a rejected call = %v", err)
			}
			got, last := loadAll(t, l)
			want := []entry{{"/after", "after", 10}, {"/base", "base", 5}}
			if diff := cmp.Diff(want, got); diff != "" || last != 10 {
				t.Errorf("state at %d (-want +got):\n%s", last, diff)
			}
		})
	}
}

func TestCommit_FailedTransactionFailsItsCallersAndEverythingAfter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{})
	injected := errors.New("injected disk failure")
	busy := newGate(2, nil)         // holds the committer so that 3..5 queue up together
	failing := newGate(3, injected) // fails the batch of 3..5, after 6 is queued
	l.testHook = gates(nil, busy, failing)

	if err := l.Commit(context.Background(), put("/a", "1", 1)); err != nil {
		t.Fatal(err)
	}
	p2 := enqueue(t, l, put("/b", "2", 2))
	waitFor(t, "the transaction of version 2", busy.entered)
	p3 := enqueue(t, l, put("/c", "3", 3))
	p45 := enqueue(t, l, put("/d", "4", 4), del("/a", 5))
	close(busy.release)
	waitFor(t, "the transaction of versions 3 to 5", failing.entered)
	p6 := enqueue(t, l, put("/e", "6", 6))
	close(failing.release)

	if err := wait(t, p2); err != nil {
		t.Errorf("version 2, committed before the failure: %v", err)
	}
	for name, p := range map[string]*Pending{"version 3": p3, "versions 4 and 5": p45} {
		err := wait(t, p)
		if !errors.Is(err, injected) {
			t.Errorf("%s, in the failed transaction: %v, want the injected error", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "3 to 5") {
			t.Errorf("%s: error %q does not name the failed versions", name, err)
		}
	}
	if err := wait(t, p6); !errors.Is(err, ErrFailed) || !errors.Is(err, injected) {
		t.Errorf("version 6, queued behind the failure: %v, want ErrFailed wrapping the cause", err)
	}
	if _, err := l.Enqueue(put("/f", "7", 7)); !errors.Is(err, ErrFailed) {
		t.Errorf("Enqueue() after the failure = %v, want ErrFailed", err)
	}
	if got := l.LastResourceVersion(); got != 2 {
		t.Errorf("LastResourceVersion() = %d, want 2", got)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close() of a failed log = %v", err)
	}

	l = openTestLog(t, path, Options{})
	got, last := loadAll(t, l)
	want := []entry{{"/a", "1", 1}, {"/b", "2", 2}}
	if diff := cmp.Diff(want, got); diff != "" || last != 2 {
		t.Errorf("after reopen at %d, want 2 (-want +got):\n%s", last, diff)
	}
}

func TestClose_DrainsPendingCallers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{MaxBatch: 8})
	busy := newGate(1, nil)
	l.testHook = gates(nil, busy)

	pending := []*Pending{enqueue(t, l, put(keyOf(1), valueOf(1), 1))}
	waitFor(t, "the first transaction", busy.entered)
	const queued = 50
	for rv := uint64(2); rv <= queued+1; rv++ {
		pending = append(pending, enqueue(t, l, put(keyOf(rv), valueOf(rv), rv)))
	}
	closed := make(chan error, 2)
	for range 2 {
		go func() { closed <- l.Close() }()
	}
	close(busy.release)
	for range 2 {
		select {
		case err := <-closed:
			if err != nil {
				t.Errorf("Close() = %v", err)
			}
		case <-time.After(guard):
			t.Fatal("Close() did not return")
		}
	}
	for _, p := range pending {
		select {
		case <-p.Done():
			if err := p.Err(); err != nil {
				t.Errorf("caller of version %d: %v, want it drained", p.firstRV, err)
			}
		default:
			t.Errorf("caller of version %d still waits after Close returned", p.firstRV)
		}
	}
	if _, err := l.Enqueue(put("/late", "late", 100)); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue() after Close = %v, want ErrClosed", err)
	}
	if err := l.Commit(context.Background(), put("/late", "late", 100)); !errors.Is(err, ErrClosed) {
		t.Errorf("Commit() after Close = %v, want ErrClosed", err)
	}

	l = openTestLog(t, path, Options{})
	got, last := loadAll(t, l)
	if len(got) != queued+1 || last != queued+1 {
		t.Errorf("after reopen: %d keys at %d, want %d at %d", len(got), last, queued+1, queued+1)
	}
}

func TestClose_DrainsWithoutWaitingForMaxBatchDelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	// With an hour of delay and room in the batch, only Close can start this write.
	l := openTestLog(t, path, Options{MaxBatch: 100, MaxBatchDelay: time.Hour})
	p := enqueue(t, l, put("/a", "A", 1))
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
		if err := p.Err(); err != nil {
			t.Errorf("pending write = %v, want it drained", err)
		}
	default:
		t.Error("pending write still waits after Close returned")
	}
}

func TestCommit_FullBatchDoesNotWaitForMaxBatchDelay(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{MaxBatch: 4, MaxBatchDelay: time.Hour})
	rec := &recorder{}
	l.testHook = rec.hook
	var pending []*Pending
	for rv := uint64(1); rv <= 4; rv++ {
		pending = append(pending, enqueue(t, l, put(keyOf(rv), valueOf(rv), rv)))
	}
	for _, p := range pending {
		if err := wait(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]batch{{4, 1, 4}}, rec.get()); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

func TestCommit_ContextEndingWhileWaitingLeavesTheRecordQueued(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{})
	busy := newGate(1, nil)
	l.testHook = gates(nil, busy)

	// The committer is busy with an earlier write, so the Commit waits for it.
	earlier := enqueue(t, l, put("/a", "A", 1))
	waitFor(t, "the earlier transaction", busy.entered)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- l.Commit(ctx, put("/b", "B", 2)) }()
	waitUntil(t, "the Commit to queue its record", func() bool { _, rv := queued(l); return rv == 2 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Commit() with its context cancelled while waiting = %v, want context.Canceled", err)
	}
	close(busy.release)
	if err := wait(t, earlier); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openTestLog(t, path, Options{})
	if got, _ := loadAll(t, l); len(got) != 2 {
		t.Errorf("after reopen: %v, want both records, the second written anyway", got)
	}
}

func TestTryCommit_WritesOnTheCallerWhenTheLogIsIdle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{})
	// Which goroutine wrote each transaction, from its stack.
	var mu sync.Mutex
	inline := 0
	l.testHook = func(int, uint64, uint64) error {
		if strings.Contains(string(debug.Stack()), ".(*Pending).TryCommit(") {
			mu.Lock()
			inline++
			mu.Unlock()
		}
		return nil
	}
	const writes = 50
	for rv := uint64(1); rv <= writes; rv++ {
		p := enqueue(t, l, put(keyOf(rv), valueOf(rv), rv))
		p.TryCommit()
		// Enqueue wakes the committer, which may take the record first; either way the
		// record is durable once Wait returns.
		if err := wait(t, p); err != nil {
			t.Fatalf("record %d: %v", rv, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if inline == 0 {
		t.Errorf("none of %d writes on an idle log was written by TryCommit", writes)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openTestLog(t, path, Options{})
	if got, _ := loadAll(t, l); len(got) != writes {
		t.Errorf("after reopen: %d records, want %d", len(got), writes)
	}
}

func TestTryCommit_LeavesTheWriteToTheCommitterWhileItIsBusy(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	rec := &recorder{}
	busy := newGate(1, nil)
	l.testHook = gates(rec, busy)
	first := enqueue(t, l, put(keyOf(1), valueOf(1), 1))
	waitFor(t, "the first transaction", busy.entered)
	second := enqueue(t, l, put(keyOf(2), valueOf(2), 2))
	third := enqueue(t, l, put(keyOf(3), valueOf(3), 3))
	third.TryCommit()  // not first in line
	second.TryCommit() // the committer is writing
	select {
	case <-second.Done():
		t.Fatal("TryCommit wrote while the committer was writing")
	default:
	}
	close(busy.release)
	for _, p := range []*Pending{first, second, third} {
		if err := wait(t, p); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]batch{{1, 1, 1}, {2, 2, 3}}, rec.get()); diff != "" {
		t.Errorf("transactions (-want +got):\n%s", diff)
	}
}

func TestTryCommit_WithMaxBatchDelayLeavesTheWriteToTheCommitter(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{MaxBatchDelay: guard})
	gate := newGate(1, nil)
	l.testHook = gates(nil, gate)
	p := enqueue(t, l, put(keyOf(1), valueOf(1), 1))
	done := make(chan struct{})
	go func() {
		p.TryCommit()
		close(done)
	}()
	waitFor(t, "TryCommit to return", done)
	select {
	case <-gate.entered:
		t.Fatal("the write started before the batch delay, or on TryCommit's goroutine")
	default:
	}
	close(gate.release)
	if err := l.Close(); err != nil { // Close does not wait for the delay
		t.Fatal(err)
	}
	if err := wait(t, p); err != nil {
		t.Fatal(err)
	}
}

func TestClose_WaitsForAWriteInProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.db")
	l := openTestLog(t, path, Options{})
	gate := newGate(1, nil)
	l.testHook = gates(nil, gate)
	p := enqueue(t, l, put(keyOf(1), valueOf(1), 1))
	go p.TryCommit() // the write is TryCommit's or the committer's, whichever takes it
	waitFor(t, "the write", gate.entered)
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close() = %v during a write", err)
	case <-time.After(50 * time.Millisecond): // a Close that did not wait would be done by now
	}
	close(gate.release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	l = openTestLog(t, path, Options{})
	if got, _ := loadAll(t, l); len(got) != 1 {
		t.Errorf("after reopen: %v, want the record", got)
	}
}

func TestCommit_EndedContextQueuesNothing(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Commit(ctx, put("/a", "A", 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit() with an ended context = %v, want context.Canceled", err)
	}
	// Version 1 was never queued, so it is still free.
	if err := l.Commit(context.Background(), put("/b", "B", 1)); err != nil {
		t.Errorf("Commit() of version 1 afterwards = %v", err)
	}
	if got, _ := loadAll(t, l); !cmp.Equal(got, []entry{{"/b", "B", 1}}) {
		t.Errorf("state = %v, want only /b", got)
	}
}

func TestEnqueue_CopiesTheCallersMemory(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	busy := newGate(1, nil)
	l.testHook = gates(nil, busy)
	value := []byte("original")
	recs := []Record{{Key: "/a", Value: value, ResourceVersion: 1}}
	p := enqueue(t, l, recs...)
	copy(value, "CHANGED!")
	recs[0].Key = "/b"
	close(busy.release)
	if err := wait(t, p); err != nil {
		t.Fatal(err)
	}
	if got, _ := loadAll(t, l); !cmp.Equal(got, []entry{{"/a", "original", 1}}) {
		t.Errorf("state = %v, want /a = original", got)
	}
}

func TestEnqueue_NoRecordsIsDoneAtOnce(t *testing.T) {
	l := openTestLog(t, filepath.Join(t.TempDir(), "log.db"), Options{})
	p, err := l.Enqueue()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
		if p.Err() != nil {
			t.Errorf("Err() = %v", p.Err())
		}
	default:
		t.Error("an empty call is not done")
	}
	if got := l.LastResourceVersion(); got != 0 {
		t.Errorf("LastResourceVersion() = %d, want 0", got)
	}
}
