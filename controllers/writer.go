package controllers

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// writer makes the controllers' writes through storage, as the REST handler would make
// them, and remembers whether any changed the store.
type writer struct {
	ctx   context.Context
	store storage.Interface
	clock func() time.Time // Options.Clock
	wrote bool
}

// errDeleteNow stops the marking update of an object that has no finalizer to wait for.
var errDeleteNow = errors.New("no finalizers: delete at once")

// ignorable are the errors of a write on a stale view: the object is gone or was
// replaced, and the event saying so triggers the next pass.
func ignorable(err error) bool {
	return errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict)
}

// pending reports whether an object being deleted must stay: finalizers, or a
// Namespace's spec.finalizers.
func pending(gr scheme.GroupResource, obj scheme.Object) bool {
	if len(obj.GetFinalizers()) > 0 {
		return true
	}
	if gr != namespacesGR {
		return false
	}
	fields, err := registry.NamespaceFields(obj)
	return err == nil && len(fields.Finalizers) > 0
}

// delete deletes n with a propagation policy, like a DELETE request: an object left
// without finalizers goes at once, one with finalizers gets a deletionTimestamp (a
// Namespace also phase Terminating). It returns the finalizers the object still waits
// for (nil once it is gone).
func (w *writer) delete(n *node, policy registry.DeletionPropagation) ([]string, error) {
	opts := &registry.DeleteOptions{PropagationPolicy: &policy}
	uid := n.uid
	out, err := w.store.GuaranteedUpdate(w.ctx, n.key(), storage.UpdateOptions{Preconditions: &storage.Preconditions{UID: &uid}}, func(cur scheme.Object) (scheme.Object, error) {
		cur.SetFinalizers(registry.GarbageCollectionFinalizers(cur.GetFinalizers(), opts))
		if !pending(n.gr, cur) {
			return nil, errDeleteNow
		}
		if cur.GetDeletionTimestamp() == nil {
			now := scheme.NowFrom(w.clock)
			cur.SetDeletionTimestamp(&now)
			if n.gr == namespacesGR {
				if err := registry.UpdateNamespace(cur, func(_, status map[string]any) { status["phase"] = registry.NamespacePhaseTerminating }); err != nil {
					return nil, err
				}
			} else {
				zero := int64(0)
				cur.SetDeletionGracePeriodSeconds(&zero)
				// As kube-apiserver marks an object deleting (markAsDeleting).
				if g := cur.GetGeneration(); g > 0 {
					cur.SetGeneration(g + 1)
				}
			}
		}
		cur.SetResourceVersion("")
		return cur, nil
	})
	switch {
	case errors.Is(err, errDeleteNow):
		_, err = w.store.Delete(w.ctx, n.key(), storage.DeleteOptions{
			Preconditions: &storage.Preconditions{UID: &uid},
			Validate: func(_ context.Context, now scheme.Object) error {
				if pending(n.gr, now) {
					return storage.NewError(storage.ErrConflict, n.key())
				}
				return nil
			},
		})
		if err == nil {
			w.wrote = true
		}
		if err == nil || ignorable(err) {
			return nil, nil
		}
		return nil, err
	case ignorable(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	w.noteWrite(n, out)
	return out.GetFinalizers(), nil
}

// noteWrite records whether an update changed n.
func (w *writer) noteWrite(n *node, out scheme.Object) {
	if out.GetResourceVersion() != n.resourceVersion {
		w.wrote = true
	}
}

// update changes n through edit; an object being deleted that is left with nothing to
// wait for is deleted, as the REST handler does on such an update.
func (w *writer) update(n *node, edit func(cur scheme.Object) error) error {
	uid := n.uid
	out, err := w.store.GuaranteedUpdate(w.ctx, n.key(), storage.UpdateOptions{Preconditions: &storage.Preconditions{UID: &uid}}, func(cur scheme.Object) (scheme.Object, error) {
		if err := edit(cur); err != nil {
			return nil, err
		}
		cur.SetResourceVersion("")
		return cur, nil
	})
	if ignorable(err) {
		return nil
	}
	if err != nil {
		return err
	}
	w.noteWrite(n, out)
	if out.GetDeletionTimestamp() == nil || pending(n.gr, out) {
		return nil
	}
	rv := out.GetResourceVersion()
	_, err = w.store.Delete(w.ctx, n.key(), storage.DeleteOptions{Preconditions: &storage.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if err == nil {
		w.wrote = true
	}
	if ignorable(err) {
		return nil
	}
	return err
}

// removeFinalizer removes one finalizer of n (deleting n if it was the last).
func (w *writer) removeFinalizer(n *node, finalizer string) error {
	return w.update(n, func(cur scheme.Object) error {
		cur.SetFinalizers(slices.DeleteFunc(cur.GetFinalizers(), func(f string) bool { return f == finalizer }))
		return nil
	})
}

// editOwners changes the ownerReferences of n.
func (w *writer) editOwners(n *node, edit func([]scheme.OwnerReference) []scheme.OwnerReference) error {
	return w.update(n, func(cur scheme.Object) error {
		cur.SetOwnerReferences(edit(slices.Clone(cur.GetOwnerReferences())))
		return nil
	})
}
