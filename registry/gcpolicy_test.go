package registry_test

import (
	"context"
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/internal/testapi/toys"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// withGarbageCollectionPolicy returns the strategy of k whose default policy is policy
// and whose deletes warn "warned" when warn is set.
func withGarbageCollectionPolicy(k kind, policy func(string) registry.GarbageCollectionPolicy, warn bool) registry.Strategy {
	var warnings func(context.Context, *registry.DeleteOptions) []string
	if warn {
		warnings = func(context.Context, *registry.DeleteOptions) []string { return []string{"warned"} }
	}
	if k.name == "typed" {
		return registry.StrategyFor[*toys.Widget]{DefaultGarbageCollectionPolicy: policy, WarningsOnDelete: warnings}
	}
	return registry.StrategyFor[*scheme.Unstructured]{DefaultGarbageCollectionPolicy: policy, WarningsOnDelete: warnings}
}

func orphansAtV1(v string) registry.GarbageCollectionPolicy {
	if v == "v1" {
		return registry.OrphanDependents
	}
	return registry.DeleteDependents
}

func unsupported(string) registry.GarbageCollectionPolicy {
	return registry.GarbageCollectionUnsupported
}

func TestDelete_DefaultGarbageCollectionPolicyDecidesWhatNoOptionsDo(t *testing.T) {
	orphanDependents := func(b bool) *bool { return &b }
	cases := []struct {
		name       string
		policy     func(string) registry.GarbageCollectionPolicy
		version    string
		finalizers []string
		opts       registry.DeleteOptions
		// wantFinalizers are those the object keeps; nil means it is gone.
		wantFinalizers []string
	}{
		{name: "no policy and no options deletes at once"},
		{name: "OrphanDependents and no options adds the orphan finalizer", policy: orphansAtV1,
			wantFinalizers: []string{registry.FinalizerOrphanDependents}},
		{name: "OrphanDependents keeps the other finalizers before orphan", policy: orphansAtV1, finalizers: []string{"example.com/keep"},
			wantFinalizers: []string{"example.com/keep", registry.FinalizerOrphanDependents}},
		{name: "OrphanDependents at another version deletes at once", policy: orphansAtV1, version: "v1alpha1"},
		{name: "OrphanDependents and Background deletes at once", policy: orphansAtV1,
			opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationBackground)}},
		{name: "OrphanDependents and orphanDependents=false deletes at once", policy: orphansAtV1,
			opts: registry.DeleteOptions{OrphanDependents: orphanDependents(false)}},
		{name: "OrphanDependents and Foreground adds foregroundDeletion", policy: orphansAtV1,
			opts:           registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationForeground)},
			wantFinalizers: []string{registry.FinalizerDeleteDependents}},
		{name: "OrphanDependents and a foregroundDeletion finalizer keeps it", policy: orphansAtV1, finalizers: []string{registry.FinalizerDeleteDependents},
			wantFinalizers: []string{registry.FinalizerDeleteDependents}},
		{name: "Unsupported ignores Orphan", policy: unsupported,
			opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)}},
		{name: "Unsupported ignores Foreground", policy: unsupported,
			opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationForeground)}},
		{name: "Unsupported ignores orphanDependents=true", policy: unsupported,
			opts: registry.DeleteOptions{OrphanDependents: orphanDependents(true)}},
		{name: "Unsupported removes the collector's finalizers and keeps the others", policy: unsupported,
			finalizers:     []string{"example.com/keep", registry.FinalizerOrphanDependents},
			opts:           registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)},
			wantFinalizers: []string{"example.com/keep"}},
	}
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			for _, c := range cases {
				if c.version != "" && k.name != "typed" {
					continue // the schema-only kind has one version
				}
				t.Run(c.name, func(t *testing.T) {
					f := newFixture(t, registry.Options{GarbageCollection: true,
						Strategies: map[scheme.GroupResource]registry.Strategy{k.res.GroupResource(): withGarbageCollectionPolicy(k, c.policy, false)}})
					obj := k.object("default", "x")
					obj.SetFinalizers(c.finalizers)
					f.seed(t, k.res, obj)
					version := c.version
					if version == "" {
						version = "v1"
					}
					out, deleted, err := f.reg.Delete(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: version}, "x", &c.opts)
					if err != nil {
						t.Fatal(err)
					}
					now, stays := f.stored(t, k.res, "default", "x")
					if c.wantFinalizers == nil {
						if stays || !deleted {
							t.Fatalf("stays %v (finalizers %v), deleted %v: want it gone", stays, now.GetFinalizers(), deleted)
						}
						return
					}
					if !stays || deleted {
						t.Fatalf("stays %v, deleted %v: want it kept with %v", stays, deleted, c.wantFinalizers)
					}
					if !slices.Equal(now.GetFinalizers(), c.wantFinalizers) || !slices.Equal(out.GetFinalizers(), c.wantFinalizers) {
						t.Errorf("finalizers stored %v, answered %v, want %v", now.GetFinalizers(), out.GetFinalizers(), c.wantFinalizers)
					}
					if now.GetDeletionTimestamp() == nil {
						t.Error("the kept object has no deletionTimestamp")
					}
				})
			}
		})
	}
}

func TestDelete_DefaultGarbageCollectionPolicyWithoutACollector(t *testing.T) {
	cases := []struct {
		name   string
		policy func(string) registry.GarbageCollectionPolicy
		opts   registry.DeleteOptions
		// wantOrphaned is whether the dependent loses its ownerReference.
		wantOrphaned bool
	}{
		{name: "OrphanDependents and no options orphans", policy: orphansAtV1, wantOrphaned: true},
		{name: "OrphanDependents and Background does not orphan", policy: orphansAtV1,
			opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationBackground)}},
		{name: "no policy and no options does not orphan"},
		{name: "Unsupported ignores Orphan", policy: unsupported,
			opts: registry.DeleteOptions{PropagationPolicy: policy(registry.DeletePropagationOrphan)}},
	}
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					f := newFixture(t, registry.Options{
						Strategies: map[scheme.GroupResource]registry.Strategy{k.res.GroupResource(): withGarbageCollectionPolicy(k, c.policy, false)}})
					owner := k.object("default", "owner")
					owner.SetUID("owner-uid")
					f.seed(t, k.res, owner)
					dep := k.object("default", "dep")
					dep.SetOwnerReferences([]scheme.OwnerReference{{APIVersion: "v1", Kind: k.res.Kind, Name: "owner", UID: "owner-uid"}})
					f.seed(t, k.res, dep)
					_, deleted, err := f.reg.Delete(context.Background(), registry.Request{Resource: &k.res, Namespace: "default", Version: "v1"}, "owner", &c.opts)
					if err != nil || !deleted {
						t.Fatalf("delete: deleted %v, err %v", deleted, err)
					}
					now, ok := f.stored(t, k.res, "default", "dep")
					if !ok {
						t.Fatal("the dependent went with its owner")
					}
					if orphaned := len(now.GetOwnerReferences()) == 0; orphaned != c.wantOrphaned {
						t.Errorf("dependent orphaned %v (ownerReferences %v), want %v", orphaned, now.GetOwnerReferences(), c.wantOrphaned)
					}
				})
			}
		})
	}
}

func TestDelete_WarningsOnDeleteComeOnceARequestAndWithAFailure(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.name, func(t *testing.T) {
			f := newFixture(t, registry.Options{
				Strategies: map[scheme.GroupResource]registry.Strategy{k.res.GroupResource(): withGarbageCollectionPolicy(k, nil, true)}})
			for _, name := range []string{"a", "b"} {
				f.seed(t, k.res, k.object("default", name))
			}
			var warnings []string
			rq := registry.Request{Resource: &k.res, Namespace: "default", Version: "v1", Warnings: &warnings}
			if _, _, err := f.reg.Delete(context.Background(), rq, "missing", nil); err == nil {
				t.Fatal("deleting a missing object succeeded")
			}
			if !slices.Equal(warnings, []string{"warned"}) {
				t.Errorf("a failed delete warned %q, want one warning", warnings)
			}
			warnings = nil
			done, _, err := f.reg.DeleteCollection(context.Background(), rq, storage.Predicate{}, nil)
			if err != nil || len(done) != 2 {
				t.Fatalf("deletecollection: %d deleted, err %v", len(done), err)
			}
			if !slices.Equal(warnings, []string{"warned"}) {
				t.Errorf("a deletecollection of two warned %q, want one warning", warnings)
			}
		})
	}
}
