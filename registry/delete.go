package registry

import (
	"slices"

	"github.com/apikit-dev/apikit/scheme"
)

// DeletionPropagation is the propagationPolicy of a delete.
type DeletionPropagation string

// The propagation policies. With Options.GarbageCollection (a garbage collector such as
// package controllers' runs over the store) a delete sets the finalizers of the garbage
// collector's protocol exactly as kube-apiserver does and leaves the rest to the
// collector. Without it, Orphan is honoured by the server itself (it removes
// ownerReferences to the deleted object from the objects of the same namespace, then
// the object goes); Background and Foreground leave dependents alone, Foreground
// behaving like Background.
const (
	DeletePropagationOrphan     DeletionPropagation = "Orphan"
	DeletePropagationBackground DeletionPropagation = "Background"
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// The finalizers of the garbage collector's protocol.
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// DeleteOptions is meta/v1 DeleteOptions, read from a delete's body or query.
type DeleteOptions struct {
	scheme.TypeMeta    `json:",inline"`
	GracePeriodSeconds *int64               `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *DeletePreconditions `json:"preconditions,omitempty"`
	OrphanDependents   *bool                `json:"orphanDependents,omitempty"`
	PropagationPolicy  *DeletionPropagation `json:"propagationPolicy,omitempty"`
	DryRun             []string             `json:"dryRun,omitempty"`
	// IgnoreStoreReadErrorWithClusterBreakingPotential is accepted and has no effect:
	// apikit's stores hold no object they cannot read.
	IgnoreStoreReadErrorWithClusterBreakingPotential *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential,omitempty"`
}

// DeletePreconditions must hold on the stored object for a delete to proceed.
type DeletePreconditions struct {
	UID             *scheme.UID `json:"uid,omitempty"`
	ResourceVersion *string     `json:"resourceVersion,omitempty"`
}

// GarbageCollectionFinalizers returns the finalizers an object has once a delete with
// opts has started, as kube-apiserver's generic store computes them: an explicit
// orphanDependents or propagationPolicy decides between the orphan finalizer (Orphan),
// the foregroundDeletion finalizer (Foreground) and neither (Background); without one
// the object keeps whichever of the two it has. Other finalizers are kept, in order.
func GarbageCollectionFinalizers(have []string, opts *DeleteOptions) []string {
	orphan := slices.Contains(have, FinalizerOrphanDependents)
	foreground := slices.Contains(have, FinalizerDeleteDependents)
	switch {
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, false
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == DeletePropagationForeground
	}
	out := slices.DeleteFunc(slices.Clone(have), func(f string) bool {
		return f == FinalizerOrphanDependents || f == FinalizerDeleteDependents
	})
	if orphan {
		out = append(out, FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, FinalizerDeleteDependents)
	}
	if len(out) == len(have) && !slices.ContainsFunc(out, func(f string) bool { return !slices.Contains(have, f) }) {
		return have // the same set: kube leaves the list as it was
	}
	return out
}
