package metrics

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// processStart is when this process started, near enough: when the package was loaded.
var processStart = time.Now()

// RegisterRuntime adds the Go runtime basics that client_golang's default collectors
// export under the same names, read at scrape time without stopping the world
// (runtime/metrics): go_goroutines, go_memstats_heap_alloc_bytes,
// go_memstats_sys_bytes, go_info{version} and
// process_start_time_seconds.
func (r *Registry) RegisterRuntime() {
	r.GaugeFunc("go_goroutines", "Number of goroutines that currently exist.", nil, func(emit func(float64, ...string)) {
		emit(float64(runtime.NumGoroutine()))
	})
	r.GaugeFunc("go_info", "Information about the Go environment.", []string{"version"}, func(emit func(float64, ...string)) {
		emit(1, runtime.Version())
	})
	r.GaugeFunc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", nil, func(emit func(float64, ...string)) {
		emit(float64(processStart.UnixNano()) / 1e9)
	})
	for _, m := range []struct{ name, help, sample string }{
		{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", "/memory/classes/heap/objects:bytes"},
		{"go_memstats_sys_bytes", "Number of bytes obtained from system.", "/memory/classes/total:bytes"},
	} {
		r.GaugeFunc(m.name, m.help, nil, func(emit func(float64, ...string)) {
			s := []metrics.Sample{{Name: m.sample}}
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				emit(float64(s[0].Value.Uint64()))
			}
		})
	}
}
