package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	v1 "github.com/apikit-dev/apikit/examples/widgets/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// WidgetsResource is the resource the controller reconciles: widgets in
// toys.example.com/v1.
var WidgetsResource = schema.GroupVersionResource{Group: api.Group, Version: v1.GroupVersion.Version, Resource: "widgets"}

// The phases the controller writes to status.phase.
const (
	// PhasePending is the phase of a Widget that asks for no replicas.
	PhasePending = "Pending"
	// PhaseReady is the phase of a Widget that asks for one replica or more.
	PhaseReady = "Ready"
)

// DefaultFieldManager is the field manager named in the controller's status updates when
// Options.FieldManager is empty.
const DefaultFieldManager = "widget-operator"

// Options configures New. The zero Options is usable: one worker watching every
// namespace, no periodic resync, client-go's default controller rate limiter, no logs.
type Options struct {
	// Namespace limits the controller to the Widgets of one namespace; "" means all.
	Namespace string
	// Workers is how many Widgets are reconciled at once; 0 or less means 1. A Widget is
	// never reconciled by two workers at the same time (the workqueue guarantees it).
	Workers int
	// ResyncPeriod, when positive, queues every cached Widget again at that interval, so
	// that a status changed behind the controller's back is put right; 0 disables it.
	ResyncPeriod time.Duration
	// RateLimiter decides how long a Widget waits before it is tried again after a failed
	// reconcile (a 409 Conflict from a stale cache, a server error); nil means
	// workqueue.DefaultTypedControllerRateLimiter (exponential per item from 5ms, with an
	// overall token bucket).
	RateLimiter workqueue.TypedRateLimiter[string]
	// FieldManager names the controller in its status updates; "" means
	// DefaultFieldManager.
	FieldManager string
	// Logger receives the controller's messages: each status change at Info, retries
	// after a conflict at Debug, other failures at Error. nil discards them.
	Logger *slog.Logger
}

// Controller keeps the status of Widgets in line with their spec: for each Widget it sets
// status.phase (PhasePending for spec.replicas 0, PhaseReady otherwise), status.replicas
// (= spec.replicas) and status.observedGeneration (= metadata.generation) through the
// status subresource. It watches Widgets with a dynamic informer and reconciles them from
// a rate-limited workqueue of namespace/name keys. Create it with New and start it with
// Run, once.
type Controller struct {
	client       dynamic.NamespaceableResourceInterface
	informer     cache.SharedIndexInformer
	registration cache.ResourceEventHandlerRegistration
	queue        workqueue.TypedRateLimitingInterface[string]
	workers      int
	fieldManager string
	log          *slog.Logger
	started      atomic.Bool
}

// New returns a controller for the Widgets that client serves. Nothing is requested from
// the server before Run.
func New(client dynamic.Interface, opts Options) (*Controller, error) {
	if client == nil {
		return nil, errors.New("widget controller: nil client")
	}
	c := &Controller{
		client:       client.Resource(WidgetsResource),
		workers:      max(opts.Workers, 1),
		fieldManager: opts.FieldManager,
		log:          opts.Logger,
	}
	if c.fieldManager == "" {
		c.fieldManager = DefaultFieldManager
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.DefaultTypedControllerRateLimiter[string]()
	}
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "widgets"})
	c.informer = dynamicinformer.NewFilteredDynamicInformer(client, WidgetsResource, opts.Namespace, max(opts.ResyncPeriod, 0),
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
	reg, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		// A deleted Widget needs nothing from the controller: its key is dropped when a
		// worker finds it gone from the cache.
	})
	if err != nil {
		return nil, fmt.Errorf("widget controller: registering event handler: %w", err)
	}
	c.registration = reg
	return c, nil
}

// Run starts the informer and the workers and blocks until ctx ends. It then shuts the
// workqueue down, waits for the workers to finish the Widget in hand and for the informer
// to stop, and returns nil. It returns an error, after the same cleanup, when ctx ends
// before the informer has synced its cache (the error wraps ctx.Err()), or when Run has
// been called before.
func (c *Controller) Run(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("widget controller: Run called more than once")
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer c.queue.ShutDown() // runs before wg.Wait: it releases workers blocked in Get
	wg.Go(func() { c.informer.RunWithContext(ctx) })

	if !cache.WaitForCacheSync(ctx.Done(), c.registration.HasSynced) {
		return fmt.Errorf("widget controller: waiting for the widget cache to sync: %w", context.Cause(ctx))
	}
	c.log.Info("widget controller started", "workers", c.workers)
	for range c.workers {
		wg.Go(func() {
			for c.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.log.Info("widget controller stopping")
	return nil
}

// enqueue adds the namespace/name key of a Widget to the workqueue.
func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Error("cannot queue widget", "err", err)
		return
	}
	c.queue.Add(key)
}

// processNext reconciles the next key of the workqueue, queueing it again with the rate
// limiter when that fails. It returns false once the queue has been shut down.
func (c *Controller) processNext(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	err := c.reconcile(ctx, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case ctx.Err() != nil:
		// Shutting down: the request was cut short, nothing to retry or report.
		c.queue.Forget(key)
	case apierrors.IsConflict(err):
		// The cache was behind the server; the informer brings the newer Widget, and the
		// retry (after the rate limiter's delay) starts from it.
		c.log.Debug("conflict updating widget status, retrying", "widget", key, "retries", c.queue.NumRequeues(key))
		c.queue.AddRateLimited(key)
	default:
		c.log.Error("reconciling widget failed, retrying", "widget", key, "retries", c.queue.NumRequeues(key), "err", err)
		c.queue.AddRateLimited(key)
	}
	return true
}

// reconcile brings the status of the Widget with key in line with its spec, using the
// informer's cached copy. A Widget no longer in the cache needs nothing.
func (c *Controller) reconcile(ctx context.Context, key string) error {
	obj, exists, err := c.informer.GetIndexer().GetByKey(key)
	if err != nil {
		return fmt.Errorf("reading widget %s from the cache: %w", key, err)
	}
	if !exists {
		return nil
	}
	widget, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("widget %s: unexpected cached type %T", key, obj)
	}
	want, err := DesiredStatus(widget)
	if err != nil {
		// A malformed spec does not get better by retrying; the next change of the
		// Widget queues it again.
		c.log.Error("cannot compute widget status", "widget", key, "err", err)
		return nil
	}
	if have, err := CurrentStatus(widget); err == nil && have == want {
		return nil
	}
	updated := widget.DeepCopy()
	if err := want.apply(updated); err != nil {
		return fmt.Errorf("widget %s: %w", key, err)
	}
	_, err = c.client.Namespace(widget.GetNamespace()).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: c.fieldManager})
	switch {
	case apierrors.IsNotFound(err):
		return nil // deleted meanwhile
	case err != nil:
		return fmt.Errorf("updating status of widget %s: %w", key, err)
	}
	c.log.Info("widget status updated", "widget", key, "phase", want.Phase, "replicas", want.Replicas, "observedGeneration", want.ObservedGeneration)
	return nil
}

// Status is the part of a Widget's status that the controller owns.
type Status struct {
	// Phase is status.phase: PhasePending or PhaseReady.
	Phase string
	// Replicas is status.replicas.
	Replicas int64
	// ObservedGeneration is status.observedGeneration.
	ObservedGeneration int64
}

// DesiredStatus returns the status the controller wants for widget: PhasePending when
// spec.replicas is 0 and PhaseReady otherwise, status.replicas equal to spec.replicas and
// status.observedGeneration equal to metadata.generation. A spec.replicas left out counts
// as 1, the API's default (the server fills it in, so this only matters for objects that
// did not come from it). It fails when spec.replicas is not an integer or is negative.
func DesiredStatus(widget *unstructured.Unstructured) (Status, error) {
	replicas, found, err := unstructured.NestedInt64(widget.Object, "spec", "replicas")
	if err != nil {
		return Status{}, fmt.Errorf("widget %s/%s: %w", widget.GetNamespace(), widget.GetName(), err)
	}
	if !found {
		replicas = 1
	}
	if replicas < 0 {
		return Status{}, fmt.Errorf("widget %s/%s: negative spec.replicas %d", widget.GetNamespace(), widget.GetName(), replicas)
	}
	phase := PhaseReady
	if replicas == 0 {
		phase = PhasePending
	}
	return Status{Phase: phase, Replicas: replicas, ObservedGeneration: widget.GetGeneration()}, nil
}

// CurrentStatus returns the controller-owned fields of widget's status; a field left out
// (as zero values are on the wire) reads as its zero value. It fails when a field has the
// wrong type.
func CurrentStatus(widget *unstructured.Unstructured) (Status, error) {
	var s Status
	var err error
	if s.Phase, _, err = unstructured.NestedString(widget.Object, "status", "phase"); err != nil {
		return Status{}, err
	}
	if s.Replicas, _, err = unstructured.NestedInt64(widget.Object, "status", "replicas"); err != nil {
		return Status{}, err
	}
	if s.ObservedGeneration, _, err = unstructured.NestedInt64(widget.Object, "status", "observedGeneration"); err != nil {
		return Status{}, err
	}
	return s, nil
}

// apply writes s into widget's status, keeping the status fields the controller does not
// own (conditions).
func (s Status) apply(widget *unstructured.Unstructured) error {
	for _, f := range []struct {
		name  string
		value any
	}{
		{"phase", s.Phase},
		{"replicas", s.Replicas},
		{"observedGeneration", s.ObservedGeneration},
	} {
		if err := unstructured.SetNestedField(widget.Object, f.value, "status", f.name); err != nil {
			return fmt.Errorf("setting status.%s: %w", f.name, err)
		}
	}
	return nil
}
