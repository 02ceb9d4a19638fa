package controller

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestReconcile checks one reconcile of a cached Widget against client-go's fake dynamic
// client, without running the informer: which status update it sends, if any, and which
// outcomes it reports as errors to retry.
func TestReconcile(t *testing.T) {
	withStatus := func(w *unstructured.Unstructured, s Status) *unstructured.Unstructured {
		if err := s.apply(w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	tests := []struct {
		name        string
		cached      *unstructured.Unstructured // nil: not in the cache
		updateErr   error                      // what the server answers a status update
		wantUpdate  *Status                    // the status sent, nil: no update sent
		wantErr     bool
		wantErrType func(error) bool
	}{
		{name: "a widget without status gets one",
			cached:     newWidget("ns", "w", new(int64(2)), 3),
			wantUpdate: &Status{Phase: PhaseReady, Replicas: 2, ObservedGeneration: 3}},
		{name: "a widget whose spec changed gets the new generation",
			cached:     withStatus(newWidget("ns", "w", new(int64(0)), 4), Status{Phase: PhaseReady, Replicas: 2, ObservedGeneration: 3}),
			wantUpdate: &Status{Phase: PhasePending, Replicas: 0, ObservedGeneration: 4}},
		{name: "a widget whose status is right is left alone",
			cached: withStatus(newWidget("ns", "w", new(int64(2)), 3), Status{Phase: PhaseReady, Replicas: 2, ObservedGeneration: 3})},
		{name: "a widget gone from the cache needs nothing"},
		{name: "a widget with a malformed spec is not retried",
			cached: newWidget("ns", "w", new(int64(-3)), 1)},
		{name: "a widget deleted before the update is done",
			cached:     newWidget("ns", "w", new(int64(1)), 1),
			updateErr:  apierrors.NewNotFound(WidgetsResource.GroupResource(), "w"),
			wantUpdate: &Status{Phase: PhaseReady, Replicas: 1, ObservedGeneration: 1}},
		{name: "a conflict is reported for a rate-limited retry",
			cached:      newWidget("ns", "w", new(int64(1)), 1),
			updateErr:   apierrors.NewConflict(WidgetsResource.GroupResource(), "w", errors.New("stale")),
			wantUpdate:  &Status{Phase: PhaseReady, Replicas: 1, ObservedGeneration: 1},
			wantErr:     true,
			wantErrType: apierrors.IsConflict},
		{name: "a server error is reported for a rate-limited retry",
			cached:      newWidget("ns", "w", new(int64(1)), 1),
			updateErr:   apierrors.NewInternalError(errors.New("boom")),
			wantUpdate:  &Status{Phase: PhaseReady, Replicas: 1, ObservedGeneration: 1},
			wantErr:     true,
			wantErrType: apierrors.IsInternalError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{WidgetsResource: "WidgetList"})
			var sent []*unstructured.Unstructured
			client.PrependReactor("update", "widgets", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if action.GetSubresource() != "status" {
					t.Errorf("update of subresource %q, want only status updates", action.GetSubresource())
				}
				obj := action.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
				sent = append(sent, obj)
				if tt.updateErr != nil {
					return true, nil, tt.updateErr
				}
				return true, obj, nil
			})
			ctrl, err := New(client, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.cached != nil {
				if err := ctrl.informer.GetIndexer().Add(tt.cached); err != nil {
					t.Fatal(err)
				}
			}

			err = ctrl.reconcile(t.Context(), "ns/w")
			if (err != nil) != tt.wantErr || (err != nil && !tt.wantErrType(err)) {
				t.Fatalf("reconcile() error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantUpdate == nil {
				if len(sent) != 0 {
					t.Fatalf("reconcile sent %d status updates, want none", len(sent))
				}
				return
			}
			if len(sent) != 1 {
				t.Fatalf("reconcile sent %d status updates, want 1", len(sent))
			}
			got, err := CurrentStatus(sent[0])
			if err != nil {
				t.Fatal(err)
			}
			if got != *tt.wantUpdate {
				t.Errorf("status sent = %+v, want %+v", got, *tt.wantUpdate)
			}
			if tt.cached != nil && sent[0].GetName() != "w" {
				t.Errorf("status sent for %q, want w", sent[0].GetName())
			}
		})
	}
}
