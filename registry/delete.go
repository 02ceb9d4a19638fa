package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/apikit-dev/apikit/conversion"

	"github.com/apikit-dev/apikit/apierrors"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// DeletionPropagation is the propagationPolicy of a delete (meta/v1's).
type DeletionPropagation = metav1.DeletionPropagation

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
type DeleteOptions = metav1.DeleteOptions

// DeletePreconditions must hold on the stored object for a delete to proceed.
type DeletePreconditions = metav1.Preconditions

// GarbageCollectionPolicy is what a delete that names neither propagationPolicy nor
// orphanDependents does to the dependents of a resource's objects, as the
// DefaultGarbageCollectionPolicy of kube's strategies says: a kind that orphaned its
// dependents before the garbage collector existed (batch/v1 Jobs, v1
// ReplicationControllers) keeps doing so for clients written then, and a kind whose
// objects own nothing (Events) takes no finalizers of the collector's at all.
type GarbageCollectionPolicy string

// The policies of StrategyFor.DefaultGarbageCollectionPolicy; kube's values.
const (
	// DeleteDependents deletes the dependents in the background unless the delete
	// says otherwise: the policy of a resource that names none.
	DeleteDependents GarbageCollectionPolicy = "DeleteDependents"
	// OrphanDependents orphans the dependents unless the delete says otherwise: a
	// delete without options adds the orphan finalizer.
	OrphanDependents GarbageCollectionPolicy = "OrphanDependents"
	// GarbageCollectionUnsupported ignores propagationPolicy and orphanDependents: a
	// delete adds neither finalizer of the collector's and removes those the object has.
	GarbageCollectionUnsupported GarbageCollectionPolicy = "Unsupported"
)

// garbageCollectionFinalizers returns the finalizers an object has once a delete with
// opts has started, as kube-apiserver's generic store computes them: under
// GarbageCollectionUnsupported neither the orphan nor the foregroundDeletion
// finalizer; else an explicit orphanDependents or propagationPolicy decides between
// the orphan finalizer (Orphan), the foregroundDeletion finalizer (Foreground) and
// neither (Background); without one the object keeps whichever of the two it has, and
// one that has neither takes the orphan finalizer under OrphanDependents. Other
// finalizers are kept, in order.
func garbageCollectionFinalizers(have []string, opts *DeleteOptions, policy GarbageCollectionPolicy) []string {
	orphan := slices.Contains(have, FinalizerOrphanDependents)
	foreground := slices.Contains(have, FinalizerDeleteDependents)
	switch {
	case policy == GarbageCollectionUnsupported:
		orphan, foreground = false, false
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, false
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == DeletePropagationForeground
	case !orphan && !foreground:
		orphan = policy == OrphanDependents
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

// orphans reports whether a delete with o orphans the dependents of an object with the
// finalizers have, of a resource whose default is policy: an explicit option decides,
// else a finalizer of the collector's the object has, else the policy.
func orphans(have []string, o *DeleteOptions, policy GarbageCollectionPolicy) bool {
	switch {
	case policy == GarbageCollectionUnsupported:
		return false
	case o.PropagationPolicy != nil:
		return *o.PropagationPolicy == DeletePropagationOrphan
	case o.OrphanDependents != nil:
		return *o.OrphanDependents
	case slices.Contains(have, FinalizerOrphanDependents):
		return true
	case slices.Contains(have, FinalizerDeleteDependents):
		return false
	}
	return policy == OrphanDependents
}

// Delete deletes the object name of rq's resource as kube-apiserver's generic store
// does: the preconditions of opts must hold, admission sees a DELETE (the mutating
// plugins with no object, the validating ones with the stored object); an object
// without finalizers then goes at once (deleted is true, obj is the object as it was);
// one with finalizers, or that opts gives one (propagationPolicy), gets a
// deletionTimestamp and stays until its last finalizer is removed (deleted is false,
// obj is the updated object). A Namespace is marked Terminating and keeps its
// spec.finalizers; the namespaces kube keeps forever cannot be deleted. obj is at the
// storage version; rq.DryRun answers the same without writing.
func (s *Store) Delete(ctx context.Context, rq Request, name string, opts *DeleteOptions) (obj scheme.Object, deleted bool, err error) {
	if opts == nil {
		opts = &DeleteOptions{}
	}
	o := s.op(rq)
	ctx = withCall(ctx, o, "delete", name)
	o.warnOnDelete(ctx, opts)
	return o.deleteObject(ctx, "delete", name, opts)
}

// warnOnDelete adds the warnings of the strategy's WarningsOnDelete.
func (o *op) warnOnDelete(ctx context.Context, opts *DeleteOptions) {
	if f := o.hooks.warningsOnDelete; f != nil {
		o.warn(f(ctx, opts)...)
	}
}

// DeleteCollection deletes every object of rq's resource in rq's namespace that pred
// matches, each as Delete would, and returns those it deleted or marked for deletion
// (at the storage version) and the resourceVersion of the list it read. Objects that
// went in the meantime are skipped.
func (s *Store) DeleteCollection(ctx context.Context, rq Request, pred storage.Predicate, opts *DeleteOptions) ([]scheme.Object, string, error) {
	if opts == nil {
		opts = &DeleteOptions{}
	}
	o := s.op(rq)
	ctx = withCall(ctx, o, "deletecollection", "")
	o.warnOnDelete(ctx, opts)
	namespace := rq.Namespace
	if !o.res.Namespaced {
		namespace = ""
	}
	lr, err := s.store.List(ctx, storage.Prefix(o.stored, namespace), storage.ListOptions{Predicate: pred})
	if err != nil {
		return nil, "", s.toStatus(err, o.gr, "")
	}
	var done []scheme.Object
	for _, obj := range lr.Items {
		out, deleted, err := o.deleteObject(ctx, "deletecollection", obj.GetName(), opts)
		if err != nil {
			var st *scheme.Status
			if errors.As(err, &st) && st.Code == http.StatusNotFound {
				continue
			}
			return nil, "", err
		}
		if deleted {
			out = obj
		}
		done = append(done, out)
	}
	return done, lr.ResourceVersion, nil
}

// toStatus maps an error of storage or of a hook to the Status a call fails with.
func (s *Store) toStatus(err error, gr scheme.GroupResource, name string) *scheme.Status {
	st, _ := apierrors.FromError(err, gr, name, s.log)
	return st
}

// checkPreconditions words a failed precondition like kube.
func (o *op) checkPreconditions(p *DeletePreconditions, obj scheme.Object) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != obj.GetUID() {
		return apierrors.NewConflict(o.gr, obj.GetName(), fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, obj.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != obj.GetResourceVersion() {
		return apierrors.NewConflict(o.gr, obj.GetName(), fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, obj.GetResourceVersion()))
	}
	return nil
}

// errFinalizersAppeared makes an immediate delete start over when finalizers were added
// between the read and the removal.
var errFinalizersAppeared = errors.New("finalizers appeared")

// deleteObject deletes one object per object-lifecycle.md: an object without
// finalizers goes at once (deleted=true); otherwise it gets a deletionTimestamp and
// stays until its last finalizer is removed (deleted=false, the updated object is
// returned). The result is at the storage version.
func (o *op) deleteObject(ctx context.Context, verb, name string, opts *DeleteOptions) (scheme.Object, bool, error) {
	key := o.key(name)
	if err := o.admitNamespaceDelete(name); err != nil {
		return nil, false, err
	}
	for attempt := 0; attempt < 10; attempt++ {
		cur, err := o.s.store.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, false, o.s.toStatus(err, o.gr, name)
		}
		if err := o.checkPreconditions(opts.Preconditions, cur); err != nil {
			return nil, false, err
		}
		own := scheme.DeepCopy(cur)
		if err := o.s.coerceRead(own); err != nil {
			return nil, false, err
		}
		old, err := conversion.ObjectToInternal(o.s.scheme, own, o.gvk)
		if err != nil {
			return nil, false, err
		}
		a := o.admissionAttributes(ctx, verb, OperationDelete, name, old)
		if err := o.mutate(ctx, a, nil); err != nil {
			return nil, false, err
		}
		if err := o.validateAdmission(ctx, a, old); err != nil {
			return nil, false, err
		}
		pending := len(o.deletionFinalizers(cur.GetFinalizers(), opts)) > 0
		if o.isNamespaces() {
			fields, err := NamespaceFields(cur)
			if err != nil {
				return nil, false, err
			}
			if cur.GetDeletionTimestamp() != nil && len(fields.Finalizers) > 0 {
				return nil, false, apierrors.NewConflict(o.gr, name, errNamespaceFinalizing)
			}
			pending = pending || len(fields.Finalizers) > 0
		}
		if !pending {
			if o.rq.DryRun {
				return cur, true, nil
			}
			out, err := o.s.store.Delete(ctx, key, storage.DeleteOptions{
				Validate: func(_ context.Context, now scheme.Object) error {
					if err := o.checkPreconditions(opts.Preconditions, now); err != nil {
						return err
					}
					// The finalizers the delete itself removes (orphan and
					// foregroundDeletion under another propagationPolicy) do not hold
					// it: kube removes them and deletes.
					if len(o.deletionFinalizers(now.GetFinalizers(), opts)) > 0 {
						return errFinalizersAppeared
					}
					return nil
				},
			})
			if errors.Is(err, errFinalizersAppeared) {
				continue
			}
			if err != nil {
				return nil, false, o.s.toStatus(err, o.gr, name)
			}
			o.afterDelete(ctx, out)
			return out, true, nil
		}
		return o.markDeleting(ctx, key, name, opts)
	}
	return nil, false, apierrors.NewConflict(o.gr, name, apierrors.OptimisticLockErrorMsg)
}

// deletionFinalizers returns the finalizers an object has once a delete with opts has
// started: with a garbage collector those of garbageCollectionFinalizers, without one
// the orphan finalizer when the delete orphans (orphans), which the server then carries
// out itself.
func (o *op) deletionFinalizers(have []string, opts *DeleteOptions) []string {
	policy := o.garbageCollectionPolicy()
	if o.s.opts.GarbageCollection {
		return garbageCollectionFinalizers(have, opts, policy)
	}
	out := slices.Clone(have)
	if orphans(have, opts, policy) {
		out = slices.DeleteFunc(out, func(f string) bool { return f == FinalizerDeleteDependents })
		if !slices.Contains(out, FinalizerOrphanDependents) {
			out = append(out, FinalizerOrphanDependents)
		}
	}
	return out
}

// garbageCollectionPolicy is the default policy of a delete of the op's resource at the
// request's version (StrategyFor.DefaultGarbageCollectionPolicy), DeleteDependents
// when the strategy names none.
func (o *op) garbageCollectionPolicy() GarbageCollectionPolicy {
	if f := o.hooks.defaultGarbageCollectionPolicy; f != nil {
		if p := f(o.gvk.Version); p != "" {
			return p
		}
	}
	return DeleteDependents
}

// markDeleting puts an object with finalizers into the DELETING state, then, for the
// orphan finalizer, orphans its dependents and removes the finalizer (deleting the
// object if it was the last).
func (o *op) markDeleting(ctx context.Context, key, name string, opts *DeleteOptions) (scheme.Object, bool, error) {
	mark := func(cur scheme.Object) (scheme.Object, error) {
		if err := o.checkPreconditions(opts.Preconditions, cur); err != nil {
			return nil, err
		}
		cur.SetFinalizers(o.deletionFinalizers(cur.GetFinalizers(), opts))
		if o.isNamespaces() {
			// kube's namespace registry sets the timestamp alone, and the phase.
			if cur.GetDeletionTimestamp() == nil {
				now := scheme.NowFrom(o.s.opts.Clock)
				cur.SetDeletionTimestamp(&now)
			}
			return cur, markNamespaceTerminating(cur)
		}
		if cur.GetDeletionTimestamp() == nil {
			now := scheme.NowFrom(o.s.opts.Clock)
			zero := int64(0)
			cur.SetDeletionTimestamp(&now)
			cur.SetDeletionGracePeriodSeconds(&zero)
			// kube's markAsDeleting: controllers of an object being deleted change
			// what they do, so a generation that is kept goes up.
			if g := cur.GetGeneration(); g > 0 {
				cur.SetGeneration(g + 1)
			}
		}
		return cur, nil
	}
	if o.rq.DryRun {
		cur, err := o.s.store.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, false, o.s.toStatus(err, o.gr, name)
		}
		out, err := mark(cur)
		return out, false, err
	}
	out, err := o.s.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, mark)
	if err != nil {
		return nil, false, o.s.toStatus(err, o.gr, name)
	}
	if o.s.opts.GarbageCollection || !slices.Contains(out.GetFinalizers(), FinalizerOrphanDependents) {
		return out, false, nil
	}
	if err := o.orphanDependents(ctx, out); err != nil {
		return nil, false, err
	}
	out, err = o.s.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		cur.SetFinalizers(slices.DeleteFunc(cur.GetFinalizers(), func(f string) bool { return f == FinalizerOrphanDependents }))
		return cur, nil
	})
	if err != nil {
		return nil, false, o.s.toStatus(err, o.gr, name)
	}
	if pending, err := PendingFinalizers(o.gr, out); err != nil || pending {
		return out, false, err
	}
	uid, rv := out.GetUID(), out.GetResourceVersion()
	gone, err := o.s.store.Delete(ctx, key, storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, false, o.s.toStatus(err, o.gr, name)
	}
	if err == nil {
		o.afterDelete(ctx, gone)
	}
	return out, true, nil
}

// orphanDependents removes the ownerReferences to owner from every object of every
// resource in owner's namespace (every object, for a cluster-scoped owner).
func (o *op) orphanDependents(ctx context.Context, owner scheme.Object) error {
	uid := owner.GetUID()
	for _, res := range o.s.scheme.Resources() {
		if owner.GetNamespace() != "" && !res.Namespaced || o.s.scheme.StorageResource(res) != res {
			// The objects of a resource that shares storage are those of the other.
			continue
		}
		prefix := storage.Prefix(res.GroupResource(), owner.GetNamespace())
		lr, err := o.s.store.List(ctx, prefix, storage.ListOptions{})
		if err != nil {
			return o.s.toStatus(err, res.GroupResource(), "")
		}
		for _, obj := range lr.Items {
			if !slices.ContainsFunc(obj.GetOwnerReferences(), func(r scheme.OwnerReference) bool { return r.UID == uid }) {
				continue
			}
			key := storage.Key(res.GroupResource(), obj.GetNamespace(), obj.GetName())
			_, err := o.s.store.GuaranteedUpdate(ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetOwnerReferences(slices.DeleteFunc(cur.GetOwnerReferences(), func(r scheme.OwnerReference) bool { return r.UID == uid }))
				return cur, nil
			})
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return o.s.toStatus(err, res.GroupResource(), obj.GetName())
			}
		}
	}
	return nil
}
