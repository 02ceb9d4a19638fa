package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/apikit-dev/apikit/apierrors"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// deleteOptions reads registry.DeleteOptions from the body (if any) and the query.
func (rq *request) deleteOptions() (*registry.DeleteOptions, bool, error) {
	opts := &registry.DeleteOptions{}
	data, err := rq.readBody()
	if err != nil {
		return nil, false, err
	}
	if len(data) > 0 {
		ser, err := rq.serializerFor(rq.r.Header.Get("Content-Type"))
		if err != nil {
			return nil, false, err
		}
		def := scheme.GroupVersionKind{Version: "v1", Kind: "DeleteOptions"}
		if _, _, err := rq.decodeInto(ser, data, opts, def, "Ignore"); err != nil {
			return nil, false, err
		}
	}
	q := rq.query
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, false, apierrors.NewBadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", v))
		}
		opts.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := registry.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if v := q.Get("orphanDependents"); v != "" {
		b := isTrue(v)
		opts.OrphanDependents = &b
	}
	if d, ok := q["dryRun"]; ok {
		opts.DryRun = d
	}
	var errs validation.ErrorList
	for _, d := range opts.DryRun {
		if d != "All" {
			errs = append(errs, validation.NotSupported(validation.NewPath("dryRun"), opts.DryRun, []string{"All"}))
			break
		}
	}
	if opts.OrphanDependents != nil && opts.PropagationPolicy != nil {
		errs = append(errs, validation.Invalid(validation.NewPath("propagationPolicy"), *opts.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case registry.DeletePropagationOrphan, registry.DeletePropagationBackground, registry.DeletePropagationForeground:
		default:
			errs = append(errs, validation.NotSupported(validation.NewPath("propagationPolicy"), *p, []string{"Foreground", "Background", "Orphan", "nil"}))
		}
	}
	if g := opts.GracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, validation.Invalid(validation.NewPath("gracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return nil, false, newInvalidOptions("DeleteOptions", errs)
	}
	return opts, len(opts.DryRun) > 0, nil
}

// orphans reports whether a delete with opts orphans the dependents.
func orphans(o *registry.DeleteOptions) bool {
	if o.PropagationPolicy != nil {
		return *o.PropagationPolicy == registry.DeletePropagationOrphan
	}
	return o.OrphanDependents != nil && *o.OrphanDependents
}

// checkPreconditions words a failed precondition like kube.
func (rq *request) checkPreconditions(p *registry.DeletePreconditions, obj scheme.Object) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != obj.GetUID() {
		return apierrors.NewConflict(rq.gr, obj.GetName(), fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, obj.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != obj.GetResourceVersion() {
		return apierrors.NewConflict(rq.gr, obj.GetName(), fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, obj.GetResourceVersion()))
	}
	return nil
}

func (rq *request) delete() {
	opts, dryRun, err := rq.deleteOptions()
	if err != nil {
		rq.fail(err)
		return
	}
	out, deleted, err := rq.deleteObject(rq.info.Name, opts, dryRun)
	if err != nil {
		rq.fail(err)
		return
	}
	if deleted {
		rq.respond(http.StatusOK, &scheme.Status{
			TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status:   scheme.StatusSuccess,
			Details:  &scheme.StatusDetails{Name: out.GetName(), Group: rq.gr.Group, Kind: rq.gr.Resource, UID: out.GetUID()},
		})
		return
	}
	ext, err := rq.h.readAs(out, rq.gv)
	if err != nil {
		rq.fail(err)
		return
	}
	rq.respond(http.StatusOK, ext)
}

// errFinalizersAppeared makes an immediate delete start over when finalizers were added
// between the read and the removal.
var errFinalizersAppeared = errors.New("finalizers appeared")

// deleteObject deletes one object per object-lifecycle.md: an object without
// finalizers goes at once (deleted=true); otherwise it gets a deletionTimestamp and
// stays until its last finalizer is removed (deleted=false, the updated object is
// returned). The result is at the storage version.
func (rq *request) deleteObject(name string, opts *registry.DeleteOptions, dryRun bool) (scheme.Object, bool, error) {
	key := rq.key(name)
	if err := rq.admitNamespaceDelete(name); err != nil {
		return nil, false, err
	}
	for attempt := 0; attempt < 10; attempt++ {
		cur, err := rq.h.store.Get(rq.ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, false, rq.h.toStatus(err, rq.gr, name)
		}
		if err := rq.checkPreconditions(opts.Preconditions, cur); err != nil {
			return nil, false, err
		}
		own := scheme.DeepCopy(cur)
		if err := rq.h.coerce(own); err != nil {
			return nil, false, rq.h.defaultsTooLargeOnRead(own)
		}
		old, err := rq.h.toInternal(own, rq.gvk)
		if err != nil {
			return nil, false, err
		}
		a := rq.admissionAttributes(registry.OperationDelete, name, old, dryRun)
		if err := rq.mutate(a, nil); err != nil {
			return nil, false, err
		}
		if err := rq.validateAdmission(a, old); err != nil {
			return nil, false, err
		}
		pending := len(rq.deletionFinalizers(cur.GetFinalizers(), opts)) > 0
		if rq.isNamespaces() {
			fields, err := registry.NamespaceFields(cur)
			if err != nil {
				return nil, false, err
			}
			if cur.GetDeletionTimestamp() != nil && len(fields.Finalizers) > 0 {
				return nil, false, apierrors.NewConflict(rq.gr, name, errNamespaceFinalizing)
			}
			pending = pending || len(fields.Finalizers) > 0
		}
		if !pending {
			if dryRun {
				return cur, true, nil
			}
			out, err := rq.h.store.Delete(rq.ctx, key, storage.DeleteOptions{
				Validate: func(_ context.Context, now scheme.Object) error {
					if err := rq.checkPreconditions(opts.Preconditions, now); err != nil {
						return err
					}
					if len(now.GetFinalizers()) > 0 {
						return errFinalizersAppeared
					}
					return nil
				},
			})
			if errors.Is(err, errFinalizersAppeared) {
				continue
			}
			if err != nil {
				return nil, false, rq.h.toStatus(err, rq.gr, name)
			}
			return out, true, nil
		}
		return rq.markDeleting(key, name, opts, dryRun)
	}
	return nil, false, apierrors.NewConflict(rq.gr, name, apierrors.OptimisticLockErrorMsg)
}

// deletionFinalizers returns the finalizers an object has once a delete with opts has
// started: with a garbage collector those of GarbageCollectionFinalizers, without one
// the orphan finalizer for propagationPolicy=Orphan.
func (rq *request) deletionFinalizers(have []string, opts *registry.DeleteOptions) []string {
	if rq.h.opts.GarbageCollection {
		return registry.GarbageCollectionFinalizers(have, opts)
	}
	out := slices.Clone(have)
	if orphans(opts) {
		out = slices.DeleteFunc(out, func(f string) bool { return f == registry.FinalizerDeleteDependents })
		if !slices.Contains(out, registry.FinalizerOrphanDependents) {
			out = append(out, registry.FinalizerOrphanDependents)
		}
	}
	return out
}

// markDeleting puts an object with finalizers into the DELETING state, then, for the
// orphan finalizer, orphans its dependents and removes the finalizer (deleting the
// object if it was the last).
func (rq *request) markDeleting(key, name string, opts *registry.DeleteOptions, dryRun bool) (scheme.Object, bool, error) {
	mark := func(cur scheme.Object) (scheme.Object, error) {
		if err := rq.checkPreconditions(opts.Preconditions, cur); err != nil {
			return nil, err
		}
		cur.SetFinalizers(rq.deletionFinalizers(cur.GetFinalizers(), opts))
		if rq.isNamespaces() {
			// kube's namespace registry sets the timestamp alone, and the phase.
			if cur.GetDeletionTimestamp() == nil {
				now := scheme.NowFrom(rq.h.opts.Clock)
				cur.SetDeletionTimestamp(&now)
			}
			return cur, registry.MarkNamespaceTerminating(cur)
		}
		if cur.GetDeletionTimestamp() == nil {
			now := scheme.NowFrom(rq.h.opts.Clock)
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
	if dryRun {
		cur, err := rq.h.store.Get(rq.ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, false, rq.h.toStatus(err, rq.gr, name)
		}
		out, err := mark(cur)
		return out, false, err
	}
	out, err := rq.h.store.GuaranteedUpdate(rq.ctx, key, storage.UpdateOptions{}, mark)
	if err != nil {
		return nil, false, rq.h.toStatus(err, rq.gr, name)
	}
	if rq.h.opts.GarbageCollection || !slices.Contains(out.GetFinalizers(), registry.FinalizerOrphanDependents) {
		return out, false, nil
	}
	if err := rq.orphanDependents(out); err != nil {
		return nil, false, err
	}
	out, err = rq.h.store.GuaranteedUpdate(rq.ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
		cur.SetFinalizers(slices.DeleteFunc(cur.GetFinalizers(), func(f string) bool { return f == registry.FinalizerOrphanDependents }))
		return cur, nil
	})
	if err != nil {
		return nil, false, rq.h.toStatus(err, rq.gr, name)
	}
	if pending, err := rq.pendingFinalizers(out); err != nil || pending {
		return out, false, err
	}
	uid, rv := out.GetUID(), out.GetResourceVersion()
	if _, err := rq.h.store.Delete(rq.ctx, key, storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}}); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, false, rq.h.toStatus(err, rq.gr, name)
	}
	return out, true, nil
}

// orphanDependents removes the ownerReferences to owner from every object of every
// resource in owner's namespace (every object, for a cluster-scoped owner).
func (rq *request) orphanDependents(owner scheme.Object) error {
	uid := owner.GetUID()
	for _, res := range rq.h.scheme.Resources() {
		if owner.GetNamespace() != "" && !res.Namespaced || rq.h.scheme.StorageResource(res) != res {
			// The objects of a resource that shares storage are those of the other.
			continue
		}
		prefix := storage.Prefix(res.GroupResource(), owner.GetNamespace())
		lr, err := rq.h.store.List(rq.ctx, prefix, storage.ListOptions{})
		if err != nil {
			return rq.h.toStatus(err, res.GroupResource(), "")
		}
		for _, obj := range lr.Items {
			if !slices.ContainsFunc(obj.GetOwnerReferences(), func(r scheme.OwnerReference) bool { return r.UID == uid }) {
				continue
			}
			key := storage.Key(res.GroupResource(), obj.GetNamespace(), obj.GetName())
			_, err := rq.h.store.GuaranteedUpdate(rq.ctx, key, storage.UpdateOptions{}, func(cur scheme.Object) (scheme.Object, error) {
				cur.SetOwnerReferences(slices.DeleteFunc(cur.GetOwnerReferences(), func(r scheme.OwnerReference) bool { return r.UID == uid }))
				return cur, nil
			})
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return rq.h.toStatus(err, res.GroupResource(), obj.GetName())
			}
		}
	}
	return nil
}

// deleteCollection deletes every object the selectors match, each like a delete, and
// returns the list of the objects it deleted (or marked for deletion).
func (rq *request) deleteCollection() {
	opts, dryRun, err := rq.deleteOptions()
	if err != nil {
		rq.fail(err)
		return
	}
	pred, err := rq.predicate()
	if err != nil {
		rq.fail(err)
		return
	}
	lr, err := rq.h.store.List(rq.ctx, storage.Prefix(rq.stored, rq.info.Namespace), storage.ListOptions{Predicate: pred})
	if err != nil {
		rq.fail(err)
		return
	}
	var done []scheme.Object
	for _, obj := range lr.Items {
		out, deleted, err := rq.deleteObject(obj.GetName(), opts, dryRun)
		if err != nil {
			var st *scheme.Status
			if errors.As(err, &st) && st.Code == http.StatusNotFound {
				continue
			}
			rq.fail(err)
			return
		}
		if deleted {
			out = obj
		}
		done = append(done, out)
	}
	list, err := rq.newList(done)
	if err != nil {
		rq.fail(err)
		return
	}
	list.SetResourceVersion(lr.ResourceVersion)
	rq.respond(http.StatusOK, list)
}
