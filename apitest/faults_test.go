package apitest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/scheme"
)

var unavailable = &scheme.Status{Code: http.StatusServiceUnavailable, Reason: scheme.StatusReasonServiceUnavailable, Message: "try later"}

func TestFaults_FailNextAnswersTheMatchingRequestsWithTheStatus(t *testing.T) {
	tests := []struct {
		name  string
		match apitest.Match
		n     int
		// requests are sent in order; want is each one's status code.
		requests []string
		want     []int
	}{
		{name: "the next n creates fail, then creates succeed", match: apitest.Match{Verb: "create", Resource: "widgets"}, n: 2,
			requests: []string{"POST a", "POST b", "POST c"}, want: []int{503, 503, 201}},
		{name: "requests that do not match are served and leave the failures", match: apitest.Match{Verb: "create", Resource: "widgets"}, n: 1,
			requests: []string{"GET", "POST a", "POST b"}, want: []int{200, 503, 201}},
		{name: "a name matches only that object", match: apitest.Match{Name: "b"}, n: 5,
			requests: []string{"POST a", "POST b", "GET a", "GET b"}, want: []int{201, 201, 200, 503}},
		{name: "another namespace does not match", match: apitest.Match{Namespace: "other"}, n: 1,
			requests: []string{"POST a", "GET"}, want: []int{201, 200}},
		{name: "the zero Match matches every request", n: 2,
			requests: []string{"GET", "POST a", "POST b"}, want: []int{503, 503, 201}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
			srv.Faults().FailNext(tt.n, tt.match, unavailable)
			for i, req := range tt.requests {
				code, body := send(t, srv, req)
				if code != tt.want[i] {
					t.Fatalf("request %d (%s) = %d %s, want %d", i, req, code, body, tt.want[i])
				}
				if code == 503 && !strings.Contains(string(body), `"reason":"ServiceUnavailable"`) {
					t.Errorf("request %d (%s) body = %s, want the injected Status", i, req, body)
				}
			}
		})
	}
}

// send sends "POST NAME" (create widget NAME), "GET NAME" (get it) or "GET" (list).
func send(t *testing.T, srv *apitest.Server, req string) (int, []byte) {
	t.Helper()
	method, name, _ := strings.Cut(req, " ")
	if method == "POST" {
		return do(t, srv.Client(), method, srv.URL+widgetsPath, widgetJSON(name), nil)
	}
	if name != "" {
		name = "/" + name
	}
	return do(t, srv.Client(), method, srv.URL+widgetsPath+name, "", nil)
}

func TestFaults_ResetRemovesPendingFailuresAndDelays(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	srv.Faults().FailNext(1, apitest.Match{}, unavailable)
	srv.Faults().Delay(apitest.Match{}, time.Hour)
	srv.Faults().Reset()
	if code, body := do(t, srv.Client(), "GET", srv.URL+widgetsPath, "", nil); code != http.StatusOK {
		t.Errorf("GET after Reset = %d %s, want 200", code, body)
	}
}

func TestFaults_DelayHoldsMatchingRequestsPastTheClientsDeadline(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	srv.Faults().Delay(apitest.Match{Verb: "list", Resource: "widgets"}, time.Hour)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+widgetsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("delayed list = %s, want its deadline to expire first", resp.Status)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("delayed list failed with %v, want context.DeadlineExceeded", err)
	}
	if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("a"), nil); code != http.StatusCreated {
		t.Errorf("a create, which the delay does not match = %d %s, want 201", code, body)
	}
}

// openWatch starts a watch of the widgets from rv and returns its response once the
// server serves it.
func openWatch(t *testing.T, srv *apitest.Server, rv string) *http.Response {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + widgetsPath + "?watch=true&resourceVersion=" + rv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestFaults_CloseWatchesEndsEveryOpenWatch(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	rv := listRV(t, srv)
	watches := []*http.Response{openWatch(t, srv, rv), openWatch(t, srv, rv)}
	if n := srv.Faults().OpenWatches(); n != 2 {
		t.Fatalf("OpenWatches = %d, want 2", n)
	}
	if n := srv.Faults().CloseWatches(); n != 2 {
		t.Errorf("CloseWatches = %d, want 2", n)
	}
	for i, w := range watches {
		if _, err := io.ReadAll(w.Body); err != nil {
			t.Errorf("watch %d ended with %v, want a normal end", i, err)
		}
	}
	if n := srv.Faults().OpenWatches(); n != 0 {
		t.Errorf("OpenWatches after CloseWatches = %d, want 0", n)
	}
	if code, _ := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("a"), nil); code != http.StatusCreated {
		t.Errorf("create after CloseWatches = %d, want 201", code)
	}
}

// listRV lists the widgets and returns the list's resourceVersion.
func listRV(t *testing.T, srv *apitest.Server) string {
	t.Helper()
	return listPage(t, srv, "").RV
}

type page struct {
	RV, Continue string
	code         int
}

// listPage lists one widget from the continue token cont ("" for the first page).
func listPage(t *testing.T, srv *apitest.Server, cont string) page {
	t.Helper()
	code, body := do(t, srv.Client(), "GET", srv.URL+widgetsPath+"?limit=1&continue="+cont, "", nil)
	var l struct {
		Metadata struct{ ResourceVersion, Continue string }
	}
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("list: %v in %s", err, body)
	}
	return page{RV: l.Metadata.ResourceVersion, Continue: l.Metadata.Continue, code: code}
}

// firstEvent reads the first event of a watch: its type and the code of an ERROR's Status.
func firstEvent(t *testing.T, resp *http.Response) (string, int) {
	t.Helper()
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the watch: %v", err)
	}
	var ev struct {
		Type   string
		Object struct{ Code int }
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatalf("watch event %s: %v", line, err)
	}
	return ev.Type, ev.Object.Code
}

func TestFaults_ExpireResourceVersionsMakesEarlierVersionsGone(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	for _, name := range []string{"a", "b"} {
		if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON(name), nil); code != http.StatusCreated {
			t.Fatalf("create %s = %d %s", name, code, body)
		}
	}
	first := listPage(t, srv, "")
	if err := srv.Faults().ExpireResourceVersions(context.Background()); err != nil {
		t.Fatal(err)
	}

	if typ, code := firstEvent(t, openWatch(t, srv, first.RV)); typ != "ERROR" || code != http.StatusGone {
		t.Errorf("watch from the latest version before expiry: first event %s %d, want ERROR 410", typ, code)
	}
	if got := listPage(t, srv, first.Continue); got.code != http.StatusGone {
		t.Errorf("continue from before expiry = %d, want 410", got.code)
	}
	relisted := listRV(t, srv)
	if relisted == first.RV {
		t.Fatalf("a new list has the expired version %s", relisted)
	}
	w := openWatch(t, srv, relisted)
	if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("c"), nil); code != http.StatusCreated {
		t.Fatalf("create c = %d %s", code, body)
	}
	if typ, _ := firstEvent(t, w); typ != "ADDED" {
		t.Errorf("watch from a version listed after expiry: first event %s, want ADDED", typ)
	}
}

func TestClock_FrozenClockSetsTheServersTimestamps(t *testing.T) {
	srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{})
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	srv.Clock().Set(t0.Add(999 * time.Millisecond))
	created := create(t, srv, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"a","finalizers":["example.com/hold"]},"spec":{"color":"red"}}`)
	if created.Metadata.CreationTimestamp != "2030-01-02T03:04:05Z" {
		t.Errorf("creationTimestamp = %s, want the frozen time to the second", created.Metadata.CreationTimestamp)
	}
	if len(created.Metadata.ManagedFields) != 1 || created.Metadata.ManagedFields[0].Time != "2030-01-02T03:04:05Z" {
		t.Errorf("managedFields = %+v, want one entry at the frozen time", created.Metadata.ManagedFields)
	}

	srv.Clock().Advance(time.Hour)
	code, body := do(t, srv.Client(), "DELETE", srv.URL+widgetsPath+"/a", "", nil)
	var deleted widgetMeta
	if err := json.Unmarshal(body, &deleted); err != nil || code != http.StatusOK {
		t.Fatalf("delete = %d %s (%v)", code, body, err)
	}
	if deleted.Metadata.DeletionTimestamp != "2030-01-02T04:04:05Z" {
		t.Errorf("deletionTimestamp = %s, want the frozen time advanced by an hour", deleted.Metadata.DeletionTimestamp)
	}
}

type widgetMeta struct {
	Metadata struct {
		CreationTimestamp, DeletionTimestamp string
		ManagedFields                        []struct{ Time string }
	}
}

// create creates a widget from body and returns its metadata.
func create(t *testing.T, srv *apitest.Server, body string) widgetMeta {
	t.Helper()
	code, out := do(t, srv.Client(), "POST", srv.URL+widgetsPath, body, nil)
	var w widgetMeta
	if err := json.Unmarshal(out, &w); err != nil || code != http.StatusCreated {
		t.Fatalf("create = %d %s (%v)", code, out, err)
	}
	return w
}

func TestClock(t *testing.T) {
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		run  func(c *apitest.Clock) (got, want time.Time)
	}{
		{name: "Set freezes at the time given", run: func(c *apitest.Clock) (time.Time, time.Time) {
			c.Set(t0)
			return c.Now(), t0
		}},
		{name: "Advance moves a frozen clock", run: func(c *apitest.Clock) (time.Time, time.Time) {
			c.Set(t0)
			c.Advance(time.Minute)
			return c.Advance(time.Second), t0.Add(time.Minute + time.Second)
		}},
		{name: "Freeze stops at a whole second and keeps it", run: func(c *apitest.Clock) (time.Time, time.Time) {
			frozen := c.Freeze()
			if frozen.Nanosecond() != 0 {
				return frozen, frozen.Truncate(time.Second)
			}
			return c.Freeze(), frozen
		}},
		{name: "Advance freezes a running clock", run: func(c *apitest.Clock) (time.Time, time.Time) {
			next := c.Advance(time.Hour)
			return c.Now(), next
		}},
		{name: "Resume runs at real time again", run: func(c *apitest.Clock) (time.Time, time.Time) {
			c.Set(t0)
			c.Resume()
			if now := c.Now(); now.Year() < 2024 || now.Equal(t0) {
				return now, time.Now()
			}
			return t0, t0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := tt.run(&apitest.Clock{}); !got.Equal(want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}
