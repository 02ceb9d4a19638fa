package rest

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/authn"

	"github.com/apikit-dev/apikit/scheme"
)

// This file wires what a Handler observes about the requests it serves: kube-apiserver's
// metrics (observe_metrics.go, Options.Metrics), the access log (Options.AccessLog) and
// the audit log (observe_audit.go, Options.Audit). With none of them set the Handler
// observes nothing and pays one nil check per request.

// headerAuditID is the header that carries a request's audit ID both ways, as
// kube-apiserver names it.
const headerAuditID = "Audit-ID"

// maxAuditIDLogLength is how much of a client's audit ID the access log keeps, as
// kube's GetAuditIDTruncated.
const maxAuditIDLogLength = 64

// observer is what a Handler records about requests; a nil field is off.
type observer struct {
	metrics   *requestMetrics
	accessLog *slog.Logger
	audit     *auditor
}

// newObserver returns the observer of opts, or nil when nothing is observed.
func newObserver(h *Handler, opts Options) *observer {
	o := &observer{accessLog: opts.AccessLog}
	if opts.Metrics != nil {
		o.metrics = newRequestMetrics(opts.Metrics, h)
		h.store = newInstrumentedStore(h.store, o.metrics)
	}
	if a := opts.Audit; a != nil && a.Policy != nil && a.Sink != nil {
		o.audit = newAuditor(h, a)
	}
	if o.metrics == nil && o.accessLog == nil && o.audit == nil {
		return nil
	}
	return o
}

// observation is one request being observed, from ServeHTTP's first line to its last.
type observation struct {
	obs   *observer
	start time.Time
	r     *http.Request
	// auditID is set when the access log or the audit log is on.
	auditID string
	info    *RequestInfo
	user    *authn.User
	// code is the response code, 0 until the header goes out.
	code  int
	bytes int64
	// longRunning is a watch that started streaming (apiserver_longrunning_requests).
	longRunning *gaugeHandle
	panicked    any
	audit       *auditRecord
}

type observationKey struct{}

// observationFrom returns the observation a request's context carries (only when the
// audit log, which records bodies, is on).
func observationFrom(ctx context.Context) *observation {
	o, _ := ctx.Value(observationKey{}).(*observation)
	return o
}

// observe starts observing a request that arrived at start: it sets the Audit-Id response header (the
// client's Audit-ID or a new one) when an access or audit log is on, and returns the
// ResponseWriter that records the response code. With nothing observed it returns w
// and r as they are.
func (h *Handler) observe(w http.ResponseWriter, r *http.Request, start time.Time) (*observation, http.ResponseWriter, *http.Request) {
	if h.obs == nil {
		return nil, w, r
	}
	o := &observation{obs: h.obs, start: start, r: r}
	if h.obs.accessLog != nil || h.obs.audit != nil {
		o.auditID = r.Header.Get(headerAuditID)
		if o.auditID == "" {
			o.auditID = string(scheme.NewUID())
		}
		if w.Header().Get(headerAuditID) == "" {
			w.Header().Set(headerAuditID, o.auditID)
		}
	}
	if h.obs.audit != nil {
		r = r.WithContext(context.WithValue(r.Context(), observationKey{}, o))
	}
	return o, &observedWriter{ResponseWriter: w, o: o}, r
}

// authenticated records who sent the request (nil: authentication failed) once its
// RequestInfo is known: the audit log receives its RequestReceived event.
func (o *observation) authenticated(info *RequestInfo, user *authn.User) {
	if o == nil {
		return
	}
	o.info, o.user = info, user
	if a := o.obs.audit; a != nil {
		o.audit = a.begin(o, user)
	}
}

// impersonated records the user the request acts as (Impersonate-* headers): the audit
// event's impersonatedUser, as kube-apiserver records it after RequestReceived.
func (o *observation) impersonated(as *authn.User) {
	if o == nil || o.audit == nil {
		return
	}
	ui := auditUser(as)
	o.audit.ev.ImpersonatedUser = &ui
}

// recovered records that serving the request panicked with p.
func (o *observation) recovered(p any) {
	if o != nil {
		o.panicked = p
	}
}

// end records the finished request: metrics, the access log line, the last audit event.
func (o *observation) end() {
	if o == nil {
		return
	}
	if o.code == 0 && o.panicked == nil {
		// A handler that wrote nothing answered 200, as net/http sends it.
		o.code = http.StatusOK
	}
	if o.panicked != nil && o.code == 0 {
		o.code = http.StatusInternalServerError
	}
	elapsed := time.Since(o.start)
	if o.longRunning != nil {
		o.longRunning.g.Dec()
	}
	if m := o.obs.metrics; m != nil {
		m.record(o, elapsed)
	}
	if o.audit != nil {
		o.audit.end(o)
	}
	if l := o.obs.accessLog; l != nil {
		o.logAccess(l, elapsed)
	}
}

// responseStarted records the response code when the header goes out; a watch then
// counts as a long-running request and, at the audit levels, sends its ResponseStarted
// event.
func (o *observation) responseStarted(code int) {
	if o.code != 0 {
		return
	}
	o.code = code
	if o.info != nil && isLongRunning(o.info) && code == http.StatusOK && o.obs.metrics != nil {
		o.longRunning = o.obs.metrics.longRunningOf(o)
		o.longRunning.g.Inc()
	}
	if o.audit != nil {
		o.audit.responseStarted(o, code)
	}
}

// logAccess writes the access log line of the request, with the fields of
// kube-apiserver's httplog: verb, URI, latency, userAgent, contentType, audit-ID, srcIP,
// resp; and user.
func (o *observation) logAccess(l *slog.Logger, elapsed time.Duration) {
	id := o.auditID
	if len(id) > maxAuditIDLogLength {
		id = id[:maxAuditIDLogLength]
	}
	user := ""
	if o.user != nil {
		user = o.user.Name
	}
	l.LogAttrs(o.r.Context(), slog.LevelInfo, "HTTP",
		slog.String("verb", normalizedVerb(o.r, o.info, false)),
		slog.String("URI", o.r.RequestURI),
		slog.Duration("latency", elapsed),
		slog.String("userAgent", o.r.UserAgent()),
		slog.String("contentType", o.r.Header.Get("Content-Type")),
		slog.String("audit-ID", id),
		slog.String("srcIP", o.r.RemoteAddr),
		slog.String("user", user),
		slog.Int("resp", o.code),
	)
}

// observedWriter tells the observation when the header goes out and how many bytes
// follow; it passes Flush and Hijack through.
type observedWriter struct {
	http.ResponseWriter
	o *observation
}

func (w *observedWriter) WriteHeader(code int) {
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.o.responseStarted(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *observedWriter) Write(b []byte) (int, error) {
	w.o.responseStarted(http.StatusOK)
	n, err := w.ResponseWriter.Write(b)
	w.o.bytes += int64(n)
	return n, err
}

func (w *observedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *observedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.o.responseStarted(http.StatusSwitchingProtocols)
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// normalizedVerb is the verb kube-apiserver reports in metrics and logs (its
// NormalizedVerb and cleanVerb): the uppercased method, with GET on a collection LIST,
// GET with ?watch WATCH, and a PATCH of application/apply-patch+yaml APPLY. With
// onlyKnown, a method kube does not report is "other", so that a client cannot invent
// label values.
func normalizedVerb(r *http.Request, info *RequestInfo, onlyKnown bool) string {
	verb := r.Method
	switch verb {
	case http.MethodGet, http.MethodHead:
		verb = http.MethodGet
		if info != nil && info.IsResourceRequest && routeScope(info) != "resource" {
			verb = "LIST"
		}
		if isWatchQuery(r) || info != nil && info.Verb == "watch" {
			verb = "WATCH"
		}
	case http.MethodPatch:
		if r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
			verb = "APPLY"
		}
	case http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		if onlyKnown {
			return "other"
		}
		verb = strings.ToUpper(verb)
	}
	return verb
}

// isWatchQuery tells whether a GET asks for a watch with ?watch=, as kube's
// getVerbIfWatch reads it: any first value but "0" and "false".
func isWatchQuery(r *http.Request) bool {
	if !strings.Contains(r.URL.RawQuery, "watch") {
		return false
	}
	v, ok := r.URL.Query()["watch"]
	if !ok || len(v) == 0 {
		return false
	}
	s := strings.ToLower(v[0])
	return s != "0" && s != "false"
}

// routeScope is the scope kube-apiserver's installer gives a route, which its request
// metrics report: "resource" for one object (and every create), "namespace" for a
// namespaced collection, "cluster" for a cluster-scoped or all-namespaces collection,
// "" for non-resource requests.
func routeScope(info *RequestInfo) string {
	switch {
	case !info.IsResourceRequest:
		return ""
	case len(info.Parts) > 1 || info.Verb == "create":
		return "resource"
	case info.Namespace != "":
		return "namespace"
	}
	return "cluster"
}
