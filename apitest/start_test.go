package apitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/rest/discovery"
	"github.com/apikit-dev/apikit/scheme"
)

// Start's server, with its controllers and CRD server, runs until its context ends or
// Close: either stops everything it started and removes its kubeconfig's directory.
func TestStart_RunsUntilItsContextEndsOrClose(t *testing.T) {
	tests := []struct {
		name string
		stop func(srv *apitest.Server, cancel context.CancelFunc)
	}{
		{name: "Close", stop: func(srv *apitest.Server, _ context.CancelFunc) {
			if err := srv.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}},
		{name: "the end of Start's context", stop: func(_ *apitest.Server, cancel context.CancelFunc) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			baseline := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			srv, err := apitest.Start(ctx, testapi.NewScheme(), apitest.Options{Controllers: true, CRDAPI: true})
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if code, body := do(t, srv.Client(), "POST", srv.URL+widgetsPath, widgetJSON("w1"), nil); code != http.StatusCreated {
				t.Errorf("POST widget = %d %s, want 201", code, body)
			}
			tt.stop(srv, cancel)
			waitForGoroutines(t, baseline)
			if _, err := os.Stat(filepath.Dir(srv.KubeconfigPath)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after %s, stat of the kubeconfig's directory = %v, want it removed", tt.name, err)
			}
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			if resp, err := c.Get(srv.URL + "/healthz"); err == nil {
				resp.Body.Close()
				t.Errorf("GET /healthz after %s = %d, want a connection error", tt.name, resp.StatusCode)
			}
			if err := srv.Close(); err != nil {
				t.Errorf("Close after %s: %v", tt.name, err)
			}
		})
	}
}

// The server copies what it adds to Options.REST: a test may share one Options between
// servers, and its maps and slices stay as it made them.
func TestNewServer_LeavesOptionsRESTAsItWas(t *testing.T) {
	s := testapi.NewScheme()
	if err := builtin.AddRBACToScheme(s); err != nil {
		t.Fatal(err)
	}
	widgets := scheme.GroupResource{Group: testapi.Group, Resource: "widgets"}
	opts := apitest.Options{
		REST: rest.Options{
			Strategies: map[scheme.GroupResource]registry.Strategy{widgets: rejectAll{}},
			LiveChecks: make([]rest.HealthCheck, 0, 8),
		},
		Controllers: true,
	}
	before := maps.Clone(opts.REST.Strategies)
	for range 2 {
		apitest.NewServer(t, s, opts)
	}
	if !maps.EqualFunc(opts.REST.Strategies, before, func(a, b registry.Strategy) bool { return a == b }) {
		t.Errorf("REST.Strategies after NewServer has %d entries, want the %d given", len(opts.REST.Strategies), len(before))
	}
	if got := opts.REST.LiveChecks[:cap(opts.REST.LiveChecks)]; got[0].Name != "" {
		t.Errorf("REST.LiveChecks' backing array holds %q after NewServer, want it untouched", got[0].Name)
	}
	if opts.REST.Clock != nil || opts.REST.Authorizer != nil || opts.REST.GarbageCollection {
		t.Errorf("REST was filled in by NewServer: Clock %v, Authorizer %v, GarbageCollection %v", opts.REST.Clock != nil, opts.REST.Authorizer, opts.REST.GarbageCollection)
	}
}

func TestOptionsDiscovery_ReplacesTheDefault(t *testing.T) {
	tests := []struct {
		name      string
		discovery *discovery.Options
		want      string
	}{
		{name: "nil serves the default version", want: discovery.DefaultVersion().GitVersion},
		{name: "set serves its own", discovery: &discovery.Options{Version: discovery.VersionInfo{GitVersion: "v1.99.0+test"}}, want: "v1.99.0+test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apitest.NewServer(t, testapi.NewScheme(), apitest.Options{Discovery: tt.discovery})
			code, body := do(t, srv.Client(), "GET", srv.URL+"/version", "", nil)
			var v discovery.VersionInfo
			if err := json.Unmarshal(body, &v); err != nil || code != http.StatusOK || v.GitVersion != tt.want {
				t.Errorf("GET /version = %d %s (%v), want gitVersion %q", code, body, err, tt.want)
			}
		})
	}
}
