package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/registry"
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
	// Logger receives what the controllers cannot do: failed passes, lists and watches,
	// and a watch that expired and made them list again; nil discards it (hosts should
	// give one).
	Logger *slog.Logger
	// Metrics, when set, receives the controllers' metrics: MetricRelists,
	// MetricErrors and MetricFollowing.
	Metrics *metrics.Registry
	// Clock returns the time the controllers record (deletionTimestamp, condition
	// transitions, the creation of the default namespaces); nil means the real time.
	// The in-process test server (package apitest) passes the clock a test freezes and
	// advances.
	Clock func() time.Time
	// Strategies are the REST handler's (rest.Options.Strategies): when the scheme
	// serves core/v1 services, the controllers keep the kubernetes Service of namespace
	// default (KubernetesServiceName) and create it through them, as kube-apiserver
	// creates it through its API, so that the built-in strategies (package strategies)
	// reserve its cluster IP, KubernetesServiceIP, for it.
	Strategies map[scheme.GroupResource]registry.Strategy
	// APIServer is the address clients reach the API server at and the port it
	// serves on, kube-apiserver's advertise address and secure port: the kubernetes
	// Service's targetPort (443 without a port) and the address of its Endpoints and
	// EndpointSlice, which are kept only for an address kube's validation of endpoints
	// allows (not loopback, unspecified or link-local: kube-apiserver bound to
	// 127.0.0.1 advertises the host's address, as the test server does).
	APIServer netip.AddrPort
}

// Manager runs the namespace controller, the garbage collector and, when the scheme
// serves services, kube-apiserver's keeping of the kubernetes Service.
type Manager struct {
	opts  Options
	store storage.Interface
	// reg deletes as a DELETE request does, with the garbage collector's finalizers.
	reg *registry.Store
	// api creates as a POST does, with the scheme and Options.Strategies: the
	// kubernetes Service's objects; nil when the scheme serves no services.
	api    *registry.Store
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{}

	// graph is owned by the run goroutine.
	graph *graph

	health  followState
	metrics controllerMetrics
	// reported are the (dependent, owner) uids whose OwnerRefInvalidNamespace event
	// was recorded; owned by the run goroutine.
	reported map[[2]scheme.UID]struct{}
	// kubernetesServiceStale says an event removed one of the kubernetes Service's
	// objects or wrote its Endpoints or EndpointSlice, or a relist may have missed
	// that: the next pass creates what is missing and resets what changed. Owned by the
	// run goroutine.
	kubernetesServiceStale bool
	// visits counts the nodes the passes processed, for the tests that hold a pass's
	// work to what changed.
	visits atomic.Uint64

	mu sync.Mutex
	// seen is the resourceVersion of the last event a finished pass had applied, and
	// busy whether that pass wrote (or failed): more work may follow.
	seen    uint64
	busy    bool
	changed chan struct{}
}

// Start lists the store, ensures the default namespaces when the scheme serves
// namespaces, and runs the controllers until Stop or ctx ends; their first pass
// creates the kubernetes Service when the scheme serves services (WaitIdle waits for it).
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
	// The collector's deletes go by resource and storage key, over custom resources the
	// scheme does not hold too, converting nothing: the registry needs no kinds for them,
	// and the collector's own deletes pass no admission.
	reg, err := registry.New(registry.Options{Scheme: scheme.New(), Storage: opts.Storage, GarbageCollection: true, Clock: opts.Clock, Logger: log})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("controllers: %w", err)
	}
	m.reg = reg
	m.graph = newGraph(opts.Scheme)
	m.metrics = newControllerMetrics(opts.Metrics)
	m.reported = map[[2]scheme.UID]struct{}{}
	if err := m.ensureDefaultNamespaces(ctx); err != nil {
		cancel()
		return nil, err
	}
	if _, ok := opts.Scheme.Resource(servicesGR); ok {
		if m.api, err = registry.New(registry.Options{Scheme: opts.Scheme, Storage: opts.Storage, Strategies: opts.Strategies, GarbageCollection: true, Clock: opts.Clock, Logger: log}); err != nil {
			cancel()
			return nil, fmt.Errorf("controllers: %w", err)
		}
		// The first pass creates it, as kube-apiserver's bootstrap controller does once
		// the server runs: Start does not wait for the OpenAPI of core/v1 that its
		// managedFields need (most of Start's time otherwise). Dynamic clusterIPs come
		// from above the static band, so no Service created meanwhile takes 10.0.0.1.
		m.kubernetesServiceStale = true
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
		idle, err := m.waitPassed(ctx, want)
		if idle || err != nil {
			return err
		}
	}
}

// waitPassed waits until a pass has applied the events up to version want, or one
// that had applied them finishes; idle reports that it had nothing left to do.
func (m *Manager) waitPassed(ctx context.Context, want uint64) (idle bool, err error) {
	m.mu.Lock()
	seen, busy, changed := m.seen, m.busy, m.changed
	m.mu.Unlock()
	if seen >= want && !busy {
		return true, nil
	}
	select {
	case <-changed:
		return false, nil
	case <-m.done:
		return false, errors.New("controllers: stopped")
	case <-ctx.Done():
		return false, ctx.Err()
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

// run follows the store as an informer does: from the list Start made, it watches
// from the last version seen, applying each batch of events to the graph and then
// making one pass. A watch that ends with an error (410 Expired when it fell out of the
// store's history window, as a pass of many writes makes it) or that cannot start is
// replaced by a new list, whose objects replace the graph, and a watch from there.
func (m *Manager) run(ctx context.Context, rv string) {
	defer close(m.done)
	defer m.health.stopped()
	seen, _ := storage.ParseResourceVersion(rv)
	retry := time.NewTimer(0)
	defer retry.Stop()
	pass := func() {
		busy, again, err := m.pass(ctx)
		if err != nil && ctx.Err() == nil {
			m.log.Error("controllers: pass", "err", err)
			m.metrics.errors.With("pass").Inc()
		}
		if again && ctx.Err() == nil {
			// The nodes to retry stayed dirty.
			retry.Reset(retryInterval)
		}
		m.finishPass(seen, busy || err != nil)
	}
	var back backoff
	relist := false
	for ctx.Err() == nil {
		if relist {
			lr, err := m.store.List(ctx, "/", storage.ListOptions{})
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				m.failed("list", err)
				if !sleep(ctx, back.next()) {
					return
				}
				continue
			}
			seen, _ = storage.ParseResourceVersion(lr.ResourceVersion)
			m.graph.replace(lr.Items)
			m.kubernetesServiceStale = true
			relist = false
			pass()
		}
		w, err := m.store.Watch(ctx, "/", storage.WatchOptions{ResourceVersion: storage.FormatResourceVersion(seen), Recursive: true})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			relist = true
			if errors.Is(err, storage.ErrGone) {
				// At once the first time; a new list that is already too old to
				// watch from backs off.
				m.expired(seen, err)
				if !sleep(ctx, back.again()) {
					return
				}
				continue
			}
			m.failed("watch", err)
			if !sleep(ctx, back.next()) {
				return
			}
			continue
		}
		back.reset()
		m.health.following()
		m.metrics.following.Set(1)
		started, from := time.Now(), seen
		end := m.follow(ctx, w, &seen, retry, pass)
		w.Stop()
		m.metrics.following.Set(0)
		if end == nil && seen == from && time.Since(started) < time.Second {
			// client-go's reflector calls this a "very short watch" and lists again
			// with backoff: a store that ends every watch at once must not spin.
			end = fmt.Errorf("very short watch: the watch from resourceVersion %d closed after %s without an event", from, time.Since(started).Round(time.Millisecond))
		}
		switch {
		case ctx.Err() != nil:
			return
		case end == nil:
			// The watch closed without an error: watch again from the last version seen.
		case isExpired(end):
			relist = true
			m.expired(seen, end)
		default:
			relist = true
			m.failed("watch", end)
			if !sleep(ctx, back.next()) {
				return
			}
		}
	}
}

// follow applies the events of w until it ends, making a pass after each batch and
// when retry fires; it returns the error the watch ended with (nil when it closed
// without one or ctx ended).
func (m *Manager) follow(ctx context.Context, w watch.Interface, seen *uint64, retry *time.Timer, pass func()) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			pass()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return watchError(ev)
			}
			*seen = m.applyEvent(ev, *seen)
			// Take every event already queued, then pass once.
			for drained := false; !drained; {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						pass()
						return nil
					}
					if ev.Type == watch.Error {
						pass()
						return watchError(ev)
					}
					*seen = m.applyEvent(ev, *seen)
				default:
					drained = true
				}
			}
			pass()
		}
	}
}

// watchError is the error an ERROR event carries: its Status, or a generic error.
func watchError(ev watch.Event) error {
	if st, ok := ev.Object.(*scheme.Status); ok && st != nil {
		return st
	}
	return fmt.Errorf("controllers: the watch ended with an ERROR event of %T", ev.Object)
}

// isExpired reports whether the watch ended because it fell out of the store's
// history window: 410 Expired (or Gone), or storage.ErrGone.
func isExpired(err error) bool {
	var st *scheme.Status
	if errors.As(err, &st) {
		return st.Code == http.StatusGone
	}
	return errors.Is(err, storage.ErrGone)
}

// expired records a watch that fell out of the store's history window: the controllers
// list again, as client-go's reflector does, at once.
func (m *Manager) expired(seen uint64, err error) {
	m.log.Warn("controllers: the watch of the store expired; listing again", "resourceVersion", seen, "err", err)
	m.metrics.relists.With("expired").Inc()
}

// failed records a list or watch that failed for another reason: logged, counted (a
// failed watch as a relist too), and reported by the health checks until a list or
// watch succeeds.
func (m *Manager) failed(operation string, err error) {
	m.log.Error("controllers: following the store", "operation", operation, "err", err)
	m.metrics.errors.With(operation).Inc()
	if operation == "watch" {
		m.metrics.relists.With("error").Inc() // a failed watch is followed by a new list
	}
	m.health.notFollowing(fmt.Errorf("%s: %w", operation, err))
}

// sleep waits d, or reports that ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// backoff is the wait before retrying after consecutive failures: doubling from
// retryInterval up to maxBackoff, as client-go's reflector backs off its relists.
type backoff struct{ failures int }

// maxBackoff bounds the wait between two attempts to follow the store.
const maxBackoff = 30 * time.Second

func (b *backoff) next() time.Duration {
	d := retryInterval << min(b.failures, 16)
	b.failures++
	return min(d, maxBackoff)
}

// again is the wait before a retry that needs none the first time: none after the
// first consecutive failure, then next's.
func (b *backoff) again() time.Duration {
	if b.failures == 0 {
		b.failures++
		return 0
	}
	return b.next()
}

func (b *backoff) reset() { b.failures = 0 }

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
	m.noteKubernetesService(ev.Type, obj)
	m.graph.apply(ev.Type, obj)
	return seen
}

// pass runs the controllers once over the dirty nodes of the graph, in key order; a
// node whose work failed or must be retried stays dirty for the retry. busy reports
// that it wrote, retry that a node must be retried without an error to report.
func (m *Manager) pass(ctx context.Context) (busy, retry bool, err error) {
	w := &writer{store: m.store, reg: m.reg, ctx: ctx, clock: m.opts.Clock}
	m.forgetReports()
	var errs []error
	if m.kubernetesServiceStale {
		wrote, err := m.ensureKubernetesService(ctx)
		m.kubernetesServiceStale = err != nil
		if err != nil {
			errs = append(errs, err)
			retry = true
		}
		busy = wrote
	}
	for _, n := range m.graph.takeDirty() {
		m.visits.Add(1)
		again := false
		var err error
		if n.gr == namespacesGR && n.deleting {
			again, err = m.syncNamespace(w, n)
		}
		if err = errors.Join(err, m.collect(w, n)); err != nil {
			errs = append(errs, err)
			again = true
		}
		if again {
			m.graph.mark(n.uid)
			retry = true
		}
	}
	return busy || w.wrote, retry, errors.Join(errs...)
}

// crdResource is the resource an established CustomResourceDefinition serves, by its
// accepted names; ok is false for a CRD that serves none.
func crdResource(crd *apiextensions.CustomResourceDefinition) (gk scheme.GroupKind, r resource, ok bool) {
	if !crd.IsConditionTrue(apiextensions.Established) {
		return gk, r, false
	}
	names := crd.Status.AcceptedNames
	if names.Kind == "" || names.Plural == "" {
		return gk, r, false
	}
	gk = scheme.GroupKind{Group: crd.Spec.Group, Kind: names.Kind}
	gr := scheme.GroupResource{Group: crd.Spec.Group, Resource: names.Plural}
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	return gk, resource{gr: gr, namespaced: crd.Spec.Scope == apiextensions.NamespaceScoped, versions: served}, true
}
