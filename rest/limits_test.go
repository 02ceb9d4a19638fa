package rest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// gate is an Authorizer that holds every request for an object named "held" until the
// test releases it or the request's context ends, so that a test can keep requests in
// flight. It records the deadline of each request it sees.
type gate struct {
	entered   chan struct{}
	release   chan struct{}
	mu        sync.Mutex
	deadlines map[string]time.Duration // by verb; -1 when the context had none
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 16), release: make(chan struct{}), deadlines: map[string]time.Duration{}}
}

func (g *gate) Authorize(ctx context.Context, a authz.Attributes) (bool, string, error) {
	left := time.Duration(-1)
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d)
	}
	g.mu.Lock()
	g.deadlines[a.Verb] = left
	g.mu.Unlock()
	if a.Name == "held" {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}
	return true, "", nil
}

func (g *gate) deadline(verb string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.deadlines[verb]
}

// hold sends a request the gate holds, and returns once the gate has it; the returned
// channel is closed when it has been answered.
func (g *gate) hold(t *testing.T, s *testServer, method, path string) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(widgetJSON("held", "red")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	select {
	case <-g.entered:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %s never reached the authorizer", method, path)
	}
	return done
}

func TestInFlight_RequestsBeyondTheLimitAreKubes429WithRetryAfter(t *testing.T) {
	g := newGate()
	s := newServer(t, func(o *rest.Options) {
		o.Authorizer, o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight = g, 1, 1
	})
	readDone := g.hold(t, s, "GET", widgetsPath+"/held")
	tooMany := func(name, method, path, body string) {
		t.Helper()
		r := s.do(method, path, "application/json", body)
		if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" ||
			r.header.Get("Content-Type") != "text/plain; charset=utf-8" || string(r.body) != "Too many requests, please try again later.\n" {
			t.Errorf("%s: %d Retry-After=%q Content-Type=%q %q, want kube's plain 429 with Retry-After: 1",
				name, r.code, r.header.Get("Retry-After"), r.header.Get("Content-Type"), r.body)
		}
	}
	tooMany("a list while the read-only place is taken", "GET", widgetsPath, "")
	tooMany("a non-resource GET while the read-only place is taken", "GET", "/healthz", "")
	if r := s.do("POST", widgetsPath, "application/json", widgetJSON("w1", "red")); r.code != http.StatusCreated {
		t.Errorf("a create while only the read-only place is taken: %d %s, want 201", r.code, r.body)
	}
	if r := s.do("GET", widgetsPath+"?watch=1&timeoutSeconds=1", "", ""); r.code != http.StatusOK {
		t.Errorf("a watch, which is long-running and exempt: %d %s, want 200", r.code, r.body)
	}

	writeDone := g.hold(t, s, "PUT", widgetsPath+"/held")
	tooMany("a create while the mutating place is taken", "POST", widgetsPath, widgetJSON("w2", "red"))
	tooMany("a delete while the mutating place is taken", "DELETE", widgetsPath+"/w1", "")

	close(g.release)
	<-readDone
	<-writeDone
	if r := s.do("GET", widgetsPath, "", ""); r.code != http.StatusOK {
		t.Errorf("a list once the place is free: %d %s, want 200", r.code, r.body)
	}
	if r := s.do("DELETE", widgetsPath+"/w1", "", ""); r.code != http.StatusOK {
		t.Errorf("a delete once the place is free: %d %s, want 200", r.code, r.body)
	}
}

func TestInFlight_NegativeLimitsAreUnlimited(t *testing.T) {
	g := newGate()
	s := newServer(t, func(o *rest.Options) {
		o.Authorizer, o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight = g, -1, -1
	})
	var held []<-chan struct{}
	for range 3 {
		held = append(held, g.hold(t, s, "GET", widgetsPath+"/held"), g.hold(t, s, "PUT", widgetsPath+"/held"))
	}
	if r := s.do("GET", widgetsPath, "", ""); r.code != http.StatusOK {
		t.Errorf("list: %d %s, want 200", r.code, r.body)
	}
	if r := s.do("POST", widgetsPath, "application/json", widgetJSON("w1", "red")); r.code != http.StatusCreated {
		t.Errorf("create: %d %s, want 201", r.code, r.body)
	}
	close(g.release)
	for _, done := range held {
		<-done
	}
}

func TestRequestTimeout_DeadlineIsTimeoutParameterCappedByRequestTimeout(t *testing.T) {
	g := newGate()
	s := newServer(t, func(o *rest.Options) { o.Authorizer = g })
	for _, tc := range []struct {
		name, query string
		verb        string
		want        time.Duration // -1: no deadline
	}{
		{"no parameter: the request timeout", "", "list", rest.DefaultRequestTimeout},
		{"a shorter timeout", "?timeout=10s", "list", 10 * time.Second},
		{"a longer timeout is capped", "?timeout=2h", "list", rest.DefaultRequestTimeout},
		{"zero is the request timeout", "?timeout=0s", "list", rest.DefaultRequestTimeout},
		{"negative is the request timeout", "?timeout=-5s", "list", rest.DefaultRequestTimeout},
		{"a watch has none", "?watch=1&timeoutSeconds=1&timeout=10s", "watch", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := s.do("GET", widgetsPath+tc.query, "", ""); r.code != http.StatusOK {
				t.Fatalf("%d %s", r.code, r.body)
			}
			got := g.deadline(tc.verb)
			if tc.want < 0 && got != -1 || tc.want >= 0 && (got <= tc.want/2 || got > tc.want) {
				t.Errorf("time left at the authorizer %v, want a deadline of %v", got, tc.want)
			}
		})
	}
}

func TestRequestTimeout_InvalidTimeoutIsKubes400BeforeAuthentication(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.Authenticator, o.AllowAnonymous = tokenAuth{}, false })
	r := s.do("GET", widgetsPath+"?timeout=abc", "", "")
	want := `invalid timeout specified in the request URL - time: invalid duration "abc"`
	if m := r.json(t); r.code != http.StatusBadRequest || m["reason"] != "BadRequest" || m["message"] != want {
		t.Errorf("%d %s, want 400 BadRequest %q", r.code, r.body, want)
	}
}

func TestRequestTimeout_PastTheDeadlineIsKubes504(t *testing.T) {
	g := newGate()
	s := newServer(t, func(o *rest.Options) { o.Authorizer = g })
	for _, method := range []string{"GET", "PUT"} {
		r := s.do(method, widgetsPath+"/held?timeout=50ms", "application/json", widgetJSON("held", "red"))
		m := r.json(t)
		if r.code != http.StatusGatewayTimeout || m["reason"] != "Timeout" || m["kind"] != "Status" ||
			m["message"] != "Timeout: request did not complete within the allotted timeout" || fmt.Sprint(m["details"]) != "map[]" {
			t.Errorf("%s past its deadline: %d %s, want kube's 504 Timeout", method, r.code, r.body)
		}
	}
}

func TestRequestTimeout_ABodySentTooSlowlyIs504AtTheDeadline(t *testing.T) {
	s := newServer(t, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The headers promise 100 bytes; one comes, the rest never does.
	fmt.Fprintf(conn, "POST %s?timeout=100ms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", widgetsPath)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), `"reason":"Timeout"`) {
		t.Errorf("%d %s, want 504 Timeout", res.StatusCode, body)
	}
}

// widgetWithParts is a Widget whose spec has n list-map entries.
func widgetWithParts(name string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"name":"p%05d"}`, i)
	}
	return `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"red","parts":[` + strings.Join(parts, ",") + `]}}`
}

// admissionCounter counts the writes that reached mutating admission.
type admissionCounter struct {
	mu sync.Mutex
	n  int
}

func (c *admissionCounter) Admit(context.Context, rest.AdmissionAttributes, scheme.Object) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return nil
}

func (c *admissionCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func TestMaxObjectBytes_ObjectsTooLargeAreKubes500(t *testing.T) {
	const limit = 4096
	admitted := &admissionCounter{}
	s := newServer(t, func(o *rest.Options) {
		o.MaxObjectBytes = limit
		o.MutatingAdmission = append(o.MutatingAdmission, admitted)
	})
	s.create("small", "red")
	tooLarge := func(name string, r response) {
		t.Helper()
		m := r.json(t)
		if _, hasReason := m["reason"]; r.code != http.StatusInternalServerError || hasReason || m["message"] != "etcdserver: request is too large" {
			t.Errorf("%s: %d %s, want kube's 500 for an object etcd refuses", name, r.code, r.body)
		}
	}

	before := admitted.count()
	tooLarge("a create over the limit", s.do("POST", widgetsPath, "application/json", widgetWithParts("big", 400)))
	tooLarge("an update over the limit", s.do("PUT", widgetsPath+"/small", "application/json", widgetWithParts("small", 400)))
	if n := admitted.count() - before; n != 0 {
		t.Errorf("%d bodies over the limit reached admission, want them refused before any work", n)
	}
	tooLarge("a merge patch growing the object over the limit", s.do("PATCH", widgetsPath+"/small", "application/merge-patch+json",
		widgetWithParts("small", 300)))
	tooLarge("a dry-run create over the limit", s.do("POST", widgetsPath+"?dryRun=All", "application/json", widgetWithParts("big", 400)))

	// 200 entries fit; with the managedFields that track them they do not, and are
	// dropped, as kube-apiserver retries a write etcd refused without managedFields.
	r := s.do("POST", widgetsPath, "application/json", widgetWithParts("fits", 200))
	if r.code != http.StatusCreated || get(r.json(t), "metadata", "managedFields") != nil {
		t.Errorf("a create that fits without its managedFields: %d %.300s, want 201 without managedFields", r.code, r.body)
	}
	// Server-side apply gets no such retry in kube-apiserver.
	tooLarge("an apply that fits only without its managedFields", s.do("PATCH", widgetsPath+"/applied?fieldManager=test",
		"application/apply-patch+yaml", widgetWithParts("applied", 200)))

	unlimited := newServer(t, func(o *rest.Options) { o.MaxObjectBytes = -1 })
	if r := unlimited.do("POST", widgetsPath, "application/json", widgetWithParts("big", 400)); r.code != http.StatusCreated {
		t.Errorf("a create without a limit: %d %.300s, want 201", r.code, r.body)
	}
}

func TestMaxObjectBytes_DefaultRefusesA150000EntryCreateBeforeManagedFields(t *testing.T) {
	admitted := &admissionCounter{}
	s := newServer(t, func(o *rest.Options) { o.MutatingAdmission = append(o.MutatingAdmission, admitted) })
	r := s.do("POST", widgetsPath, "application/json", widgetWithParts("huge", 150000))
	if r.code != http.StatusInternalServerError || r.json(t)["message"] != "etcdserver: request is too large" || admitted.count() != 0 {
		t.Errorf("%d %.300s (admitted %d), want kube's 500 before admission", r.code, r.body, admitted.count())
	}
}

// logSink is a slog.Handler that passes the messages of records to a channel.
type logSink struct{ msgs chan string }

func (l logSink) Enabled(context.Context, slog.Level) bool { return true }
func (l logSink) Handle(_ context.Context, r slog.Record) error {
	select {
	case l.msgs <- r.Message:
	default:
	}
	return nil
}
func (l logSink) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logSink) WithGroup(string) slog.Handler      { return l }

func TestWatch_AClientThatStopsReadingIsDisconnected(t *testing.T) {
	for _, tc := range []struct {
		name         string
		writeTimeout time.Duration
		query        string
	}{
		{"after the write timeout", 200 * time.Millisecond, "timeoutSeconds=3600"},
		{"at its timeoutSeconds", -1, "timeoutSeconds=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := logSink{msgs: make(chan string, 64)}
			s := newServer(t, func(o *rest.Options) {
				o.WatchWriteTimeout = tc.writeTimeout
				o.Logger = slog.New(logs)
				o.Strategies = nil // no color validation: the colors are large

			})
			// 16 MB of events, more than the socket buffers of both ends hold.
			color := strings.Repeat("x", 256<<10)
			for i := range 64 {
				s.create(fmt.Sprintf("w%02d", i), color)
			}
			conn, err := net.DialTCP("tcp", nil, tcpAddr(t, s.url))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetReadBuffer(4096)
			fmt.Fprintf(conn, "GET %s?watch=1&resourceVersion=0&%s HTTP/1.1\r\nHost: x\r\n\r\n", widgetsPath, tc.query)
			// The client reads nothing; the server gives up on it, which it logs as
			// it returns.
			select {
			case msg := <-logs.msgs:
				if msg != "rest: watch stream ended" {
					t.Fatalf("log %q, want the end of the watch", msg)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the server still writes to a client that does not read")
			}
		})
	}
}

func tcpAddr(t *testing.T, rawURL string) *net.TCPAddr {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := net.ResolveTCPAddr("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// yamlAliasBomb is a "billion laughs" YAML document: nine levels of nine aliases each,
// 387 million strings once expanded.
func yamlAliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: toys.example.com/v1\nkind: Widget\nmetadata:\n  name: bomb\na: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(n + ": &" + n + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n")
		prev = n
	}
	b.WriteString("spec:\n  color: *i\n")
	return b.String()
}

func TestDecode_HostileBodiesAreBadRequestsAtKubesLimits(t *testing.T) {
	s := newServer(t, nil)
	cborSpec := []byte{0xd9, 0xd9, 0xf7, 0xa1, 0x64, 's', 'p', 'e', 'c'} // self-described {"spec": ...}
	deepCBOR := append(append(append([]byte{}, cborSpec...), []byte(strings.Repeat("\x81", 10001))...), 0x00)
	hugeCBORArray := append(append([]byte{}, cborSpec...), 0x9b, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff)
	for _, tc := range []struct {
		name, contentType, body, want string
	}{
		{"JSON nested deeper than 10000", "application/json",
			`{"apiVersion":"toys.example.com/v1","kind":"Widget","spec":{"color":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`,
			"exceeded max depth of 10000"},
		{"YAML nested deeper than 10000", "application/yaml",
			"apiVersion: toys.example.com/v1\nkind: Widget\nspec:\n  color: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
			"yaml: line 4: exceeded max depth of 10000"},
		{"YAML alias expansion", "application/yaml", yamlAliasBomb(), "yaml: document contains excessive aliasing"},
		{"CBOR nested deeper than 10000", "application/cbor", string(deepCBOR), "cbor: exceeded max nested level 10000"},
		{"CBOR array claiming 2^31-1 elements", "application/cbor", string(hugeCBORArray), "cbor: unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do("POST", widgetsPath, tc.contentType, tc.body)
			m := r.json(t)
			if msg, _ := m["message"].(string); r.code != http.StatusBadRequest || m["reason"] != "BadRequest" || !strings.Contains(msg, tc.want) {
				t.Errorf("%d %.300s, want 400 BadRequest naming %q", r.code, r.body, tc.want)
			}
		})
	}
}

// BenchmarkLimits compares, side by side, the Handler with kube's default limits and
// with every limit off, called directly (no network) for a get and a create, so that
// what the limits cost per request shows.
func BenchmarkLimits(b *testing.B) {
	off := func(o *rest.Options) {
		o.MaxRequestsInFlight, o.MaxMutatingRequestsInFlight = -1, -1
		o.RequestTimeout, o.MaxObjectBytes, o.WatchWriteTimeout = -1, -1, -1
	}
	for _, tc := range []struct {
		name string
		mod  func(*rest.Options)
	}{{"limits=default", nil}, {"limits=off", off}} {
		h, _, _ := newTestHandler(b, tc.mod)
		serve := func(method, path, body string) {
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 300 {
				b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
			}
		}
		serve("POST", widgetsPath, widgetJSON("w", "blue"))
		b.Run("get/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serve("GET", widgetsPath+"/w", "")
			}
		})
		created := 0
		b.Run("create/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				created++
				serve("POST", widgetsPath, widgetJSON("c"+strconv.Itoa(created), "blue"))
			}
		})
	}
}
