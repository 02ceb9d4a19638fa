package controller

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/server"
	apikitrest "github.com/apikit-dev/apikit/rest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
)

// waitTimeout bounds every wait for the controller to catch up.
const waitTimeout = 30 * time.Second

// lockedBuffer is a bytes.Buffer that a logger and the test may use from different
// goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestController_StatusFollowsSpecOnResttestServer runs the controller against a complete
// apikit server (package apitest with the example scheme and strategies) through client-go:
// created Widgets get their status, spec changes (by update and through the scale
// subresource) are followed with the new observedGeneration, deleted Widgets are let go,
// and nothing fails on the way.
func TestController_StatusFollowsSpecOnResttestServer(t *testing.T) {
	srv := apitest.NewServer(t, api.NewScheme(), apitest.Options{REST: apikitrest.Options{Strategies: server.Strategies()}})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		t.Fatalf("reading the apitest kubeconfig: %v", err)
	}
	// The controller's client keeps client-go's default client-side rate limit (5 QPS,
	// burst 10), as a real controller would; the test's own client, which polls, gets
	// its own limiter so that polling does not slow the controller down.
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	testCfg := rest.CopyConfig(cfg)
	testCfg.QPS, testCfg.Burst = 1000, 1000
	testClient, err := dynamic.NewForConfig(testCfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	ctrl, err := New(client, Options{
		Workers:     2,
		RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 100*time.Millisecond),
		Logger:      slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := runController(t, ctrl)
	defer stop()
	widgets := testClient.Resource(WidgetsResource)

	created := []struct {
		namespace, name string
		replicas        *int64
		want            Status
	}{
		{"default", "idle", new(int64(0)), Status{Phase: PhasePending, Replicas: 0}},
		{"default", "busy", new(int64(3)), Status{Phase: PhaseReady, Replicas: 3}},
		{"default", "defaulted", nil, Status{Phase: PhaseReady, Replicas: 1}},
		{"elsewhere", "far", new(int64(2)), Status{Phase: PhaseReady, Replicas: 2}},
	}
	for _, c := range created {
		if _, err := widgets.Namespace(c.namespace).Create(t.Context(), newWidget(c.namespace, c.name, c.replicas, 0), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating widget %s/%s: %v", c.namespace, c.name, err)
		}
	}
	t.Run("created widgets get their status", func(t *testing.T) {
		for _, c := range created {
			w := waitForStatus(t, widgets, c.namespace, c.name, c.want)
			if w.GetGeneration() != 1 {
				t.Errorf("widget %s/%s: generation = %d after the status update, want 1 (status changes do not bump it)", c.namespace, c.name, w.GetGeneration())
			}
		}
	})

	changes := []struct {
		desc            string
		namespace, name string
		change          func(ctx context.Context) error
		want            Status
	}{
		{
			desc: "update from 0 to 2 replicas makes it Ready", namespace: "default", name: "idle",
			change: func(ctx context.Context) error { return setReplicas(ctx, widgets, "default", "idle", 2) },
			want:   Status{Phase: PhaseReady, Replicas: 2},
		},
		{
			desc: "update from 3 to 0 replicas makes it Pending", namespace: "default", name: "busy",
			change: func(ctx context.Context) error { return setReplicas(ctx, widgets, "default", "busy", 0) },
			want:   Status{Phase: PhasePending, Replicas: 0},
		},
		{
			desc: "scaling through the scale subresource is followed", namespace: "elsewhere", name: "far",
			change: func(ctx context.Context) error {
				_, err := widgets.Namespace("elsewhere").Patch(ctx, "far", types.MergePatchType, []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}, "scale")
				return err
			},
			want: Status{Phase: PhaseReady, Replicas: 5},
		},
	}
	for _, c := range changes {
		t.Run(c.desc, func(t *testing.T) {
			before, err := widgets.Namespace(c.namespace).Get(t.Context(), c.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.change(t.Context()); err != nil {
				t.Fatalf("changing widget %s/%s: %v", c.namespace, c.name, err)
			}
			w := waitForStatus(t, widgets, c.namespace, c.name, c.want)
			if w.GetGeneration() <= before.GetGeneration() {
				t.Errorf("generation = %d after a spec change, want more than %d", w.GetGeneration(), before.GetGeneration())
			}
		})
	}

	t.Run("deleted widgets are gone and let go", func(t *testing.T) {
		for _, c := range created {
			if err := widgets.Namespace(c.namespace).Delete(t.Context(), c.name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("deleting widget %s/%s: %v", c.namespace, c.name, err)
			}
		}
		err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, waitTimeout, true, func(ctx context.Context) (bool, error) {
			list, err := widgets.List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			return len(list.Items) == 0 && len(ctrl.informer.GetStore().ListKeys()) == 0 && ctrl.queue.Len() == 0, nil
		})
		if err != nil {
			t.Fatalf("widgets still listed, cached or queued after delete: %v", err)
		}
	})

	stop()
	if got := logs.String(); got != "" {
		t.Errorf("controller logged errors:\n%s", got)
	}
}

// setReplicas sets spec.replicas of a Widget with a read-modify-write PUT, retried on
// conflict (the controller may update the status in between).
func setReplicas(ctx context.Context, widgets dynamic.NamespaceableResourceInterface, namespace, name string, replicas int64) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w, err := widgets.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(w.Object, replicas, "spec", "replicas"); err != nil {
			return err
		}
		_, err = widgets.Namespace(namespace).Update(ctx, w, metav1.UpdateOptions{})
		return err
	})
}

// waitForStatus polls the server until the Widget's status has want's phase and replicas
// and an observedGeneration equal to its generation, and returns the Widget. It fails the
// test after waitTimeout.
func waitForStatus(t *testing.T, widgets dynamic.NamespaceableResourceInterface, namespace, name string, want Status) *unstructured.Unstructured {
	t.Helper()
	var last *unstructured.Unstructured
	var lastStatus Status
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, waitTimeout, true, func(ctx context.Context) (bool, error) {
		w, err := widgets.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, fmt.Errorf("widget %s/%s disappeared: %w", namespace, name, err)
		}
		if err != nil {
			return false, nil // a passing failure; the poll bound still holds
		}
		last = w
		if lastStatus, err = CurrentStatus(w); err != nil {
			return false, err
		}
		want.ObservedGeneration = w.GetGeneration()
		return lastStatus == want, nil
	})
	if err != nil {
		generation := int64(0)
		if last != nil {
			generation = last.GetGeneration()
		}
		t.Fatalf("widget %s/%s: status = %+v at generation %d, want %+v with observedGeneration = generation: %v",
			namespace, name, lastStatus, generation, want, err)
	}
	return last
}
