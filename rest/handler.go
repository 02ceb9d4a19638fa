package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/registry"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/codec"
	"github.com/apikit-dev/apikit/codec/standard"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation/structural"
)

// DefaultMaxRequestBodyBytes is the request body limit when Options.MaxRequestBodyBytes
// is zero: 3 MiB, like kube-apiserver.
const DefaultMaxRequestBodyBytes = 3 << 20

// Options configure a Handler. Scheme and Storage are required; every other field has a
// useful zero value.
type Options struct {
	// Scheme holds the kinds and resources to serve.
	Scheme *scheme.Scheme
	// Storage is the one store of every resource; keys come from
	// storage.Key(groupResource, namespace, name).
	Storage storage.Interface
	// Strategies are optional per-resource hooks; see registry.Strategy for the methods looked for.
	Strategies map[scheme.GroupResource]registry.Strategy
	// Authenticator tells who sent a request. It is required unless AllowAnonymous is
	// set: New refuses a Handler that could tell no one apart.
	Authenticator authn.Authenticator
	// AllowAnonymous, like kube-apiserver's --anonymous-auth, makes a request that
	// carries no credentials the Authenticator accepts the user "system:anonymous"
	// (group "system:unauthenticated") instead of 401 Unauthorized. Credentials the
	// Authenticator rejects with an error stay 401, as in kube-apiserver. Off by
	// default: a request nobody vouches for is refused.
	AllowAnonymous bool
	// AllowBearerTokensOverHTTP accepts "Authorization: Bearer" on requests that did
	// not arrive over TLS (r.TLS nil), for a server behind a TLS-terminating proxy or
	// a test on loopback. By default such a request is 401: a token sent in clear
	// text is as good as published.
	AllowBearerTokensOverHTTP bool
	// Authorizer decides whether an authenticated request may proceed. It is required:
	// allowing everything is an explicit choice, AlwaysAllow{} (kube-apiserver's
	// --authorization-mode=AlwaysAllow). Health, liveness, readiness and /version are
	// public whatever it says (see PublicInfoPaths).
	Authorizer authz.Authorizer
	// MutatingAdmission run, in order, on every create, update and delete after the
	// server has set its fields and before validation.
	MutatingAdmission []registry.MutatingAdmission
	// ValidatingAdmission run, in order, after validation and before storage.
	ValidatingAdmission []registry.ValidatingAdmission
	// MaxRequestBodyBytes limits request bodies (413 RequestEntityTooLarge beyond it);
	// 0 means DefaultMaxRequestBodyBytes.
	MaxRequestBodyBytes int64
	// MaxRequestsInFlight limits the read-only requests (get, list, non-resource GETs)
	// served at once, MaxMutatingRequestsInFlight the others, as kube-apiserver's
	// --max-requests-inflight and --max-mutating-requests-inflight: a request beyond
	// the limit is answered at once with kube's 429 (Retry-After: 1). Watches are
	// exempt, as in kube; members of system:masters are not (kube exempts them), since
	// a server whose one identity is an admin would otherwise have no limit at all. 0
	// means DefaultMaxRequestsInFlight (400) and DefaultMaxMutatingRequestsInFlight
	// (200); a negative value means no limit.
	//
	// Besides, requests whose body is over LargeBodyBytes are served at most
	// max(1, GOMAXPROCS/2) at a time, the others waiting their turn (until their
	// deadline: 504 Timeout), so that a burst of them (a hundred thousand labels
	// cost a create a large fraction of a second of CPU) leaves processors to small
	// requests; a negative MaxMutatingRequestsInFlight lifts that too.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// RequestTimeout is the deadline of every request but watches, and the largest
	// ?timeout= honoured, like kube-apiserver's --request-timeout; past it the request
	// context ends (and with it storage calls) and the answer is kube's 504 Timeout.
	// 0 means DefaultRequestTimeout (60s); a negative value means no deadline.
	RequestTimeout time.Duration
	// MaxObjectBytes limits the JSON size of a stored object, as etcd's request limit
	// bounds kube-apiserver's: an object over it is stored without its managedFields if
	// that makes it fit, and refused otherwise with kube's answer (500, "etcdserver:
	// request is too large"), a large body before its managedFields are tracked. It
	// also bounds what a schema's defaults may add to one object: a write they would
	// grow by more is refused the same way as soon as they pass it, a stored object
	// they would grow by more is a 500 to read. 0 means DefaultMaxObjectBytes
	// (1.5 MiB); a negative value means no limit.
	MaxObjectBytes int64
	// WatchWriteTimeout is how long the write of one watch event may block before the
	// watch is ended: a client that stops reading is disconnected then, or at its
	// timeoutSeconds if that comes first. 0 means DefaultWatchWriteTimeout (10s); a
	// negative value leaves only timeoutSeconds.
	WatchWriteTimeout time.Duration
	// Logger receives errors that are not the client's fault (500s, recovered panics);
	// nil discards them.
	Logger *slog.Logger
	// Serializers are the media types served, in order of preference; each describes
	// its own watch framing and the kinds and conversion targets it can encode (see
	// codec.Serializer). nil means standard.Serializers(Scheme) (package
	// codec/standard): JSON, YAML, protobuf and CBOR, in kube-apiserver's order. A list
	// must include application/json, the media type of errors and of JSON patches (New
	// fails otherwise); a later serializer of a media type replaces an earlier one.
	Serializers []codec.Serializer
	// DisableCBOR turns off application/cbor request and response bodies (and
	// application/cbor-seq watches), like kube-apiserver without its
	// CBORServingAndStorage feature: CBOR bodies are then 415 and CBOR-only Accept
	// headers 406. CBOR is served by default.
	DisableCBOR bool
	// Discovery serves /api, /apis, /apis/GROUP, /apis/GROUP/VERSION, /version and
	// /openapi/...; package rest/discovery builds it. nil answers those paths with 404.
	Discovery http.Handler
	// Rules compiles the CEL validation rules (x-kubernetes-validations) of the schemas
	// registered with openapi.Register for schema-only kinds, which the Handler then
	// evaluates on every create and update, as kube-apiserver does for custom
	// resources. cel-go is heavy, so it lives in a module of its own: set Rules to
	// cel.New() of github.com/apikit-dev/apikit/cel to enable CEL. With Rules nil, New
	// refuses a schema that has rules rather than ignore them.
	Rules structural.RuleCompiler
	// GarbageCollection says a garbage collector (package controllers) runs over
	// Storage: a delete then sets the finalizers of propagationPolicy as kube-apiserver
	// does (orphan, foregroundDeletion) and leaves dependents to the collector. Without
	// it the server orphans dependents itself and Foreground behaves like Background.
	GarbageCollection bool
	// Clock returns the time the Handler records: metadata.creationTimestamp,
	// metadata.deletionTimestamp and the times of managedFields entries. A test sets
	// it to freeze and advance time, so that those fields are deterministic (package
	// apitest's Server.Clock). nil means the real time, at no extra cost.
	Clock func() time.Time
	// Metrics, when set, receives kube-apiserver's request, watch, storage and object
	// count metrics (same names and labels), served in the Prometheus text format at
	// GET /metrics to users the Authorizer allows (non-resource "get" on /metrics).
	// Handlers may share one Registry; a host may add its own metrics to it.
	Metrics *metrics.Registry
	// AccessLog, when set, receives one line per request when it ends (a watch when it
	// closes) with kube-apiserver's httplog fields: verb, URI, latency, userAgent,
	// contentType, audit-ID, srcIP, user, resp.
	AccessLog *slog.Logger
	// Audit, when set with a Policy and a Sink, records audit.k8s.io/v1 events of the
	// requests the policy selects (package audit). With Audit or AccessLog set,
	// every response carries an Audit-Id header: the client's Audit-ID, or a new one.
	Audit *audit.Config
	// ReadyChecks are the checks of /readyz, after kube's "ping": a load balancer sends
	// traffic to a replica whose /readyz answers 200 "ok", so a check of the storage
	// backend belongs here (a replica over an unreachable etcd is not ready). Each is
	// also served alone at /readyz/NAME, and /healthz runs them too.
	ReadyChecks []HealthCheck
	// LiveChecks are the checks of /livez, after kube's "ping": a failing /livez gets
	// the process restarted, so only what a restart repairs belongs here, never a
	// backend's transient outage. Each is also served alone at /livez/NAME, and
	// /healthz runs them too.
	LiveChecks []HealthCheck
}

// Handler serves the Kubernetes-style REST API of a scheme over a storage.Interface. It
// implements http.Handler.
type Handler struct {
	opts    Options
	scheme  *scheme.Scheme
	store   storage.Interface
	codecs  *codec.Codecs
	log     *slog.Logger
	maxBody int64
	limits  limits
	// reg is the object lifecycle the verbs call: strategies, admission, schemas.
	reg *registry.Store
	// deprecations are the Warning of each deprecated version, by resource and version.
	deprecations map[scheme.GroupResource]map[string]string
	// obs records metrics, access and audit logs (observe.go); nil when all are off.
	obs *observer
	// health are /healthz, /livez and /readyz by path (health.go).
	health map[string]*healthEndpoint
	// hijacked are the watches written on connections taken over from net/http, by
	// server, for its Shutdown (watchconn.go).
	hijacked hijackedWatches
	// encodingKeys interns the watch streams' encodingKeys (see internEncodingKey).
	encodingKeys sync.Map
}

// New returns the Handler of opts. It fails when Scheme or Storage is missing, when the
// scheme has a registration mistake (scheme.Scheme.Check), when a Strategy would
// not be called as its author meant (see registry.Strategy and registry.StrategyFor), and when the schema
// registered for a schema-only kind (openapi.Register) is not structural or has CEL
// rules without Options.Rules.
//
// Such a schema is enforced as kube-apiserver enforces a CustomResourceDefinition's:
// fields it does not declare are pruned from request bodies (and reported as unknown
// fields per fieldValidation) and from what is read from storage, its defaults are set
// on both, and creates and updates are validated against it and its rules, failing
// with 422 Invalid and one cause per field.
func New(opts Options) (*Handler, error) {
	if opts.Scheme == nil {
		return nil, errors.New("rest: Options.Scheme is required")
	}
	if opts.Storage == nil {
		return nil, errors.New("rest: Options.Storage is required")
	}
	if opts.Authenticator == nil && !opts.AllowAnonymous {
		return nil, errors.New("rest: Options.Authenticator is required; set Options.AllowAnonymous to serve every request as system:anonymous")
	}
	if opts.Authorizer == nil {
		return nil, errors.New("rest: Options.Authorizer is required; authz.AlwaysAllow{} allows every request")
	}
	codecs := newCodecs(opts)
	jsonSerializer, ok := codecs.ForMediaType(codec.MediaTypeJSON)
	if !ok {
		return nil, errors.New("rest: Options.Serializers must include application/json, the media type of errors and JSON patches")
	}
	h := &Handler{
		opts:    opts,
		scheme:  opts.Scheme,
		store:   opts.Storage,
		codecs:  codecs,
		log:     opts.Logger,
		maxBody: opts.MaxRequestBodyBytes,
		limits:  newLimits(opts),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxRequestBodyBytes
	}
	if err := opts.Scheme.Check(); err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	reg, err := registry.New(registry.Options{
		Scheme: opts.Scheme, Storage: opts.Storage, Strategies: opts.Strategies,
		MutatingAdmission: opts.MutatingAdmission, ValidatingAdmission: opts.ValidatingAdmission,
		GarbageCollection: opts.GarbageCollection, Clock: opts.Clock, Rules: opts.Rules,
		MaxObjectBytes: h.limits.maxObjectBytes, JSON: jsonSerializer, Logger: h.log,
	})
	if err != nil {
		return nil, err
	}
	h.reg = reg
	for _, res := range opts.Scheme.Resources() {
		// Discovery lists Resource.Verbs, and a create-only strategy serves "create" alone.
		if reg.RespondsToCreate(res.GroupResource()) && !slices.Equal(res.Verbs, []string{"create"}) {
			return nil, fmt.Errorf("rest: resource %s has a create-only strategy (registry.CreateResponder) but verbs %q; set its scheme.Resource.Verbs to [\"create\"]", res.GroupResource(), res.Verbs)
		}
	}
	if h.health, err = newHealthEndpoints(opts); err != nil {
		return nil, err
	}
	h.deprecations = deprecationWarnings(opts.Scheme)
	h.obs = newObserver(h, opts)
	if h.store != opts.Storage {
		h.reg = h.reg.WithStorage(h.store) // the lifecycle's storage calls are observed too
	}
	return h, nil
}

// newCodecs returns the serializers a Handler speaks: Options.Serializers, by default
// the standard set (JSON, YAML, protobuf, CBOR), without CBOR when disabled.
func newCodecs(opts Options) *codec.Codecs {
	list := opts.Serializers
	if list == nil {
		list = standard.Serializers(opts.Scheme)
	}
	codecs := codec.CodecsOf(list...)
	if opts.DisableCBOR {
		codecs = codecs.Without(codec.MediaTypeCBOR)
	}
	return codecs
}

// ServeHTTP serves one request, the one entry of every request: recover (a panic is a
// 500 Status), observe (observe.go: metrics, access log, audit), parse
// (requestinfo.go), the request deadline (limits.go), authenticate, impersonate
// (impersonate.go), the in-flight limits (limits.go), authorize (auth.go), route
// (route.go).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	obs, w, r := h.observe(w, r, start)
	defer obs.end()
	rw := &responseWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			obs.recovered(p)
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("rest: panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rw.wroteHeader {
				h.writeStatus(rw, r, apierrors.NewInternalError(fmt.Errorf("%v", p)))
			}
		}
	}()

	info := ParseRequestInfo(r)
	ctx := WithRequestInfo(r.Context(), info)
	longRunning := isLongRunning(info)
	if !longRunning {
		var cancel context.CancelFunc
		var st *scheme.Status
		if ctx, cancel, st = h.limits.requestDeadline(ctx, info, start); st != nil {
			h.writeStatus(rw, r, st)
			return
		}
		if cancel != nil {
			defer cancel()
		}
	}

	public := !info.IsResourceRequest && isPublicInfo(info.Path)
	ctx = authz.WithAuthorizer(ctx, h.opts.Authorizer)
	user, st := h.authenticate(r, public)
	obs.authenticated(info, user)
	if st == nil {
		var as *authn.User
		if as, st = h.impersonate(ctx, r, user); as != user && st == nil { // impersonate.go
			obs.impersonated(as)
		}
		user = as
	}
	if st != nil {
		h.writeStatus(rw, r, st)
		return
	}
	ctx = authn.WithUser(ctx, user)
	r = r.WithContext(ctx)

	if limit := h.limits.inFlightFor(info); limit != nil && !longRunning {
		if !limit.acquire() {
			tooManyRequests(rw)
			return
		}
		defer limit.release()
	}

	if !public {
		if st := h.authorize(ctx, info, user); st != nil {
			h.writeStatus(rw, r, st)
			return
		}
	}

	if !info.IsResourceRequest {
		if !h.serveMetrics(rw, r) {
			h.serveNonResource(rw, r)
		}
		return
	}
	h.serveResource(rw, r, info)
}

// responseWriter remembers whether the header went out, so that a panic after it does
// not write a second one, and passes Flush through for watches.
type responseWriter struct {
	http.ResponseWriter
	wroteHeader bool
}

func (w *responseWriter) WriteHeader(code int) {
	w.wroteHeader = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// FlushError flushes and tells whether that failed (a watch client that stopped
// reading, past the write deadline), for http.ResponseController.
func (w *responseWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
