package rest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

// watchRecordingStore hands out the watches it opens, to tell when the handler stops one.
type watchRecordingStore struct {
	storage.Interface
	watches chan *recordedWatch
}

func (s *watchRecordingStore) Watch(ctx context.Context, key string, opts storage.WatchOptions) (watch.Interface, error) {
	wi, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	bw, ok := wi.(watch.Batcher)
	if !ok {
		return nil, fmt.Errorf("the store's watch is no watch.Batcher")
	}
	rw := &recordedWatch{Interface: wi, Batcher: bw, stopped: make(chan struct{})}
	s.watches <- rw
	return rw, nil
}

type recordedWatch struct {
	watch.Interface
	watch.Batcher
	once    sync.Once
	stopped chan struct{}
}

func (w *recordedWatch) Stop() {
	w.once.Do(func() { close(w.stopped) })
	w.Interface.Stop()
}

// newRecordingServer serves the test handler over a store that records its watches.
func newRecordingServer(t *testing.T, wrap func(http.Handler) http.Handler) (*httptest.Server, *watchRecordingStore) {
	t.Helper()
	var rec *watchRecordingStore
	h, _, _ := newTestHandler(t, func(o *rest.Options) {
		rec = &watchRecordingStore{Interface: o.Storage, watches: make(chan *recordedWatch, 8)}
		o.Storage = rec
	})
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv, rec
}

// stoppedWithin waits for the watch's Stop; the bound only keeps a broken test from
// hanging.
func (w *recordedWatch) stoppedWithin(t *testing.T, what string) {
	t.Helper()
	select {
	case <-w.stopped:
	case <-time.After(30 * time.Second):
		t.Fatalf("the storage watch was not stopped after %s", what)
	}
}

func (s *watchRecordingStore) next(t *testing.T) *recordedWatch {
	t.Helper()
	select {
	case w := <-s.watches:
		return w
	case <-time.After(30 * time.Second):
		t.Fatal("no storage watch was opened")
		return nil
	}
}

// rawWatch sends a watch request on a connection of its own and reads the response's
// header.
func rawWatch(t *testing.T, srv *httptest.Server, query string) (net.Conn, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req, err := http.NewRequest("GET", srv.URL+widgetsPath+"?watch=1&"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d", res.StatusCode)
	}
	return conn, res
}

func TestWatch_AnHTTP11StreamIsChunkedAndClosesItsConnectionAtItsEnd(t *testing.T) {
	srv, _ := newRecordingServer(t, nil)
	s := &testServer{t: t, url: srv.URL}
	s.create("a", "blue")
	s.create("b", "green")

	conn, res := rawWatch(t, srv, "resourceVersion=0&timeoutSeconds=1")
	if got := res.TransferEncoding; len(got) != 1 || got[0] != "chunked" {
		t.Errorf("Transfer-Encoding = %q, want chunked", got)
	}
	if !res.Close || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Connection: close %v, Content-Type %q: want close and application/json", res.Close, res.Header.Get("Content-Type"))
	}
	// The body ends with the last chunk at timeoutSeconds: a clean EOF, not an
	// unexpected one.
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	events := strings.Split(strings.TrimSpace(string(body)), "\n")
	if len(events) != 2 || !strings.Contains(events[0], `"name":"a"`) || !strings.Contains(events[1], `"name":"b"`) {
		t.Fatalf("events %q, want the ADDED of a and b", events)
	}
	// Then the server closes the connection, which can serve nothing else.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the stream: read %d bytes, %v; want the server to close the connection", n, err)
	}
}

func TestWatch_AnHTTP11StreamEndsWhenTheClientLeaves(t *testing.T) {
	srv, rec := newRecordingServer(t, nil)
	conn, _ := rawWatch(t, srv, "timeoutSeconds=3600")
	w := rec.next(t)
	conn.Close()
	w.stoppedWithin(t, "the client closed its connection")
}

func TestWatch_ServerShutdownEndsAnHTTP11Stream(t *testing.T) {
	srv, rec := newRecordingServer(t, nil)
	res, err := http.Get(srv.URL + widgetsPath + "?watch=1&timeoutSeconds=3600")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	w := rec.next(t)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Config.Shutdown(ctx) }()
	w.stoppedWithin(t, "the server's Shutdown")
	if _, err := io.ReadAll(res.Body); err != nil {
		t.Errorf("the stream ended with %v, want its last chunk", err)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// plainWriter hides the ResponseWriter's Hijack (and Unwrap), as a host's middleware
// may.
type plainWriter struct{ w http.ResponseWriter }

func (p plainWriter) Header() http.Header         { return p.w.Header() }
func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p plainWriter) WriteHeader(code int)        { p.w.WriteHeader(code) }
func (p plainWriter) Flush()                      { p.w.(http.Flusher).Flush() }

func TestWatch_StreamsThroughAResponseWriterThatCannotBeHijacked(t *testing.T) {
	srv, rec := newRecordingServer(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(plainWriter{w}, r) })
	})
	s := &testServer{t: t, url: srv.URL}
	_, res := rawWatch(t, srv, "timeoutSeconds=2")
	rec.next(t)
	s.create("a", "blue")
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, `"type":"ADDED"`) || !strings.Contains(line, `"name":"a"`) {
		t.Fatalf("first event %q, %v; want the ADDED of a", line, err)
	}
}

func TestWatch_AnHTTP2StreamStaysOnTheResponseWriterAndOutlivesItsWriteTimeoutWhenIdle(t *testing.T) {
	// HTTP/2 resets a stream whose write deadline passes, even one with nothing to
	// write: the stream must have none while it waits for events.
	h, _, _ := newTestHandler(t, func(o *rest.Options) { o.WatchWriteTimeout = 100 * time.Millisecond })
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	serveOne(t, h, "POST", widgetsPath, widgetJSON("a", "blue"), "")
	res, err := srv.Client().Get(srv.URL + widgetsPath + "?watch=1&resourceVersion=0&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.ProtoMajor != 2 || res.Header.Get("Connection") != "" {
		t.Errorf("%s with Connection %q, want HTTP/2 without it", res.Proto, res.Header.Get("Connection"))
	}
	// The event of a, then a second of nothing (ten write timeouts), then the end at
	// timeoutSeconds.
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Errorf("the stream ended with %v, want its end at timeoutSeconds", err)
	}
	if !strings.Contains(string(body), `"name":"a"`) {
		t.Errorf("stream %q, want the ADDED of a", body)
	}
}

func TestWatch_AnHTTP11StreamOverTLSIsWrittenOnTheTLSConnection(t *testing.T) {
	h, _, _ := newTestHandler(t, nil)
	srv := httptest.NewTLSServer(h) // HTTP/1.1: EnableHTTP2 is off
	t.Cleanup(srv.Close)
	for i := range 3 {
		serveOne(t, h, "POST", widgetsPath, widgetJSON(fmt.Sprintf("w%d", i), "blue"), "")
	}
	res, err := srv.Client().Get(srv.URL + widgetsPath + "?watch=1&resourceVersion=0&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.ProtoMajor != 1 || !res.Close {
		t.Errorf("%s, Connection: close %v; want HTTP/1.1 taking its connection", res.Proto, res.Close)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("the stream ended with %v, want its last chunk", err)
	}
	if n := strings.Count(string(body), `"type":"ADDED"`); n != 3 {
		t.Errorf("%d ADDED events in %q, want 3", n, body)
	}
}

func TestWatch_AnHTTP11StreamEndsCleanlyWithoutAWriteTimeout(t *testing.T) {
	h, _, _ := newTestHandler(t, func(o *rest.Options) { o.WatchWriteTimeout = -1 })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + widgetsPath + "?watch=1&timeoutSeconds=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.ReadAll(res.Body); err != nil {
		t.Errorf("the stream ended with %v, want its last chunk", err)
	}
}
