package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// BenchmarkReconcile_StatusAlreadyRight measures the steady state of every resync and of
// the watch event caused by the controller's own update: a cached Widget whose status is
// already right, so nothing is sent.
func BenchmarkReconcile_StatusAlreadyRight(b *testing.B) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{WidgetsResource: "WidgetList"})
	ctrl, err := New(client, Options{})
	if err != nil {
		b.Fatal(err)
	}
	w := newWidget("ns", "w", new(int64(3)), 2)
	if err := (Status{Phase: PhaseReady, Replicas: 3, ObservedGeneration: 2}).apply(w); err != nil {
		b.Fatal(err)
	}
	if err := ctrl.informer.GetIndexer().Add(w); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := ctrl.reconcile(b.Context(), "ns/w"); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(client.Actions()); n != 0 {
		b.Fatalf("reconcile sent %d requests, want none", n)
	}
}

// BenchmarkDesiredStatus measures computing a Widget's status from its spec.
func BenchmarkDesiredStatus(b *testing.B) {
	w := newWidget("ns", "w", new(int64(3)), 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DesiredStatus(w); err != nil {
			b.Fatal(err)
		}
	}
}
