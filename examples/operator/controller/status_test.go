package controller

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
)

// newWidget returns an unstructured v1 Widget; a nil replicas leaves spec.replicas out.
func newWidget(namespace, name string, replicas *int64, generation int64) *unstructured.Unstructured {
	spec := map[string]any{"color": "red"}
	if replicas != nil {
		spec["replicas"] = *replicas
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": WidgetsResource.GroupVersion().String(),
		"kind":       "Widget",
		"metadata":   map[string]any{"namespace": namespace, "name": name},
		"spec":       spec,
	}}
	u.SetGeneration(generation)
	return u
}

func TestDesiredStatus(t *testing.T) {
	tests := []struct {
		name    string
		widget  *unstructured.Unstructured
		want    Status
		wantErr bool
	}{
		{name: "zero replicas is Pending", widget: newWidget("ns", "a", new(int64(0)), 1),
			want: Status{Phase: PhasePending, Replicas: 0, ObservedGeneration: 1}},
		{name: "one replica is Ready", widget: newWidget("ns", "a", new(int64(1)), 2),
			want: Status{Phase: PhaseReady, Replicas: 1, ObservedGeneration: 2}},
		{name: "many replicas are Ready and copied", widget: newWidget("ns", "a", new(int64(7)), 5),
			want: Status{Phase: PhaseReady, Replicas: 7, ObservedGeneration: 5}},
		{name: "missing replicas count as the default one", widget: newWidget("ns", "a", nil, 3),
			want: Status{Phase: PhaseReady, Replicas: 1, ObservedGeneration: 3}},
		{name: "negative replicas are an error", widget: newWidget("ns", "a", new(int64(-1)), 1), wantErr: true},
		{name: "non-integer replicas are an error", widget: func() *unstructured.Unstructured {
			w := newWidget("ns", "a", nil, 1)
			w.Object["spec"].(map[string]any)["replicas"] = "three"
			return w
		}(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DesiredStatus(tt.widget)
			if (err != nil) != tt.wantErr {
				t.Fatalf("DesiredStatus() error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("DesiredStatus() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestStatus_ApplyRoundTripsThroughCurrentStatusAndKeepsConditions(t *testing.T) {
	w := newWidget("ns", "a", new(int64(2)), 4)
	conditions := []any{map[string]any{"type": "Painted", "status": "True"}}
	w.Object["status"] = map[string]any{"conditions": conditions}
	want := Status{Phase: PhaseReady, Replicas: 2, ObservedGeneration: 4}
	if err := want.apply(w); err != nil {
		t.Fatalf("apply: %v", err)
	}
	got, err := CurrentStatus(w)
	if err != nil {
		t.Fatalf("CurrentStatus: %v", err)
	}
	if got != want {
		t.Errorf("CurrentStatus after apply = %+v, want %+v", got, want)
	}
	kept, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
	if len(kept) != 1 {
		t.Errorf("status.conditions after apply = %v, want the one condition kept", kept)
	}
}

func TestCurrentStatus_MissingFieldsReadAsZero(t *testing.T) {
	got, err := CurrentStatus(newWidget("ns", "a", nil, 1))
	if err != nil {
		t.Fatalf("CurrentStatus: %v", err)
	}
	if got != (Status{}) {
		t.Errorf("CurrentStatus of a widget without status = %+v, want zero", got)
	}
}

func TestNew_RejectsNilClient(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Fatal("New(nil) succeeded, want an error")
	}
}

// TestController_RetriesStatusUpdateAfterConflict drives the controller with client-go's
// fake dynamic client whose first status update answers 409 Conflict: the key must come
// back through the rate limiter and the second update must land.
func TestController_RetriesStatusUpdateAfterConflict(t *testing.T) {
	widget := newWidget("default", "clash", new(int64(3)), 1)
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{WidgetsResource: "WidgetList"}, widget)
	var statusUpdates atomic.Int32
	client.PrependReactor("update", "widgets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "status" {
			return false, nil, nil
		}
		if statusUpdates.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(WidgetsResource.GroupResource(), "clash", errors.New("the object has been modified"))
		}
		return false, nil, nil // let the object tracker store it
	})
	ctrl, err := New(client, Options{RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	stop := runController(t, ctrl)
	defer stop()

	want := Status{Phase: PhaseReady, Replicas: 3, ObservedGeneration: 1}
	var got Status
	err = wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := client.Resource(WidgetsResource).Namespace("default").Get(ctx, "clash", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got, err = CurrentStatus(u)
		return got == want, err
	})
	if err != nil {
		t.Fatalf("status never became %+v (last %+v): %v", want, got, err)
	}
	if n := statusUpdates.Load(); n < 2 {
		t.Errorf("status updates = %d, want at least 2 (a conflict, then a retry)", n)
	}
}

func TestController_RunEndsWithErrorWhenCancelledBeforeSyncAndOnlyOnce(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{WidgetsResource: "WidgetList"})
	ctrl, err := New(client, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ctrl.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v, want an error wrapping context.Canceled", err)
	}
	if err := ctrl.Run(ctx); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("second Run = %v, want the called-more-than-once error", err)
	}
}

// runController runs ctrl in a goroutine and returns a function that cancels it and
// fails the test unless Run returns nil within a bound. The function may be called more
// than once; only the first call waits.
func runController(t *testing.T, ctrl *Controller) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	var once sync.Once
	return func() {
		t.Helper()
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v, want nil after cancel", err)
				}
			case <-time.After(waitTimeout):
				t.Errorf("Run did not return within %v of cancel", waitTimeout)
			}
		})
	}
}
