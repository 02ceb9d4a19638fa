package controllers_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// storePods writes n Pods named prefix-i into namespace ns straight into the store (as
// the REST handler stores them), each owned by owner when it is set, and returns the
// resourceVersion of the last.
func (e *env) storePods(ns, prefix string, n int, owner map[string]any, block bool) uint64 {
	e.t.Helper()
	ctx := context.Background()
	gr := scheme.GroupResource{Group: "test.example.com", Resource: "pods"}
	var refs []any
	if owner != nil {
		om := owner["metadata"].(map[string]any)
		refs = []any{map[string]any{"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": om["name"], "uid": om["uid"], "blockOwnerDeletion": block}}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var rv uint64
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		meta := map[string]any{"name": name, "namespace": ns, "uid": string(scheme.NewUID()), "creationTimestamp": now, "generation": int64(1)}
		if refs != nil {
			meta["ownerReferences"] = refs
		}
		obj := &scheme.Unstructured{Object: map[string]any{"apiVersion": "test.example.com/v1", "kind": "Pod", "metadata": meta}}
		out, err := e.store.Create(ctx, storage.Key(gr, ns, name), obj)
		if err != nil {
			e.t.Fatalf("storing pod %s: %v", name, err)
		}
		if rv, err = storage.ParseResourceVersion(out.GetResourceVersion()); err != nil {
			e.t.Fatal(err)
		}
	}
	return rv
}

// waitGone polls, bounded in count and time, until an object is gone; it reports
// whether it went and after how long.
func (e *env) waitGone(plural, ns, name string) (bool, time.Duration) {
	e.t.Helper()
	start := time.Now()
	for i := 0; i < 3000 && time.Since(start) < 30*time.Second; i++ {
		if _, ok := e.get(plural, ns, name); !ok {
			return true, time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false, time.Since(start)
}

// count is how many objects of a resource the store holds.
func (e *env) count(resource string) int64 {
	e.t.Helper()
	n, err := e.store.Count(context.Background(), storage.Key(scheme.GroupResource{Group: "test.example.com", Resource: resource}, "", ""))
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestControllers_KeepWorkingAfterALargeCascade is the case: one owner with
// 50,000 dependents deleted in the background or the foreground, or a namespace holding
// 12,000 objects, makes more writes than the store's history window keeps (10,000). The
// dependents go, and afterwards the controllers still work: a foreground owner loses its
// finalizer and goes, and an unrelated owner's dependent is collected.
func TestControllers_KeepWorkingAfterALargeCascade(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,000 objects")
	}
	for _, tc := range []struct {
		name   string
		policy string // "" deletes the namespace "big" instead of an owner
		n      int
	}{
		{"Background50000Dependents", "Background", 50000},
		{"Foreground50000Dependents", "Foreground", 50000},
		{"Namespace12000Objects", "", 12000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := metrics.NewRegistry()
			e := newEnvWith(t, envOptions{controllers: controllers.Options{Metrics: reg}})
			start := time.Now()
			if tc.policy == "" {
				e.create("namespaces", "", "big", nil)
				e.storePods("big", "p", tc.n, nil, false)
			} else {
				owner := e.create("deployments", "default", "big", nil)
				e.storePods("default", "p", tc.n, owner, true)
			}
			stored := time.Since(start)
			// Generous bounds: the machine is shared; the times are logged.
			caughtUp := e.idleWithin(3 * time.Minute)
			start = time.Now()
			if tc.policy == "" {
				e.deleteWith("namespaces", "", "big", "")
			} else {
				e.deleteWith("deployments", "default", "big", tc.policy)
			}
			ownerGone := false
			if tc.policy == "" {
				ownerGone, _ = e.waitGone("namespaces", "", "big")
			} else {
				ownerGone, _ = e.waitGone("deployments", "default", "big")
			}
			if !ownerGone {
				t.Fatalf("the owner stays %s after its deletion", time.Since(start))
			}
			e.idleWithin(3 * time.Minute)
			cascade := time.Since(start)
			if n := e.count("pods"); n != 0 {
				t.Fatalf("%d of %d dependents stay", n, tc.n)
			}
			// An unrelated owner, then a new namespace, are collected afterwards.
			start = time.Now()
			o := e.create("deployments", "default", "after", nil)
			e.create("replicasets", "default", "after-1", nil, ref{owner: o})
			e.deleteWith("deployments", "default", "after", "Background")
			gone, took := e.waitGone("replicasets", "default", "after-1")
			if !gone {
				t.Fatalf("an unrelated owner's dependent stays %s after the owner's deletion", took)
			}
			e.create("namespaces", "", "later", nil)
			e.deleteWith("namespaces", "", "later", "")
			nsGone, nsTook := e.waitGone("namespaces", "", "later")
			if !nsGone {
				t.Fatalf("a new namespace stays Terminating %s after its deletion", nsTook)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			relists := reg.Counter(controllers.MetricRelists, "", "reason").With("expired").Value()
			t.Logf("%d objects stored in %s (controllers idle %s later), cascade %s, %v relists after an expired watch; afterwards a dependent collected in %s, a namespace in %s; heap %d MiB",
				tc.n, stored.Round(time.Millisecond), caughtUp.Round(time.Millisecond), cascade.Round(time.Millisecond), relists, took.Round(time.Millisecond), nsTook.Round(time.Millisecond), ms.HeapAlloc>>20)
		})
	}
}
