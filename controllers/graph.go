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
	// storeKey is the object's storage key, made once: passes sort every node by it.
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
}

func newGraph(s *scheme.Scheme) *graph {
	return &graph{scheme: s, crds: map[scheme.GroupKind]resource{}, crdKinds: map[string]scheme.GroupKind{}, nodes: map[scheme.UID]*node{}, dependents: map[scheme.UID]map[scheme.UID]struct{}{}}
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
	for _, obj := range objs {
		g.apply(watch.Added, obj)
	}
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

// apply records one watch event.
func (g *graph) apply(typ watch.EventType, obj scheme.Object) {
	if crd, ok := obj.(*apiextensions.CustomResourceDefinition); ok {
		g.applyCRD(typ, crd)
	}
	uid := obj.GetUID()
	if old, ok := g.nodes[uid]; ok {
		g.unlink(old)
	}
	if typ == watch.Deleted {
		delete(g.nodes, uid)
		return
	}
	gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
	r, ok := g.resourceOf(gk)
	if !ok {
		return
	}
	n := &node{
		resource: r, gk: gk, namespace: obj.GetNamespace(), name: obj.GetName(), uid: uid,
		resourceVersion: obj.GetResourceVersion(), owners: obj.GetOwnerReferences(),
		finalizers: obj.GetFinalizers(), deleting: obj.GetDeletionTimestamp() != nil, obj: obj,
		storeKey: storage.Key(r.gr, obj.GetNamespace(), obj.GetName()),
	}
	g.nodes[uid] = n
	for _, ref := range n.owners {
		if g.dependents[ref.UID] == nil {
			g.dependents[ref.UID] = map[scheme.UID]struct{}{}
		}
		g.dependents[ref.UID][uid] = struct{}{}
	}
}

func (g *graph) unlink(n *node) {
	for _, ref := range n.owners {
		delete(g.dependents[ref.UID], n.uid)
		if len(g.dependents[ref.UID]) == 0 {
			delete(g.dependents, ref.UID)
		}
	}
}

// dependentsOf lists the live dependents of an owner uid, in key order.
func (g *graph) dependentsOf(uid scheme.UID) []*node {
	var out []*node
	for d := range g.dependents[uid] {
		if n, ok := g.nodes[d]; ok {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *node) int { return strings.Compare(a.key(), b.key()) })
	return out
}

// sorted lists every node in key order, so passes are deterministic.
func (g *graph) sorted() []*node {
	out := make([]*node, 0, len(g.nodes))
	for _, n := range g.nodes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *node) int { return strings.Compare(a.key(), b.key()) })
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
