package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HealthCheck is one named check of the health endpoints, as kube-apiserver's
// healthz.HealthChecker: /readyz, /livez and /healthz run their checks in order and
// list each by Name in their verbose output; /readyz/NAME (and /livez/NAME,
// /healthz/NAME) runs one alone; ?exclude=NAME skips one.
type HealthCheck struct {
	// Name names the check in the output and in its path: letters, digits, '-', '_'
	// and '.'; "ping" is the Handler's own.
	Name string
	// Check returns nil when healthy. Its context ends after HealthCheckTimeout (or
	// earlier, with the request). Its error is logged, never sent: the health paths
	// are public (PublicInfoPaths).
	Check func(ctx context.Context) error
}

// HealthCheckTimeout bounds one run of a HealthCheck, as kube-apiserver's
// DefaultHealthcheckTimeout bounds its etcd probe: a check that does not answer in
// time has failed.
const HealthCheckTimeout = 2 * time.Second

// healthCheckInterval is the least time between two runs of one check. Requests in
// between get the last result, as kube-apiserver's etcd check answers with its last
// probe's error when its rate limiter (one probe per half its timeout) says no: the
// health paths are public, and anonymous probes must not be able to load the backend.
const healthCheckInterval = HealthCheckTimeout / 2

// pingCheck is kube's "ping", first on every health endpoint: the server answers.
var pingCheck = HealthCheck{Name: "ping", Check: func(context.Context) error { return nil }}

// healthRunner runs one check at most once per healthCheckInterval, one run at a time,
// and shares the result with the requests that come meanwhile.
type healthRunner struct {
	HealthCheck
	mu      sync.Mutex
	ranAt   time.Time
	lastErr error
}

func (c *healthRunner) run(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ranAt.IsZero() && time.Since(c.ranAt) < healthCheckInterval {
		return c.lastErr
	}
	ctx, cancel := context.WithTimeout(ctx, HealthCheckTimeout)
	defer cancel()
	err := c.Check(ctx)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("check did not finish in %s: %w", HealthCheckTimeout, ctx.Err())
	}
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		// The client went away: its result says nothing about the next request.
		return err
	}
	c.ranAt, c.lastErr = time.Now(), err
	return err
}

// healthEndpoint is one of /healthz, /livez and /readyz with its checks.
type healthEndpoint struct {
	name   string // "readyz": the path without its slash, the word of the output
	checks []*healthRunner
}

// healthEndpoints are the Handler's /healthz, /livez and /readyz: kube's ping, then
// Options.LiveChecks on /livez, Options.ReadyChecks on /readyz, and both on /healthz
// (a name in both lists once), as kube-apiserver's /healthz runs every check that is
// not readiness-only.
func newHealthEndpoints(opts Options) (map[string]*healthEndpoint, error) {
	runners := func(list []HealthCheck) ([]*healthRunner, error) {
		out := []*healthRunner{{HealthCheck: pingCheck}}
		seen := map[string]bool{pingCheck.Name: true}
		for _, c := range list {
			if !validHealthCheckName(c.Name) {
				return nil, fmt.Errorf("rest: health check name %q: want letters, digits, '-', '_' or '.'", c.Name)
			}
			if seen[c.Name] {
				return nil, fmt.Errorf("rest: health check %q given twice", c.Name)
			}
			if c.Check == nil {
				return nil, fmt.Errorf("rest: health check %q has no Check", c.Name)
			}
			seen[c.Name] = true
			out = append(out, &healthRunner{HealthCheck: c})
		}
		return out, nil
	}
	live, err := runners(opts.LiveChecks)
	if err != nil {
		return nil, fmt.Errorf("%w (Options.LiveChecks)", err)
	}
	ready, err := runners(opts.ReadyChecks)
	if err != nil {
		return nil, fmt.Errorf("%w (Options.ReadyChecks)", err)
	}
	all := append([]*healthRunner(nil), live...)
	inLive := make(map[string]bool, len(live))
	for _, c := range live {
		inLive[c.Name] = true
	}
	for _, c := range ready {
		if !inLive[c.Name] {
			all = append(all, c)
		}
	}
	return map[string]*healthEndpoint{
		"/healthz": {name: "healthz", checks: all},
		"/livez":   {name: "livez", checks: live},
		"/readyz":  {name: "readyz", checks: ready},
	}, nil
}

func validHealthCheckName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// serveHealth answers /healthz, /livez, /readyz and their single checks when path is
// one of them, in kube-apiserver's text (k8s.io/apiserver/pkg/server/healthz), and
// reports whether it did.
func (h *Handler) serveHealth(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	for root, ep := range h.health {
		if p != root && !strings.HasPrefix(p, root+"/") {
			continue
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.writeStatus(w, r, errMethodNotAllowed())
			return true
		}
		if p == root {
			h.serveHealthEndpoint(w, r, ep)
			return true
		}
		name := p[len(root)+1:]
		for _, c := range ep.checks {
			if c.Name == name {
				h.serveOneCheck(w, r, ep, c)
				return true
			}
		}
		h.writeStatus(w, r, errPathNotFound())
		return true
	}
	return false
}

// serveHealthEndpoint runs every check of ep but the excluded ones: 200 "ok" when all
// pass (each listed with "check passed" under ?verbose), 500 with every check listed
// when one fails. A failure's reason is withheld, as kube withholds it on these public
// paths, and logged instead.
func (h *Handler) serveHealthEndpoint(w http.ResponseWriter, r *http.Request, ep *healthEndpoint) {
	query := r.URL.Query()
	excluded := make(map[string]bool, len(query["exclude"]))
	for _, name := range query["exclude"] {
		excluded[name] = true
	}
	var out strings.Builder
	var failed []string
	for _, c := range ep.checks {
		if excluded[c.Name] {
			delete(excluded, c.Name)
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name)
			continue
		}
		if err := c.run(r.Context()); err != nil {
			h.log.Warn("rest: health check failed", "endpoint", ep.name, "check", c.Name, "err", err)
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name)
			failed = append(failed, c.Name)
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.Name)
	}
	if len(excluded) > 0 {
		unknown := make([]string, 0, len(excluded))
		for name := range excluded {
			unknown = append(unknown, strconv.Quote(name))
		}
		sort.Strings(unknown)
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(unknown, ","))
	}
	if len(failed) > 0 {
		http.Error(w, out.String()+ep.name+" check failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if _, verbose := query["verbose"]; !verbose {
		_, _ = w.Write([]byte("ok"))
		return
	}
	_, _ = w.Write([]byte(out.String() + ep.name + " check passed\n"))
}

// serveOneCheck runs one check: "ok", or a 500 "internal server error". kube's
// /readyz/NAME shows the check's error, but kube serves it to monitoring users only;
// here it is public, so the reason is withheld and logged as on the endpoint itself.
func (h *Handler) serveOneCheck(w http.ResponseWriter, r *http.Request, ep *healthEndpoint, c *healthRunner) {
	if err := c.run(r.Context()); err != nil {
		h.log.Warn("rest: health check failed", "endpoint", ep.name, "check", c.Name, "err", err)
		http.Error(w, "internal server error: reason withheld", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte("ok"))
}
