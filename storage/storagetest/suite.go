package storagetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// Capabilities say which optional behaviours the backend under test has; the suite skips
// the checks of the ones it lacks.
type Capabilities struct {
	// ExactReads: Exact and continue reads at older resourceVersions within the history
	// window are served (needed for consistent pagination under concurrent writes).
	ExactReads bool
	// Compaction: the backend implements storage.Compactor.
	Compaction bool
	// TooLargeResourceVersion: reads and watches at a future resourceVersion fail with
	// storage.ErrTooLargeResourceVersion after the backend's (short) wait.
	TooLargeResourceVersion bool
}

// eventDeadline bounds every wait for a watch event so a broken backend fails instead of
// hanging; it is a safety net, never an assertion about speed.
const eventDeadline = 30 * time.Second

// env is what one behaviour test gets: a fresh backend and the kind to store in it.
type env struct {
	s    storage.Interface
	k    kind
	caps Capabilities
	ctx  context.Context
}

type behaviour struct {
	name string
	fn   func(t *testing.T, e env)
}

// Run runs the conformance suite against fresh backends made by newBackend (called once
// per behaviour and kind; it should register cleanup with t.Cleanup).
func Run(t *testing.T, newBackend func(t *testing.T) storage.Interface, caps Capabilities) {
	t.Helper()
	groups := [][]behaviour{crudBehaviours, listBehaviours, continueBehaviours, updateBehaviours, deleteBehaviours, cachedExistingBehaviours, watchBehaviours, sharedListBehaviours}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			for _, g := range groups {
				for _, b := range g {
					t.Run(b.name, func(t *testing.T) {
						ctx, cancel := context.WithCancel(context.Background())
						t.Cleanup(cancel)
						b.fn(t, env{s: newBackend(t), k: k, caps: caps, ctx: ctx})
					})
				}
			}
		})
	}
}

func (e env) create(t *testing.T, ns, name string, labels map[string]string, size int64) scheme.Object {
	t.Helper()
	out, err := e.s.Create(e.ctx, e.k.key(ns, name), e.k.new(ns, name, labels, size))
	if err != nil {
		t.Fatalf("Create(%s/%s): %v", ns, name, err)
	}
	return out
}

func (e env) setSize(t *testing.T, ns, name string, size int64) scheme.Object {
	t.Helper()
	out, err := e.s.GuaranteedUpdate(e.ctx, e.k.key(ns, name), storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		e.k.setSize(cur, size)
		return cur, nil
	})
	if err != nil {
		t.Fatalf("GuaranteedUpdate(%s/%s): %v", ns, name, err)
	}
	return out
}

func (e env) list(t *testing.T, prefix string, opts storage.ListOptions) *storage.ListResult {
	t.Helper()
	res, err := e.s.List(e.ctx, prefix, opts)
	if err != nil {
		t.Fatalf("List(%s, %+v): %v", prefix, opts, err)
	}
	return res
}

func (e env) currentRV(t *testing.T) uint64 {
	t.Helper()
	return rvOf(t, e.list(t, "/", storage.ListOptions{}).ResourceVersion)
}

func rvOf(t *testing.T, s string) uint64 {
	t.Helper()
	rv, err := storage.ParseResourceVersion(s)
	if err != nil || rv == 0 {
		t.Fatalf("resourceVersion %q is not a positive decimal: %v", s, err)
	}
	return rv
}

func names(objs []scheme.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetNamespace() + "/" + o.GetName()
	}
	return out
}

// wantError checks that err is the *storage.Error of sentinel about key (an object's key
// or the prefix a list or watch was given), in the fields the REST layer reads: Err is
// the sentinel itself, Key the key, and Detail, which clients are shown, does not
// contain the key.
func wantError(t *testing.T, err, sentinel error, key string) *storage.Error {
	t.Helper()
	se, ok := err.(*storage.Error)
	if !ok {
		t.Fatalf("error = %v (%T), want a *storage.Error of %q", err, err, sentinel)
	}
	if se.Err != sentinel {
		t.Fatalf("error %q is of %q, want %q", se, se.Err, sentinel)
	}
	if se.Key != key {
		t.Errorf("error %q is about key %q, want %q", se, se.Key, key)
	}
	if strings.Contains(se.Detail, key) {
		t.Errorf("error %q: the detail shown to clients names the key %q", se, key)
	}
	return se
}

// wantErrorAt is wantError for an error about resourceVersion rv (ErrGone,
// ErrTooLargeResourceVersion).
func wantErrorAt(t *testing.T, err, sentinel error, key string, rv uint64) {
	t.Helper()
	if se := wantError(t, err, sentinel, key); se.ResourceVersion != rv {
		t.Errorf("error %q is about resourceVersion %d, want %d", se, se.ResourceVersion, rv)
	}
}

// next returns the next event of w, failing the test if the channel closes or nothing
// arrives before the safety deadline.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	timer := time.NewTimer(eventDeadline)
	defer timer.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed unexpectedly")
		}
		return ev
	case <-timer.C:
		t.Fatal("no watch event before the safety deadline")
	}
	return watch.Event{}
}

// nextChange skips bookmarks and returns the next ADDED, MODIFIED or DELETED event.
func nextChange(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	for i := 0; i < 1000; i++ {
		ev := next(t, w)
		if ev.Type != watch.Bookmark {
			return ev
		}
	}
	t.Fatal("only bookmarks")
	return watch.Event{}
}

func eventObject(t *testing.T, ev watch.Event) scheme.Object {
	t.Helper()
	obj, ok := ev.Object.(scheme.Object)
	if !ok {
		t.Fatalf("event %s carries %T, not a scheme.Object", ev.Type, ev.Object)
	}
	return obj
}

func (e env) watch(t *testing.T, key string, opts storage.WatchOptions) watch.Interface {
	t.Helper()
	w, err := e.s.Watch(e.ctx, key, opts)
	if err != nil {
		t.Fatalf("Watch(%s, %+v): %v", key, opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func ptr[T any](v T) *T { return &v }
