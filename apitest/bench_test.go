package apitest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/internal/testapi"
)

// BenchmarkNewServer measures a server's life in a test: start and the first request
// (GET /healthz on a new connection), which should take well under 10 ms, and, in the
// full-life case, the stop as well.
func BenchmarkNewServer(b *testing.B) {
	s := testapi.NewScheme()
	firstRequest := func(b *testing.B, srv *apitest.Server) {
		resp, err := srv.Client().Get(srv.URL + "/healthz")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET /healthz = %d, want 200", resp.StatusCode)
		}
	}
	cases := []struct {
		name      string
		timeClose bool
		opts      apitest.Options
	}{
		{name: "StartAndFirstRequest"},
		{name: "StartFirstRequestAndStop", timeClose: true},
		{name: "TLSStartFirstRequestAndStop", timeClose: true, opts: apitest.Options{TLS: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv := apitest.NewServer(b, s, c.opts)
				firstRequest(b, srv)
				if !c.timeClose {
					b.StopTimer()
				}
				if err := srv.Close(); err != nil {
					b.Fatal(err)
				}
				if !c.timeClose {
					b.StartTimer()
				}
			}
		})
	}
}
