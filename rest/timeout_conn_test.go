package rest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// stalledStore is a memory store whose calls on keys ending in "/stalled" do not return
// before their context ends, as over an etcd that is down.
type stalledStore struct{ *memory.Store }

func stalled(ctx context.Context, key string) bool {
	if !strings.HasSuffix(key, "/stalled") {
		return false
	}
	<-ctx.Done()
	return true
}

func (s stalledStore) Get(ctx context.Context, key string, opts storage.GetOptions) (scheme.Object, error) {
	if stalled(ctx, key) {
		return nil, storage.WithKey(ctx.Err(), key)
	}
	return s.Store.Get(ctx, key, opts)
}

func (s stalledStore) Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error) {
	if stalled(ctx, key) {
		return nil, storage.WithKey(ctx.Err(), key)
	}
	return s.Store.Create(ctx, key, obj)
}

// A request that reads a body (a DELETE's options, even empty, or an object) and then
// runs out of time is kube's 504 Timeout, and so is the next one on the same keep-alive
// connection when it runs out of time too; a request that does not is served: the
// deadline that bounded the body's read must not outlive it, else net/http's read of
// the idle connection fails at that deadline and cancels the connection's context, and
// every later request on the connection fails at once with a 500 "context canceled".
func TestRequestDeadline_RequestsAfterOneThatTimedOutOnTheSameConnection(t *testing.T) {
	mem := memory.New(memory.Options{})
	t.Cleanup(mem.Close)
	s := newServer(t, func(o *rest.Options) { o.Storage = stalledStore{mem} })
	s.create("a", "blue")
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)
	stalledBody := widgetJSON("stalled", "blue")
	for i, tc := range []struct {
		name, method, path, body string
		code                     int
	}{
		{"a DELETE without a body that times out", "DELETE", widgetsPath + "/stalled?timeout=200ms", "", http.StatusGatewayTimeout},
		{"the next DELETE that times out", "DELETE", widgetsPath + "/stalled?timeout=200ms", "", http.StatusGatewayTimeout},
		{"a DELETE with options that times out", "DELETE", widgetsPath + "/stalled?timeout=200ms", `{"kind":"DeleteOptions","apiVersion":"v1"}`, http.StatusGatewayTimeout},
		{"a create that times out", "POST", widgetsPath + "?timeout=200ms", stalledBody, http.StatusGatewayTimeout},
		{"a get after them", "GET", widgetsPath + "/a", "", http.StatusOK},
		{"a create after them", "POST", widgetsPath, widgetJSON("b", "blue"), http.StatusCreated},
	} {
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), tc.method, s.url+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if i > 0 && !reused {
			t.Fatalf("%s: sent on a new connection; the test needs the one before", tc.name)
		}
		r := response{code: res.StatusCode, header: res.Header, body: body}
		if r.code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, r.code, body, tc.code)
			continue
		}
		if tc.code == http.StatusGatewayTimeout {
			if st := statusOf(t, r); st["reason"] != "Timeout" || st["message"] != "Timeout: request did not complete within the allotted timeout" {
				t.Errorf("%s: %v %q, want kube's 504 Timeout", tc.name, st["reason"], st["message"])
			}
		}
	}
}
