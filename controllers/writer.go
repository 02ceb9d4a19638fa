package controllers

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// writer makes the controllers' writes, deletes through the registry and the edits of
// finalizers, ownerReferences and Namespace status through storage, and remembers
// whether any changed the store.
type writer struct {
	ctx   context.Context
	store storage.Interface
	reg   *registry.Store
	clock func() time.Time // Options.Clock
	wrote bool
}

// ignorable are the errors of a write on a stale view: the object is gone or was
// replaced (or, for a delete, is already being deleted), and the event saying so
// triggers the next pass.
func ignorable(err error) bool {
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict) {
		return true
	}
	var st *scheme.Status
	return errors.As(err, &st) && (st.Code == http.StatusNotFound || st.Code == http.StatusConflict)
}

// pending reports whether an object being deleted must stay: finalizers, or a
// Namespace's spec.finalizers.
func pending(gr scheme.GroupResource, obj scheme.Object) bool {
	p, err := registry.PendingFinalizers(gr, obj)
	return err == nil && p
}

// delete deletes n with a propagation policy through the registry, as a DELETE request
// of n's uid would: an object left without finalizers goes at once, one with
// finalizers gets a deletionTimestamp (a Namespace also phase Terminating). It returns
// the finalizers the object still waits for (nil once it is gone).
func (w *writer) delete(n *node, policy registry.DeletionPropagation) ([]string, error) {
	uid := n.uid
	opts := &registry.DeleteOptions{PropagationPolicy: &policy, Preconditions: &registry.DeletePreconditions{UID: &uid}}
	res := &scheme.Resource{Group: n.gr.Group, Plural: n.gr.Resource, Kind: n.gk.Kind, Namespaced: n.namespaced}
	out, deleted, err := w.reg.Delete(w.ctx, registry.Request{Resource: res, Namespace: n.namespace}, n.name, opts)
	switch {
	case ignorable(err):
		return nil, nil
	case err != nil:
		return nil, err
	case deleted:
		w.wrote = true
		return nil, nil
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
