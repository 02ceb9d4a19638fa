package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/scheme"
)

// The limits kube-apiserver applies to every request, with its defaults. Options fields
// of the same names override them; see Options for what zero and negative values mean.
const (
	// DefaultMaxRequestsInFlight is kube-apiserver's --max-requests-inflight: how many
	// read-only requests (get, list and non-resource GETs) run at once.
	DefaultMaxRequestsInFlight = 400
	// DefaultMaxMutatingRequestsInFlight is kube-apiserver's
	// --max-mutating-requests-inflight: how many writes run at once.
	DefaultMaxMutatingRequestsInFlight = 200
	// DefaultRequestTimeout is kube-apiserver's --request-timeout: the deadline of a
	// request that is not long-running, and the largest ?timeout= it honours.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxObjectBytes is the largest object kube-apiserver can store: etcd's
	// --max-request-bytes default, 1.5 MiB.
	DefaultMaxObjectBytes = 3 << 19
	// DefaultWatchWriteTimeout is how long the write of one watch event may block on
	// a client that does not read before the watch is ended.
	DefaultWatchWriteTimeout = 10 * time.Second
	// LargeBodyBytes is the body size over which a request takes one of the
	// Handler's few seats for large requests while it is served (see
	// Options.MaxMutatingRequestsInFlight).
	LargeBodyBytes = 256 << 10
)

// limits are the resolved request limits of a Handler.
type limits struct {
	readOnly, mutating *inFlight // never nil; an unlimited one only counts
	// requestTimeout is the deadline of non-long-running requests; 0: none.
	requestTimeout time.Duration
	// maxObjectBytes bounds the JSON size of a stored object; 0: unlimited.
	maxObjectBytes int64
	// watchWriteTimeout bounds the write of one watch event.
	watchWriteTimeout time.Duration
	// largeSeats holds a token per request with a body over LargeBodyBytes being
	// served; nil: no bound.
	largeSeats chan struct{}
}

// newLimits resolves the limits of opts: zero means kube's default, negative none.
func newLimits(opts Options) limits {
	return limits{
		readOnly:          newInFlight(orDefault(opts.MaxRequestsInFlight, DefaultMaxRequestsInFlight)),
		mutating:          newInFlight(orDefault(opts.MaxMutatingRequestsInFlight, DefaultMaxMutatingRequestsInFlight)),
		requestTimeout:    max(orDefault(opts.RequestTimeout, DefaultRequestTimeout), 0),
		maxObjectBytes:    max(orDefault(opts.MaxObjectBytes, DefaultMaxObjectBytes), 0),
		watchWriteTimeout: orDefault(opts.WatchWriteTimeout, DefaultWatchWriteTimeout),
		largeSeats:        newLargeSeats(opts.MaxMutatingRequestsInFlight),
	}
}

// newLargeSeats returns the seats of requests with large bodies: half the processors
// (one at least), none when the mutating limit is lifted. Go's scheduler serves a
// goroutine woken by the network after those in the processors' own run queues, up
// to 61 time slices later: with every processor busy decoding, converting and
// validating large objects, a small GET waited 0.3 to 0.8 s.
func newLargeSeats(mutatingLimit int) chan struct{} {
	if mutatingLimit < 0 {
		return nil
	}
	return make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))
}

// takeLargeSeat waits for a seat for a request whose body is over LargeBodyBytes, or
// for the end of its context (504 Timeout); it tells whether the request holds one,
// to give back with releaseLargeSeat.
func (l *limits) takeLargeSeat(ctx context.Context) (bool, error) {
	if l.largeSeats == nil {
		return false, nil
	}
	select {
	case l.largeSeats <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return false, apierrors.NewTimeout()
	}
}

func (l *limits) releaseLargeSeat() { <-l.largeSeats }

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// isLongRunning tells the requests kube-apiserver's BasicLongRunningRequestCheck
// exempts from the in-flight limits and the request deadline: watches, and the pprof
// handlers a host may mount beside the API.
func isLongRunning(info *RequestInfo) bool {
	if info.Verb == "watch" {
		return true
	}
	return !info.IsResourceRequest && len(info.Path) > len("/debug/pprof/") && info.Path[:len("/debug/pprof/")] == "/debug/pprof/"
}

// inFlight counts the requests of one kind that are being served, refusing one beyond
// its limit: a compare-and-swap on one counter, no lock and no channel.
type inFlight struct {
	n     atomic.Int64
	limit int64
}

// newInFlight returns the counter of a limit; a negative limit counts (for
// apiserver_current_inflight_requests) without ever refusing.
func newInFlight(limit int) *inFlight {
	if limit < 0 {
		return &inFlight{limit: math.MaxInt64}
	}
	return &inFlight{limit: int64(limit)}
}

// acquire takes a place, or tells that none is free.
func (f *inFlight) acquire() bool {
	for {
		n := f.n.Load()
		if n >= f.limit {
			return false
		}
		if f.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (f *inFlight) release() { f.n.Add(-1) }

// inFlightFor returns the counter of a request: mutating or read-only as
// kube-apiserver's max-in-flight filter tells them apart (get, list and watch read;
// every other verb, non-resource POSTs included, writes), nil for a long-running
// request or an unlimited kind.
func (l *limits) inFlightFor(info *RequestInfo) *inFlight {
	switch info.Verb {
	case "get", "list":
		return l.readOnly
	case "watch":
		return nil
	}
	return l.mutating
}

// tooManyRequests answers a request refused by an in-flight limit exactly as
// kube-apiserver's max-in-flight (and priority-and-fairness) filter does: 429 with
// Retry-After: 1 and a plain-text body, not a Status. client-go retries such a 429
// after Retry-After, and kubectl shows kube's text.
func tooManyRequests(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}

// invalidTimeoutMessage is kube's message for a ?timeout= that is not a duration.
const invalidTimeoutMessage = "invalid timeout specified in the request URL"

// requestDeadline returns the context of a request that is not long-running with
// kube-apiserver's deadline: ?timeout= when it is positive and shorter than the
// request timeout, the request timeout otherwise, counted from start. A ?timeout= that
// is no Go duration is kube's 400.
func (l *limits) requestDeadline(ctx context.Context, info *RequestInfo, start time.Time) (context.Context, context.CancelFunc, *scheme.Status) {
	timeout := l.requestTimeout
	if v := info.query.Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return ctx, nil, apierrors.NewBadRequest(fmt.Sprintf("%s - %v", invalidTimeoutMessage, err))
		}
		if d > 0 && (d < timeout || timeout == 0) {
			timeout = d
		}
	}
	if timeout == 0 {
		return ctx, nil, nil
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(timeout))
	return ctx, cancel, nil
}

// timedOut tells whether err is the end of the request's deadline: the context's own
// error, or a read or write that hit the connection deadline set from it.
func timedOut(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)
}

// checkDecodedSize refuses, before anything costly is done with it (managedFields
// tracking costs seconds for an object of a hundred thousand list entries), a decoded
// and defaulted object whose JSON would be over Options.MaxObjectBytes (without the
// managedFields the body carries, if withoutManaged: the server replaces them).
// Only objects whose body plus the bytes the defaults added (added) is over a quarter
// of the limit are measured, and those of a YAML body that may alias (aliased): no
// other smaller body, JSON, YAML, CBOR or protobuf, decodes to anything near it, and
// the exact check on what is stored (checkStored) catches the rest.
func (rq *request) checkDecodedSize(body []byte, added int64, aliased bool, obj scheme.Object, withoutManaged bool) error {
	limit := rq.h.limits.maxObjectBytes
	if limit == 0 || int64(len(body))+added <= limit/4 && !aliased {
		return nil
	}
	n, err := rq.h.reg.JSONSize(obj, withoutManaged)
	if err != nil || n <= limit {
		return nil
	}
	return apierrors.NewObjectTooLarge()
}

// mayAlias tells whether a YAML body may use aliases, which make a small body stand
// for a large object (every alias starts with "*"; a merge key takes one too).
func mayAlias(yamlBody []byte) bool { return bytes.IndexByte(yamlBody, '*') >= 0 }

// watchDeadlines sets the write deadline of each event of a watch, so that a client
// that stops reading cannot hold the stream (and its goroutine and buffers) open: the
// earlier of the watch's end (timeoutSeconds) and Options.WatchWriteTimeout from the
// write's start. kube-apiserver's watch cache ends a watcher whose buffer stays full;
// here the connection itself tells.
type watchDeadlines struct {
	rc *http.ResponseController
	// conn is the connection the stream writes on once taken over from net/http
	// (see claimWatchConn).
	conn    net.Conn
	end     time.Time
	perSend time.Duration
	// set is the deadline set last; zero while none is.
	set time.Time
	// clearAfterFlush is set on HTTP/2, where a stream's write deadline resets the
	// stream when it passes, even with nothing being written: it is armed only while a
	// batch is written, so that a watch without events lives on.
	clearAfterFlush bool
}

func (rq *request) watchDeadlines(end time.Time) *watchDeadlines {
	return &watchDeadlines{
		rc: http.NewResponseController(rq.w), end: end, perSend: rq.h.limits.watchWriteTimeout,
		clearAfterFlush: rq.r.ProtoMajor >= 2,
	}
}

// before arms the deadline of the next write. Moving a connection's deadline costs a
// timer update, and a busy watch writes every few milliseconds: a deadline that would
// move by less than an eighth of the per-write timeout stays, so a write always has
// at least seven eighths of it.
func (d *watchDeadlines) before() {
	deadline := d.end
	if d.perSend > 0 {
		if t := time.Now().Add(d.perSend); t.Before(deadline) {
			deadline = t
		}
	}
	if !d.set.IsZero() && deadline.Sub(d.set) <= d.perSend/8 {
		return
	}
	var err error
	if d.conn != nil {
		err = d.conn.SetWriteDeadline(deadline)
	} else {
		err = d.rc.SetWriteDeadline(deadline)
	}
	if err == nil {
		d.set = deadline
	}
}

// moveTo makes the deadlines those of conn, the connection the stream writes on once it
// took it over from net/http, which cleared its deadline.
func (d *watchDeadlines) moveTo(conn net.Conn) {
	d.conn, d.set = conn, time.Time{}
}

// flush sends what was written; an error means the client is gone or did not read
// before the deadline.
func (d *watchDeadlines) flush() error {
	if err := d.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	if d.clearAfterFlush {
		d.clear()
	}
	return nil
}

// clear removes the deadline once the stream is over, so that the end of the response
// is written to a client that did read.
func (d *watchDeadlines) clear() {
	if !d.set.IsZero() && d.conn == nil {
		_ = d.rc.SetWriteDeadline(time.Time{})
		d.set = time.Time{}
	}
}

// setReadDeadline bounds the read of a request body by the request's deadline, so
// that a client that sends its body slowly is answered 504 at the deadline instead of
// holding the request forever. The returned func removes the deadline once the whole
// body is read: left on the connection, it would end net/http's read of the idle
// connection while the request still runs, which cancels the connection's context,
// and with it this request (a 500 "context canceled" instead of kube's 504) and every
// later one sent on the connection.
func (rq *request) setReadDeadline() (remove func()) {
	deadline, ok := rq.ctx.Deadline()
	if !ok {
		return func() {}
	}
	rc := http.NewResponseController(rq.w)
	if rc.SetReadDeadline(deadline) != nil {
		return func() {}
	}
	return func() { _ = rc.SetReadDeadline(time.Time{}) }
}
