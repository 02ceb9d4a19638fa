package rest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage/memory"
)

// errSecret is a check's error whose text must never reach a (public) response.
var errSecret = errors.New("dial tcp 10.0.0.7:2379: connection refused")

func failing(context.Context) error { return errSecret }
func passing(context.Context) error { return nil }

func TestHealth_ChecksInKubesFormat(t *testing.T) {
	failingEtcd := func(o *rest.Options) {
		o.ReadyChecks = []rest.HealthCheck{{Name: "etcd", Check: failing}, {Name: "informer-sync", Check: passing}}
		o.LiveChecks = []rest.HealthCheck{{Name: "deadlock", Check: passing}}
	}
	healthyEtcd := func(o *rest.Options) {
		o.ReadyChecks = []rest.HealthCheck{{Name: "etcd", Check: passing}}
	}
	for _, tc := range []struct {
		name, path string
		mod        func(*rest.Options)
		code       int
		body       string
	}{
		{"no checks but ping is ok", "/readyz", nil, 200, "ok"},
		{"no checks verbose lists ping", "/readyz?verbose", nil, 200, "[+]ping ok\nreadyz check passed\n"},
		{"passing checks are ok", "/readyz", healthyEtcd, 200, "ok"},
		{"passing checks verbose lists each", "/readyz?verbose", healthyEtcd, 200, "[+]ping ok\n[+]etcd ok\nreadyz check passed\n"},
		{"a failing check fails readyz verbosely without its reason", "/readyz", failingEtcd, 500,
			"[+]ping ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\nreadyz check failed\n"},
		{"an excluded failing check passes", "/readyz?exclude=etcd", failingEtcd, 200, "ok"},
		{"an excluded check is listed as excluded", "/readyz?exclude=etcd&verbose", failingEtcd, 200,
			"[+]ping ok\n[+]etcd excluded: ok\n[+]informer-sync ok\nreadyz check passed\n"},
		{"an unknown exclusion is warned about", "/readyz?exclude=nope&exclude=etcd&exclude=abc&verbose", failingEtcd, 200,
			"[+]ping ok\n[+]etcd excluded: ok\n[+]informer-sync ok\nwarn: some health checks cannot be excluded: no matches for \"abc\",\"nope\"\nreadyz check passed\n"},
		{"a ready check is not a live check", "/livez?verbose", failingEtcd, 200, "[+]ping ok\n[+]deadlock ok\nlivez check passed\n"},
		{"healthz runs live and ready checks", "/healthz", failingEtcd, 500,
			"[+]ping ok\n[+]deadlock ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\nhealthz check failed\n"},
		{"a single failing check withholds its reason", "/readyz/etcd", failingEtcd, 500, "internal server error: reason withheld\n"},
		{"a single passing check is ok", "/readyz/informer-sync", failingEtcd, 200, "ok"},
		{"ping is a single check", "/livez/ping", failingEtcd, 200, "ok"},
		{"a ready check is not under livez", "/livez/etcd", failingEtcd, 404, ""},
		{"an unknown check is not found", "/readyz/nope", nil, 404, ""},
		{"a path below a check is not found", "/readyz/ping/more", nil, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.mod)
			r := s.do("GET", tc.path, "", "")
			if r.code != tc.code {
				t.Fatalf("GET %s: %d %q, want %d", tc.path, r.code, r.body, tc.code)
			}
			if strings.Contains(string(r.body), "10.0.0.7") {
				t.Errorf("GET %s shows the check's error: %q", tc.path, r.body)
			}
			if tc.code == 404 {
				if r.json(t)["reason"] != "NotFound" {
					t.Errorf("GET %s: %s, want a NotFound Status", tc.path, r.body)
				}
				return
			}
			if string(r.body) != tc.body {
				t.Errorf("GET %s body:\n%q\nwant\n%q", tc.path, r.body, tc.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("GET %s Content-Type %q", tc.path, ct)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s without X-Content-Type-Options: nosniff", tc.path)
			}
		})
	}
}

func TestHealth_ACheckThatDoesNotAnswerFailsAfterItsTimeout(t *testing.T) {
	s := newServer(t, func(o *rest.Options) {
		o.ReadyChecks = []rest.HealthCheck{{Name: "etcd", Check: func(ctx context.Context) error {
			<-ctx.Done() // a backend that never answers
			return ctx.Err()
		}}}
	})
	if r := s.do("GET", "/readyz/etcd", "", ""); r.code != 500 {
		t.Errorf("GET /readyz/etcd of a hung check: %d %q, want 500", r.code, r.body)
	}
}

func TestHealth_AWriteIsMethodNotAllowed(t *testing.T) {
	s := newServer(t, nil)
	for _, p := range []string{"/readyz", "/readyz/ping"} {
		if r := s.do("POST", p, "", ""); r.code != 405 || r.json(t)["reason"] != "MethodNotAllowed" {
			t.Errorf("POST %s: %d %s, want 405 MethodNotAllowed", p, r.code, r.body)
		}
	}
}

func TestNew_RefusesMistakenHealthChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		checks []rest.HealthCheck
	}{
		{"an empty name", []rest.HealthCheck{{Name: "", Check: passing}}},
		{"a name with a slash", []rest.HealthCheck{{Name: "etcd/0", Check: passing}}},
		{"a name given twice", []rest.HealthCheck{{Name: "etcd", Check: passing}, {Name: "etcd", Check: passing}}},
		{"the name of kube's ping", []rest.HealthCheck{{Name: "ping", Check: passing}}},
		{"no Check", []rest.HealthCheck{{Name: "etcd"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, live := range []bool{false, true} {
				store := memory.New(memory.Options{})
				t.Cleanup(store.Close)
				opts := rest.Options{Scheme: testapi.NewScheme(), Storage: store, AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}}
				if live {
					opts.LiveChecks = tc.checks
				} else {
					opts.ReadyChecks = tc.checks
				}
				if _, err := rest.New(opts); err == nil {
					t.Errorf("New accepted %+v (live=%v)", tc.checks, live)
				}
			}
		})
	}
}
