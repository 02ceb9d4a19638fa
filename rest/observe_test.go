package rest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func metricsText(t *testing.T, s *testServer) string {
	t.Helper()
	r := s.do("GET", "/metrics", "", "")
	if r.code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", r.code, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != metrics.ContentType {
		t.Errorf("Content-Type = %q, want %q", ct, metrics.ContentType)
	}
	return string(r.body)
}

// metricsWith scrapes /metrics until it has every wanted line: a request is counted when
// its handler returns, which may be just after its client read the response.
func metricsWith(t *testing.T, s *testServer, wants ...string) string {
	t.Helper()
	var text string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		text = metricsText(t, s)
		missing := false
		for _, want := range wants {
			missing = missing || !strings.Contains(text, want)
		}
		if !missing {
			return text
		}
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	return text
}

func TestMetrics_CountRequestsWithKubeNamesAndLabels(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.Metrics = metrics.NewRegistry() })
	s.create("a", "blue")
	s.do("POST", widgetsPath+"?dryRun=All", "application/json", widgetJSON("b", "blue"))
	s.do("GET", widgetsPath+"/a", "", "")
	s.do("GET", widgetsPath+"/missing", "", "")
	s.do("GET", widgetsPath, "", "")
	s.do("GET", "/apis/toys.example.com/v1/widgets", "", "")
	s.do("PATCH", widgetsPath+"/a?fieldManager=test&force=true", "application/apply-patch+yaml", "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {color: red}\n")
	s.do("GET", "/apis/made.up/v1/things/x", "", "")
	s.do("GET", "/healthz", "", "")
	text := metricsWith(t, s,
		`apiserver_request_total{verb="POST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver",code="201"} 1`,
		`apiserver_request_total{verb="POST",dry_run="All",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver",code="201"} 1`,
		`apiserver_request_total{verb="GET",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="GET",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver",code="404"} 1`,
		`apiserver_request_total{verb="LIST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="LIST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="cluster",component="apiserver",code="200"} 1`,
		`apiserver_request_total{verb="APPLY",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver",code="200"} 1`,
		// A resource the server does not serve is counted without its made-up names.
		`apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="",scope="resource",component="apiserver",code="404"} 1`,
		`apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="/healthz",scope="",component="apiserver",code="200"} 1`,
		`apiserver_request_duration_seconds_count{verb="LIST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver"} 1`,
		`apiserver_request_duration_seconds_bucket{verb="LIST",dry_run="",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver",le="+Inf"} 1`,
		`apiserver_response_sizes_count{verb="GET",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="resource",component="apiserver"} 2`,
		`apiserver_current_inflight_requests{request_kind="mutating"} 0`,
		// The scrape itself is in flight while it is written.
		`apiserver_current_inflight_requests{request_kind="readOnly"} 1`,
		`etcd_requests_total{operation="create",group="toys.example.com",resource="widgets"} 1`,
		`etcd_request_duration_seconds_count{operation="get",group="toys.example.com",resource="widgets"} `,
		`apiserver_storage_objects{resource="widgets.toys.example.com"} 1`,
		`apiserver_resource_objects{group="toys.example.com",resource="widgets"} 1`,
		"# TYPE apiserver_request_duration_seconds histogram\n",
		"\ngo_goroutines ",
	)
	if strings.Contains(text, "made.up") {
		t.Error("/metrics carries a label value a client made up")
	}
}

func TestMetrics_OffIsNotFoundAsBefore(t *testing.T) {
	s := newServer(t, nil)
	if r := s.do("GET", "/metrics", "", ""); r.code != http.StatusNotFound {
		t.Errorf("GET /metrics without Options.Metrics: %d, want 404", r.code)
	}
}

// onlyUser allows one user everything and denies everyone else.
type onlyUser string

func (u onlyUser) Authorize(_ context.Context, a authz.Attributes) (bool, string, error) {
	return a.User != nil && a.User.Name == string(u), "", nil
}

func TestMetrics_NeedAuthorizationLikeKube(t *testing.T) {
	var seen []authz.Attributes
	var mu sync.Mutex
	s := newServer(t, func(o *rest.Options) {
		o.Metrics = metrics.NewRegistry()
		o.Authenticator, o.AllowBearerTokensOverHTTP = tokenAuth{}, true
		o.Authorizer = recordingAuthorizer{next: onlyUser("alice"), seen: &seen, mu: &mu}
	})
	if r := s.do("GET", "/metrics", "", ""); r.code != http.StatusForbidden {
		t.Errorf("anonymous GET /metrics: %d, want 403", r.code)
	}
	if r := s.do("GET", "/metrics", "", "", "Authorization", "Bearer good"); r.code != http.StatusOK || !bytes.Contains(r.body, []byte("apiserver_request_total")) {
		t.Errorf("authorized GET /metrics: %d %.200s", r.code, r.body)
	}
	if r := s.do("POST", "/metrics", "", "", "Authorization", "Bearer good"); r.code != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d, want 405", r.code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0].Verb != "get" || seen[0].Path != "/metrics" || seen[0].ResourceRequest {
		t.Errorf("authorizer saw %+v, want a non-resource get of /metrics", seen)
	}
}

type recordingAuthorizer struct {
	next authz.Authorizer
	seen *[]authz.Attributes
	mu   *sync.Mutex
}

func (a recordingAuthorizer) Authorize(ctx context.Context, attrs authz.Attributes) (bool, string, error) {
	a.mu.Lock()
	*a.seen = append(*a.seen, attrs)
	a.mu.Unlock()
	return a.next.Authorize(ctx, attrs)
}

// openWatch starts a watch and returns its first event line reader and a stop function.
func openWatch(t *testing.T, s *testServer, path string) (*bufio.Reader, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+path, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("watch: %d", res.StatusCode)
	}
	return bufio.NewReader(res.Body), func() { cancel(); res.Body.Close() }
}

func TestMetrics_WatchIsLongRunningAndCountsEvents(t *testing.T) {
	s := newServer(t, func(o *rest.Options) { o.Metrics = metrics.NewRegistry() })
	events, stop := openWatch(t, s, widgetsPath+"?watch=true")
	defer stop()
	s.create("a", "blue")
	if _, err := events.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	metricsWith(t, s,
		`apiserver_longrunning_requests{verb="WATCH",group="toys.example.com",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver"} 1`,
		`apiserver_watch_events_total{group="toys.example.com",version="v1",resource="widgets"} 1`,
		`apiserver_watch_events_sizes_count{group="toys.example.com",version="v1",resource="widgets"} 1`,
		`apiserver_current_inflight_requests{request_kind="readOnly"} 1`, // the scrape, not the watch
	)
}

// syncBuffer is a bytes.Buffer safe for the server's and the test's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the lines written so far, once there are at least n (see
// recordingSink.take).
func (b *syncBuffer) lines(n int) []string {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b.mu.Lock()
		lines := strings.Split(strings.TrimSpace(b.buf.String()), "\n")
		b.mu.Unlock()
		if len(lines) >= n || time.Now().After(deadline) {
			return lines
		}
	}
}

func TestAccessLog_OneLineWithHTTPLogFields(t *testing.T) {
	var out syncBuffer
	s := newServer(t, func(o *rest.Options) { o.AccessLog = slog.New(slog.NewJSONHandler(&out, nil)) })
	r := s.do("POST", widgetsPath, "application/json", widgetJSON("a", "blue"), "User-Agent", "kubectl/v1.37", "Audit-ID", "client-chosen-id")
	if got := r.header.Get("Audit-Id"); got != "client-chosen-id" {
		t.Errorf("Audit-Id header = %q, want the client's", got)
	}
	r = s.do("GET", widgetsPath+"/a", "", "")
	if len(r.header.Get("Audit-Id")) != 36 {
		t.Errorf("Audit-Id header = %q, want a generated UUID", r.header.Get("Audit-Id"))
	}
	lines := out.lines(2)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"msg": "HTTP", "verb": "POST", "URI": widgetsPath, "userAgent": "kubectl/v1.37", "contentType": "application/json",
		"audit-ID": "client-chosen-id", "user": "system:anonymous", "resp": float64(201),
	} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	if ip, _ := line["srcIP"].(string); !strings.HasPrefix(ip, "127.0.0.1:") {
		t.Errorf("srcIP = %v", line["srcIP"])
	}
	if _, ok := line["latency"].(float64); !ok {
		t.Errorf("latency = %v", line["latency"])
	}
}

// recordingSink keeps the events it receives.
type recordingSink struct {
	mu     sync.Mutex
	events []audit.Event
}

func (s *recordingSink) ProcessEvent(ev *audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, *ev)
	return nil
}

// take returns the events received so far, once there are at least n: the last event
// of a request is sent when its handler returns, which may be just after its client read
// the response.
func (s *recordingSink) take(t *testing.T, n int) []audit.Event {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		out := s.events
		if len(out) >= n || time.Now().After(deadline) {
			s.events = nil
			s.mu.Unlock()
			return out
		}
		s.mu.Unlock()
	}
}

func policyAt(level audit.Level) *audit.Policy {
	return &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelNone, NonResourceURLs: []string{"/healthz*"}}, {Level: level}}}
}

func stages(evs []audit.Event) []audit.Stage {
	var out []audit.Stage
	for _, e := range evs {
		out = append(out, e.Stage)
	}
	return out
}

func TestAudit_EventsPerLevel(t *testing.T) {
	for _, tc := range []struct {
		level             audit.Level
		request, response bool
	}{
		{audit.LevelMetadata, false, false},
		{audit.LevelRequest, true, false},
		{audit.LevelRequestResponse, true, true},
	} {
		t.Run(string(tc.level), func(t *testing.T) {
			sink := &recordingSink{}
			s := newServer(t, func(o *rest.Options) { o.Audit = &audit.Config{Policy: policyAt(tc.level), Sink: sink} })
			s.do("POST", "/apis/toys.example.com/v1/namespaces/default/widgets", "application/json", widgetJSON("a", "blue"), "User-Agent", "test-agent", "X-Forwarded-For", "10.0.0.1")
			evs := sink.take(t, 2)
			if got := stages(evs); len(got) != 2 || got[0] != audit.StageRequestReceived || got[1] != audit.StageResponseComplete {
				t.Fatalf("stages = %v, want RequestReceived, ResponseComplete", got)
			}
			received, complete := evs[0], evs[1]
			if received.AuditID == "" || received.AuditID != complete.AuditID {
				t.Errorf("audit IDs %q and %q", received.AuditID, complete.AuditID)
			}
			if received.ResponseStatus != nil || received.RequestObject != nil {
				t.Errorf("RequestReceived carries the outcome: %+v", received)
			}
			if !received.StageTimestamp.Time.Equal(received.RequestReceivedTimestamp.Time) {
				t.Error("RequestReceived's stage timestamp is not the request's")
			}
			want := audit.Event{
				Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: tc.level, AuditID: complete.AuditID,
				Stage: audit.StageResponseComplete, RequestURI: widgetsPath, Verb: "create",
				User:      audit.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}},
				SourceIPs: []string{"10.0.0.1", "127.0.0.1"}, UserAgent: "test-agent",
				ObjectRef:      &audit.ObjectReference{Resource: "widgets", Namespace: "default", Name: "a", APIGroup: "toys.example.com", APIVersion: "v1"},
				ResponseStatus: &scheme.Status{Code: 201},
				// AlwaysAllow's decision, its empty reason recorded as kube records it.
				Annotations: map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""},
			}
			got := complete
			got.RequestObject, got.ResponseObject = nil, nil
			got.RequestReceivedTimestamp, got.StageTimestamp = scheme.MicroTime{}, scheme.MicroTime{}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("event\n got %s\nwant %s", gotJSON, wantJSON)
			}
			if (complete.RequestObject != nil) != tc.request || (complete.ResponseObject != nil) != tc.response {
				t.Errorf("request object %s, response object %s", complete.RequestObject, complete.ResponseObject)
			}
			if tc.request && !bytes.Contains(complete.RequestObject, []byte(`"color":"blue"`)) {
				t.Errorf("request object %s", complete.RequestObject)
			}
			if tc.response && !bytes.Contains(complete.ResponseObject, []byte(`"uid":`)) {
				t.Errorf("response object %s is not what was stored", complete.ResponseObject)
			}
		})
	}
}

func TestAudit_ErrorStatusAndWhatIsNotRecorded(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) { o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink} })
	s.do("GET", "/healthz", "", "")
	s.do("GET", widgetsPath+"/missing", "", "")
	evs := sink.take(t, 2)
	if len(evs) != 2 || evs[0].RequestURI != widgetsPath+"/missing" {
		t.Fatalf("stages %v", stages(evs))
	}
	st := evs[1].ResponseStatus
	if st == nil || st.Code != 404 || st.Reason != "NotFound" || st.Status != "Failure" || st.Details == nil || st.Details.Name != "missing" {
		t.Errorf("responseStatus = %+v", st)
	}
}

func TestAudit_WatchHasResponseStarted(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) { o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink} })
	events, stop := openWatch(t, s, widgetsPath+"?watch=true")
	s.create("a", "blue")
	if _, err := events.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stop()
	var watchEvents []audit.Event
	for _, e := range sink.take(t, 5) { // the create's two, the watch's three
		if e.Verb == "watch" {
			watchEvents = append(watchEvents, e)
		}
	}
	got := stages(watchEvents)
	want := []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted, audit.StageResponseComplete}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("watch stages = %v, want %v", got, want)
	}
	if watchEvents[1].ResponseStatus == nil || watchEvents[1].ResponseStatus.Code != 200 {
		t.Errorf("ResponseStarted status = %+v", watchEvents[1].ResponseStatus)
	}
}

func TestAudit_FailedAuthenticationIsOneResponseStarted(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) {
		o.Authenticator, o.AllowAnonymous, o.AllowBearerTokensOverHTTP = tokenAuth{}, false, true
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink}
	})
	s.do("GET", widgetsPath, "", "", "Authorization", "Bearer bad")
	evs := sink.take(t, 1)
	if len(evs) != 1 || evs[0].Stage != audit.StageResponseStarted {
		t.Fatalf("stages = %v, want one ResponseStarted", stages(evs))
	}
	if st := evs[0].ResponseStatus; st == nil || st.Code != 401 || st.Reason != "Unauthorized" {
		t.Errorf("responseStatus = %+v", st)
	}
	if evs[0].User.Username != "" {
		t.Errorf("user = %+v, want none", evs[0].User)
	}
}

// panicOn panics in validating admission for one object name.
type panicOn string

func (p panicOn) Validate(_ context.Context, _ rest.AdmissionAttributes, obj scheme.Object) error {
	if obj.GetName() == string(p) {
		panic("boom")
	}
	return nil
}

func TestAudit_PanicStage(t *testing.T) {
	sink := &recordingSink{}
	s := newServer(t, func(o *rest.Options) {
		o.ValidatingAdmission = []rest.ValidatingAdmission{panicOn("boom")}
		o.Logger = slog.New(slog.DiscardHandler)
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelMetadata), Sink: sink}
	})
	if r := s.do("POST", widgetsPath, "application/json", widgetJSON("boom", "blue")); r.code != 500 {
		t.Fatalf("panicking create: %d", r.code)
	}
	evs := sink.take(t, 2)
	if got := stages(evs); len(got) != 2 || got[1] != audit.StagePanic {
		t.Fatalf("stages = %v, want RequestReceived, Panic", got)
	}
	if st := evs[1].ResponseStatus; st.Code != 500 || st.Message != "APIServer panic'd: boom" {
		t.Errorf("responseStatus = %+v", st)
	}
}

func TestAudit_OmittedStagesTruncationAndManagedFields(t *testing.T) {
	sink := &recordingSink{}
	p := policyAt(audit.LevelRequestResponse)
	p.OmitStages = []audit.Stage{audit.StageRequestReceived}
	p.OmitManagedFields = true
	s := newServer(t, func(o *rest.Options) { o.Audit = &audit.Config{Policy: p, Sink: sink, MaxEventBytes: 600} })
	s.do("PATCH", widgetsPath+"/a?fieldManager=test", "application/apply-patch+yaml", "apiVersion: toys.example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {color: red}\n")
	evs := sink.take(t, 1)
	if len(evs) != 1 || evs[0].Stage != audit.StageResponseComplete {
		t.Fatalf("stages = %v, want only ResponseComplete", stages(evs))
	}
	ev := evs[0]
	if !json.Valid(ev.RequestObject) || !bytes.Contains(ev.RequestObject, []byte(`"color":"red"`)) {
		t.Errorf("apply patch recorded as %s, want it as JSON", ev.RequestObject)
	}
	if bytes.Contains(ev.ResponseObject, []byte("managedFields")) || !bytes.Contains(ev.ResponseObject, []byte(`"name":"a"`)) {
		t.Errorf("response object %s, want it without managedFields", ev.ResponseObject)
	}
	s.do("POST", widgetsPath, "application/json", widgetJSON("b", strings.Repeat("x", 700)))
	ev = sink.take(t, 1)[0]
	if ev.RequestObject != nil || ev.Annotations[audit.AnnotationTruncated] != "true" {
		t.Errorf("a body over MaxEventBytes: request object %d bytes, annotations %v", len(ev.RequestObject), ev.Annotations)
	}
}

func TestAudit_JSONLinesDecodeAsEvents(t *testing.T) {
	var out syncBuffer
	s := newServer(t, func(o *rest.Options) {
		o.Audit = &audit.Config{Policy: policyAt(audit.LevelRequestResponse), Sink: audit.NewWriterSink(&out)}
	})
	s.create("a", "blue")
	lines := out.lines(2)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		var ev audit.Event
		if err := dec.Decode(&ev); err != nil {
			t.Errorf("%v: %s", err, l)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Errorf("more than one document in a line: %s", l)
		}
	}
}
