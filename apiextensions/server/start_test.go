package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	crdserver "github.com/apikit-dev/apikit/apiextensions/server"
	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// A Handler follows the stored CRDs in a goroutine that ends with Start's context or
// Close: after either, it has stopped (the goroutine count is back to what it was) and a
// CRD applied is stored but never established.
func TestStart_FollowsTheCRDsUntilItsContextEndsOrClose(t *testing.T) {
	tests := []struct {
		name string
		stop func(h *crdserver.Handler, cancel context.CancelFunc)
	}{
		{name: "Close", stop: func(h *crdserver.Handler, _ context.CancelFunc) { _ = h.Close() }},
		{name: "the end of Start's context", stop: func(_ *crdserver.Handler, cancel context.CancelFunc) { cancel() }},
	}
	var crd apiextensions.CustomResourceDefinition
	if err := json.Unmarshal([]byte(gizmoCRD), &crd); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.New(memory.Options{})
			defer store.Close()
			before := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			h, err := crdserver.Start(ctx, crdserver.Options{Scheme: scheme.New(), Storage: store, REST: rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			tt.stop(h, cancel)
			deadline := time.Now().Add(10 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			t.Logf("after %s: %d goroutines (%d before Start)", tt.name, runtime.NumGoroutine(), before)
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after %s, %d before Start", n, tt.name, before)
			}
			// Nothing reconciles any more: the CRD is stored and never established.
			actx, acancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer acancel()
			if err := h.Apply(actx, &crd); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Apply after %s = %v, want it to wait in vain (context.DeadlineExceeded)", tt.name, err)
			}
			if _, err := store.Get(t.Context(), storage.Key(apiextensions.Resource, "", crd.Name), storage.GetOptions{}); err != nil {
				t.Errorf("the applied CRD is not stored: %v", err)
			}
		})
	}
}
