package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
)

// collect is the garbage collector's work on one node, as kube-controller-manager's:
// an owner being deleted with the orphan finalizer orphans its dependents, one with
// the foregroundDeletion finalizer waits for its blocking dependents, and a dependent
// whose owners are all gone or waiting for it is deleted.
func (m *Manager) collect(w *writer, n *node) error {
	m.reportInvalidNamespaceOwners(w.ctx, n)
	var errs []error
	switch {
	case n.deleting && n.has(registry.FinalizerOrphanDependents):
		errs = append(errs, m.orphanDependents(w, n))
	case n.deleting && n.has(registry.FinalizerDeleteDependents):
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
	return w.removeFinalizer(n, registry.FinalizerOrphanDependents)
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
	return w.removeFinalizer(n, registry.FinalizerDeleteDependents)
}

// attemptToDelete decides the fate of a dependent from its owners: with a live owner
// (solid) it only loses its references to gone (dangling) and foreground-deleting
// (waiting) owners; with waiting owners and dependents of its own it is deleted in the
// foreground (its references made non-blocking first when a dependent is itself
// deleting in the foreground, which breaks cycles); otherwise it is deleted with the
// policy its own finalizers ask for.
func (m *Manager) attemptToDelete(w *writer, n *node) error {
	for _, ref := range n.owners {
		r, ok := m.graph.resourceOfRef(ref)
		if !ok {
			// kube's collector cannot map the reference and retries it: the dependent
			// stays until its owner's kind is served.
			return nil
		}
		if !n.namespaced && r.namespaced {
			// "cluster-scoped objects cannot refer to namespaced owners": kube's
			// collector leaves such a dependent alone, for good.
			return nil
		}
	}
	var solid, gone []scheme.UID
	waiting := false
	for _, ref := range n.owners {
		o := m.graph.owner(n, ref)
		switch {
		case o == nil:
			gone = append(gone, ref.UID)
		case o.deleting && o.has(registry.FinalizerDeleteDependents):
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
		if slices.ContainsFunc(deps, func(d *node) bool { return d.deleting && d.has(registry.FinalizerDeleteDependents) }) {
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
		_, err := w.delete(n, registry.DeletePropagationForeground)
		return err
	}
	policy := registry.DeletePropagationBackground
	switch {
	case n.has(registry.FinalizerOrphanDependents):
		policy = registry.DeletePropagationOrphan
	case n.has(registry.FinalizerDeleteDependents):
		policy = registry.DeletePropagationForeground
	}
	_, err := w.delete(n, policy)
	return err
}

// reportInvalidNamespaceOwners records, once per dependent and owner, kube's
// OwnerRefInvalidNamespace warning on a dependent whose reference names (by uid) an
// object of another namespace: owners are looked up in the dependent's namespace, so
// such a reference is dangling (and a cluster-scoped dependent's is left alone).
func (m *Manager) reportInvalidNamespaceOwners(ctx context.Context, n *node) {
	for _, ref := range n.owners {
		o, ok := m.graph.nodes[ref.UID]
		if !ok || !o.namespaced || o.namespace == n.namespace {
			continue
		}
		key := [2]scheme.UID{n.uid, ref.UID}
		if _, done := m.reported[key]; done {
			continue
		}
		m.reported[key] = struct{}{}
		m.log.Debug("controllers: item references an owner but does not match namespaces", "item", n.key(), "owner", o.key())
		msg := fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q", ref.APIVersion, ref.Kind, n.namespace, ref.Name, ref.UID, n.namespace)
		if err := m.recordEvent(ctx, n, eventTypeWarning, "OwnerRefInvalidNamespace", msg); err != nil && ctx.Err() == nil {
			// client-go's recorder drops an event it cannot write, and logs it.
			m.log.Error("controllers: unable to record event (will not retry)", "err", err)
			m.metrics.errors.With("event").Inc()
		}
	}
}

// forgetReports forgets the reports of dependents that are gone or no longer hold the
// reference, so that a reference added again is reported again, as kube's collector
// reports a reference when it is added.
func (m *Manager) forgetReports() {
	for key := range m.reported {
		d, ok := m.graph.nodes[key[0]]
		if !ok || !slices.ContainsFunc(d.owners, func(r scheme.OwnerReference) bool { return r.UID == key[1] }) {
			delete(m.reported, key)
		}
	}
}
