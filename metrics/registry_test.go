package metrics_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/metrics"
)

func TestWriteText_GoldenExposition(t *testing.T) {
	r := metrics.NewRegistry()
	req := r.Counter("apiserver_request_total", "Counter of requests.\nSecond line with \\.", "verb", "code")
	req.With("LIST", "200").Add(2)
	req.With("GET", "404").Inc()
	req.With("GET", "200").Inc()
	r.Gauge("a_gauge", "A gauge.").With().Set(-1.5)
	h := r.Histogram("latency_seconds", "Latency.", []float64{0.1, 1}, "verb")
	h.With("GET").Observe(0.05)
	h.With("GET").Observe(0.5)
	h.With("GET").Observe(5)
	r.Counter("unused_total", "Never incremented, never written.", "x")
	r.GaugeFunc("objects", "Objects.", []string{"resource"}, func(emit func(float64, ...string)) {
		emit(3, `quo"te\back`+"\nline")
		emit(1, "a")
		emit(9, "a") // a duplicate label set is written once
	})

	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := `# HELP a_gauge A gauge.
# TYPE a_gauge gauge
a_gauge -1.5
# HELP apiserver_request_total Counter of requests.\nSecond line with \\.
# TYPE apiserver_request_total counter
apiserver_request_total{verb="GET",code="200"} 1
apiserver_request_total{verb="GET",code="404"} 1
apiserver_request_total{verb="LIST",code="200"} 2
# HELP latency_seconds Latency.
# TYPE latency_seconds histogram
latency_seconds_bucket{verb="GET",le="0.1"} 1
latency_seconds_bucket{verb="GET",le="1"} 2
latency_seconds_bucket{verb="GET",le="+Inf"} 3
latency_seconds_sum{verb="GET"} 5.55
latency_seconds_count{verb="GET"} 3
# HELP objects Objects.
# TYPE objects gauge
objects{resource="a"} 1
objects{resource="quo\"te\\back\nline"} 3
`
	if got := buf.String(); got != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", got, want)
	}
}

func TestRegister_SameNameSameShapeIsShared(t *testing.T) {
	r := metrics.NewRegistry()
	r.Counter("c_total", "c", "a").With("x").Inc()
	r.Counter("c_total", "c", "a").With("x").Inc()
	if got := r.Counter("c_total", "c", "a").With("x").Value(); got != 2 {
		t.Errorf("shared counter = %v, want 2", got)
	}
}

func TestRegister_ConflictsPanic(t *testing.T) {
	for name, register := range map[string]func(r *metrics.Registry){
		"other labels":        func(r *metrics.Registry) { r.Counter("c_total", "c", "b") },
		"other type":          func(r *metrics.Registry) { r.Gauge("c_total", "c", "a") },
		"invalid metric name": func(r *metrics.Registry) { r.Counter("1bad", "c") },
		"invalid label name":  func(r *metrics.Registry) { r.Counter("ok", "c", "bad-label") },
		"le on a histogram":   func(r *metrics.Registry) { r.Histogram("h", "h", []float64{1}, "le") },
		"unsorted buckets":    func(r *metrics.Registry) { r.Histogram("h", "h", []float64{2, 1}) },
	} {
		t.Run(name, func(t *testing.T) {
			r := metrics.NewRegistry()
			r.Counter("c_total", "c", "a")
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			register(r)
		})
	}
}

func TestWith_WrongArityPanics(t *testing.T) {
	r := metrics.NewRegistry()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	r.Counter("c_total", "c", "a", "b").With("only one")
}

func TestCounter_ConcurrentIncrementsAllCount(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.Counter("c_total", "c", "a")
	h := r.Histogram("h", "h", []float64{1}, "a")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				c.With("x").Inc()
				h.With("x").Observe(0.5)
			}
		}()
	}
	wg.Wait()
	if got := c.With("x").Value(); got != 8000 {
		t.Errorf("counter = %v, want 8000", got)
	}
	if got := h.With("x").Count(); got != 8000 {
		t.Errorf("histogram count = %v, want 8000", got)
	}
}

func TestGauge_IncDecAdd(t *testing.T) {
	g := metrics.NewRegistry().Gauge("g", "g").With()
	g.Inc()
	g.Inc()
	g.Dec()
	g.Add(2.5)
	if got := g.Value(); got != 3.5 {
		t.Errorf("gauge = %v, want 3.5", got)
	}
}

func TestRegisterRuntime_WritesGoBasics(t *testing.T) {
	r := metrics.NewRegistry()
	r.RegisterRuntime()
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go_goroutines ", "go_info{version=", "go_memstats_heap_alloc_bytes ", "process_start_time_seconds "} {
		if !strings.Contains(buf.String(), "\n"+name) {
			t.Errorf("no %s in\n%s", name, buf.String())
		}
	}
}

func BenchmarkCounterVec_With(b *testing.B) {
	c := metrics.NewRegistry().Counter("apiserver_request_total", "", "verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.With("GET", "", "toys.example.com", "v1", "widgets", "", "resource", "apiserver", "200").Inc()
		}
	})
}
