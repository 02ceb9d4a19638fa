package e2e

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"k8s.io/apiserver/pkg/server/healthz"
)

// errWithheld is a failing check's error whose text is the one apikit shows in its
// place, so that kube's single-check output (which shows the error) and apikit's
// (public, so it withholds it) are comparable byte for byte.
var errWithheld = errors.New("reason withheld")

// TestHealth_SameAsKubeApiserver compares apikit's /readyz, /livez and /healthz with
// kube-apiserver's own handlers (k8s.io/apiserver/pkg/server/healthz) given the same
// checks: status code, Content-Type and body for each query.
func TestHealth_SameAsKubeApiserver(t *testing.T) {
	type check struct {
		name string
		err  error
	}
	for _, tc := range []struct {
		name   string
		checks []check
		paths  []string
	}{
		{"all pass", []check{{"etcd", nil}, {"informer-sync", nil}}, []string{
			"/readyz", "/readyz?verbose", "/readyz?verbose=false", "/readyz?exclude=etcd", "/readyz?exclude=etcd&verbose",
			"/readyz?exclude=nope&exclude=etcd&exclude=abc&verbose", "/readyz/etcd", "/readyz/ping",
		}},
		{"etcd fails", []check{{"etcd", errWithheld}, {"informer-sync", nil}}, []string{
			"/readyz", "/readyz?verbose", "/readyz?exclude=etcd", "/readyz?exclude=etcd&verbose",
			"/readyz?exclude=informer-sync", "/readyz?exclude=nope", "/readyz/etcd", "/readyz/informer-sync",
		}},
		{"two fail", []check{{"etcd", errWithheld}, {"informer-sync", errWithheld}}, []string{
			"/readyz", "/readyz?exclude=etcd&verbose", "/readyz/informer-sync",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kubeChecks := []healthz.HealthChecker{healthz.PingHealthz}
			var ours []rest.HealthCheck
			for _, c := range tc.checks {
				err := c.err
				kubeChecks = append(kubeChecks, healthz.NamedCheck(c.name, func(*http.Request) error { return err }))
				ours = append(ours, rest.HealthCheck{Name: c.name, Check: func(context.Context) error { return err }})
			}
			kube := http.NewServeMux()
			healthz.InstallReadyzHandler(kube, kubeChecks...)
			healthz.InstallLivezHandler(kube, kubeChecks...)
			healthz.InstallHandler(kube, kubeChecks...)
			srv := apitest.NewServer(t, scheme.New(), apitest.Options{REST: rest.Options{ReadyChecks: ours, LiveChecks: ours}})

			for _, path := range tc.paths {
				for _, p := range []string{path, "/livez" + path[len("/readyz"):], "/healthz" + path[len("/readyz"):]} {
					want := httptest.NewRecorder()
					kube.ServeHTTP(want, httptest.NewRequest("GET", p, nil))
					res, err := srv.Client().Get(srv.URL + p)
					if err != nil {
						t.Fatal(err)
					}
					body, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil {
						t.Fatal(err)
					}
					if res.StatusCode != want.Code || string(body) != want.Body.String() ||
						res.Header.Get("Content-Type") != want.Header().Get("Content-Type") {
						t.Errorf("GET %s: apikit %d %q %q\nkube-apiserver %d %q %q", p,
							res.StatusCode, res.Header.Get("Content-Type"), body,
							want.Code, want.Header().Get("Content-Type"), want.Body.String())
					}
				}
			}
		})
	}
}
