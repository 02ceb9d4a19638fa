package metrics

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Type is the TYPE of a metric family in the exposition format.
type Type string

// The metric types this package writes.
const (
	TypeCounter   Type = "counter"
	TypeGauge     Type = "gauge"
	TypeHistogram Type = "histogram"
)

// Registry holds metric families by name. Its zero value is not usable; NewRegistry
// returns one. It is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{families: map[string]*family{}}
}

// family is one metric name with its help, type, label names and series.
type family struct {
	name    string
	help    string
	typ     Type
	labels  []string
	buckets []float64

	mu     sync.RWMutex
	series map[string]*series
	// collectors compute the series of a family registered with GaugeFunc, at scrape time.
	collectors []CollectFunc
}

// series is one label set of a family. Counters and gauges keep their value in bits
// (math.Float64bits); histograms keep a count per bucket (the last one is +Inf) and
// their sum in bits.
type series struct {
	labelValues []string
	bits        atomic.Uint64
	counts      []atomic.Uint64
}

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// register returns the family of name, creating it. Registering a name again with the
// same type, labels and buckets returns the existing family, so that two Handlers may
// share a Registry; anything else is a programming error and panics, as
// client_golang's MustRegister does.
func (r *Registry) register(name, help string, typ Type, buckets []float64, labels []string) *family {
	if !metricNameRE.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for _, l := range labels {
		if !labelNameRE.MatchString(l) || strings.HasPrefix(l, "__") || (typ == TypeHistogram && l == "le") {
			panic(fmt.Sprintf("metrics: invalid label name %q of %s", l, name))
		}
	}
	if typ == TypeHistogram && (len(buckets) == 0 || !sort.Float64sAreSorted(buckets) || math.IsInf(buckets[len(buckets)-1], 1)) {
		panic(fmt.Sprintf("metrics: histogram %s needs increasing finite buckets", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		if f.typ != typ || !slices.Equal(f.labels, labels) || !slices.Equal(f.buckets, buckets) {
			panic(fmt.Sprintf("metrics: %s registered twice with different type, labels or buckets", name))
		}
		return f
	}
	f := &family{
		name: name, help: help, typ: typ,
		labels: slices.Clone(labels), buckets: slices.Clone(buckets),
		series: map[string]*series{},
	}
	r.families[name] = f
	return f
}

// with returns the series of values, creating it. The key is built in a stack buffer
// and the map is indexed by string(key), which does not allocate.
func (f *family) with(values []string) *series {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("metrics: %s has %d labels, got %d values", f.name, len(f.labels), len(values)))
	}
	var buf [256]byte
	key := buf[:0]
	for _, v := range values {
		key = append(key, v...)
		key = append(key, 0xff) // not valid UTF-8, so no label value contains it
	}
	f.mu.RLock()
	s, ok := f.series[string(key)]
	f.mu.RUnlock()
	if ok {
		return s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.series[string(key)]; ok {
		return s
	}
	s = &series{labelValues: make([]string, len(values))}
	for i, v := range values {
		// A clone does not pin the (possibly large) string a label value was cut from.
		s.labelValues[i] = strings.Clone(v)
	}
	if f.typ == TypeHistogram {
		s.counts = make([]atomic.Uint64, len(f.buckets)+1)
	}
	f.series[string(key)] = s
	return s
}

// addFloat adds v to the float64 kept in bits.
func addFloat(bits *atomic.Uint64, v float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// CounterVec is a counter family with labels.
type CounterVec struct{ f *family }

// Counter registers (or returns the already registered) counter family name.
func (r *Registry) Counter(name, help string, labels ...string) CounterVec {
	return CounterVec{r.register(name, help, TypeCounter, nil, labels)}
}

// With returns the counter of the label values, in the order of the label names.
func (v CounterVec) With(values ...string) Counter { return Counter{v.f.with(values)} }

// Counter is one series of a CounterVec: a value that only goes up.
type Counter struct{ s *series }

// Inc adds one.
func (c Counter) Inc() { addFloat(&c.s.bits, 1) }

// Add adds v, which must not be negative (a negative v is ignored).
func (c Counter) Add(v float64) {
	if v > 0 {
		addFloat(&c.s.bits, v)
	}
}

// Value returns the current value.
func (c Counter) Value() float64 { return math.Float64frombits(c.s.bits.Load()) }

// GaugeVec is a gauge family with labels.
type GaugeVec struct{ f *family }

// Gauge registers (or returns the already registered) gauge family name.
func (r *Registry) Gauge(name, help string, labels ...string) GaugeVec {
	return GaugeVec{r.register(name, help, TypeGauge, nil, labels)}
}

// With returns the gauge of the label values, in the order of the label names.
func (v GaugeVec) With(values ...string) Gauge { return Gauge{v.f.with(values)} }

// Gauge is one series of a GaugeVec: a value that goes up and down.
type Gauge struct{ s *series }

// Set sets the value.
func (g Gauge) Set(v float64) { g.s.bits.Store(math.Float64bits(v)) }

// Add adds v (negative to subtract).
func (g Gauge) Add(v float64) { addFloat(&g.s.bits, v) }

// Inc adds one.
func (g Gauge) Inc() { addFloat(&g.s.bits, 1) }

// Dec subtracts one.
func (g Gauge) Dec() { addFloat(&g.s.bits, -1) }

// Value returns the current value.
func (g Gauge) Value() float64 { return math.Float64frombits(g.s.bits.Load()) }

// HistogramVec is a histogram family with labels.
type HistogramVec struct{ f *family }

// Histogram registers (or returns the already registered) histogram family name with
// the upper bounds of its buckets, increasing; the +Inf bucket is implied.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) HistogramVec {
	return HistogramVec{r.register(name, help, TypeHistogram, buckets, labels)}
}

// With returns the histogram of the label values, in the order of the label names.
func (v HistogramVec) With(values ...string) Histogram {
	return Histogram{s: v.f.with(values), buckets: v.f.buckets}
}

// Histogram is one series of a HistogramVec.
type Histogram struct {
	s       *series
	buckets []float64
}

// Observe records one value: in the first bucket whose upper bound is not below it,
// and in the sum.
func (h Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.buckets, v)
	h.s.counts[i].Add(1)
	addFloat(&h.s.bits, v)
}

// Count returns how many values were observed.
func (h Histogram) Count() uint64 {
	var n uint64
	for i := range h.s.counts {
		n += h.s.counts[i].Load()
	}
	return n
}

// CollectFunc reports the series of a family computed at scrape time: it calls emit
// once per series with its value and label values (in the order of the label names).
type CollectFunc func(emit func(value float64, labelValues ...string))

// GaugeFunc registers a gauge family whose series collect computes when the registry is
// written, for values that are cheaper to read on demand than to keep up to date (object
// counts, goroutines). Registering a name again adds collect to the family's collectors;
// a label set emitted twice is written once, with the first value.
func (r *Registry) GaugeFunc(name, help string, labels []string, collect CollectFunc) {
	f := r.register(name, help, TypeGauge, nil, labels)
	f.mu.Lock()
	f.collectors = append(f.collectors, collect)
	f.mu.Unlock()
}

// ExponentialBuckets returns count bucket bounds, the first start, each factor times
// the one before, as client_golang's function of the same name.
func ExponentialBuckets(start, factor float64, count int) []float64 {
	b := make([]float64, count)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}
