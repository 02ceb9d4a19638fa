package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
)

// DefaultNamespaces are the namespaces kube-apiserver and kube-controller-manager keep.
var DefaultNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// The namespace conditions of kube's namespace deleter, with the reason and message of
// their healthy (False) state, in the order it sets them.
var namespaceConditions = []struct{ typ, okReason, okMessage string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// ensureDefaultNamespaces creates the DefaultNamespaces that do not exist, when the
// scheme serves namespaces.
func (m *Manager) ensureDefaultNamespaces(ctx context.Context) error {
	r, ok := m.opts.Scheme.Resource(namespacesGR)
	if !ok {
		return nil
	}
	gvk := scheme.GroupVersionKind{Version: m.opts.Scheme.StorageVersion(r), Kind: r.Kind}
	for _, name := range DefaultNamespaces {
		obj, err := newNamespace(m.opts.Scheme, gvk, name, scheme.NowFrom(m.opts.Clock))
		if err != nil {
			return err
		}
		_, err = m.store.Create(ctx, storage.Key(namespacesGR, "", name), obj)
		if err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			return fmt.Errorf("controllers: creating namespace %s: %w", name, err)
		}
	}
	return nil
}

// newNamespace builds an Active Namespace of the scheme's type, as a create would store it.
func newNamespace(s *scheme.Scheme, gvk scheme.GroupVersionKind, name string, now scheme.Time) (scheme.Object, error) {
	m := map[string]any{
		"apiVersion": gvk.GroupVersion().String(),
		"kind":       gvk.Kind,
		"metadata":   map[string]any{"name": name, "uid": string(scheme.NewUID()), "creationTimestamp": now.UTC().Format("2006-01-02T15:04:05Z")},
		"spec":       map[string]any{"finalizers": []any{registry.FinalizerKubernetes}},
		"status":     map[string]any{"phase": registry.NamespacePhaseActive},
	}
	obj, err := newObject(s, gvk, m)
	if err != nil {
		return nil, fmt.Errorf("controllers: namespace %s: %w", name, err)
	}
	return obj, nil
}

// syncNamespace is the namespace controller's work on a Terminating namespace: delete
// its content with background propagation (objects with finalizers are marked and
// waited for), record kube's conditions, and once nothing remains remove the
// "kubernetes" finalizer, which lets the namespace go. retry reports content it failed
// to delete: kube's namespace controller requeues the namespace then, and no event may
// follow (the conditions stay the same).
func (m *Manager) syncNamespace(w *writer, ns *node) (retry bool, err error) {
	fields, err := registry.NamespaceFields(ns.obj)
	if err != nil {
		return false, err
	}
	if !slices.Contains(fields.Finalizers, registry.FinalizerKubernetes) {
		return false, nil
	}
	remaining := map[string]int{}
	finalizers := map[string]int{}
	var failures []string
	for _, n := range m.graph.namespaceContent(ns.name) {
		left, err := w.delete(n, registry.DeletePropagationBackground)
		if err != nil {
			failures = append(failures, err.Error())
			continue
		}
		if len(left) == 0 {
			continue
		}
		remaining[n.gr.String()]++
		for _, f := range left {
			finalizers[f]++
		}
	}
	conds := conditions(remaining, finalizers, failures)
	err = w.update(ns, func(cur scheme.Object) error {
		return registry.UpdateNamespace(cur, func(_, status map[string]any) {
			status["phase"] = registry.NamespacePhaseTerminating
			status["conditions"] = mergeConditions(status["conditions"], conds, scheme.NowFrom(w.clock))
		})
	})
	if err != nil || len(remaining) > 0 || len(failures) > 0 {
		return len(failures) > 0, err
	}
	return false, w.update(ns, func(cur scheme.Object) error {
		return registry.UpdateNamespace(cur, func(spec, _ map[string]any) {
			fins, _ := spec["finalizers"].([]any)
			spec["finalizers"] = slices.DeleteFunc(slices.Clone(fins), func(f any) bool { return f == registry.FinalizerKubernetes })
		})
	})
}

// conditions are the namespace deleter's conditions for what a pass found.
func conditions(remaining, finalizers map[string]int, failures []string) []map[string]any {
	var out []map[string]any
	for _, c := range namespaceConditions {
		status, reason, message := "False", c.okReason, c.okMessage
		switch {
		case c.typ == "NamespaceDeletionContentFailure" && len(failures) > 0:
			status, reason = "True", "ContentDeletionFailed"
			message = fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(failures), strings.Join(failures, ", "))
		case c.typ == "NamespaceContentRemaining" && len(remaining) > 0:
			status, reason = "True", "SomeResourcesRemain"
			message = "Some resources are remaining: " + counted(remaining, "%s has %d resource instances")
		case c.typ == "NamespaceFinalizersRemaining" && len(finalizers) > 0:
			status, reason = "True", "SomeFinalizersRemain"
			message = "Some content in the namespace has finalizers remaining: " + counted(finalizers, "%s in %d resource instances")
		}
		out = append(out, map[string]any{"type": c.typ, "status": status, "reason": reason, "message": message})
	}
	return out
}

// counted formats a count per name, in name order, joined by ", ".
func counted(counts map[string]int, format string) string {
	parts := make([]string, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf(format, k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// mergeConditions sets each condition of want in have, keeping lastTransitionTime when
// the status did not change; conditions of other types stay.
func mergeConditions(have any, want []map[string]any, at scheme.Time) []any {
	list, _ := have.([]any)
	list = slices.Clone(list)
	now := at.UTC().Format("2006-01-02T15:04:05Z")
	for _, c := range want {
		i := slices.IndexFunc(list, func(x any) bool { m, _ := x.(map[string]any); return m["type"] == c["type"] })
		c["lastTransitionTime"] = now
		if i < 0 {
			list = append(list, c)
			continue
		}
		if old, _ := list[i].(map[string]any); old["status"] == c["status"] && old["lastTransitionTime"] != nil {
			c["lastTransitionTime"] = old["lastTransitionTime"]
		}
		list[i] = c
	}
	return list
}
