package controllers_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
	"github.com/apikit-dev/apikit/watch"
)

// expiringStore is a store whose watches a test can hold (no more events are passed
// on) and then end with an ERROR event, such as the 410 Expired one a watch that fell
// out of the history window ends with; the writes made meanwhile are only seen by
// listing again. Watches started after the end are not held.
type expiringStore struct {
	storage.Interface
	mu      sync.Mutex
	active  []*heldWatch
	failing error // what Watch fails with, when set
}

// hold stops the events of the current watches.
func (s *expiringStore) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.active {
		w.held = make(chan struct{})
	}
}

func (s *expiringStore) expire() {
	s.endWith(&scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: scheme.StatusFailure,
		Reason: scheme.StatusReasonExpired, Code: http.StatusGone, Message: "too old resource version",
	})
}

// endWith ends the held watches with an ERROR event of st.
func (s *expiringStore) endWith(st *scheme.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.active {
		if w.held != nil {
			w.end = st
			close(w.held)
		}
	}
	s.active = slices.DeleteFunc(s.active, func(w *heldWatch) bool { return w.held != nil })
}

// failWatches makes Watch fail with err (nil: work again).
func (s *expiringStore) failWatches(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = err
}

func (s *expiringStore) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	s.mu.Lock()
	failing := s.failing
	s.mu.Unlock()
	if failing != nil {
		return nil, failing
	}
	in, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	out := &heldWatch{in: in, out: make(chan watch.Event), stop: make(chan struct{})}
	s.mu.Lock()
	s.active = append(s.active, out)
	s.mu.Unlock()
	go out.forward(s)
	return out, nil
}

// heldWatch passes the events of in on until its store holds it; then it waits for
// the end and ends with its ERROR event.
type heldWatch struct {
	in       watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
	// held and end are guarded by the store's mu.
	held chan struct{}
	end  *scheme.Status
}

func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *heldWatch) Stop() { w.stopOnce.Do(func() { close(w.stop) }) }

func (w *heldWatch) forward(s *expiringStore) {
	defer close(w.out)
	defer w.in.Stop()
	for {
		s.mu.Lock()
		held := w.held
		s.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-w.stop:
				return
			}
			s.mu.Lock()
			end := w.end
			s.mu.Unlock()
			select {
			case w.out <- watch.Event{Type: watch.Error, Object: end}:
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
	logs := &logRecords{}
	reg := metrics.NewRegistry()
	e := newEnvWith(t, envOptions{
		store:       memory.Options{HistoryCount: 4},
		wrap:        func(s storage.Interface) storage.Interface { es.Interface = s; return es },
		controllers: controllers.Options{Logger: slog.New(logs), Metrics: reg},
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
	if n := reg.Counter(controllers.MetricRelists, "", "reason").With("expired").Value(); n != 1 {
		t.Errorf("%s{reason=expired} = %v, want 1", controllers.MetricRelists, n)
	}
	if n := reg.Counter(controllers.MetricErrors, "", "operation").With("watch").Value(); n != 0 {
		t.Errorf("%s{operation=watch} = %v, want 0: an expired watch is no failure", controllers.MetricErrors, n)
	}
	if err := e.mgr.Healthy(context.Background()); err != nil {
		t.Errorf("Healthy after the relist: %v", err)
	}
	if got := logs.count(slog.LevelWarn, "controllers: the watch of the store expired; listing again"); got != 1 {
		t.Errorf("%d warnings of the expiry logged, want 1: %v", got, logs.all())
	}
}

// TestControllers_ReportAWatchTheyCannotRestart ends the controllers' watch with an
// error other than 410 and makes new watches fail: the controllers log it, count it and
// fail their health checks (named as kube-controller-manager's) until a watch works
// again, when they list again, pass the health checks and collect what went meanwhile.
func TestControllers_ReportAWatchTheyCannotRestart(t *testing.T) {
	es := &expiringStore{}
	logs := &logRecords{}
	reg := metrics.NewRegistry()
	e := newEnvWith(t, envOptions{
		wrap:        func(s storage.Interface) storage.Interface { es.Interface = s; return es },
		controllers: controllers.Options{Logger: slog.New(logs), Metrics: reg},
	})
	checks := e.mgr.HealthChecks()
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
	}
	if want := []string{"garbage-collector-controller", "namespace-controller"}; !slices.Equal(names, want) {
		t.Errorf("health checks %v, want %v", names, want)
	}
	es.hold()
	d := e.create("deployments", "default", "web", nil)
	e.create("replicasets", "default", "web-1", nil, ref{owner: d})
	e.deleteWith("deployments", "default", "web", "Background")
	es.failWatches(errors.New("backend unavailable"))
	es.endWith(&scheme.Status{Status: scheme.StatusFailure, Reason: scheme.StatusReasonInternalError, Code: http.StatusInternalServerError, Message: "etcd went away"})
	errorsSeen := reg.Counter(controllers.MetricErrors, "", "operation").With("watch")
	var unhealthy error
	for i := 0; i < 500 && (unhealthy == nil || errorsSeen.Value() < 2); i++ {
		time.Sleep(10 * time.Millisecond)
		unhealthy = checks[0].Check(context.Background())
	}
	if unhealthy == nil || !strings.Contains(unhealthy.Error(), "backend unavailable") {
		t.Fatalf("health while no watch starts: %v", unhealthy)
	}
	if err := checks[1].Check(context.Background()); err == nil {
		t.Error("the namespace controller's check passes while no watch starts")
	}
	if errorsSeen.Value() < 2 || logs.count(slog.LevelError, "controllers: following the store") < 2 {
		t.Errorf("%v watch errors counted, logs %v; want the end of the watch and a failed restart", errorsSeen.Value(), logs.all())
	}
	es.failWatches(nil)
	// The next retry, after the backoff, starts a watch.
	healthy := unhealthy
	for i := 0; i < 500 && healthy != nil; i++ {
		time.Sleep(10 * time.Millisecond)
		healthy = checks[0].Check(context.Background())
	}
	if healthy != nil {
		t.Errorf("health once watches work again: %v", healthy)
	}
	e.idle()
	if _, ok := e.get("replicasets", "default", "web-1"); ok {
		t.Error("the dependent of the owner deleted while the watch failed stays")
	}
	if n := reg.Counter(controllers.MetricRelists, "", "reason").With("error").Value(); n < 1 {
		t.Errorf("%s{reason=error} = %v, want at least 1", controllers.MetricRelists, n)
	}
	t.Logf("%v watch errors before a watch worked again", errorsSeen.Value())
}

// logRecords is a slog.Handler that keeps the records.
type logRecords struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *logRecords) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *logRecords) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h *logRecords) WithGroup(string) slog.Handler { return h }

// count is how many records of level have message msg.
func (h *logRecords) count(level slog.Level, msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.records {
		if r.Level == level && r.Message == msg {
			n++
		}
	}
	return n
}

func (h *logRecords) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		out = append(out, r.Level.String()+" "+r.Message)
	}
	return out
}
