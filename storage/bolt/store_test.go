package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/storage/storagetest"
	"github.com/apikit-dev/apikit/watch"
)

// testCodec is the JSON codec of a scheme that knows the suite's kinds.
func testCodec() Codec {
	s := scheme.New()
	if err := storagetest.AddToScheme(s); err != nil {
		panic(err)
	}
	return SerializerCodec(codec.NewJSON(s))
}

// openStore opens a store at path and closes it at the end of the test.
func openStore(t testing.TB, path string, opts Options) *Store {
	t.Helper()
	if opts.Codec == nil {
		opts.Codec = testCodec()
	}
	if opts.Memory.FutureWait == 0 {
		opts.Memory.FutureWait = 50 * time.Millisecond
	}
	s, err := New(path, opts)
	if err != nil {
		t.Fatalf("New(%s) = %v", path, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var suiteCaps = storagetest.Capabilities{ExactReads: true, Compaction: true, TooLargeResourceVersion: true}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		return openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	}, suiteCaps)
}

func TestConformance_WithFsync(t *testing.T) {
	if testing.Short() {
		t.Skip("fsyncs every write")
	}
	storagetest.Run(t, func(t *testing.T) storage.Interface {
		return openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{})
	}, suiteCaps)
}

func TestNew_RequiresACodec(t *testing.T) {
	_, err := New(filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	if err == nil {
		t.Fatal("New without a Codec succeeded")
	}
}

var (
	widgetKey = func(ns, name string) string { return storage.Key(storagetest.Widgets, ns, name) }
	gadgetKey = func(ns, name string) string { return storage.Key(storagetest.Gadgets, ns, name) }
)

func setSize(size int64) storage.UpdateFunc {
	return func(cur scheme.Object) (scheme.Object, error) {
		cur.(*storagetest.Widget).Spec.Size = size
		return cur, nil
	}
}

// snapshot is everything a restart must keep: the objects (typed and unstructured, in key
// order) and the counter.
func snapshot(t *testing.T, s *Store) ([]scheme.Object, uint64) {
	t.Helper()
	ctx := context.Background()
	var objs []scheme.Object
	for _, gr := range []scheme.GroupResource{storagetest.Gadgets, storagetest.Widgets} {
		res, err := s.List(ctx, storage.Prefix(gr, ""), storage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, res.Items...)
	}
	rv, err := s.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return objs, rv
}

func TestRestart_KeepsEveryObjectAndTheCounter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	s := openStore(t, path, Options{NoSync: true})
	for i := range 5 {
		name := fmt.Sprintf("w%d", i)
		if _, err := s.Create(ctx, widgetKey("ns", name), storagetest.NewWidget("ns", name, map[string]string{"i": name}, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, gadgetKey("ns", "g"), storagetest.NewGadget("ns", "g", map[string]string{"x": "y"}, 7)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GuaranteedUpdate(ctx, widgetKey("ns", "w1"), storage.UpdateOptions{}, setSize(42)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, widgetKey("ns", "w3"), storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The delete is the last write: the counter must survive it though no object has it.
	before, beforeRV := snapshot(t, s)
	if beforeRV != 8 || len(before) != 5 {
		t.Fatalf("before restart: %d objects at %d, want 5 at 8", len(before), beforeRV)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, path, Options{NoSync: true})
	after, afterRV := snapshot(t, s)
	if afterRV != beforeRV {
		t.Errorf("counter after restart = %d, want %d", afterRV, beforeRV)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("objects after restart differ (-before +after):\n%s", diff)
	}
	created, err := s.Create(ctx, widgetKey("ns", "new"), storagetest.NewWidget("ns", "new", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := created.GetResourceVersion(), storage.FormatResourceVersion(beforeRV+1); got != want {
		t.Errorf("first write after restart at %s, want %s", got, want)
	}
}

func TestRestart_ReadsAndWatchesFromBeforeTheRestartAreGone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	s := openStore(t, path, Options{NoSync: true})
	var rvs []string
	var page *storage.ListResult
	for i := range 3 {
		name := fmt.Sprintf("w%d", i)
		out, err := s.Create(ctx, widgetKey("ns", name), storagetest.NewWidget("ns", name, nil, 1))
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, out.GetResourceVersion())
		if i == 1 { // a page read at version 2, before the last write
			if page, err = s.List(ctx, storage.Prefix(storagetest.Widgets, ""), storage.ListOptions{Limit: 1}); err != nil || page.Continue == "" {
				t.Fatalf("first page: %v", err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, Options{NoSync: true})
	// A write after the restart, so that "current" is not the loaded version.
	if _, err := s.Create(ctx, widgetKey("ns", "late"), storagetest.NewWidget("ns", "late", nil, 1)); err != nil {
		t.Fatal(err)
	}
	prefix := storage.Prefix(storagetest.Widgets, "")
	tests := []struct {
		name string
		call func() error
		want error // nil: succeeds
	}{
		{"watch from a version before the restart", func() error {
			w, err := s.Watch(ctx, prefix, storage.WatchOptions{Recursive: true, ResourceVersion: rvs[0]})
			if err == nil {
				w.Stop()
			}
			return err
		}, storage.ErrGone},
		{"exact list at a version before the restart", func() error {
			_, err := s.List(ctx, prefix, storage.ListOptions{ResourceVersion: rvs[1], ResourceVersionMatch: storage.ResourceVersionMatchExact})
			return err
		}, storage.ErrGone},
		{"continue token from before the restart", func() error {
			_, err := s.List(ctx, prefix, storage.ListOptions{Limit: 1, Continue: page.Continue})
			return err
		}, storage.ErrGone},
		{"exact list at the version loaded on restart", func() error {
			_, err := s.List(ctx, prefix, storage.ListOptions{ResourceVersion: rvs[2], ResourceVersionMatch: storage.ResourceVersionMatchExact})
			return err
		}, nil},
		{"watch from the version loaded on restart", func() error {
			w, err := s.Watch(ctx, prefix, storage.WatchOptions{Recursive: true, ResourceVersion: rvs[2]})
			if err != nil {
				return err
			}
			defer w.Stop()
			select {
			case ev := <-w.ResultChan():
				if obj, ok := ev.Object.(scheme.Object); !ok || ev.Type != watch.Added || obj.GetName() != "late" {
					return fmt.Errorf("first event %s %v, want ADDED of late", ev.Type, ev.Object)
				}
			case <-time.After(guard):
				return errors.New("no event")
			}
			return nil
		}, nil},
		{"not-older-than get at a version before the restart", func() error {
			_, err := s.Get(ctx, widgetKey("ns", "w0"), storage.GetOptions{ResourceVersion: rvs[0]})
			return err
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if tt.want == nil && err != nil {
				t.Fatalf("error = %v, want none", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want one wrapping %v", err, tt.want)
			}
		})
	}
}

func TestWrite_IsNotSeenBeforeItIsDurable(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	if _, err := s.Create(ctx, widgetKey("ns", "a"), storagetest.NewWidget("ns", "a", nil, 1)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, storage.Prefix(storagetest.Widgets, ""), storage.WatchOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	g := newGate(2, nil)
	s.log.testHook = gates(nil, g)

	done := make(chan error, 1)
	go func() {
		_, err := s.Create(ctx, widgetKey("ns", "b"), storagetest.NewWidget("ns", "b", nil, 1))
		done <- err
	}()
	waitFor(t, "the commit of b", g.entered)
	// b is applied to the engine and being committed, not durable: nobody may see it.
	if _, err := s.Get(ctx, widgetKey("ns", "b"), storage.GetOptions{}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Get(b) while committing = %v, want ErrNotFound", err)
	}
	if n, _ := s.Count(ctx, storage.Prefix(storagetest.Widgets, "")); n != 1 {
		t.Errorf("Count while committing = %d, want 1", n)
	}
	if rv, _ := s.CurrentResourceVersion(ctx); rv != 1 {
		t.Errorf("CurrentResourceVersion while committing = %d, want 1", rv)
	}
	select {
	case ev := <-w.ResultChan():
		t.Errorf("watch got %s before the write was durable", ev.Type)
	default:
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Acknowledged: read-your-writes, and the watch sees it.
	if _, err := s.Get(ctx, widgetKey("ns", "b"), storage.GetOptions{}); err != nil {
		t.Errorf("Get(b) after ack = %v", err)
	}
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Added || ev.Object.(scheme.Object).GetName() != "b" {
			t.Errorf("watch got %s of %v, want ADDED of b", ev.Type, ev.Object)
		}
	case <-time.After(guard):
		t.Fatal("no watch event after the ack")
	}
}

func TestWrite_ConcurrentWritersShareOneCommit(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	rec := &recorder{}
	g := newGate(1, nil)
	s.log.testHook = gates(rec, g)

	const writers = 16
	errs := make(chan error, writers)
	create := func(i int) {
		name := fmt.Sprintf("w%02d", i)
		_, err := s.Create(ctx, widgetKey("ns", name), storagetest.NewWidget("ns", name, nil, 1))
		errs <- err
	}
	go create(0)
	waitFor(t, "the first commit", g.entered)
	for i := 1; i < writers; i++ {
		go create(i)
	}
	// The other 15 queue up behind the blocked transaction.
	waitUntil(t, "the other writes to queue", func() bool { recs, _ := queued(s.log); return recs == writers-1 })
	close(g.release)
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	want := []batch{{1, 1, 1}, {writers - 1, 2, writers}}
	if diff := cmp.Diff(want, rec.get()); diff != "" {
		t.Errorf("transactions (-want +got):\n%s", diff)
	}
	if n, _ := s.Count(ctx, "/"); n != writers {
		t.Errorf("Count = %d, want %d", n, writers)
	}
}

func TestLogFailure_FailsTheWriteAndEveryLaterOneAndHidesThem(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	if _, err := s.Create(ctx, widgetKey("ns", "a"), storagetest.NewWidget("ns", "a", nil, 1)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, storage.Prefix(storagetest.Widgets, ""), storage.WatchOptions{Recursive: true, ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	injected := errors.New("disk on fire")
	g := newGate(2, injected)
	s.log.testHook = gates(nil, g)

	// b's commit fails; c and the update of a queue behind it and fail with it.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = s.Create(ctx, widgetKey("ns", "b"), storagetest.NewWidget("ns", "b", nil, 1))
	}()
	waitFor(t, "the commit of b", g.entered)
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, errs[1] = s.Create(ctx, widgetKey("ns", "c"), storagetest.NewWidget("ns", "c", nil, 1))
	}()
	go func() {
		defer wg.Done()
		_, errs[2] = s.GuaranteedUpdate(ctx, widgetKey("ns", "a"), storage.UpdateOptions{}, setSize(9))
	}()
	for {
		s.log.mu.Lock()
		queued := s.log.queuedRecs
		s.log.mu.Unlock()
		if queued == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(g.release)
	wg.Wait()
	// Every one is a 503 that names no file; the cause is the log's and Check's.
	for i, err := range errs {
		if !errors.Is(err, storage.ErrUnavailable) || errors.Is(err, injected) {
			t.Errorf("write %d: error = %v, want ErrUnavailable without the cause", i, err)
		}
	}
	if err := s.Check(ctx); !errors.Is(err, injected) || !errors.Is(err, ErrFailed) {
		t.Errorf("Check = %v, want ErrFailed wrapping the injected cause", err)
	}
	// Later writes fail at once; reads still serve the last durable state.
	if _, err := s.Create(ctx, widgetKey("ns", "d"), storagetest.NewWidget("ns", "d", nil, 1)); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("write after the failure: error = %v, want ErrUnavailable", err)
	}
	if _, err := s.Delete(ctx, widgetKey("ns", "a"), storage.DeleteOptions{}); err == nil {
		t.Error("delete after the failure succeeded")
	}
	objs, rv := snapshot(t, s)
	if rv != 1 || len(objs) != 1 || objs[0].GetName() != "a" || objs[0].(*storagetest.Widget).Spec.Size != 1 {
		t.Errorf("state after the failure: %v at %d, want only a (size 1) at 1", objs, rv)
	}
	select {
	case ev := <-w.ResultChan():
		t.Errorf("watch got %s of a failed write", ev.Type)
	default:
	}
}

func TestRestore_RefusesObjectsNewerThanTheCounter(t *testing.T) {
	_, err := memory.Restore(memory.Options{}, 1, func(add func(string, scheme.Object) error) error {
		w := storagetest.NewWidget("ns", "a", nil, 1)
		w.ResourceVersion = "2"
		return add(widgetKey("ns", "a"), w)
	})
	if !errors.Is(err, storage.ErrInvalidObject) {
		t.Fatalf("error = %v, want ErrInvalidObject", err)
	}
}

func TestWrite_ConcurrentUpdatesAreAllAcknowledgedVisibleAndWatchedInOrder(t *testing.T) {
	const writers, each = 16, 40
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "state.db"), Options{NoSync: true})
	key := widgetKey("ns", "counter")
	if _, err := s.Create(ctx, key, storagetest.NewWidget("ns", "counter", nil, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(ctx, key, storage.WatchOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				out, err := s.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
					cur.(*storagetest.Widget).Spec.Size++
					return cur, nil
				})
				if err != nil {
					errs <- err
					return
				}
				// Read-your-writes: the acknowledged version is visible.
				got, err := s.Get(ctx, key, storage.GetOptions{})
				if err != nil {
					errs <- err
					return
				}
				if rvNum(got) < rvNum(out) {
					errs <- fmt.Errorf("read %s after acknowledged %s", got.GetResourceVersion(), out.GetResourceVersion())
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	last := uint64(1)
	for i := range writers * each {
		select {
		case ev := <-w.ResultChan():
			obj := ev.Object.(*storagetest.Widget)
			if ev.Type != watch.Modified || rvOf(t, obj) != last+1 || obj.Spec.Size != int64(i+1) {
				t.Fatalf("event %d: %s at %s of size %d, want MODIFIED at %d of size %d", i, ev.Type, obj.ResourceVersion, obj.Spec.Size, last+1, i+1)
			}
			last++
		case <-time.After(guard):
			t.Fatalf("only %d events", i)
		}
	}
}

// rvNum is obj's resourceVersion as a number (0 if it is malformed).
func rvNum(obj scheme.Object) uint64 {
	rv, _ := storage.ParseResourceVersion(obj.GetResourceVersion())
	return rv
}

func rvOf(t *testing.T, obj scheme.Object) uint64 {
	t.Helper()
	rv, err := storage.ParseResourceVersion(obj.GetResourceVersion())
	if err != nil {
		t.Fatal(err)
	}
	return rv
}
