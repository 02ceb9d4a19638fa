package controllers_test

import (
	"context"
	"fmt"
	"testing"
)

// TestControllers_PassesVisitWhatChanged holds a pass's work to what the events it
// follows changed: creating N objects one by one (each owned by one live Deployment, a
// pass after each) visits a few nodes per create, not every stored object, and with them
// stored the collector and the namespace controller still do their work, visiting a
// handful of nodes each time.
func TestControllers_PassesVisitWhatChanged(t *testing.T) {
	const n = 2000
	e := newEnv(t)
	keeper := e.create("deployments", "default", "keeper", nil)
	e.idle()
	before := e.mgr.Visits()
	for i := range n {
		e.storePods("default", fmt.Sprintf("p%d", i), 1, keeper, false)
		e.idle()
	}
	created := e.mgr.Visits() - before
	t.Logf("%d creates, one pass each: %d nodes visited (%.1f per create)", n, created, float64(created)/n)
	if created >= 10*n {
		t.Fatalf("%d creates visited %d nodes, want fewer than %d: passes walk every stored object", n, created, 10*n)
	}

	// maxVisits bounds each case's work: its few objects, a few passes each.
	const maxVisits = 100
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ADependentOfADeletedOwnerIsCollected", func(t *testing.T) {
			d := e.create("deployments", "default", "bg", nil)
			e.create("replicasets", "default", "bg-1", nil, ref{owner: d})
			e.deleteWith("deployments", "default", "bg", "Background")
			e.idle()
			if _, ok := e.get("replicasets", "default", "bg-1"); ok {
				t.Error("the dependent of a deleted owner stays")
			}
		}},
		{"AnOrphanKeepsNoReference", func(t *testing.T) {
			d := e.create("deployments", "default", "or", nil)
			e.create("replicasets", "default", "or-1", nil, ref{owner: d})
			e.deleteWith("deployments", "default", "or", "Orphan")
			e.idle()
			rs, ok := e.get("replicasets", "default", "or-1")
			if !ok || len(ownerNames(rs)) != 0 {
				t.Errorf("orphan exists %v with owners %v", ok, ownerNames(rs))
			}
			if _, ok := e.get("deployments", "default", "or"); ok {
				t.Error("the orphaning owner stays")
			}
		}},
		{"AForegroundDeletionWaitsForItsBlockingDependent", func(t *testing.T) {
			d := e.create("deployments", "default", "fg", nil)
			e.create("replicasets", "default", "fg-1", []string{"example.com/hold"}, ref{d, true})
			e.deleteWith("deployments", "default", "fg", "Foreground")
			e.idle()
			if _, ok := e.get("deployments", "default", "fg"); !ok {
				t.Fatal("the owner went before its blocking dependent")
			}
			e.removeFinalizers("replicasets", "default", "fg-1")
			e.idle()
			_, okD := e.get("deployments", "default", "fg")
			_, okRS := e.get("replicasets", "default", "fg-1")
			if okD || okRS {
				t.Errorf("owner %v dependent %v stay after the dependent's finalizer went", okD, okRS)
			}
		}},
		{"ADeletingNamespaceEmpties", func(t *testing.T) {
			e.create("namespaces", "", "team", nil)
			e.create("pods", "team", "plain", nil)
			e.create("pods", "team", "held", []string{"example.com/hold"})
			e.deleteWith("namespaces", "", "team", "")
			e.idle()
			if _, ok := e.get("pods", "team", "plain"); ok {
				t.Error("a pod of the deleting namespace stays")
			}
			if _, ok := e.get("namespaces", "", "team"); !ok {
				t.Fatal("the namespace went while a pod waits for its finalizer")
			}
			e.removeFinalizers("pods", "team", "held")
			e.idle()
			if _, ok := e.get("namespaces", "", "team"); ok {
				t.Error("the namespace stays after its content went")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.mgr.Visits()
			tc.run(t)
			visits := e.mgr.Visits() - before
			t.Logf("%d nodes visited with %d objects stored", visits, n)
			if visits >= maxVisits {
				t.Errorf("%d nodes visited, want fewer than %d", visits, maxVisits)
			}
		})
	}
	if got := e.count("pods"); got != n {
		t.Errorf("%d of the %d owned pods stay, want all", got, n)
	}
}

// BenchmarkControllers_FollowCreates stores b.N Pods one by one, each owned by one live
// Deployment, through the store with the controllers following, waiting after each
// create until they are idle (one pass per create, as a client creating one object at a
// time makes them; without WaitIdle's list of the store, which grows with it).
// visits/op is the nodes the passes visited per create.
//
//	go test ./controllers/ -run '^$' -bench FollowCreates -benchmem -benchtime 2000x
func BenchmarkControllers_FollowCreates(b *testing.B) {
	e := newEnv(b)
	keeper := e.create("deployments", "default", "keeper", nil)
	e.idle()
	before := e.mgr.Visits()
	b.ReportAllocs()
	b.ResetTimer()
	ctx := context.Background()
	for i := range b.N {
		rv := e.storePods("default", fmt.Sprintf("p%d", i), 1, keeper, false)
		if err := e.mgr.WaitVersion(ctx, rv); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(e.mgr.Visits()-before)/float64(b.N), "visits/op")
}
