// Package server serves CustomResourceDefinitions through the API, as kube-apiserver's
// apiextensions-apiserver does: the customresourcedefinitions resource of
// apiextensions.k8s.io/v1 is stored like any other resource, and creating, changing or
// deleting a CRD installs, changes or removes the resource it defines while the server
// runs, with discovery and the OpenAPI documents following.
//
// [Start] returns a [Handler] that watches the CRDs in storage until its context ends or
// it is closed. On every change of their specs it installs
// the current set into a copy of the host's scheme (scheme.Scheme.Clone), builds a
// rest.Handler and its discovery for it, and swaps it in for new requests; requests in
// flight, watches included, finish on the handler they started on. It then writes each
// CRD's status as kube-apiserver does: the conditions NamesAccepted and Established
// (what `kubectl wait --for condition=established` waits for), acceptedNames and
// storedVersions. As kube's naming controller, a CRD is refused the names another CRD
// of its group holds; a CRD named after a resource the server serves itself is
// established and shadowed by it. Deleting an established CRD deletes its objects first
// (the customresourcecleanup finalizer), honouring their own finalizers; a CRD never
// established, or named after a built-in resource, owns none.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/patch"
	"github.com/apikit-dev/apikit/registry"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
	"github.com/apikit-dev/apikit/watch"
)

// CleanupFinalizer keeps a deleted CRD until its objects are gone, as kube-apiserver's
// customresourcecleanup finalizer does.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// quietPeriod and maxBatchDelay bound how a burst of CRD changes is gathered into one
// reconciliation: until no change came for quietPeriod, or for maxBatchDelay at most.
const (
	quietPeriod   = 5 * time.Millisecond
	maxBatchDelay = 100 * time.Millisecond
)

// retryInterval is how soon the CRDs are looked at again while a deleted CRD's objects
// still have finalizers, or after a reconciliation failed.
const retryInterval = time.Second

// Options configure a Handler. Scheme and Storage are required.
type Options struct {
	// Scheme holds the host's own kinds. It is not modified: each set of CRDs is
	// installed into a copy of it, together with the CustomResourceDefinition kind.
	Scheme *scheme.Scheme
	// Storage keeps the CRDs and the objects of every resource.
	Storage storage.Interface
	// REST is the template of the rest.Options of every handler built: authentication,
	// authorization, admission, the strategies of the host's resources, Rules (CEL) and
	// the rest. Its Scheme, Storage and Discovery are set by the Handler, and the
	// strategy of customresourcedefinitions is the Handler's own.
	REST rest.Options
	// Discovery are the options of the discovery handler built with each rest.Handler.
	Discovery discovery.Options
	// Install are the options every CRD is installed with: for CRDs with a Webhook
	// conversion strategy, the webhook client's timeout and Service resolver, or a Go
	// function in place of the webhook.
	Install apiextensions.InstallOptions
	// CRDs are created before the first handler is built, those that Storage does not
	// hold yet, after the validation the API gives them: how a server starts with its
	// CRD manifests in one build rather than one per CRD. Start fails when one of them
	// cannot be served. To change stored CRDs, use Apply.
	CRDs []*apiextensions.CustomResourceDefinition
}

// Handler is an http.Handler that serves the host's kinds, the
// customresourcedefinitions resource and every resource the stored CRDs define.
type Handler struct {
	opts    Options
	store   storage.Interface
	log     *slog.Logger
	current atomic.Pointer[served]
	// internal is the lifecycle of the customresourcedefinitions resource alone, with
	// the CRD strategy and without admission, for Apply.
	internal *registry.Store

	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	waiters []chan struct{} // closed when the reconciliation after they were added ends
}

// served is one generation of the handler: the rest.Handlers of one set of CRDs.
type served struct {
	// public serves clients, with the host's authentication and authorization.
	public http.Handler
	// installed names each installed CRD by uid and generation: a change of a spec, or
	// a CRD coming or going, needs a new handler; a change of status does not.
	installed string
	// names are the CRDs installed or tried, and failed holds the install error of
	// each that could not be served, by name.
	names  []string
	failed map[string]string
}

// Start builds the handler for the CRDs in opts.Storage and follows them, in a goroutine
// of its own, until ctx ends or Close is called; the handler serves its last set of CRDs
// after that. ctx bounds the building too: seeding opts.CRDs and the first
// reconciliation.
func Start(ctx context.Context, opts Options) (*Handler, error) {
	if opts.Scheme == nil || opts.Storage == nil {
		return nil, errors.New("crds: Options.Scheme and Options.Storage are required")
	}
	h := &Handler{opts: opts, store: opts.Storage, log: opts.REST.Logger, done: make(chan struct{})}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	base := scheme.New()
	if err := apiextensions.AddToScheme(base); err != nil {
		return nil, fmt.Errorf("crds: registering CustomResourceDefinition: %w", err)
	}
	// Apply's own writes, which never leave the process, pass no admission.
	maxObjectBytes := opts.REST.MaxObjectBytes
	if maxObjectBytes == 0 {
		maxObjectBytes = rest.DefaultMaxObjectBytes
	}
	internal, err := registry.New(registry.Options{
		Scheme: base, Storage: h.store, Strategies: map[scheme.GroupResource]registry.Strategy{apiextensions.Resource: h.strategy()},
		GarbageCollection: opts.REST.GarbageCollection, Clock: opts.REST.Clock, Rules: opts.REST.Rules,
		MaxObjectBytes: maxObjectBytes, Logger: h.log,
	})
	if err != nil {
		return nil, fmt.Errorf("crds: building the registry: %w", err)
	}
	h.internal = internal
	ctx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	for _, crd := range opts.CRDs {
		if err := h.seed(ctx, crd); err != nil {
			cancel()
			return nil, err
		}
	}
	rv, _, err := h.reconcile(ctx)
	if err == nil {
		err = h.refused(ctx, opts.CRDs)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	go h.run(ctx, rv)
	return h, nil
}

// seed stores crd, validated and prepared as a create through the API would, unless
// storage holds a CRD of its name.
func (h *Handler) seed(ctx context.Context, crd *apiextensions.CustomResourceDefinition) error {
	c := crd.DeepCopy()
	c.APIVersion, c.Kind = apiextensions.GroupVersion.String(), "CustomResourceDefinition"
	c.ResourceVersion, c.UID, c.Generation, c.CreationTimestamp = "", scheme.NewUID(), 1, scheme.NowFrom(h.opts.REST.Clock)
	prepareCreate(c)
	if errs := apiextensions.Validate(c); len(errs) > 0 {
		return fmt.Errorf("crds: %w", errs.ToStatus(scheme.GroupKind{Group: apiextensions.GroupVersion.Group, Kind: "CustomResourceDefinition"}, c.Name))
	}
	_, err := h.store.Create(ctx, storage.Key(apiextensions.Resource, "", c.Name), c)
	if err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return fmt.Errorf("crds: storing %s: %w", c.Name, err)
	}
	return nil
}

// refused returns an error naming the CRDs of crds that are not served at their
// current generation, and why: names another CRD holds, or an install that failed.
func (h *Handler) refused(ctx context.Context, crds []*apiextensions.CustomResourceDefinition) error {
	var errs []error
	for _, crd := range crds {
		obj, err := h.store.Get(ctx, storage.Key(apiextensions.Resource, "", crd.Name), storage.GetOptions{})
		if err != nil {
			errs = append(errs, fmt.Errorf("crds: reading %s: %w", crd.Name, err))
			continue
		}
		got := obj.(*apiextensions.CustomResourceDefinition)
		if c := got.Condition(apiextensions.NamesAccepted); c != nil && c.Status == apiextensions.ConditionFalse && c.ObservedGeneration >= got.Generation {
			errs = append(errs, fmt.Errorf("crds: %s is not served: %s", crd.Name, c.Message))
		}
	}
	return errors.Join(errs...)
}

// ServeHTTP serves a request with the handler of the latest set of CRDs.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.current.Load().public.ServeHTTP(w, r)
}

// Close stops following the CRDs, as the end of Start's context does, and waits until
// the goroutine that follows them has returned; the last handler keeps serving requests.
// Later calls return at once.
func (h *Handler) Close() error {
	h.cancel()
	<-h.done
	return nil
}

// Apply creates each CRD, or replaces the spec, labels and annotations of the stored one
// of its name, through the API's own validation, and waits until every one is
// established or ctx ends: how a server installs the CRD manifests it starts with.
func (h *Handler) Apply(ctx context.Context, crds ...*apiextensions.CustomResourceDefinition) error {
	for _, crd := range crds {
		if err := h.apply(ctx, crd); err != nil {
			return err
		}
	}
	for {
		wait := h.nextReconcile()
		pending, err := h.notEstablished(ctx, crds)
		if err != nil || pending == "" {
			return err
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return fmt.Errorf("crds: waiting for %s to be established: %w", pending, ctx.Err())
		}
	}
}

// notEstablished returns the name of a CRD of crds that is not established at its
// current generation yet, or an error when one cannot be served.
func (h *Handler) notEstablished(ctx context.Context, crds []*apiextensions.CustomResourceDefinition) (string, error) {
	for _, crd := range crds {
		obj, err := h.store.Get(ctx, storage.Key(apiextensions.Resource, "", crd.Name), storage.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("crds: reading %s: %w", crd.Name, err)
		}
		got := obj.(*apiextensions.CustomResourceDefinition)
		if c := got.Condition(apiextensions.NamesAccepted); c != nil && c.Status == apiextensions.ConditionFalse && c.ObservedGeneration >= got.Generation {
			return "", fmt.Errorf("crds: %s is not served: %s", crd.Name, c.Message)
		}
		if c := got.Condition(apiextensions.Established); c == nil || c.Status != apiextensions.ConditionTrue || got.Status.ObservedGeneration < got.Generation {
			return crd.Name, nil
		}
	}
	return "", nil
}

// apply stores one CRD through the registry, as a client's POST, or PUT over the
// stored one, would.
func (h *Handler) apply(ctx context.Context, crd *apiextensions.CustomResourceDefinition) error {
	res, _ := h.internal.Resource(apiextensions.Resource)
	rq := registry.Request{Resource: res, Version: apiextensions.GroupVersion.Version, FieldManager: patch.ManagerFromUserAgent("")}
	for attempt := 0; ; attempt++ {
		obj, err := h.store.Get(ctx, storage.Key(apiextensions.Resource, "", crd.Name), storage.GetOptions{})
		create, next := err != nil, crd.DeepCopy()
		switch {
		case errors.Is(err, storage.ErrNotFound):
			next.ResourceVersion = ""
		case err != nil:
			return fmt.Errorf("crds: reading %s: %w", crd.Name, err)
		default:
			stored := obj.(*apiextensions.CustomResourceDefinition)
			apiextensions.SetDefaults(next)
			if reflect.DeepEqual(stored.Spec, next.Spec) && maps.Equal(stored.Labels, next.Labels) && maps.Equal(stored.Annotations, next.Annotations) {
				return nil // as stored: nothing to write
			}
			spec, labels, annotations := next.Spec, next.Labels, next.Annotations
			next = stored.DeepCopy()
			next.Spec, next.Labels, next.Annotations = spec, labels, annotations
		}
		next.APIVersion, next.Kind = apiextensions.GroupVersion.String(), "CustomResourceDefinition"
		// What a request body decodes to: the CRD's JSON form.
		in, err := asDecoded(next)
		if err != nil {
			return fmt.Errorf("crds: applying %s: %w", crd.Name, err)
		}
		if create {
			_, err = h.internal.Create(ctx, rq, in)
		} else {
			_, _, err = h.internal.Update(ctx, rq, crd.Name, res.AllowCreateOnUpdate, func(context.Context, scheme.Object) (scheme.Object, error) {
				return in.DeepCopy(), nil
			})
		}
		var st *scheme.Status
		switch {
		case err == nil:
			return nil
		case !errors.As(err, &st):
			return fmt.Errorf("crds: applying %s: %w", crd.Name, err)
		case st.Code == http.StatusConflict && attempt < 5:
			continue // created or changed meanwhile: read it again
		default:
			return fmt.Errorf("crds: applying %s: %d %s", crd.Name, st.Code, st.Message)
		}
	}
}

// asDecoded returns crd as a request body carrying it decodes: through its JSON.
func asDecoded(crd *apiextensions.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	data, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	out := &apiextensions.CustomResourceDefinition{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// nextReconcile returns a channel closed when the next reconciliation ends.
func (h *Handler) nextReconcile() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan struct{})
	h.waiters = append(h.waiters, ch)
	return ch
}

// wake closes the channels of nextReconcile.
func (h *Handler) wake() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ch := range h.waiters {
		close(ch)
	}
	h.waiters = nil
}

// run follows the CRDs in storage from resourceVersion rv until ctx ends, reconciling
// after each batch of changes, and every retryInterval while work remains.
func (h *Handler) run(ctx context.Context, rv string) {
	defer close(h.done)
	for ctx.Err() == nil {
		w, err := h.store.Watch(ctx, storage.Prefix(apiextensions.Resource, ""), storage.WatchOptions{ResourceVersion: rv, Recursive: true})
		if err != nil {
			// Gone or a failing store: read everything again after a pause.
			h.log.Warn("crds: watching CRDs", "err", err)
			if !sleep(ctx, retryInterval) {
				return
			}
			rv = h.reconcileLogged(ctx, rv)
			continue
		}
		rv = h.follow(ctx, w, rv)
		w.Stop()
	}
}

// follow reconciles after the events of one watch until it ends, and again every
// retryInterval while a deleted CRD's objects remain; it returns the version to watch
// from next.
func (h *Handler) follow(ctx context.Context, w watch.Interface, rv string) string {
	retry := time.NewTimer(retryInterval)
	defer retry.Stop()
	retry.Stop()
	reconcile := func() {
		next, remaining, err := h.reconcile(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			h.log.Error("crds: reconciling CRDs", "err", err)
			retry.Reset(retryInterval)
		case err == nil:
			rv = next
			if remaining {
				retry.Reset(retryInterval)
			}
		}
	}
	for {
		select {
		case <-ctx.Done():
			return rv
		case <-retry.C:
			reconcile()
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return rv
			}
			// Take every event that comes within quietPeriod of the last, up to
			// maxBatchDelay, then reconcile once for all of them: a burst of CRDs (a
			// directory applied at start) costs one rebuild, not one each.
			deadline := time.Now().Add(maxBatchDelay)
			quiet := time.NewTimer(quietPeriod)
			for batching := true; batching; {
				select {
				case _, ok := <-w.ResultChan():
					if !ok {
						batching = false
						break
					}
					if time.Now().Before(deadline) {
						quiet.Reset(quietPeriod)
					}
				case <-quiet.C:
					batching = false
				case <-ctx.Done():
					quiet.Stop()
					return rv
				}
			}
			quiet.Stop()
			reconcile()
		}
	}
}

// reconcileLogged reconciles and logs a failure; it returns the version the CRDs were
// read at, or rv when they could not be read.
func (h *Handler) reconcileLogged(ctx context.Context, rv string) string {
	next, _, err := h.reconcile(ctx)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Error("crds: reconciling CRDs", "err", err)
		}
		return rv
	}
	return next
}

// reconcile brings the served resources and the CRDs' statuses in line with the CRDs
// in storage: it decides the names each CRD holds (acceptNames), cleans up deleted
// CRDs, installs the others that may be served into a new handler when what is served
// changed, and writes their status. It returns the version the CRDs were read at and
// whether work remains (objects of a deleted CRD waiting for their finalizers).
func (h *Handler) reconcile(ctx context.Context) (string, bool, error) {
	defer h.wake()
	lr, err := h.store.List(ctx, storage.Prefix(apiextensions.Resource, ""), storage.ListOptions{})
	if err != nil {
		return "", false, err
	}
	all := make([]*apiextensions.CustomResourceDefinition, 0, len(lr.Items))
	for _, obj := range lr.Items {
		all = append(all, obj.(*apiextensions.CustomResourceDefinition))
	}
	names := acceptNames(all)
	var live, serve []*apiextensions.CustomResourceDefinition
	remaining := false
	for _, crd := range all {
		if crd.DeletionTimestamp == nil {
			live = append(live, crd)
			continue
		}
		done, err := h.cleanUp(ctx, crd)
		if err != nil {
			return "", false, err
		}
		remaining = remaining || !done
	}
	shadowed := map[string]bool{}
	for _, crd := range live {
		n := names[crd.Name]
		// As kube, a CRD is served once its names are accepted, and an established one
		// goes on being served by the names it holds when a change asks for names in use.
		if !n.complete() || (!n.accepted() && !crd.IsConditionTrue(apiextensions.Established)) {
			continue
		}
		if h.isBuiltIn(scheme.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}) {
			// kube-apiserver establishes it, and its requests reach the built-in
			// resource, which is served before any CRD: nothing to install.
			shadowed[crd.Name] = true
			continue
		}
		c := crd.DeepCopy()
		c.Spec.Names = n.names
		serve = append(serve, c)
	}
	cur := h.current.Load()
	if cur == nil || cur.installed != fingerprint(serve) {
		next, err := h.build(serve, cur)
		if err != nil {
			return "", false, err
		}
		h.current.Store(next)
		cur = next
	}
	for _, crd := range live {
		n := names[crd.Name]
		st := crdStatus{naming: n, failure: cur.failed[crd.Name]}
		st.served = shadowed[crd.Name] || (st.failure == "" && slices.Contains(cur.names, crd.Name))
		if err := h.writeStatus(ctx, crd, st); err != nil {
			return "", false, err
		}
	}
	return lr.ResourceVersion, remaining, nil
}

// fingerprint names a set of CRDs by uid, generation and the names they are served
// by, in name order.
func fingerprint(crds []*apiextensions.CustomResourceDefinition) string {
	parts := make([]string, len(crds))
	for i, crd := range crds {
		parts[i] = fmt.Sprintf("%s/%s/%d/%v", crd.Name, crd.UID, crd.Generation, crd.Spec.Names)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// build installs crds into a copy of the host's scheme and builds its handlers. As
// kube-apiserver keeps a name with the CRD that holds it, the CRDs served before go
// first, then the others oldest first. A CRD that cannot be installed is left out and
// its error kept for its status.
func (h *Handler) build(crds []*apiextensions.CustomResourceDefinition, prev *served) (*served, error) {
	if err := apiextensions.AddToScheme(h.opts.Scheme.Clone()); err != nil {
		return nil, fmt.Errorf("crds: registering CustomResourceDefinition: %w", err)
	}
	ordered := slices.Clone(crds)
	wasServed := func(crd *apiextensions.CustomResourceDefinition) bool {
		if prev == nil {
			return false
		}
		_, failed := prev.failed[crd.Name]
		return !failed && slices.Contains(prev.names, crd.Name)
	}
	sort.SliceStable(ordered, func(i, j int) bool {
		if a, b := wasServed(ordered[i]), wasServed(ordered[j]); a != b {
			return a
		}
		a, b := ordered[i].CreationTimestamp.Time, ordered[j].CreationTimestamp.Time
		if !a.Equal(b) {
			return a.Before(b)
		}
		return ordered[i].Name < ordered[j].Name
	})
	out := &served{installed: fingerprint(crds), failed: map[string]string{}}
	for _, crd := range crds {
		out.names = append(out.names, crd.Name)
	}
	rules := h.opts.Install.Rules
	if rules == nil {
		rules = h.opts.REST.Rules
	}
	// The fast path installs without compiling the rules, which rest.New compiles for
	// the whole set; the API refused CRDs whose rules do not compile when they were
	// written. Should one have reached storage another way, the set is installed again
	// with each CRD's rules compiled at Install, leaving out the ones that fail.
	withoutRules := h.opts.Install
	withoutRules.Rules = nil
	public, err := h.newREST(h.install(ordered, withoutRules, rules != nil, out), h.opts.REST)
	if err != nil && rules != nil {
		clear(out.failed)
		withRules := h.opts.Install
		withRules.Rules = rules
		public, err = h.newREST(h.install(ordered, withRules, true, out), h.opts.REST)
	}
	if err != nil {
		return nil, err
	}
	out.public = public
	return out, nil
}

// install installs crds in order into a copy of the host's scheme with the
// CustomResourceDefinition kind, recording in out.failed why each refused CRD is.
func (h *Handler) install(crds []*apiextensions.CustomResourceDefinition, opts apiextensions.InstallOptions, haveRules bool, out *served) *scheme.Scheme {
	s := h.opts.Scheme.Clone()
	if err := apiextensions.AddToScheme(s); err != nil {
		panic(fmt.Sprintf("crds: registering CustomResourceDefinition in a copy of the host's scheme: %v", err))
	}
	for _, crd := range crds {
		if !haveRules && crd.HasRules() {
			out.failed[crd.Name] = "its schema has x-kubernetes-validations rules and the server has no rule compiler: build it with github.com/apikit-dev/apikit/cel and set rest.Options.Rules to cel.New()"
			continue
		}
		// Install into a trial copy first, so that a CRD refused halfway leaves
		// nothing of itself in the scheme the others are served from.
		trial := s.Clone()
		if err := apiextensions.Install(trial, crd, opts); err != nil {
			out.failed[crd.Name] = err.Error()
			continue
		}
		s = trial
	}
	return s
}

// newREST builds a rest.Handler and its discovery for scheme s from the template opts.
func (h *Handler) newREST(s *scheme.Scheme, opts rest.Options) (http.Handler, error) {
	// The OpenAPI documents are built on the first request for them: a server whose
	// CRDs change often would otherwise build them at every change.
	dopts := h.opts.Discovery
	dopts.LazyOpenAPI = true
	disc, err := discovery.New(s, dopts)
	if err != nil {
		return nil, fmt.Errorf("crds: building discovery: %w", err)
	}
	strategies := make(map[scheme.GroupResource]registry.Strategy, len(opts.Strategies)+1)
	for gr, st := range opts.Strategies {
		strategies[gr] = st
	}
	strategies[apiextensions.Resource] = h.strategy()
	opts.Scheme, opts.Storage, opts.Discovery, opts.Strategies = s, h.store, disc, strategies
	hd, err := rest.New(opts)
	if err != nil {
		return nil, fmt.Errorf("crds: building the REST handler: %w", err)
	}
	return hd, nil
}

// strategy is how the API creates and updates CRDs, as kube-apiserver's CRD strategy:
// defaults, the cleanup finalizer and the stored versions on create, and kube's
// validation, CEL rules included when the server has a rule compiler.
func (h *Handler) strategy() registry.Strategy {
	rules := h.opts.REST.Rules
	validateRules := func(crd *apiextensions.CustomResourceDefinition) validation.ErrorList {
		if rules == nil {
			return nil
		}
		return apiextensions.ValidateRules(crd, rules)
	}
	return registry.StrategyFor[*apiextensions.CustomResourceDefinition]{
		PrepareForCreate: func(_ context.Context, crd *apiextensions.CustomResourceDefinition) { prepareCreate(crd) },
		PrepareForUpdate: func(_ context.Context, crd, _ *apiextensions.CustomResourceDefinition) {
			apiextensions.SetDefaults(crd)
			if v := crd.StorageVersion(); v != "" && !slices.Contains(crd.Status.StoredVersions, v) {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v)
			}
		},
		Validate: func(_ context.Context, crd *apiextensions.CustomResourceDefinition) validation.ErrorList {
			errs := apiextensions.Validate(crd)
			if len(errs) == 0 {
				errs = validateRules(crd)
			}
			return errs
		},
		ValidateUpdate: func(_ context.Context, crd, old *apiextensions.CustomResourceDefinition) validation.ErrorList {
			errs := apiextensions.ValidateUpdate(crd, old)
			if len(errs) == 0 {
				errs = validateRules(crd)
			}
			return errs
		},
	}
}

// prepareCreate is what a create does to a CRD before validation: kube's defaults, an
// empty status with the stored version, and the cleanup finalizer.
func prepareCreate(crd *apiextensions.CustomResourceDefinition) {
	apiextensions.SetDefaults(crd)
	// An empty list rather than null: `kubectl wait --for condition=established` fails
	// on null conditions instead of waiting for them.
	crd.Status = apiextensions.CustomResourceDefinitionStatus{Conditions: []apiextensions.CustomResourceDefinitionCondition{}}
	if v := crd.StorageVersion(); v != "" {
		crd.Status.StoredVersions = []string{v}
	}
	if !slices.Contains(crd.Finalizers, CleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, CleanupFinalizer)
	}
}

// crdStatus is what one reconciliation found of a CRD: the names it holds, whether it
// is served, and why it could not be installed ("" when nothing failed).
type crdStatus struct {
	naming  naming
	served  bool
	failure string
}

// writeStatus sets a CRD's accepted names, conditions and observed generation as
// kube-apiserver's naming and establishing controllers do. Nothing is written when
// nothing changes.
func (h *Handler) writeStatus(ctx context.Context, crd *apiextensions.CustomResourceDefinition, st crdStatus) error {
	key := storage.Key(apiextensions.Resource, "", crd.Name)
	_, err := h.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{Preconditions: &storage.Preconditions{UID: &crd.UID}}, func(cur scheme.Object) (scheme.Object, error) {
		next := cur.(*apiextensions.CustomResourceDefinition)
		next.ResourceVersion = ""
		if next.DeletionTimestamp != nil || next.Generation != crd.Generation {
			// Deleted, or its spec changed after this reconciliation read it: the
			// status must not claim a generation the served handler was not built from;
			// the next reconciliation writes it.
			return next, nil
		}
		now := scheme.NowFrom(h.opts.REST.Clock)
		next.Status.AcceptedNames = st.naming.names
		switch {
		case st.failure != "":
			setCondition(next, now, apiextensions.NamesAccepted, apiextensions.ConditionFalse, "InstallFailed", st.failure)
			setCondition(next, now, apiextensions.Established, apiextensions.ConditionFalse, "NotAccepted", "not all names are accepted")
		default:
			n := st.naming
			setCondition(next, now, apiextensions.NamesAccepted, n.status, n.reason, n.message)
			switch {
			case st.served && next.IsConditionTrue(apiextensions.Established):
				// Established stays as it was, as kube's controllers leave it.
				if c := next.Condition(apiextensions.Established); c != nil {
					c.ObservedGeneration = next.Generation
				}
			case st.served:
				setCondition(next, now, apiextensions.Established, apiextensions.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted")
			default:
				setCondition(next, now, apiextensions.Established, apiextensions.ConditionFalse, "NotAccepted", "not all names are accepted")
			}
		}
		next.Status.ObservedGeneration = next.Generation
		return next, nil
	})
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict) {
		return nil // deleted or replaced meanwhile: the next reconciliation sees it
	}
	return err
}

// setCondition sets a condition of a CRD, keeping its lastTransitionTime unless its
// status changes.
func setCondition(crd *apiextensions.CustomResourceDefinition, now scheme.Time, t apiextensions.CustomResourceDefinitionConditionType, status apiextensions.ConditionStatus, reason, message string) {
	c := crd.Condition(t)
	if c == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, apiextensions.CustomResourceDefinitionCondition{Type: t})
		c = &crd.Status.Conditions[len(crd.Status.Conditions)-1]
	}
	if c.Status != status {
		c.Status, c.LastTransitionTime = status, now
	}
	c.Reason, c.Message, c.ObservedGeneration = reason, message, crd.Generation
}

// cleanUp deletes the objects of a deleted CRD, then its cleanup finalizer, and the CRD
// itself when no other finalizer remains. Objects with finalizers get a
// deletionTimestamp and are waited for. It reports whether the CRD is done with.
//
// As kube-apiserver's CRD finalizer, it deletes objects only of a CRD that was
// established, and never those of a resource the CRD server itself serves (the host's
// resources, customresourcedefinitions): a CRD named after one of them shares its
// storage keys, and the objects under them are not the CRD's.
func (h *Handler) cleanUp(ctx context.Context, crd *apiextensions.CustomResourceDefinition) (bool, error) {
	if !slices.Contains(crd.Finalizers, CleanupFinalizer) {
		return true, nil
	}
	gr := scheme.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}
	var reason, message string
	switch {
	case h.isBuiltIn(gr):
		reason, message = "OverlappingBuiltInResource", "instances overlap with built-in resources in storage"
	case !crd.IsConditionTrue(apiextensions.Established):
		reason, message = "NeverEstablished", "resource was never established"
	default:
		done, err := h.deleteObjects(ctx, crd, gr)
		if !done || err != nil {
			return false, err
		}
		reason, message = "InstanceDeletionCompleted", "removed all instances"
	}
	key := storage.Key(apiextensions.Resource, "", crd.Name)
	stored, err := h.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{Preconditions: &storage.Preconditions{UID: &crd.UID}}, func(cur scheme.Object) (scheme.Object, error) {
		next := cur.(*apiextensions.CustomResourceDefinition)
		setCondition(next, scheme.NowFrom(h.opts.REST.Clock), apiextensions.Terminating, apiextensions.ConditionFalse, reason, message)
		next.Finalizers = slices.DeleteFunc(next.Finalizers, func(f string) bool { return f == CleanupFinalizer })
		next.ResourceVersion = ""
		return next, nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if len(stored.GetFinalizers()) == 0 {
		rv := stored.GetResourceVersion()
		_, err := h.store.Delete(ctx, key, storage.DeleteOptions{Preconditions: &storage.Preconditions{ResourceVersion: &rv}})
		if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrConflict) {
			return false, err
		}
	}
	return true, nil
}

// isBuiltIn reports whether gr is a resource the CRD server serves itself, whatever
// the CRDs: one of the host's, or customresourcedefinitions.
func (h *Handler) isBuiltIn(gr scheme.GroupResource) bool {
	if gr == apiextensions.Resource {
		return true
	}
	_, ok := h.opts.Scheme.Resource(gr)
	return ok
}

// deleteObjects deletes the objects of an established CRD's resource gr: those without
// finalizers at once, the others by setting their deletionTimestamp. It reports whether
// none remain.
func (h *Handler) deleteObjects(ctx context.Context, crd *apiextensions.CustomResourceDefinition, gr scheme.GroupResource) (bool, error) {
	lr, err := h.store.List(ctx, storage.Prefix(gr, ""), storage.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, obj := range lr.Items {
		key := storage.Key(gr, obj.GetNamespace(), obj.GetName())
		if len(obj.GetFinalizers()) == 0 {
			if _, err := h.store.Delete(ctx, key, storage.DeleteOptions{}); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return false, err
			}
			continue
		}
		if obj.GetDeletionTimestamp() == nil {
			_, err := h.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				now := scheme.NowFrom(h.opts.REST.Clock)
				cur.SetDeletionTimestamp(&now)
				cur.SetResourceVersion("")
				return cur, nil
			})
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return false, err
			}
		}
	}
	n, err := h.store.Count(ctx, storage.Prefix(gr, ""))
	if err != nil {
		return false, err
	}
	if n > 0 {
		return false, h.setTerminating(ctx, crd, fmt.Sprintf("CustomResource deletion is in progress: %d objects remain", n))
	}
	return true, nil
}

// setTerminating records on a deleted CRD that its objects are being deleted.
func (h *Handler) setTerminating(ctx context.Context, crd *apiextensions.CustomResourceDefinition, message string) error {
	key := storage.Key(apiextensions.Resource, "", crd.Name)
	_, err := h.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{Preconditions: &storage.Preconditions{UID: &crd.UID}}, func(cur scheme.Object) (scheme.Object, error) {
		next := cur.(*apiextensions.CustomResourceDefinition)
		next.ResourceVersion = ""
		setCondition(next, scheme.NowFrom(h.opts.REST.Clock), apiextensions.Terminating, apiextensions.ConditionTrue, "InstanceDeletionInProgress", message)
		return next, nil
	})
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict) {
		return nil
	}
	return err
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
