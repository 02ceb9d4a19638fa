// Package controllers runs, in-process over a storage.Interface, the controllers of
// kube-controller-manager a controller test relies on: the namespace controller (the
// default namespaces exist; a Terminating namespace's content is deleted, then the
// namespace) and the garbage collector (ownerReferences: background, foreground and
// orphan cascading deletion). They are event-driven: one watch on the whole store feeds
// an in-memory ownership graph, and each batch of events is followed by one pass over
// the objects it may decide otherwise (as kube's collector queues only the object of
// an event, its owners and its dependents, and its namespace controller a namespace),
// so that a pass costs what changed, not what is stored; what failed is retried.
// Manager.WaitIdle returns once a pass has seen every write and had nothing to do, so
// tests wait deterministically instead of polling.
//
// Owner references resolve as kube's collector resolves them: in the dependent's
// namespace (a uid of another namespace's object is dangling, and earns the dependent
// an OwnerRefInvalidNamespace Warning event), never from a cluster-scoped dependent to
// a namespaced kind (such a dependent is left alone), and a reference to a kind the
// server does not serve keeps its dependent.
//
// The watch is followed as client-go's informers follow theirs: when it ends with 410
// Expired (it fell out of the store's history window, as a cascade of more writes than
// the window keeps makes it) the controllers list the store again and replace their
// graph; other list and watch failures are retried with a doubling backoff. What they
// cannot do goes to Options.Logger and Options.Metrics, and Manager.HealthChecks fail
// while they cannot follow the store.
//
// The REST handler must be built with rest.Options.GarbageCollection so that deletes
// leave the orphan and foregroundDeletion finalizers to the garbage collector.
package controllers
