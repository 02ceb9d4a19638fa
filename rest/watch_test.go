package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestWatch_TableOptionsAreValidatedBeforeTheStream(t *testing.T) {
	s := newServer(t, nil)
	s.create("a", "blue")
	tests := []struct {
		name, query, accept string
		wantCode            int
		wantMessage         string
	}{
		{"an unknown includeObject on a Table watch is 400", "&includeObject=All", tableJSON, 400,
			`Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`},
		{"a known includeObject on a Table watch streams", "&includeObject=None", tableJSON, 200, ""},
		{"includeObject on a watch of objects is ignored, as kube ignores it", "&includeObject=All", "application/json", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.openWatch(t, widgetsPath+"?watch=1&resourceVersion=0"+tt.query, tt.accept)
			if res.StatusCode != tt.wantCode {
				t.Fatalf("code = %d, want %d", res.StatusCode, tt.wantCode)
			}
			if tt.wantMessage == "" {
				return
			}
			var st map[string]any
			if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if st["kind"] != "Status" || st["reason"] != "BadRequest" || st["message"] != tt.wantMessage {
				t.Errorf("status = %v, want BadRequest %q", st, tt.wantMessage)
			}
		})
	}
}

func TestWatch_QueuedEventsAreWrittenTogetherWithTheBytesOfOneByOne(t *testing.T) {
	big := `"annotations":{"note":"` + strings.Repeat("x", 3000) + `"}`
	tests := []struct {
		name, accept, meta string
		events             int
		// wantFlushes counts the headers' Flush and one per batch.
		wantFlushes int
	}{
		{"JSON events go out in one batch", "application/json", "", 12, 2},
		{"CBOR events go out in one batch", cborType, "", 12, 2},
		{"protobuf events go out in one batch", protobufType, "", 12, 2},
		{"Table events go out in one batch", tableJSON, "", 3, 2},
		{"3 KB events go out eleven by eleven, the batch being full at 32 KB", "application/json", big, 20, 1 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, _ := newTestHandler(t, nil)
			serveOne(t, h, "POST", widgetsPath, widgetJSON("seed", "blue"), "")
			var list struct {
				Metadata struct{ ResourceVersion string }
			}
			if err := json.Unmarshal(serveOne(t, h, "GET", widgetsPath, "", "").Body.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			path := widgetsPath + "?watch=1&resourceVersion=" + list.Metadata.ResourceVersion
			// batched is held at its first Flush (the headers) while every event is
			// queued; oneByOne gets each event before the next is created.
			batched := startWatch(t, h, path, tt.accept, make(chan struct{}))
			oneByOne := startWatch(t, h, path, tt.accept, nil)
			batched.waitFlush(t)
			oneByOne.waitFlush(t)
			for i := range tt.events {
				var extra []string
				if tt.meta != "" {
					extra = append(extra, tt.meta)
				}
				serveOne(t, h, "POST", widgetsPath, widgetJSON("w"+strconv.Itoa(i), "blue", extra...), "")
				oneByOne.waitFlush(t)
			}
			want := oneByOne.bytes()
			close(batched.release)
			for len(batched.bytes()) < len(want) {
				batched.waitFlush(t)
			}
			batched.stop()

			if got := batched.flushCount(); got != tt.wantFlushes {
				t.Errorf("the batched watch flushed %d times, want %d", got, tt.wantFlushes)
			}
			if got := oneByOne.flushCount(); got != tt.events+1 {
				t.Errorf("the one-by-one watch flushed %d times, want %d", got, tt.events+1)
			}
			if got := batched.bytes(); len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("batched stream differs from the one-by-one stream:\n got %.300q\nwant %.300q", got, want)
			}
		})
	}
}

// serveOne runs one request through h and fails the test on an error status.
func serveOne(t *testing.T, h http.Handler, method, path, body, accept string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	return rec
}

// flushRecorder is the ResponseWriter of a watch served in the test's process: it
// records the body and reports each Flush; with release set, the first Flush waits
// until release is closed.
type flushRecorder struct {
	header  http.Header
	flushed chan struct{}
	release chan struct{}
	done    chan struct{} // closed when the handler returns
	cancel  context.CancelFunc

	mu      sync.Mutex
	body    bytes.Buffer
	flushes int
}

// startWatch serves a watch request on h in a goroutine, stopped at the test's end.
func startWatch(t *testing.T, h http.Handler, path, accept string, release chan struct{}) *flushRecorder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", path, nil)
	req.Header.Set("Accept", accept)
	fr := &flushRecorder{header: http.Header{}, flushed: make(chan struct{}, 64), release: release, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(fr.done)
		h.ServeHTTP(fr, req)
	}()
	t.Cleanup(fr.stop)
	return fr
}

// stop ends the watch (its request's context) and waits for the handler to return.
func (f *flushRecorder) stop() {
	f.cancel()
	if f.release != nil {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
	}
	<-f.done
}

func (f *flushRecorder) Header() http.Header { return f.header }
func (f *flushRecorder) WriteHeader(int)     {}

func (f *flushRecorder) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.body.Write(p)
}

func (f *flushRecorder) Flush() {
	f.mu.Lock()
	f.flushes++
	first := f.flushes == 1
	f.mu.Unlock()
	f.flushed <- struct{}{}
	if first && f.release != nil {
		<-f.release
	}
}

// waitFlush waits for the next Flush; the watch ending first fails the test.
func (f *flushRecorder) waitFlush(t *testing.T) {
	t.Helper()
	select {
	case <-f.flushed:
	case <-f.done:
		t.Fatalf("the watch ended: %s", f.bytes())
	}
}

func (f *flushRecorder) flushCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushes
}

func (f *flushRecorder) bytes() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.body.Bytes())
}

func TestWatch_StreamsFramedEventsAndExpiredErrors(t *testing.T) {
	s := newServer(t, nil)
	s.create("w", "blue")
	r := s.do("GET", widgetsPath+"?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "", "")
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	if r.code != 200 || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"type":"ADDED","object":{"kind":"Widget"`) ||
		!strings.HasPrefix(lines[1], `{"type":"BOOKMARK"`) || !strings.Contains(lines[1], "k8s.io/initial-events-end") {
		t.Errorf("watch list stream: %d %q", r.code, lines)
	}
	if r := s.do("GET", widgetsPath+"?watch=1&sendInitialEvents=true", "", ""); r.code != 422 {
		t.Errorf("sendInitialEvents without NotOlderThan: %d %s", r.code, r.body)
	}
	s.create("w2", "blue")
	s.create("w3", "blue")
	if err := s.store.Compact(context.Background(), 3); err != nil {
		t.Fatal(err)
	}
	r = s.do("GET", widgetsPath+"?watch=1&resourceVersion=1&timeoutSeconds=1", "", "")
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	if !sc.Scan() || !strings.Contains(sc.Text(), `"type":"ERROR"`) || !strings.Contains(sc.Text(), `"code":410`) || !strings.Contains(sc.Text(), `"reason":"Expired"`) {
		t.Errorf("expired watch: %d %s", r.code, r.body)
	}
}
