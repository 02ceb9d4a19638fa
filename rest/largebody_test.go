package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// manyLabels is a Widget whose metadata.<field> (labels or annotations) holds n
// entries, 12 bytes of JSON each (100,000 make a 1.2 MB body); bad adds a key that is
// no qualified name.
func manyLabels(name, field string, n int, bad bool) string {
	var b strings.Builder
	b.WriteString(`"` + field + `":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%05d":""`, i)
	}
	if bad {
		b.WriteString(`,"bad key!":""`)
	}
	b.WriteString("}")
	return widgetJSON(name, "blue", b.String())
}

// TestCreate_ConcurrentHugeLabelMapsLeaveGetsServed sends 8 concurrent creates of
// 100,000 labels each (the valid ones, one with fieldValidation=Ignore and one whose
// answer is a 422) while one client GETs a small object, over HTTP on 127.0.0.1, and
// logs the GETs' p50, p99 and maximum latency (the figure of issue 23: 0.3-0.6 s
// before structured-merge-diff walked maps in key order). It asserts what can be
// asserted without a clock: every create gets its answer, every GET a 200. The creates
// take turns (see TestLargeBodies_TakeTurnsAndLeaveSmallRequestsServed), so the
// request deadline is lifted; under the race detector they carry 25,000 labels.
func TestCreate_ConcurrentHugeLabelMapsLeaveGetsServed(t *testing.T) {
	h, _, _ := newTestHandler(t, func(o *rest.Options) { o.RequestTimeout = -1 })
	srv := httptest.NewServer(h)
	defer srv.Close()
	s := &testServer{t: t, url: srv.URL}
	s.create("probe", "blue")

	const creators, maxGets = 8, 200000
	labels := 100000
	if raceEnabled {
		labels = 25000
	}
	type result struct {
		code int
		err  error
	}
	results := make([]result, creators)
	var wg sync.WaitGroup
	done := make(chan struct{})
	start := time.Now()
	for i := range creators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path, bad := widgetsPath, i == creators-1
			if i == creators-2 {
				path += "?fieldValidation=Ignore"
			}
			body := manyLabels(fmt.Sprintf("many-%d", i), "labels", labels, bad)
			res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
			if err != nil {
				results[i] = result{err: err}
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			results[i] = result{code: res.StatusCode}
		}()
	}
	go func() { wg.Wait(); close(done) }()

	var lat []time.Duration
	var bad []int
	deadline := time.After(5 * time.Minute)
loop:
	for len(lat) < maxGets {
		select {
		case <-done:
			break loop
		case <-deadline:
			t.Fatal("the creates did not finish in 5 minutes")
		default:
		}
		t0 := time.Now()
		res, err := http.Get(srv.URL + widgetsPath + "/probe")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		lat = append(lat, time.Since(t0))
		if res.StatusCode != http.StatusOK {
			bad = append(bad, res.StatusCode)
		}
	}
	<-done
	elapsed := time.Since(start)
	for i, r := range results {
		want := http.StatusCreated
		if i == creators-1 {
			want = http.StatusUnprocessableEntity
		}
		if r.err != nil || r.code != want {
			t.Errorf("create %d: %d %v, want %d", i, r.code, r.err, want)
		}
	}
	if len(bad) > 0 || len(lat) == 0 {
		t.Fatalf("%d GETs, failed ones: %v", len(lat), bad)
	}
	slices.Sort(lat)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d creates of %d labels in %v (GOMAXPROCS %d); %d GETs meanwhile: p50 %v, p99 %v, max %v; heap high-water %d MiB",
		creators, labels, elapsed.Round(time.Millisecond), runtime.GOMAXPROCS(0), len(lat),
		lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1], ms.HeapSys>>20)
}

// seatGate is a mutating admission that holds the creates of objects named large-*
// until released (or their context ends), counting those inside at once.
type seatGate struct {
	entered chan string
	release chan struct{}
	mu      sync.Mutex
	inside  int
	most    int
}

func (g *seatGate) Admit(ctx context.Context, _ registry.AdmissionAttributes, obj scheme.Object) error {
	if !strings.HasPrefix(obj.GetName(), "large-") {
		return nil
	}
	g.mu.Lock()
	g.inside++
	g.most = max(g.most, g.inside)
	g.mu.Unlock()
	defer func() { g.mu.Lock(); g.inside--; g.mu.Unlock() }()
	g.entered <- obj.GetName()
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return nil
}

// awaitEntries waits for n large creates to reach the gate (30 s at most).
func (g *seatGate) awaitEntries(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-g.entered:
		case <-time.After(30 * time.Second):
			t.Fatalf("fewer than %d large creates reached admission", n)
		}
	}
}

// TestLargeBodies_TakeTurnsAndLeaveSmallRequestsServed checks the seats of requests
// with bodies over LargeBodyBytes: at most max(1, GOMAXPROCS/2) are served at once,
// the next waits its turn (or, past its deadline, is kube's 504 without being
// served), a small create passes them by, and without a mutating limit there are no
// seats.
func TestLargeBodies_TakeTurnsAndLeaveSmallRequestsServed(t *testing.T) {
	seats := max(1, runtime.GOMAXPROCS(0)/2)
	large := func(name string) string { return manyLabels(name, "labels", 25000, false) } // 300 KB
	if n := len(large("large-0")); n <= rest.LargeBodyBytes {
		t.Fatalf("a %d-byte body is not large", n)
	}
	post := func(s *testServer, path, body string, codes chan<- int) {
		res, err := http.Post(s.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			codes <- 0
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		codes <- res.StatusCode
	}

	g := &seatGate{entered: make(chan string, 64), release: make(chan struct{})}
	s := newServer(t, func(o *rest.Options) { o.MutatingAdmission = append(o.MutatingAdmission, g) })
	codes := make(chan int, 64)
	for i := range seats {
		go post(s, widgetsPath, large(fmt.Sprintf("large-%d", i)), codes)
	}
	g.awaitEntries(t, seats)
	if r := s.do("POST", widgetsPath, "application/json", widgetJSON("small", "blue")); r.code != http.StatusCreated {
		t.Fatalf("a small create while the seats are taken: %d %.200s", r.code, r.body)
	}
	r := s.do("POST", widgetsPath+"?timeout=2s", "application/json", large("large-late"))
	if m := r.json(t); r.code != http.StatusGatewayTimeout || m["reason"] != "Timeout" {
		t.Errorf("a large create waiting past its deadline: %d %.200s, want 504 Timeout", r.code, r.body)
	}
	go post(s, widgetsPath, large("large-queued"), codes)
	close(g.release)
	for range seats + 1 {
		if code := <-codes; code != http.StatusCreated {
			t.Errorf("a large create: %d, want 201", code)
		}
	}
	g.mu.Lock()
	most := g.most
	g.mu.Unlock()
	if most != seats {
		t.Errorf("%d large creates were served at once, want %d", most, seats)
	}
	if r := s.do("GET", widgetsPath+"/large-late", "", ""); r.code != http.StatusNotFound {
		t.Errorf("the create that timed out waiting: GET %d, want 404 (never served)", r.code)
	}

	free := &seatGate{entered: make(chan string, 64), release: make(chan struct{})}
	unlimited := newServer(t, func(o *rest.Options) {
		o.MaxMutatingRequestsInFlight = -1
		o.MutatingAdmission = append(o.MutatingAdmission, free)
	})
	for i := range seats + 1 {
		go post(unlimited, widgetsPath, large(fmt.Sprintf("large-%d", i)), codes)
	}
	free.awaitEntries(t, seats+1)
	close(free.release)
	for range seats + 1 {
		if code := <-codes; code != http.StatusCreated {
			t.Errorf("a large create without a mutating limit: %d, want 201", code)
		}
	}
}
