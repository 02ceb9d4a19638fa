package controllers

import (
	"slices"
	"strings"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/watch"
)

var namespacesGR = registry.NamespacesGroupResource()

// resource is what the controllers need to know of a resource: its storage prefix and
// scope, and for a stored CRD's resource its served versions.
type resource struct {
	gr         scheme.GroupResource
	namespaced bool
	versions   []string
}

// node is one stored object in the ownership graph.
type node struct {
	resource
	gk              scheme.GroupKind
	namespace, name string
	uid             scheme.UID
	resourceVersion string
	owners          []scheme.OwnerReference
	finalizers      []string
	deleting        bool
	// obj is the object as last seen (read-only, shared with the watch).
	obj scheme.Object
	// storeKey is the object's storage key, made once: passes sort the nodes by it.
	storeKey string
}

func (n *node) key() string { return n.storeKey }

func (n *node) has(finalizer string) bool { return slices.Contains(n.finalizers, finalizer) }

// graph is the in-memory ownership graph: every object by uid, and the dependents of
// each owner uid.
type graph struct {
	scheme *scheme.Scheme
	// crds are the resources of the established CRDs, by the kind they accepted, and
	// crdKinds that kind by CRD name, so that an event of a CRD forgets only its own.
	crds       map[scheme.GroupKind]resource
	crdKinds   map[string]scheme.GroupKind
	nodes      map[scheme.UID]*node
	dependents map[scheme.UID]map[scheme.UID]struct{}
	// inNamespace are the namespaced nodes by namespace, and namespaces the Namespace
	// nodes by name: the namespace controller's work on one namespace reads only these.
	inNamespace map[string]map[scheme.UID]struct{}
	namespaces  map[string]*node
	// dirty are the uids whose controllers' decision an applied event may have changed
	// (some may name no node any more), and everything tells that every node is: the
	// next pass processes only those, as kube's collector queues only the objects an
	// event affects.
	dirty      map[scheme.UID]struct{}
	everything bool
}

func newGraph(s *scheme.Scheme) *graph {
	return &graph{
		scheme: s, crds: map[scheme.GroupKind]resource{}, crdKinds: map[string]scheme.GroupKind{},
		nodes: map[scheme.UID]*node{}, dependents: map[scheme.UID]map[scheme.UID]struct{}{},
		inNamespace: map[string]map[scheme.UID]struct{}{}, namespaces: map[string]*node{},
		dirty: map[scheme.UID]struct{}{},
	}
}

// resourceOf finds the resource of a kind: the scheme's, else a stored CRD's.
func (g *graph) resourceOf(gk scheme.GroupKind) (resource, bool) {
	if r, ok := g.scheme.ResourceFor(gk); ok {
		return resource{gr: r.GroupResource(), namespaced: r.Namespaced}, true
	}
	r, ok := g.crds[gk]
	return r, ok
}

// resourceOfRef finds the resource of an ownerReference's kind at its version, as
// kube's collector maps one: a version the server does not serve maps to none.
func (g *graph) resourceOfRef(ref scheme.OwnerReference) (resource, bool) {
	gv, err := scheme.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return resource{}, false
	}
	gk := scheme.GroupKind{Group: gv.Group, Kind: ref.Kind}
	if r, ok := g.scheme.ResourceFor(gk); ok {
		if !g.scheme.Recognizes(gv.WithKind(ref.Kind)) {
			return resource{}, false
		}
		return resource{gr: r.GroupResource(), namespaced: r.Namespaced}, true
	}
	r, ok := g.crds[gk]
	if !ok || !slices.Contains(r.versions, gv.Version) {
		return resource{}, false
	}
	return r, true
}

// resources lists every known resource.
func (g *graph) resources() []resource {
	var out []resource
	for _, r := range g.scheme.Resources() {
		out = append(out, resource{gr: r.GroupResource(), namespaced: r.Namespaced})
	}
	for _, r := range g.crds {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b resource) int { return strings.Compare(a.gr.String(), b.gr.String()) })
	return slices.CompactFunc(out, func(a, b resource) bool { return a.gr == b.gr })
}

// replace makes the graph hold exactly objs, a new list of the store, as an informer's
// Replace does: nodes not listed are gone (deleted meanwhile), CRDs too.
func (g *graph) replace(objs []scheme.Object) {
	clear(g.crds)
	clear(g.crdKinds)
	clear(g.nodes)
	clear(g.dependents)
	clear(g.inNamespace)
	clear(g.namespaces)
	clear(g.dirty)
	for _, obj := range objs {
		g.apply(watch.Added, obj)
	}
	// What changed while the watch was gone is unknown: every node is to be processed.
	g.everything = true
}

// applyCRD follows the resource a CRD serves. Only an established CRD serves one, by
// the names it was granted (status.acceptedNames): a CRD refused for a name another
// holds, or never established, maps no kind, so that it cannot point the collector at
// another resource than the owner's (whose dependents would then look dangling), as
// kube's collector maps kinds through discovery, which lists only served resources.
func (g *graph) applyCRD(typ watch.EventType, crd *apiextensions.CustomResourceDefinition) {
	if gk, ok := g.crdKinds[crd.Name]; ok {
		delete(g.crdKinds, crd.Name)
		delete(g.crds, gk)
	}
	if typ == watch.Deleted {
		return
	}
	if gk, r, ok := crdResource(crd); ok {
		g.crds[gk] = r
		g.crdKinds[crd.Name] = gk
	}
}

// apply records one watch event and marks dirty the nodes whose decision it may change.
func (g *graph) apply(typ watch.EventType, obj scheme.Object) {
	if crd, ok := obj.(*apiextensions.CustomResourceDefinition); ok {
		g.applyCRD(typ, crd)
		// The kinds the collector maps changed: any reference may now resolve, or not.
		g.everything = true
	}
	uid := obj.GetUID()
	old := g.nodes[uid]
	if old != nil {
		g.unlink(old)
	}
	if typ == watch.Deleted {
		if old != nil {
			g.markAround(old, nil)
			delete(g.nodes, uid)
		}
		return
	}
	gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
	r, ok := g.resourceOf(gk)
	if !ok {
		if old != nil {
			// The node stays (its kind is no longer mapped) but lost its links.
			g.markAround(old, nil)
		}
		return
	}
	n := &node{
		resource: r, gk: gk, namespace: obj.GetNamespace(), name: obj.GetName(), uid: uid,
		resourceVersion: obj.GetResourceVersion(), owners: obj.GetOwnerReferences(),
		finalizers: obj.GetFinalizers(), deleting: obj.GetDeletionTimestamp() != nil, obj: obj,
		storeKey: storage.Key(r.gr, obj.GetNamespace(), obj.GetName()),
	}
	g.nodes[uid] = n
	g.link(n)
	g.markAround(old, n)
}

// link indexes n: as a dependent of its owners, in its namespace, as a Namespace.
func (g *graph) link(n *node) {
	for _, ref := range n.owners {
		if g.dependents[ref.UID] == nil {
			g.dependents[ref.UID] = map[scheme.UID]struct{}{}
		}
		g.dependents[ref.UID][n.uid] = struct{}{}
	}
	if n.namespaced {
		if g.inNamespace[n.namespace] == nil {
			g.inNamespace[n.namespace] = map[scheme.UID]struct{}{}
		}
		g.inNamespace[n.namespace][n.uid] = struct{}{}
	}
	if n.gr == namespacesGR {
		g.namespaces[n.name] = n
	}
}

// unlink undoes link.
func (g *graph) unlink(n *node) {
	for _, ref := range n.owners {
		delete(g.dependents[ref.UID], n.uid)
		if len(g.dependents[ref.UID]) == 0 {
			delete(g.dependents, ref.UID)
		}
	}
	if n.namespaced {
		delete(g.inNamespace[n.namespace], n.uid)
		if len(g.inNamespace[n.namespace]) == 0 {
			delete(g.inNamespace, n.namespace)
		}
	}
	if n.gr == namespacesGR && g.namespaces[n.name] == n {
		delete(g.namespaces, n.name)
	}
}

// markAround marks dirty what a change of one object from old to cur (either nil when
// it was created or is gone) may decide otherwise, from what collect and syncNamespace
// read:
//   - the object itself;
//   - its owners, old and new, when its references changed or it came or went (an
//     orphaning or foreground-deleting owner reads its dependents and their blocking
//     references);
//   - its dependents, when it came or went or changed what they read of an owner
//     (kind, name, namespace, deletion, finalizers);
//   - its namespace's Namespace when that is being deleted (it deletes and counts
//     the namespace's content);
//   - every object of a Namespace that starts deleting.
func (g *graph) markAround(old, cur *node) {
	n := cur
	if n == nil {
		n = old
	}
	g.mark(n.uid)
	if old == nil || cur == nil || !slices.EqualFunc(old.owners, cur.owners, sameRef) {
		for _, x := range []*node{old, cur} {
			if x != nil {
				for _, ref := range x.owners {
					g.mark(ref.UID)
				}
			}
		}
	}
	if old == nil || cur == nil || !sameAsOwner(old, cur) {
		for d := range g.dependents[n.uid] {
			g.mark(d)
		}
	}
	for _, x := range []*node{old, cur} {
		if x == nil || !x.namespaced {
			continue
		}
		if ns := g.namespaces[x.namespace]; ns != nil && ns.deleting {
			g.mark(ns.uid)
		}
	}
	if cur != nil && cur.gr == namespacesGR && cur.deleting && (old == nil || !old.deleting) {
		for d := range g.inNamespace[cur.name] {
			g.mark(d)
		}
	}
}

func (g *graph) mark(uid scheme.UID) { g.dirty[uid] = struct{}{} }

// sameRef reports whether two ownerReferences are equal, blockOwnerDeletion and
// controller included.
func sameRef(a, b scheme.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		sameBool(a.BlockOwnerDeletion, b.BlockOwnerDeletion) && sameBool(a.Controller, b.Controller)
}

func sameBool(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// sameAsOwner reports whether two versions of an object look the same to its
// dependents: what owner and reportInvalidNamespaceOwners compare, and the deletion
// state attemptToDelete reads.
func sameAsOwner(a, b *node) bool {
	return a.gk == b.gk && a.name == b.name && a.namespace == b.namespace && a.namespaced == b.namespaced &&
		a.deleting == b.deleting && slices.Equal(a.finalizers, b.finalizers)
}

// takeDirty returns the dirty nodes in key order, so passes are deterministic, and
// marks them clean.
func (g *graph) takeDirty() []*node {
	var out []*node
	if g.everything {
		out = make([]*node, 0, len(g.nodes))
		for _, n := range g.nodes {
			out = append(out, n)
		}
	} else {
		out = make([]*node, 0, len(g.dirty))
		for uid := range g.dirty {
			if n, ok := g.nodes[uid]; ok {
				out = append(out, n)
			}
		}
	}
	g.everything = false
	clear(g.dirty)
	sortByKey(out)
	return out
}

func sortByKey(nodes []*node) {
	slices.SortFunc(nodes, func(a, b *node) int { return strings.Compare(a.key(), b.key()) })
}

// dependentsOf lists the live dependents of an owner uid, in key order.
func (g *graph) dependentsOf(uid scheme.UID) []*node {
	return g.listed(g.dependents[uid])
}

// namespaceContent lists the nodes of a namespace, in key order.
func (g *graph) namespaceContent(namespace string) []*node {
	return g.listed(g.inNamespace[namespace])
}

// listed lists the live nodes of a set of uids, in key order.
func (g *graph) listed(uids map[scheme.UID]struct{}) []*node {
	var out []*node
	for uid := range uids {
		if n, ok := g.nodes[uid]; ok {
			out = append(out, n)
		}
	}
	sortByKey(out)
	return out
}

// owner resolves an ownerReference of dependent like kube's garbage collector: the
// object of the reference's kind and name (in the dependent's namespace when the kind
// is namespaced) with the reference's uid, or nil when there is none (a dangling
// reference).
func (g *graph) owner(dependent *node, ref scheme.OwnerReference) *node {
	n, ok := g.nodes[ref.UID]
	if !ok || n.name != ref.Name || n.gk.Kind != ref.Kind {
		return nil
	}
	gv, err := scheme.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != n.gk.Group {
		return nil
	}
	if n.namespaced && n.namespace != dependent.namespace {
		return nil
	}
	return n
}
