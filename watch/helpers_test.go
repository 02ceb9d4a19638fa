package watch

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// widget is a minimal typed kind for the tests.
type widget struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`
	Spec              string `json:"spec,omitempty"`
}

var widgetGVK = scheme.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Widget"}

func newWidget(name string, rv uint64, labels map[string]string) *widget {
	w := &widget{ObjectMeta: scheme.ObjectMeta{Name: name, Namespace: "ns1", Labels: labels}}
	w.SetGroupVersionKind(widgetGVK)
	if rv > 0 {
		w.ResourceVersion = strconv.FormatUint(rv, 10)
	}
	return w
}

func newBookmarkWidget(uint64) scheme.Object {
	w := &widget{}
	w.SetGroupVersionKind(widgetGVK)
	return w
}

func widgetKey(name string) string { return "/toys.example.com/widgets/ns1/" + name }

// added is the Change that creates a widget named name at rv.
func added(name string, rv uint64) Change {
	return Change{Type: Added, Object: newWidget(name, rv, nil), ResourceVersion: rv, Key: widgetKey(name)}
}

func rvOf(t testing.TB, ev Event) uint64 {
	t.Helper()
	obj, ok := ev.Object.(scheme.Object)
	if !ok {
		t.Fatalf("event %s carries %T, not an Object", ev.Type, ev.Object)
	}
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("event %s: resourceVersion %q: %v", ev.Type, obj.GetResourceVersion(), err)
	}
	return rv
}

// rvOrZero is rvOf for goroutines other than the test's: 0 when ev has no valid version.
func rvOrZero(ev Event) uint64 {
	obj, ok := ev.Object.(scheme.Object)
	if !ok {
		return 0
	}
	rv, _ := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	return rv
}

func mustPublish(t testing.TB, b *Broadcaster, c Change) {
	t.Helper()
	if err := b.Publish(c); err != nil {
		t.Fatalf("Publish(rv %d): %v", c.ResourceVersion, err)
	}
}

func mustWatch(t testing.TB, b *Broadcaster, from uint64, wo WatchOptions) Interface {
	t.Helper()
	w, err := b.Watch(context.Background(), from, wo)
	if err != nil {
		t.Fatalf("Watch(%d): %v", from, err)
	}
	t.Cleanup(w.Stop)
	return w
}

var everything = WatchOptions{Recursive: true}

// next reads one event; it fails the test if the channel closes or nothing comes for a
// long time (a hang guard, not a timing assertion).
func next(t testing.TB, w Interface) Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("result channel closed, want an event")
		}
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20s")
	}
	return Event{}
}

// expectClosed drains w and fails if it does not close.
func expectClosed(t testing.TB, w Interface) []Event {
	t.Helper()
	var got []Event
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-time.After(20 * time.Second):
			t.Fatal("result channel not closed within 20s")
		}
	}
}

// fakeClock is a Clock whose time and timers the test moves by hand. Every timer made is
// announced on made.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	made chan *fakeTimer
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), made: make(chan *fakeTimer, 1024)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{c: make(chan time.Time, 1), d: d}
	c.made <- t
	return t
}

// nextTimer waits for the next timer the code under test makes.
func (c *fakeClock) nextTimer(t testing.TB) *fakeTimer {
	t.Helper()
	select {
	case tm := <-c.made:
		return tm
	case <-time.After(20 * time.Second):
		t.Fatal("no timer made within 20s")
	}
	return nil
}

type fakeTimer struct {
	c       chan time.Time
	d       time.Duration
	mu      sync.Mutex
	stopped bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (t *fakeTimer) Fire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.c <- time.Time{}
		t.stopped = true
	}
}
