package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// retryInterval is how long a pass that failed for another reason than a conflict waits
// before it runs again; a conflict is followed by the event of the write it lost to.
const retryInterval = 100 * time.Millisecond

// Options configure the controllers.
type Options struct {
	// Scheme holds the resources whose objects are collected; the custom resources of
	// the CustomResourceDefinitions in Storage are added to them.
	Scheme *scheme.Scheme
	// Storage is the store the REST handler serves.
	Storage storage.Interface
	// Logger receives the errors of passes; nil discards them.
	Logger *slog.Logger
	// Clock returns the time the controllers record (deletionTimestamp, condition
	// transitions, the creation of the default namespaces); nil means the real time.
	// resttest passes the clock a test freezes and advances.
	Clock func() time.Time
}

// Manager runs the namespace controller and the garbage collector.
type Manager struct {
	opts   Options
	store  storage.Interface
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	// graph is owned by the run goroutine.
	graph *graph

	mu sync.Mutex
	// seen is the resourceVersion of the last event a finished pass had applied, and
	// busy whether that pass wrote (or failed): more work may follow.
	seen    uint64
	busy    bool
	changed chan struct{}
}

// Start lists the store, ensures the default namespaces when the scheme serves
// namespaces, and runs the controllers until Stop or ctx ends.
func Start(ctx context.Context, opts Options) (*Manager, error) {
	if opts.Scheme == nil || opts.Storage == nil {
		return nil, errors.New("controllers: Options.Scheme and Options.Storage are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Manager{opts: opts, store: opts.Storage, log: log, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}), busy: true}
	m.graph = newGraph(opts.Scheme)
	if err := m.ensureDefaultNamespaces(ctx); err != nil {
		cancel()
		return nil, err
	}
	lr, err := m.store.List(ctx, "/", storage.ListOptions{})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("controllers: listing the store: %w", err)
	}
	for _, obj := range lr.Items {
		m.graph.apply(watch.Added, obj)
	}
	go m.run(ctx, lr.ResourceVersion)
	return m, nil
}

// Stop ends the controllers and waits for them.
func (m *Manager) Stop() {
	m.cancel()
	<-m.done
}

// WaitIdle returns once the controllers have applied every write made to the store
// before or during the wait and a pass after them had nothing left to do (objects
// waiting for someone else's finalizer are not work), or when ctx ends.
func (m *Manager) WaitIdle(ctx context.Context) error {
	for {
		lr, err := m.store.List(ctx, "/", storage.ListOptions{Limit: 1})
		if err != nil {
			return fmt.Errorf("controllers: reading the store's version: %w", err)
		}
		want, err := storage.ParseResourceVersion(lr.ResourceVersion)
		if err != nil {
			return err
		}
		m.mu.Lock()
		seen, busy, changed := m.seen, m.busy, m.changed
		m.mu.Unlock()
		if seen >= want && !busy {
			return nil
		}
		select {
		case <-changed:
		case <-m.done:
			return errors.New("controllers: stopped")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// finishPass records a finished pass and wakes WaitIdle.
func (m *Manager) finishPass(seen uint64, busy bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen, m.busy = seen, busy
	close(m.changed)
	m.changed = make(chan struct{})
}

// run follows the store from rv, applying each batch of events to the graph and then
// making one pass.
func (m *Manager) run(ctx context.Context, rv string) {
	defer close(m.done)
	seen, _ := storage.ParseResourceVersion(rv)
	retry := time.NewTimer(0)
	defer retry.Stop()
	pass := func() {
		busy, err := m.pass(ctx)
		if err != nil && ctx.Err() == nil {
			m.log.Error("controllers: pass", "err", err)
			retry.Reset(retryInterval)
		}
		m.finishPass(seen, busy || err != nil)
	}
	for ctx.Err() == nil {
		w, err := m.store.Watch(ctx, "/", storage.WatchOptions{ResourceVersion: storage.FormatResourceVersion(seen), Recursive: true})
		if err != nil {
			m.log.Error("controllers: watching the store", "err", err)
			retry.Reset(retryInterval)
			select {
			case <-retry.C:
			case <-ctx.Done():
				return
			}
			continue
		}
		for open := true; open; {
			select {
			case <-ctx.Done():
				w.Stop()
				return
			case <-retry.C:
				pass()
			case ev, ok := <-w.ResultChan():
				if !ok || ev.Type == watch.Error {
					open = false
					break
				}
				seen = m.applyEvent(ev, seen)
				// Take every event already queued, then pass once.
				for drained := false; !drained; {
					select {
					case ev, ok := <-w.ResultChan():
						if !ok || ev.Type == watch.Error {
							drained, open = true, false
							break
						}
						seen = m.applyEvent(ev, seen)
					default:
						drained = true
					}
				}
				pass()
			}
		}
		w.Stop()
	}
}

// applyEvent puts one event into the graph and returns the version seen.
func (m *Manager) applyEvent(ev watch.Event, seen uint64) uint64 {
	obj, ok := ev.Object.(scheme.Object)
	if !ok {
		return seen
	}
	if rv, err := storage.ParseResourceVersion(obj.GetResourceVersion()); err == nil && rv > seen {
		seen = rv
	}
	if ev.Type == watch.Bookmark {
		return seen
	}
	m.graph.apply(ev.Type, obj)
	return seen
}

// pass runs the controllers once over the graph; busy reports that it wrote.
func (m *Manager) pass(ctx context.Context) (bool, error) {
	w := &writer{store: m.store, ctx: ctx, clock: m.opts.Clock}
	var errs []error
	for _, n := range m.graph.sorted() {
		if n.gr == namespacesGR && n.deleting {
			errs = append(errs, m.syncNamespace(w, n))
		}
		errs = append(errs, m.collect(w, n))
	}
	return w.wrote, errors.Join(errs...)
}

// crdResource is the resource a stored CustomResourceDefinition serves.
func crdResource(obj scheme.Object) (scheme.GroupKind, resource, bool) {
	crd, ok := obj.(*apiextensions.CustomResourceDefinition)
	if !ok {
		return scheme.GroupKind{}, resource{}, false
	}
	gk := scheme.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
	gr := scheme.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}
	return gk, resource{gr: gr, namespaced: crd.Spec.Scope == apiextensions.NamespaceScoped}, true
}
