package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// Faults injects failures into a Server's requests, for tests of how clients (informers,
// controllers) cope with an API server that fails, is slow, drops watches or forgets
// history. Every fault is deterministic: it applies to the requests that match it, in
// the order they arrive, with no randomness. Get it with Server.Faults; it is safe for
// concurrent use.
//
// It sits in front of the REST handler (Server.Handler includes it). While no FailNext
// or Delay is pending, a request costs it one atomic load, and a watch one registration
// so that CloseWatches can end it.
type Faults struct {
	next        http.Handler
	store       storage.Interface
	writeStatus func(http.ResponseWriter, *http.Request, *scheme.Status)

	// pending counts the failures and delays: 0 lets requests through unparsed.
	pending atomic.Int32

	mu       sync.Mutex
	failures []*failure
	delays   []delay
	watches  map[uint64]context.CancelFunc
	watchID  uint64
}

// Match selects requests by what rest.ParseRequestInfo reads from them. An empty field
// matches any value; the zero Match matches every request.
type Match struct {
	// Verb is get, list, watch, create, update, patch, delete or deletecollection, or
	// the lowercased HTTP method of a request that is not for a resource.
	Verb string
	// Resource is the plural resource name ("widgets"), Subresource "status" or "scale".
	Resource, Subresource string
	// Namespace and Name are those of the URL: a create has no Name (its object's name
	// is in the body); a list or watch with the field selector metadata.name=NAME, as
	// client-go's single-object informers send, has Name NAME.
	Namespace, Name string
}

func (m Match) matches(info *rest.RequestInfo) bool {
	return (m.Verb == "" || m.Verb == info.Verb) &&
		(m.Resource == "" || m.Resource == info.Resource) &&
		(m.Subresource == "" || m.Subresource == info.Subresource) &&
		(m.Namespace == "" || m.Namespace == info.Namespace) &&
		(m.Name == "" || m.Name == info.Name)
}

type failure struct {
	match     Match
	remaining int
	status    *scheme.Status
}

type delay struct {
	match Match
	d     time.Duration
}

// injection is a Server's fault layer and clock.
type injection struct {
	faults *Faults
	clock  Clock
}

// statusWriter is implemented by rest.Handler: errors in the media type the client asked
// for, as the server sends its own.
type statusWriter interface {
	WriteStatus(http.ResponseWriter, *http.Request, *scheme.Status)
}

// newFaults returns the fault layer in front of next, which serves from store.
func newFaults(next http.Handler, store storage.Interface) *Faults {
	f := &Faults{next: next, store: store, writeStatus: writeJSONStatus, watches: map[uint64]context.CancelFunc{}}
	if sw, ok := next.(statusWriter); ok {
		f.writeStatus = sw.WriteStatus
	}
	return f
}

// installFaults puts the Server's fault layer in front of h and returns it.
func (s *Server) installFaults(h http.Handler) http.Handler {
	s.faults = newFaults(h, s.Storage)
	return s.faults
}

// Faults returns the Server's fault injection.
func (s *Server) Faults() *Faults { return s.faults }

// Clock returns the Server's clock, which runs at real time until a test freezes it.
// Options.REST.Clock, when set, replaces it.
func (s *Server) Clock() *Clock { return &s.clock }

// FailNext answers the next n requests that match m with st instead of serving them, as
// the server would answer its own error (in the media type the client accepts). The
// Status's Code is the HTTP status; its kind is set, and Status "Failure" and a message
// are filled in when empty. client-go reads it as the matching error: a Code 503 with
// Reason ServiceUnavailable is apierrors.IsServiceUnavailable, a 409 Conflict
// apierrors.IsConflict, and so on.
// Several FailNext rules are checked in the order they were added; a request consumes
// one failure of the first rule it matches.
func (f *Faults) FailNext(n int, m Match, st *scheme.Status) {
	if n <= 0 {
		return
	}
	st = scheme.DeepCopy(st)
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Status == "" {
		st.Status = scheme.StatusFailure
	}
	if st.Message == "" {
		st.Message = fmt.Sprintf("apitest: injected failure (%d %s)", st.Code, st.Reason)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, &failure{match: m, remaining: n, status: st})
	f.pending.Add(1)
}

// Delay holds every request that matches m for d before serving it (or failing it, if a
// FailNext rule also matches), until Reset; a request whose client gives up first is not
// served. Delays are checked in the order they were added; the first that matches
// applies. A client's deadline shorter than d thus always expires.
func (f *Faults) Delay(m Match, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delays = append(f.delays, delay{match: m, d: d})
	f.pending.Add(1)
}

// Reset removes every pending FailNext failure and every Delay.
func (f *Faults) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures, f.delays = nil, nil
	f.pending.Store(0)
}

// OpenWatches returns how many watch requests the server is serving, so that a test can
// wait for its informer's watch before it closes it.
func (f *Faults) OpenWatches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watches)
}

// CloseWatches ends every open watch, as an API server does when it restarts or a
// watch times out: the response ends normally, and clients must watch again from the
// last resourceVersion they saw (client-go's reflector does so without a new list). It
// returns how many watches it ended.
func (f *Faults) CloseWatches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.watches)
	for id, cancel := range f.watches {
		cancel()
		delete(f.watches, id)
	}
	return n
}

// expiryMarker is where ExpireResourceVersions writes to advance the resourceVersion:
// a key of no served resource, so no client sees the write.
var expiryMarker = storage.Key(scheme.GroupResource{Group: "resttest.apikit.dev", Resource: "resourceversionexpiries"}, "", "marker")

// ExpireResourceVersions makes every resourceVersion and continue token handed out so
// far too old, as etcd's compaction does: the next watch from one of them, and the next
// list page with such a continue token, fail with 410 Expired, and clients must list
// again (client-go's reflector relists). Watches already open go on; CloseWatches ends
// them. The store must implement storage.Compactor (memory and bolt do).
//
// It advances the store's resourceVersion with a write and a delete at a key that no
// resource serves, then compacts the history to that version, so that even the version
// of the latest list is expired, and a new list returns one that is not.
func (f *Faults) ExpireResourceVersions(ctx context.Context) error {
	c, ok := f.store.(storage.Compactor)
	if !ok {
		return fmt.Errorf("apitest: expiring resourceVersions: storage %T does not implement storage.Compactor", f.store)
	}
	marker := &scheme.Unstructured{Object: map[string]any{}}
	marker.SetAPIVersion("resttest.apikit.dev/v1")
	marker.SetKind("ResourceVersionExpiry")
	marker.SetName("marker")
	if _, err := f.store.Create(ctx, expiryMarker, marker); err != nil {
		return fmt.Errorf("apitest: expiring resourceVersions: %w", err)
	}
	if _, err := f.store.Delete(ctx, expiryMarker, storage.DeleteOptions{}); err != nil {
		return fmt.Errorf("apitest: expiring resourceVersions: %w", err)
	}
	rv, err := currentResourceVersion(ctx, f.store)
	if err != nil {
		return fmt.Errorf("apitest: expiring resourceVersions: %w", err)
	}
	if err := c.Compact(ctx, rv); err != nil {
		return fmt.Errorf("apitest: expiring resourceVersions: %w", err)
	}
	return nil
}

// currentResourceVersion returns the version of the store's latest write.
func currentResourceVersion(ctx context.Context, st storage.Interface) (uint64, error) {
	if v, ok := st.(storage.Versioned); ok {
		return v.CurrentResourceVersion(ctx)
	}
	l, err := st.List(ctx, storage.Prefix(scheme.GroupResource{Group: "resttest.apikit.dev", Resource: "resourceversionexpiries"}, ""), storage.ListOptions{})
	if err != nil {
		return 0, err
	}
	return storage.ParseResourceVersion(l.ResourceVersion)
}

// ServeHTTP serves r through the faults that match it.
func (f *Faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pending := f.pending.Load() > 0
	if !pending && !mayBeWatch(r) {
		f.next.ServeHTTP(w, r)
		return
	}
	info := rest.ParseRequestInfo(r)
	if pending {
		st, d := f.faultsFor(info)
		if d > 0 && !sleep(r.Context(), d) {
			return
		}
		if st != nil {
			f.writeStatus(w, r, st)
			return
		}
	}
	if info.Verb != "watch" {
		f.next.ServeHTTP(w, r)
		return
	}
	ctx, done := f.openWatch(r.Context())
	defer done()
	f.next.ServeHTTP(w, r.WithContext(ctx))
}

// mayBeWatch tells cheaply, without parsing the query, whether r could be a watch.
func mayBeWatch(r *http.Request) bool {
	return r.Method == http.MethodGet && (strings.Contains(r.URL.RawQuery, "watch=") || strings.Contains(r.URL.Path, "/watch/"))
}

// faultsFor consumes the failure of the first FailNext rule info matches and returns
// it with the delay of the first Delay it matches.
func (f *Faults) faultsFor(info *rest.RequestInfo) (*scheme.Status, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var st *scheme.Status
	for i, fl := range f.failures {
		if !fl.match.matches(info) {
			continue
		}
		st = fl.status
		if fl.remaining--; fl.remaining == 0 {
			f.failures = append(f.failures[:i:i], f.failures[i+1:]...)
			f.pending.Add(-1)
		}
		break
	}
	for _, dl := range f.delays {
		if dl.match.matches(info) {
			return st, dl.d
		}
	}
	return st, 0
}

// openWatch registers a watch for CloseWatches; done unregisters it.
func (f *Faults) openWatch(parent context.Context) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancel(parent)
	f.mu.Lock()
	f.watchID++
	id := f.watchID
	f.watches[id] = cancel
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		delete(f.watches, id)
		f.mu.Unlock()
		cancel()
	}
}

// sleep holds the request of ctx for d and tells whether its client is still there.
func sleep(ctx context.Context, d time.Duration) bool {
	held, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	<-held.Done()
	return ctx.Err() == nil
}

// writeJSONStatus answers with st in JSON, for a handler that does not negotiate its
// errors (the CRD server's): client-go decodes a JSON Status whatever media type it asked for.
func writeJSONStatus(w http.ResponseWriter, _ *http.Request, st *scheme.Status) {
	body, err := json.Marshal(st)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
