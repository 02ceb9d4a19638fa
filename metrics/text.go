package metrics

import (
	"bufio"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ContentType is the media type of WriteText's output: the Prometheus text exposition
// format, version 0.0.4.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes every family that has at least one series in the text exposition
// format: families sorted by name, each with its HELP and TYPE lines, then its series
// sorted by label values; a histogram's series as cumulative _bucket lines (le
// increasing, ending with +Inf), _sum and _count.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })

	bw := bufio.NewWriter(w)
	for _, f := range fams {
		snap := f.snapshot()
		if len(snap) == 0 {
			continue
		}
		bw.WriteString("# HELP ")
		bw.WriteString(f.name)
		bw.WriteByte(' ')
		writeEscaped(bw, f.help, false)
		bw.WriteString("\n# TYPE ")
		bw.WriteString(f.name)
		bw.WriteByte(' ')
		bw.WriteString(string(f.typ))
		bw.WriteByte('\n')
		for _, s := range snap {
			if f.typ == TypeHistogram {
				f.writeHistogram(bw, s)
				continue
			}
			writeSample(bw, f.name, f.labels, s.labelValues, "", "", math.Float64frombits(s.bits.Load()))
		}
	}
	return bw.Flush()
}

// snapshot returns the series of f, with those its collectors compute, sorted by label
// values. Collected series are fresh copies; a label set seen twice is kept once.
func (f *family) snapshot() []*series {
	f.mu.RLock()
	out := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		out = append(out, s)
	}
	collectors := f.collectors
	f.mu.RUnlock()
	for _, collect := range collectors {
		collect(func(v float64, values ...string) {
			if len(values) != len(f.labels) {
				return
			}
			s := &series{labelValues: slices.Clone(values)}
			s.bits.Store(math.Float64bits(v))
			out = append(out, s)
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return slices.Compare(out[i].labelValues, out[j].labelValues) < 0 })
	return slices.CompactFunc(out, func(a, b *series) bool { return slices.Equal(a.labelValues, b.labelValues) })
}

// writeHistogram writes one histogram series: cumulative buckets, sum and count. The
// count is the +Inf bucket, so the two always agree in one scrape.
func (f *family) writeHistogram(w *bufio.Writer, s *series) {
	var cum uint64
	for i, le := range f.buckets {
		cum += s.counts[i].Load()
		writeSample(w, f.name+"_bucket", f.labels, s.labelValues, "le", formatFloat(le), float64(cum))
	}
	cum += s.counts[len(f.buckets)].Load()
	writeSample(w, f.name+"_bucket", f.labels, s.labelValues, "le", "+Inf", float64(cum))
	writeSample(w, f.name+"_sum", f.labels, s.labelValues, "", "", math.Float64frombits(s.bits.Load()))
	writeSample(w, f.name+"_count", f.labels, s.labelValues, "", "", float64(cum))
}

// writeSample writes `name{label="value",...} value`, with an extra label (le) when
// extraName is set, and no braces when there are no labels.
func writeSample(w *bufio.Writer, name string, labels, values []string, extraName, extraValue string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extraName != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l)
			w.WriteString(`="`)
			writeEscaped(w, values[i], true)
			w.WriteByte('"')
		}
		if extraName != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extraName)
			w.WriteString(`="`)
			w.WriteString(extraValue)
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

// writeEscaped writes s with backslash and newline escaped, and double quotes too in a
// label value, as the text format requires.
func writeEscaped(w *bufio.Writer, s string, quote bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			w.WriteString(`\\`)
		case c == '\n':
			w.WriteString(`\n`)
		case c == '"' && quote:
			w.WriteString(`\"`)
		default:
			w.WriteByte(c)
		}
	}
}

// formatFloat writes a sample value as the format spells it: shortest representation,
// +Inf, -Inf and NaN.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
