// Package gotest runs the Fleet operator against apikit's envtest.Environment from plain `go test`:
// no Ginkgo, no Gomega, only testing.T, for projects that do not use kubebuilder's suite.
package gotest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/apikit-dev/apikit/envtest"

	fleetv1 "github.com/apikit-dev/apikit/e2e/kubebuilder/api/v1"
	"github.com/apikit-dev/apikit/e2e/kubebuilder/internal/controller"
)

const leaderElectionID = "fleet-gotest.example.com"

var (
	k8sClient client.Client
	manager   ctrl.Manager
)

// TestMain starts one Environment and one manager for the package, as a suite would, and stops
// both after the tests.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	flag.Parse()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, fleetv1.AddToScheme} {
		if err := add(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	env := &envtest.Environment{
		Scheme:                s,
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	started := time.Now()
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Printf("envtest.Environment.Start took %v\n", time.Since(started))
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop:", err)
			code = 1
		}
	}()

	if k8sClient, err = client.New(cfg, client.Options{Scheme: s}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	manager, err = ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        s,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		LeaderElection:                true,
		LeaderElectionID:              leaderElectionID,
		LeaderElectionNamespace:       "default",
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	reconciler := &controller.FleetReconciler{
		Client:    manager.GetClient(),
		APIReader: manager.GetAPIReader(),
		Scheme:    s,
		Recorder:  manager.GetEventRecorder("fleet-controller"),
	}
	if err := reconciler.SetupWithManager(manager); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- manager.Start(ctx) }()
	code = m.Run()
	cancel()
	if err := <-stopped; err != nil {
		fmt.Fprintln(os.Stderr, "manager:", err)
		return 1
	}
	return code
}

var sectors = []string{"north", "south"}

// newFleet creates a Fleet in a fresh namespace and waits until the reconciler has made its
// children, which it returns.
func newFleet(t *testing.T) (*fleetv1.Fleet, []client.Object) {
	t.Helper()
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fleet-gotest-"}}
	if err := k8sClient.Create(ctx, ns); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(context.Background(), ns) })

	fleet := &fleetv1.Fleet{
		ObjectMeta: metav1.ObjectMeta{Name: "armada", Namespace: ns.Name},
		Spec:       fleetv1.FleetSpec{Sectors: sectors},
	}
	if err := k8sClient.Create(ctx, fleet); err != nil {
		t.Fatalf("create fleet: %v", err)
	}
	children := []client.Object{&fleetv1.Drone{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-lead", Namespace: ns.Name}}}
	for _, s := range sectors {
		children = append(children, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fleet.Name + "-" + s, Namespace: ns.Name}})
	}
	for _, obj := range children {
		eventually(t, fmt.Sprintf("%T %s exists", obj, obj.GetName()), func() bool {
			return k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj) == nil
		})
	}
	return fleet, children
}

// eventually polls cond until it holds, failing the test after a bound far above what the
// in-process server needs, so that a slow machine does not fail it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}

// gone reports whether obj no longer exists: a NotFound that names it, so that a 404 for an
// unrouted path does not pass for a deleted object.
func gone(ctx context.Context, obj client.Object) func() bool {
	return func() bool { return isNotFoundFor(k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj), obj) }
}

func isNotFoundFor(err error, obj client.Object) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	details := status.Status().Details
	return details != nil && details.Name == obj.GetName()
}

func TestFleet_ReconcileMakesControlledChildrenAndEvents(t *testing.T) {
	fleet, children := newFleet(t)
	for _, obj := range children {
		refs := obj.GetOwnerReferences()
		if len(refs) != 1 || refs[0].UID != fleet.UID || refs[0].Kind != "Fleet" || refs[0].APIVersion != "fleet.example.com/v1" ||
			refs[0].Controller == nil || !*refs[0].Controller || refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
			t.Errorf("%T %s ownerReferences = %+v, want the Fleet %s as controller blocking deletion", obj, obj.GetName(), refs, fleet.UID)
		}
	}
	eventually(t, "an Event for every child", func() bool {
		events := &eventsv1.EventList{}
		if err := k8sClient.List(t.Context(), events, client.InNamespace(fleet.Namespace)); err != nil {
			t.Fatalf("list events: %v", err)
		}
		n := 0
		for _, e := range events.Items {
			if e.Regarding.UID == fleet.UID && (e.Reason == controller.ReasonConfigMapCreated || e.Reason == controller.ReasonDroneLaunched) {
				n++
			}
		}
		return n == len(children)
	})
}

func TestFleet_ManagerHoldsLeaderLease(t *testing.T) {
	select {
	case <-manager.Elected():
	case <-time.After(10 * time.Second):
		t.Fatal("the manager was not elected")
	}
	lease := &coordinationv1.Lease{}
	if err := k8sClient.Get(t.Context(), client.ObjectKey{Name: leaderElectionID, Namespace: "default"}, lease); err != nil {
		t.Fatalf("get lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("lease holder = %v, want the manager's identity", lease.Spec.HolderIdentity)
	}
}

func TestFleet_DeletionCascadesToChildren(t *testing.T) {
	tests := []struct {
		name         string
		delete       func(context.Context, *fleetv1.Fleet) error
		childrenKept bool
		// namespaceGone: the case deletes the namespace, which must go away once it is empty.
		namespaceGone bool
	}{
		{
			name: "BackgroundDeletionCollectsChildren",
			delete: func(ctx context.Context, f *fleetv1.Fleet) error {
				return k8sClient.Delete(ctx, f, client.PropagationPolicy(metav1.DeletePropagationBackground))
			},
		},
		{
			name: "ForegroundDeletionCollectsChildren",
			delete: func(ctx context.Context, f *fleetv1.Fleet) error {
				return k8sClient.Delete(ctx, f, client.PropagationPolicy(metav1.DeletePropagationForeground))
			},
		},
		{
			name: "OrphanDeletionKeepsChildrenWithoutOwner",
			delete: func(ctx context.Context, f *fleetv1.Fleet) error {
				return k8sClient.Delete(ctx, f, client.PropagationPolicy(metav1.DeletePropagationOrphan))
			},
			childrenKept: true,
		},
		{
			name: "NamespaceDeletionRemovesEverything",
			delete: func(ctx context.Context, f *fleetv1.Fleet) error {
				return k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace}})
			},
			namespaceGone: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			fleet, children := newFleet(t)
			if err := tt.delete(ctx, fleet); err != nil {
				t.Fatalf("delete: %v", err)
			}
			eventually(t, "the Fleet is gone", gone(ctx, fleet))
			for _, obj := range children {
				if !tt.childrenKept {
					eventually(t, fmt.Sprintf("%T %s is gone", obj, obj.GetName()), gone(ctx, obj))
					continue
				}
				eventually(t, fmt.Sprintf("%T %s has no owner", obj, obj.GetName()), func() bool {
					return k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj) == nil && len(obj.GetOwnerReferences()) == 0
				})
			}
			if tt.namespaceGone {
				eventually(t, "the namespace is gone", gone(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fleet.Namespace}}))
			}
		})
	}
}
