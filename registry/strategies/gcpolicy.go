package strategies

import (
	"context"

	"github.com/apikit-dev/apikit/registry"
)

// orphansAt is the DefaultGarbageCollectionPolicy of a kind that orphaned its dependents
// before the garbage collector existed: kube keeps doing so at that version (batch/v1
// Jobs, v1 ReplicationControllers, for the clients written then) and deletes them in
// the background at the others.
func orphansAt(version string) func(string) registry.GarbageCollectionPolicy {
	return func(v string) registry.GarbageCollectionPolicy {
		if v == version {
			return registry.OrphanDependents
		}
		return registry.DeleteDependents
	}
}

// notGarbageCollected is the DefaultGarbageCollectionPolicy of a kind whose objects own
// nothing (kube's Events): deletes ignore propagationPolicy and orphanDependents.
func notGarbageCollected(string) registry.GarbageCollectionPolicy {
	return registry.GarbageCollectionUnsupported
}

// jobDeleteWarning is kube's Job storage's warning on a delete that keeps the pods
// only because it names no policy (pkg/registry/batch/job/storage).
const jobDeleteWarning = "child pods are preserved by default when jobs are deleted; " +
	"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"

// warnJobPodsPreserved warns on a delete of batch/v1 Jobs that names neither
// propagationPolicy nor orphanDependents, as kube's Job storage does.
func warnJobPodsPreserved(_ context.Context, opts *registry.DeleteOptions) []string {
	if opts.PropagationPolicy == nil && opts.OrphanDependents == nil {
		return []string{jobDeleteWarning}
	}
	return nil
}
