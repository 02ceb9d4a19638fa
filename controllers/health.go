package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
)

// The names of the controllers' health checks: kube-controller-manager's names of the
// two controllers, which its /healthz lists.
const (
	GarbageCollectorHealthCheck = "garbage-collector-controller"
	NamespaceHealthCheck        = "namespace-controller"
)

// followState is whether the controllers follow the store, for the health checks.
type followState struct {
	mu sync.Mutex
	// err is the last failure to list or watch since a watch last started, nil if none.
	err   error
	since time.Time // when err began
	ended bool      // the controllers stopped
}

func (s *followState) following() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = nil
}

// notFollowing records why the controllers cannot follow the store now (an expired
// watch followed by a new list is no failure and is not recorded).
func (s *followState) notFollowing(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.since = time.Now()
	}
	s.err = err
}

func (s *followState) stopped() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
}

// check is the health: nil while the controllers follow the store or list it again.
func (s *followState) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return errors.New("controllers: stopped")
	case s.err != nil:
		return fmt.Errorf("controllers: not following the store since %s: %w", s.since.UTC().Format(time.RFC3339), s.err)
	}
	return nil
}

// Healthy returns nil while the controllers follow the store (or list it again after
// its watch expired), and otherwise why they cannot: the error of the last list or
// watch since a watch last started, or that they stopped.
func (m *Manager) Healthy(context.Context) error { return m.health.check() }

// HealthChecks are the controllers' checks for rest.Options.LiveChecks (or
// ReadyChecks), named as kube-controller-manager names the garbage collector's and the
// namespace controller's; both fail when the controllers cannot follow the store. A
// Handler is built before the controllers start: HealthChecksOf serves the checks
// of a Manager made later.
func (m *Manager) HealthChecks() []rest.HealthCheck {
	return HealthChecksOf(func() *Manager { return m })
}

// HealthChecksOf returns the checks of HealthChecks for the Manager that manager
// returns when a check runs; none is running yet (nil) is healthy, as the server that
// serves the checks starts the controllers.
func HealthChecksOf(manager func() *Manager) []rest.HealthCheck {
	check := func(ctx context.Context) error {
		if m := manager(); m != nil {
			return m.Healthy(ctx)
		}
		return nil
	}
	return []rest.HealthCheck{{Name: GarbageCollectorHealthCheck, Check: check}, {Name: NamespaceHealthCheck, Check: check}}
}

// The names of the controllers' metrics.
const (
	MetricRelists   = "apikit_controllers_relists_total"
	MetricErrors    = "apikit_controllers_errors_total"
	MetricFollowing = "apikit_controllers_watching"
)

// controllerMetrics are the controllers' series in Options.Metrics (or a registry of
// their own when it is nil).
type controllerMetrics struct {
	relists   metrics.CounterVec
	errors    metrics.CounterVec
	following metrics.Gauge
}

func newControllerMetrics(r *metrics.Registry) controllerMetrics {
	if r == nil {
		r = metrics.NewRegistry()
	}
	return controllerMetrics{
		relists:   r.Counter(MetricRelists, "Number of times the garbage collector and the namespace controller listed the store again, by reason: expired (their watch fell out of the store's history window) or error.", "reason"),
		errors:    r.Counter(MetricErrors, "Number of failed lists, watches and passes of the garbage collector and the namespace controller, by operation.", "operation"),
		following: r.Gauge(MetricFollowing, "1 while the garbage collector and the namespace controller watch the store, 0 while they list it again or wait to retry.").With(),
	}
}
