package controllers

import (
	"errors"
	"slices"

	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// collect is the garbage collector's work on one node, as kube-controller-manager's:
// an owner being deleted with the orphan finalizer orphans its dependents, one with
// the foregroundDeletion finalizer waits for its blocking dependents, and a dependent
// whose owners are all gone or waiting for it is deleted.
func (m *Manager) collect(w *writer, n *node) error {
	var errs []error
	switch {
	case n.deleting && n.has(rest.FinalizerOrphanDependents):
		errs = append(errs, m.orphanDependents(w, n))
	case n.deleting && n.has(rest.FinalizerDeleteDependents):
		errs = append(errs, m.finishForeground(w, n))
	}
	if len(n.owners) > 0 && !n.deleting {
		errs = append(errs, m.attemptToDelete(w, n))
	}
	return errors.Join(errs...)
}

// orphanDependents removes the ownerReferences to n from its dependents, then the
// orphan finalizer.
func (m *Manager) orphanDependents(w *writer, n *node) error {
	for _, d := range m.graph.dependentsOf(n.uid) {
		err := w.editOwners(d, func(refs []scheme.OwnerReference) []scheme.OwnerReference {
			return slices.DeleteFunc(refs, func(r scheme.OwnerReference) bool { return r.UID == n.uid })
		})
		if err != nil {
			return err
		}
	}
	return w.removeFinalizer(n, rest.FinalizerOrphanDependents)
}

// finishForeground removes the foregroundDeletion finalizer once no dependent with
// blockOwnerDeletion remains (attemptToDelete deletes the dependents).
func (m *Manager) finishForeground(w *writer, n *node) error {
	for _, d := range m.graph.dependentsOf(n.uid) {
		if slices.ContainsFunc(d.owners, func(r scheme.OwnerReference) bool {
			return r.UID == n.uid && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
		}) {
			return nil
		}
	}
	return w.removeFinalizer(n, rest.FinalizerDeleteDependents)
}

// attemptToDelete decides the fate of a dependent from its owners: with a live owner
// (solid) it only loses its references to gone (dangling) and foreground-deleting
// (waiting) owners; with waiting owners and dependents of its own it is deleted in the
// foreground (its references made non-blocking first when a dependent is itself
// deleting in the foreground, which breaks cycles); otherwise it is deleted with the
// policy its own finalizers ask for.
func (m *Manager) attemptToDelete(w *writer, n *node) error {
	var solid, gone []scheme.UID
	waiting := false
	for _, ref := range n.owners {
		o := m.graph.owner(n, ref)
		switch {
		case o == nil:
			gone = append(gone, ref.UID)
		case o.deleting && o.has(rest.FinalizerDeleteDependents):
			gone = append(gone, ref.UID)
			waiting = true
		default:
			solid = append(solid, ref.UID)
		}
	}
	deps := m.graph.dependentsOf(n.uid)
	switch {
	case len(solid) > 0:
		if len(gone) == 0 {
			return nil
		}
		return w.editOwners(n, func(refs []scheme.OwnerReference) []scheme.OwnerReference {
			return slices.DeleteFunc(refs, func(r scheme.OwnerReference) bool { return slices.Contains(gone, r.UID) })
		})
	case waiting && len(deps) > 0:
		if slices.ContainsFunc(deps, func(d *node) bool { return d.deleting && d.has(rest.FinalizerDeleteDependents) }) {
			err := w.editOwners(n, func(refs []scheme.OwnerReference) []scheme.OwnerReference {
				for i := range refs {
					if refs[i].BlockOwnerDeletion != nil && *refs[i].BlockOwnerDeletion {
						no := false
						refs[i].BlockOwnerDeletion = &no
					}
				}
				return refs
			})
			if err != nil {
				return err
			}
		}
		_, err := w.delete(n, rest.DeletePropagationForeground)
		return err
	}
	policy := rest.DeletePropagationBackground
	switch {
	case n.has(rest.FinalizerOrphanDependents):
		policy = rest.DeletePropagationOrphan
	case n.has(rest.FinalizerDeleteDependents):
		policy = rest.DeletePropagationForeground
	}
	_, err := w.delete(n, policy)
	return err
}
