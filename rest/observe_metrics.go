package rest

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// metricsComponent is the component label of kube-apiserver's request metrics.
const metricsComponent = "apiserver"

// latencyBuckets are kube-apiserver's buckets of request and storage latencies, in
// seconds.
var latencyBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// requestMetrics are kube-apiserver's metrics of the requests a Handler serves, with
// its names, help texts, labels and buckets (k8s.io/apiserver pkg/endpoints/metrics
// and pkg/storage/etcd3/metrics).
type requestMetrics struct {
	h            *Handler
	total        metrics.CounterVec
	duration     metrics.HistogramVec
	sizes        metrics.HistogramVec
	longRunning  metrics.GaugeVec
	watchEvents  metrics.CounterVec
	watchSizes   metrics.HistogramVec
	storeLatency metrics.HistogramVec
	storeTotal   metrics.CounterVec
	storeErrors  metrics.CounterVec
}

// gaugeHandle is a gauge series an observation adjusts when the request starts and ends.
type gaugeHandle struct{ g metrics.Gauge }

func newRequestMetrics(reg *metrics.Registry, h *Handler) *requestMetrics {
	// The in-flight limits count the requests being served anyway (limits.go): the
	// gauge reads their counters when scraped.
	reg.GaugeFunc("apiserver_current_inflight_requests",
		"Number of requests this apiserver is serving, per request kind (readOnly, mutating); long-running requests are not counted.",
		[]string{"request_kind"}, func(emit func(float64, ...string)) {
			emit(float64(h.limits.readOnly.n.Load()), "readOnly")
			emit(float64(h.limits.mutating.n.Load()), "mutating")
		})
	m := &requestMetrics{
		h: h,
		total: reg.Counter("apiserver_request_total",
			"Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
			"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"),
		duration: reg.Histogram("apiserver_request_duration_seconds",
			"Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			latencyBuckets, "verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"),
		sizes: reg.Histogram("apiserver_response_sizes",
			"Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
			metrics.ExponentialBuckets(1000, 10, 7), "verb", "group", "version", "resource", "subresource", "scope", "component"),
		longRunning: reg.Gauge("apiserver_longrunning_requests",
			"Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
			"verb", "group", "version", "resource", "subresource", "scope", "component"),
		watchEvents: reg.Counter("apiserver_watch_events_total",
			"Number of events sent in watch clients", "group", "version", "resource"),
		watchSizes: reg.Histogram("apiserver_watch_events_sizes",
			"Watch event size distribution in bytes", metrics.ExponentialBuckets(1024, 2, 8), "group", "version", "resource"),
		storeLatency: reg.Histogram("etcd_request_duration_seconds",
			"Etcd request latency in seconds for each operation and object type.",
			latencyBuckets, "operation", "group", "resource"),
		storeTotal: reg.Counter("etcd_requests_total",
			"Etcd request counts for each operation and object type.", "operation", "group", "resource"),
		storeErrors: reg.Counter("etcd_request_errors_total",
			"Etcd failed request counts for each operation and object type.", "operation", "group", "resource"),
	}
	store := h.store
	reg.GaugeFunc("apiserver_storage_objects",
		"[DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		[]string{"resource"}, func(emit func(float64, ...string)) {
			countObjects(h.scheme, store, func(gr scheme.GroupResource, n float64) { emit(n, gr.String()) })
		})
	reg.GaugeFunc("apiserver_resource_objects",
		"Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		[]string{"group", "resource"}, func(emit func(float64, ...string)) {
			countObjects(h.scheme, store, func(gr scheme.GroupResource, n float64) { emit(n, gr.Group, gr.Resource) })
		})
	reg.RegisterRuntime()
	return m
}

// countObjects reports how many objects each stored resource has (-1 when the store
// cannot tell), at scrape time: one Count per resource.
func countObjects(s *scheme.Scheme, store storage.Interface, report func(scheme.GroupResource, float64)) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := map[scheme.GroupResource]bool{}
	for _, res := range s.Resources() {
		gr := s.StorageResource(res).GroupResource()
		if seen[gr] {
			continue
		}
		seen[gr] = true
		n, err := store.Count(ctx, storage.Prefix(gr, ""))
		if err != nil {
			report(gr, -1)
			continue
		}
		report(gr, float64(n))
	}
}

// resourceLabels are the group, version, resource and subresource labels of a request:
// those of a resource the Handler serves, or, for a non-resource request, the path's
// first segment when it is one the Handler knows; empty otherwise, so that clients
// cannot grow the number of series with made-up paths.
func (m *requestMetrics) resourceLabels(info *RequestInfo) (group, version, resource, subresource string) {
	if info == nil {
		return "", "", "", ""
	}
	if !info.IsResourceRequest {
		return "", "", "", knownPathLabel(info.Path)
	}
	res, ok := m.h.scheme.Resource(scheme.GroupResource{Group: info.APIGroup, Resource: info.Resource})
	if !ok || !m.h.scheme.Recognizes(scheme.GroupVersionKind{Group: info.APIGroup, Version: info.APIVersion, Kind: res.Kind}) {
		return "", "", "", ""
	}
	if info.Subresource != "" && res.HasSubresource(info.Subresource) {
		subresource = info.Subresource
	}
	return info.APIGroup, info.APIVersion, info.Resource, subresource
}

// knownPaths are the non-resource path prefixes whose requests are labeled with them.
var knownPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/metrics", "/api", "/apis", "/openapi"}

func knownPathLabel(path string) string {
	for _, p := range knownPaths {
		if path == p || strings.HasPrefix(path, p+"/") {
			return p
		}
	}
	return ""
}

// record counts a finished request in apiserver_request_total and its latency (and,
// for GET and LIST, its size) in the histograms.
func (m *requestMetrics) record(o *observation, elapsed time.Duration) {
	info := o.info
	if info == nil {
		info = &RequestInfo{Path: o.r.URL.Path, Verb: strings.ToLower(o.r.Method)}
	}
	verb := normalizedVerb(o.r, info, true)
	dryRun := cleanDryRun(o.r)
	group, version, resource, subresource := m.resourceLabels(info)
	scope := routeScope(info)
	m.total.With(verb, dryRun, group, version, resource, subresource, scope, metricsComponent, codeLabel(o.code)).Inc()
	m.duration.With(verb, dryRun, group, version, resource, subresource, scope, metricsComponent).Observe(elapsed.Seconds())
	if verb == http.MethodGet || verb == "LIST" {
		m.sizes.With(verb, group, version, resource, subresource, scope, metricsComponent).Observe(float64(o.bytes))
	}
}

// longRunningOf returns the apiserver_longrunning_requests series of a watch; its scope
// is kube's CleanScope (a watch of one name is "resource").
func (m *requestMetrics) longRunningOf(o *observation) *gaugeHandle {
	group, version, resource, subresource := m.resourceLabels(o.info)
	scope := "cluster"
	switch {
	case o.info.Name != "":
		scope = "resource"
	case o.info.Namespace != "":
		scope = "namespace"
	}
	return &gaugeHandle{m.longRunning.With(normalizedVerb(o.r, o.info, true), group, version, resource, subresource, scope, metricsComponent)}
}

// watchEventSeries are the series a watch stream counts its events in, looked up once
// per stream: a busy watch sends thousands of events a second.
type watchEventSeries struct {
	events metrics.Counter
	sizes  metrics.Histogram
}

// watchEventSeriesOf returns the series of rq's watch events, or nil when metrics are off.
func (rq *request) watchEventSeriesOf() *watchEventSeries {
	o := rq.h.obs
	if o == nil || o.metrics == nil {
		return nil
	}
	m, info := o.metrics, rq.info
	return &watchEventSeries{
		events: m.watchEvents.With(info.APIGroup, info.APIVersion, info.Resource),
		sizes:  m.watchSizes.With(info.APIGroup, info.APIVersion, info.Resource),
	}
}

// count records one event of size bytes sent to the watch client.
func (s *watchEventSeries) count(size int) {
	if s != nil {
		s.events.Inc()
		s.sizes.Observe(float64(size))
	}
}

// cleanDryRun is the dry_run label: "" without dryRun, the sorted distinct values
// ("All"), or "invalid" for a value kube does not accept.
func cleanDryRun(r *http.Request) string {
	if !strings.Contains(r.URL.RawQuery, "dryRun") {
		return ""
	}
	values := r.URL.Query()["dryRun"]
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	if len(values) == 0 {
		return ""
	}
	return "All"
}

// codeLabels are the code label values of the status codes, made once.
var codeLabels = func() (c [600]string) {
	for i := range c {
		c[i] = strconv.Itoa(i)
	}
	return c
}()

func codeLabel(code int) string {
	if code >= 0 && code < len(codeLabels) {
		return codeLabels[code]
	}
	return strconv.Itoa(code)
}

// serveMetrics answers GET /metrics from Options.Metrics in the Prometheus text format;
// it reports false for any other request, or when metrics are off. Like kube-apiserver,
// /metrics is not public: the request was authorized (non-resource "get" on /metrics)
// before it gets here.
func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.Metrics == nil || r.URL.Path != "/metrics" {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.writeStatus(w, r, errMethodNotAllowed())
		return true
	}
	w.Header().Set("Content-Type", metrics.ContentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		if err := h.opts.Metrics.WriteText(w); err != nil {
			h.log.Warn("rest: writing /metrics", "err", err)
		}
	}
	return true
}

// instrumentedStore records kube's etcd_request_* metrics of every storage call the
// Handler makes. The only optional interface package rest asserts on the Handler's
// store is storage.SharedLister, which newInstrumentedStore keeps; Options.Storage itself is
// left as it is for whoever else holds it.
type instrumentedStore struct {
	storage.Interface
	m *requestMetrics
}

// newInstrumentedStore wraps store, keeping its storage.SharedLister if it has one.
func newInstrumentedStore(store storage.Interface, m *requestMetrics) storage.Interface {
	s := instrumentedStore{Interface: store, m: m}
	if sl, ok := store.(storage.SharedLister); ok {
		return instrumentedSharedStore{instrumentedStore: s, shared: sl}
	}
	return s
}

// instrumentedSharedStore is the instrumentedStore of a storage.SharedLister; its shared lists
// are recorded as lists.
type instrumentedSharedStore struct {
	instrumentedStore
	shared storage.SharedLister
}

func (s instrumentedSharedStore) ListShared(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return timed(s.instrumentedStore, "list", prefix, func() (*storage.ListResult, error) { return s.shared.ListShared(ctx, prefix, opts) })
}

func (s instrumentedStore) observe(op, key string, start time.Time, err error) {
	group, resource := groupResourceOfKey(key)
	s.m.storeLatency.With(op, group, resource).Observe(time.Since(start).Seconds())
	s.m.storeTotal.With(op, group, resource).Inc()
	if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrConflict) && !errors.Is(err, storage.ErrAlreadyExists) {
		s.m.storeErrors.With(op, group, resource).Inc()
	}
}

// groupResourceOfKey reads the group and resource of a storage key (storage.Key,
// storage.Prefix): "/<group>/<resource>/...", the core group spelled "core".
func groupResourceOfKey(key string) (group, resource string) {
	rest := strings.TrimPrefix(key, "/")
	group, rest, _ = strings.Cut(rest, "/")
	resource, _, _ = strings.Cut(rest, "/")
	if group == storage.CoreGroupSegment {
		group = ""
	}
	return group, resource
}

// timed runs one storage call and records it as op on key.
func timed[T any](s instrumentedStore, op, key string, call func() (T, error)) (T, error) {
	start := time.Now()
	out, err := call()
	s.observe(op, key, start, err)
	return out, err
}

func (s instrumentedStore) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	return timed(s, "create", key, func() (scheme.Object, error) { return s.Interface.Create(ctx, key, obj) })
}

func (s instrumentedStore) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	return timed(s, "get", key, func() (scheme.Object, error) { return s.Interface.Get(ctx, key, opts) })
}

func (s instrumentedStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (*storage.ListResult, error) {
	return timed(s, "list", prefix, func() (*storage.ListResult, error) { return s.Interface.List(ctx, prefix, opts) })
}

func (s instrumentedStore) GuaranteedUpdate(ctx context.Context, key string, opts storage.UpdateOptions, try storage.UpdateFunc) (scheme.Object, error) {
	return timed(s, "update", key, func() (scheme.Object, error) { return s.Interface.GuaranteedUpdate(ctx, key, opts, try) })
}

func (s instrumentedStore) Delete(ctx context.Context, key string, opts storage.DeleteOptions) (scheme.Object, error) {
	return timed(s, "delete", key, func() (scheme.Object, error) { return s.Interface.Delete(ctx, key, opts) })
}

func (s instrumentedStore) Count(ctx context.Context, prefix string) (int64, error) {
	return timed(s, "listWithCount", prefix, func() (int64, error) { return s.Interface.Count(ctx, prefix) })
}
