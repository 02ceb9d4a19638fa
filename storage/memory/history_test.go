package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/storagetest"
)

var ctx = context.Background()

func key(name string) string { return storage.Key(storagetest.Widgets, "ns", name) }

var prefix = storage.Prefix(storagetest.Widgets, "ns")

// state renders a list as "name=size" items, in key order.
func state(objs []scheme.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%s=%d", o.GetName(), o.(*storagetest.Widget).Spec.Size))
	}
	return out
}

func exact(rv uint64) storage.ListOptions {
	return storage.ListOptions{ResourceVersion: storage.FormatResourceVersion(rv), ResourceVersionMatch: storage.ResourceVersionMatchExact}
}

// write does one random create, update or delete on a few keys and returns its version
// (0 when it wrote nothing).
func write(t *testing.T, s *Store, r *rand.Rand, size int64) uint64 {
	t.Helper()
	name := fmt.Sprintf("w%d", r.Intn(8))
	var obj scheme.Object
	var err error
	switch r.Intn(3) {
	case 0:
		obj, err = s.Create(ctx, key(name), storagetest.NewWidget("ns", name, nil, size))
	case 1:
		obj, err = s.GuaranteedUpdate(ctx, key(name), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
			cur.(*storagetest.Widget).Spec.Size = size
			return cur, nil
		})
	default:
		if _, err = s.Delete(ctx, key(name), storage.DeleteOptions{}); err == nil {
			return s.rvLocked()
		}
	}
	switch {
	case errors.Is(err, storage.ErrAlreadyExists), errors.Is(err, storage.ErrNotFound):
		return 0
	case err != nil:
		t.Fatal(err)
	}
	v, _ := storage.ParseResourceVersion(obj.GetResourceVersion())
	return v
}

func TestHistory_ExactListsRebuildEveryVersionOfTheWindow(t *testing.T) {
	for _, order := range []string{"oldest first", "newest first", "random"} {
		t.Run(order, func(t *testing.T) {
			s := New(Options{HistoryCount: 500})
			t.Cleanup(s.Close)
			r := rand.New(rand.NewSource(1))
			want := map[uint64][]string{0: {}}
			for i := range 400 {
				if rv := write(t, s, r, int64(i)); rv != 0 {
					want[rv] = state(mustList(t, s, storage.ListOptions{}).Items)
				}
			}
			versions := make([]uint64, 0, len(want))
			for v := range want {
				versions = append(versions, v)
			}
			slices.Sort(versions)
			switch order {
			case "newest first":
				slices.Reverse(versions)
			case "random":
				r.Shuffle(len(versions), func(i, j int) { versions[i], versions[j] = versions[j], versions[i] })
			}
			for _, v := range versions {
				if v == 0 {
					continue // "0" is not an Exact version
				}
				res := mustList(t, s, exact(v))
				if got := state(res.Items); !slices.Equal(got, want[v]) {
					t.Fatalf("Exact list at %d = %v, want %v", v, got, want[v])
				}
				if res.ResourceVersion != storage.FormatResourceVersion(v) {
					t.Fatalf("Exact list at %d reports resourceVersion %s", v, res.ResourceVersion)
				}
			}
		})
	}
}

// A store at its window's size keeps trimming the log's front and appending at its end:
// the log moves down in its array instead of growing, and every version of the window
// still rebuilds exactly.
func TestHistory_FullWindowReusesTheLogArray(t *testing.T) {
	const window = 20
	s := New(Options{HistoryCount: window})
	t.Cleanup(s.Close)
	r := rand.New(rand.NewSource(2))
	want := map[uint64][]string{}
	var versions []uint64
	for i := range 600 {
		rv := write(t, s, r, int64(i))
		if rv == 0 {
			continue
		}
		want[rv] = state(mustList(t, s, storage.ListOptions{}).Items)
		versions = append(versions, rv)
		for _, v := range versions[max(0, len(versions)-window):] {
			if got := state(mustList(t, s, exact(v)).Items); !slices.Equal(got, want[v]) {
				t.Fatalf("after write %d: Exact list at %d = %v, want %v", i, v, got, want[v])
			}
		}
	}
	s.mu.RLock()
	n, arr := len(s.log), cap(s.logArr)
	s.mu.RUnlock()
	if n > window+2 || arr > 2*(window+2)+16 {
		t.Errorf("log holds %d changes in an array of %d; want at most %d in at most %d", n, arr, window+2, 2*(window+2)+16)
	}
}

func mustList(t *testing.T, s *Store, opts storage.ListOptions) *storage.ListResult {
	t.Helper()
	res, err := s.List(ctx, prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestHistory_PagesOfAnOldVersionShareOneRebuiltSnapshot(t *testing.T) {
	s := New(Options{})
	t.Cleanup(s.Close)
	for i := range 10 {
		name := fmt.Sprintf("w%d", i)
		if _, err := s.Create(ctx, key(name), storagetest.NewWidget("ns", name, nil, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	first := mustList(t, s, storage.ListOptions{Limit: 3})
	for i := range 5 {
		if _, err := s.Delete(ctx, key(fmt.Sprintf("w%d", i)), storage.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	at, _ := storage.ParseResourceVersion(first.ResourceVersion)
	a, _, err := s.snapshot(prefix, at, false)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.snapshot(prefix, at, false)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("two reads at one old version rebuilt the snapshot twice")
	}
	var got []string
	opts := storage.ListOptions{Limit: 3, Continue: first.Continue}
	got = append(got, state(first.Items)...)
	for opts.Continue != "" {
		res := mustList(t, s, opts)
		got = append(got, state(res.Items)...)
		opts.Continue = res.Continue
	}
	want := []string{"w0=0", "w1=1", "w2=2", "w3=3", "w4=4", "w5=5", "w6=6", "w7=7", "w8=8", "w9=9"}
	if !slices.Equal(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
}

func TestHistory_WritesWithoutReadersCloneNothing(t *testing.T) {
	s := New(Options{})
	t.Cleanup(s.Close)
	for i := range 100 {
		name := fmt.Sprintf("w%d", i)
		if _, err := s.Create(ctx, key(name), storagetest.NewWidget("ns", name, nil, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, key(name), storage.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if s.cur.tree != nil {
		t.Errorf("a snapshot of the live tree was taken without any list")
	}
	mustList(t, s, storage.ListOptions{})
	kept := s.cur.tree
	mustList(t, s, storage.ListOptions{})
	if kept == nil || s.cur.tree != kept {
		t.Errorf("a second list without writes in between cloned the live tree again")
	}
}

func TestHistory_WindowBoundsExactReads(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	tests := []struct {
		name     string
		opts     Options
		between  time.Duration // clock advance between writes
		writes   int
		goneUpTo uint64 // Exact reads at versions 1..goneUpTo fail with ErrGone
	}{
		{"by count keeps HistoryCount versions before the current one", Options{HistoryCount: 5, Now: clock}, 0, 20, 14},
		{"by age drops versions written longer ago than HistoryAge", Options{HistoryAge: 10 * time.Second, Now: clock}, 3 * time.Second, 20, 16},
		{"a young window keeps everything", Options{HistoryCount: 100, Now: clock}, time.Second, 20, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.opts)
			t.Cleanup(s.Close)
			for i := range tt.writes {
				now = now.Add(tt.between)
				name := fmt.Sprintf("w%d", i)
				if _, err := s.Create(ctx, key(name), storagetest.NewWidget("ns", name, nil, 1)); err != nil {
					t.Fatal(err)
				}
			}
			for v := uint64(1); v <= uint64(tt.writes); v++ {
				res, err := s.List(ctx, prefix, exact(v))
				if v <= tt.goneUpTo {
					if !errors.Is(err, storage.ErrGone) {
						t.Fatalf("Exact list at %d: %v, want ErrGone", v, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Exact list at %d: %v", v, err)
				}
				if len(res.Items) != int(v) {
					t.Fatalf("Exact list at %d has %d items", v, len(res.Items))
				}
			}
		})
	}
}

// heldJournal is a Journal whose writes become durable when the test releases them.
type heldJournal struct {
	mu      sync.Mutex
	pending []*heldWrite
}

type heldWrite struct {
	done chan struct{}
	err  error
}

func (w *heldWrite) Done() <-chan struct{} { return w.done }
func (w *heldWrite) Err() error            { return w.err }

func (j *heldJournal) Encode(string, scheme.Object) ([]byte, error) { return []byte{}, nil }

func (j *heldJournal) Append(string, []byte, uint64) (Durability, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	w := &heldWrite{done: make(chan struct{})}
	j.pending = append(j.pending, w)
	return w, nil
}

func (j *heldJournal) releaseAll() {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, w := range j.pending {
		close(w.done)
	}
	j.pending = nil
}

func TestHistory_InFlightWritesStayHiddenFromReads(t *testing.T) {
	j := &heldJournal{}
	s := New(Options{Journal: j})
	t.Cleanup(s.Close)
	for i, name := range []string{"a", "b", "c"} {
		go func() { _, _ = s.Create(ctx, key(name), storagetest.NewWidget("ns", name, nil, 1)) }()
		waitRV(t, s, uint64(i)+1)
		j.releaseAll()
		waitVisible(t, s, uint64(i)+1)
	}
	before := state(mustList(t, s, storage.ListOptions{}).Items)
	visible := s.visibleVersion()

	// In flight: update a, delete b, create d, then update a again.
	var wg sync.WaitGroup
	writes := []func(){
		func() {
			_, _ = s.GuaranteedUpdate(ctx, key("a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*storagetest.Widget).Spec.Size = 2
				return cur, nil
			})
		},
		func() { _, _ = s.Delete(ctx, key("b"), storage.DeleteOptions{}) },
		func() { _, _ = s.Create(ctx, key("d"), storagetest.NewWidget("ns", "d", nil, 1)) },
		func() {
			_, _ = s.GuaranteedUpdate(ctx, key("a"), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.(*storagetest.Widget).Spec.Size = 3
				return cur, nil
			})
		},
	}
	for i, w := range writes {
		wg.Add(1)
		go func() { defer wg.Done(); w() }()
		waitRV(t, s, visible+uint64(i)+1)
	}

	if got := state(mustList(t, s, storage.ListOptions{}).Items); !slices.Equal(got, before) {
		t.Errorf("list during in-flight writes = %v, want %v", got, before)
	}
	for name, want := range map[string]int64{"a": 1, "b": 1, "c": 1, "d": 0} {
		obj, err := s.Get(ctx, key(name), storage.GetOptions{})
		switch {
		case want == 0 && !errors.Is(err, storage.ErrNotFound):
			t.Errorf("get %s during in-flight writes: %v, want ErrNotFound", name, err)
		case want != 0 && err != nil:
			t.Errorf("get %s during in-flight writes: %v", name, err)
		case want != 0 && obj.(*storagetest.Widget).Spec.Size != want:
			t.Errorf("get %s during in-flight writes: size %d, want %d", name, obj.(*storagetest.Widget).Spec.Size, want)
		}
	}
	if n, err := s.Count(ctx, prefix); err != nil || n != 3 {
		t.Errorf("count during in-flight writes = %d, %v; want 3", n, err)
	}

	j.releaseAll()
	wg.Wait()
	if got, want := state(mustList(t, s, storage.ListOptions{}).Items), []string{"a=3", "c=1", "d=1"}; !slices.Equal(got, want) {
		t.Errorf("list once durable = %v, want %v", got, want)
	}
}

func (s *Store) rvLocked() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv
}

// waitRV waits until the store has applied (not necessarily shown) version rv.
func waitRV(t *testing.T, s *Store, rv uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.rvLocked() < rv {
		if time.Now().After(deadline) {
			t.Fatalf("version %d was never applied", rv)
		}
		time.Sleep(time.Millisecond)
	}
}

func waitVisible(t *testing.T, s *Store, rv uint64) {
	t.Helper()
	if err := s.waitFor(ctx, "", rv); err != nil {
		t.Fatal(err)
	}
}
