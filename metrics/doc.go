// Package metrics is a small Prometheus registry: counter, gauge and histogram vectors
// with label sets, gauges computed at scrape time, and the text exposition format
// (version 0.0.4) that Prometheus scrapes from /metrics.
//
// It exists so that a server built with apikit exposes kube-apiserver's metrics without
// pulling github.com/prometheus/client_golang and its dependencies into every program
// that imports apikit. Package rest registers kube-apiserver's request, watch and storage
// metrics in a Registry (rest.Options.Metrics) and serves it at GET /metrics; a host may
// register its own metrics in the same Registry.
//
// Updating a series is lock-free (atomics); finding the series of a label set takes a
// read lock and a map lookup keyed by the joined label values, without allocating once
// the series exists. Callers on a hot path may keep the Counter, Gauge or Histogram that
// With returns.
//
// WriteText writes families sorted by name and series sorted by label values, with HELP
// and TYPE lines and label values escaped as the format requires, so that the output is
// deterministic and parses with the Prometheus text parser.
package metrics
