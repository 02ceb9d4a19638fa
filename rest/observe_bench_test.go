package rest_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/internal/testapi"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/storage/memory"
)

// benchOps are the requests the handler benchmarks time: a get, a list of the ten
// widgets they create first, and a create.
var benchOps = []struct {
	name, method, path string
	want               int
}{
	{"get", "GET", widgetsPath + "/w1", http.StatusOK},
	{"list10", "GET", widgetsPath, http.StatusOK},
	{"create", "POST", widgetsPath, http.StatusCreated},
}

// BenchmarkHandler_Metrics serves GET, LIST and POST in-process (no network, so that
// the handler's own cost shows) by a bare Handler and by one with metrics, an audit log
// at Metadata to io.Discard and an access log to io.Discard, side by side.
func BenchmarkHandler_Metrics(b *testing.B) {
	configs := []struct {
		name string
		mod  func(*rest.Options)
	}{
		{"bare", func(*rest.Options) {}},
		{"metrics", func(o *rest.Options) { o.Metrics = metrics.NewRegistry() }},
		{"metrics+audit+accesslog", func(o *rest.Options) {
			o.Metrics = metrics.NewRegistry()
			o.Audit = &audit.Config{Policy: &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelMetadata}}}, Sink: audit.NewWriterSink(io.Discard)}
			o.AccessLog = slog.New(slog.NewJSONHandler(io.Discard, nil))
		}},
	}
	handlers := make([]http.Handler, len(configs))
	for i, cfg := range configs {
		store := memory.New(memory.Options{})
		b.Cleanup(store.Close)
		opts := rest.Options{Scheme: testapi.NewScheme(), Storage: store, AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}}
		cfg.mod(&opts)
		h, err := rest.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		handlers[i] = h
		for j := range 10 {
			serveBench(b, h, "POST", widgetsPath, widgetJSON("w"+strconv.Itoa(j), "blue"), http.StatusCreated)
		}
	}
	created := 0 // names of created objects are unique across runs
	for _, op := range benchOps {
		for i, cfg := range configs {
			b.Run(op.name+"/"+cfg.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					body := ""
					if op.method == "POST" {
						created++
						body = widgetJSON("c"+strconv.Itoa(created), "blue")
					}
					serveBench(b, handlers[i], op.method, op.path, body, op.want)
				}
			})
		}
	}
}

func serveBench(b *testing.B, h http.Handler, method, path, body string, want int) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
}
