package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// failingWrites is a memory store whose creates fail with err.
type failingWrites struct {
	*memory.Store
	err error
}

func (s failingWrites) Create(context.Context, string, scheme.Object) (scheme.Object, error) {
	return nil, s.err
}

// A write the store may have applied (storage.ErrTimeout) is answered as kube-apiserver
// answers it, never with the 503 "please try again" of a write that was not applied nor
// with a Retry-After (client-go sends a 5xx with one again, and a retried generateName
// create is a second object): the etcd client's text in a 500 with no reason when the
// store has it, else the 504 Timeout of a request that ran out of time.
func TestWrites_OfUnknownOutcomeAreNotToldToTryAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		code    int
		reason  string
		message string
	}{
		{"etcd's own timeout", storage.NewErrorf(storage.ErrTimeout, "/toys.example.com/widgets/default/x", "etcdserver: request timed out"),
			http.StatusInternalServerError, "", "etcdserver: request timed out"},
		{"no answer in time", storage.NewError(storage.ErrTimeout, "/toys.example.com/widgets/default/x"),
			http.StatusGatewayTimeout, "Timeout", "Timeout: request did not complete within the allotted timeout"},
		{"a write that was not applied", storage.NewErrorf(storage.ErrUnavailable, "/toys.example.com/widgets/default/x", "storage is unavailable, please try again"),
			http.StatusServiceUnavailable, "ServiceUnavailable", "storage is unavailable, please try again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.New(memory.Options{})
			t.Cleanup(mem.Close)
			s := newServer(t, func(o *rest.Options) { o.Storage = failingWrites{mem, tc.err} })
			r := s.do("POST", widgetsPath, "application/json", `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"generateName":"gen-"},"spec":{"color":"blue"}}`)
			st := statusOf(t, r)
			reason, _ := st["reason"].(string)
			if r.code != tc.code || reason != tc.reason || st["message"] != tc.message {
				t.Errorf("%d %q %q, want %d %q %q", r.code, reason, st["message"], tc.code, tc.reason, tc.message)
			}
			if tc.code != http.StatusServiceUnavailable && (r.header.Get("Retry-After") != "" || strings.Contains(string(r.body), "try again")) {
				t.Errorf("Retry-After %q, %s: an unknown outcome must not invite a retry", r.header.Get("Retry-After"), r.body)
			}
		})
	}
}
