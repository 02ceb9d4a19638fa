package controllers_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/watch"
)

// expiringStore is a store whose watches a test can hold (no more events are passed
// on) and then end with the 410 Expired ERROR event a watch that fell out of the
// history window ends with; the writes made meanwhile are only seen by listing again.
type expiringStore struct {
	storage.Interface
	mu      sync.Mutex
	held    chan struct{} // closed by expire; nil when not holding
	watches int
}

func (s *expiringStore) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = make(chan struct{})
}

func (s *expiringStore) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.held)
	s.held = nil
}

func (s *expiringStore) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	in, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.watches++
	s.mu.Unlock()
	out := &heldWatch{in: in, out: make(chan watch.Event), stop: make(chan struct{})}
	go out.forward(s)
	return out, nil
}

// heldWatch passes the events of in on until its store holds; then it waits for the
// expiry and ends with a 410 ERROR event.
type heldWatch struct {
	in       watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *heldWatch) Stop() { w.stopOnce.Do(func() { close(w.stop) }) }

func (w *heldWatch) forward(s *expiringStore) {
	defer close(w.out)
	defer w.in.Stop()
	for {
		s.mu.Lock()
		held := s.held
		s.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-w.stop:
				return
			}
			select {
			case w.out <- watch.Event{Type: watch.Error, Object: &scheme.Status{
				TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: scheme.StatusFailure,
				Reason: scheme.StatusReasonExpired, Code: http.StatusGone, Message: "too old resource version",
			}}:
			case <-w.stop:
			}
			return
		}
		select {
		case ev, ok := <-w.in.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		case <-w.stop:
			return
		}
	}
}

// TestControllers_RelistWhenTheWatchExpires holds the controllers' watch while an owner
// is deleted and more writes than the store's history window keeps are made, then ends
// it with 410 Expired: re-watching from the last version seen fails with ErrGone, and
// only a new list shows the dependent whose owner went.
func TestControllers_RelistWhenTheWatchExpires(t *testing.T) {
	es := &expiringStore{}
	e := newEnvWith(t, envOptions{
		store: memory.Options{HistoryCount: 4},
		wrap:  func(s storage.Interface) storage.Interface { es.Interface = s; return es },
	})
	es.hold()
	d := e.create("deployments", "default", "web", nil)
	e.create("replicasets", "default", "web-1", nil, ref{owner: d})
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		e.create("pods", "default", name, nil)
	}
	e.deleteWith("deployments", "default", "web", "Background")
	es.expire()
	e.idle()
	if _, ok := e.get("replicasets", "default", "web-1"); ok {
		t.Error("the dependent of a deleted owner stays after the watch expired")
	}
	// The controllers follow the store again: a new owner's dependent is collected.
	d2 := e.create("deployments", "default", "api", nil)
	e.create("replicasets", "default", "api-1", nil, ref{owner: d2})
	e.deleteWith("deployments", "default", "api", "Background")
	e.idle()
	if _, ok := e.get("replicasets", "default", "api-1"); ok {
		t.Error("the controllers stopped collecting after the relist")
	}
}
