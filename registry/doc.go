// Package registry is the lifecycle of an object without HTTP, as k8s.io/apiserver's
// generic registry Store is under its REST handlers: what a write does between a
// decoded object and storage, whoever asks for it — the HTTP layer (package rest), the
// garbage collector and the namespace controller (package controllers), the CRD
// server's Apply (package apiextensions/server).
//
// A [Store] is built once over a scheme and a storage.Interface with [New]. Each call
// takes a context carrying the user ([authn.WithUser]) and a [Request] naming the
// resource, the namespace, version and subresource of the request, its field manager
// and whether it is a dry run, and fails with a *scheme.Status (package apierrors), as
// kube's registry fails with StatusErrors.
//
// What a Store owns:
//
//   - Creation ([Store.Create]) and updates ([Store.Update], a read-modify-write whose
//     [UpdateFunc] computes the new object from the stored one, as a patch or a scale
//     write does): the fields the server sets (uid, creationTimestamp, generation, a
//     generated name) and carries over, the rules of the status subresource, a
//     generation that moves with the spec, and the size and depth limits of a stored
//     object.
//   - Strategies: per-resource hooks, as a [StrategyFor] of the kind's own Go type or
//     a value with any of the hook methods of [Strategy], resolved once, refusing a
//     hook that would never be called. Hooks read stored objects with [Get] and
//     [List].
//   - Admission: [MutatingAdmission] and [ValidatingAdmission] plugins in kube's
//     order (mutation after the server's fields and the strategy's preparation,
//     validation after the object's own), told of each write by
//     [AdmissionAttributes].
//   - Schema-only kinds: the structural schema registered with openapi.Register is
//     compiled once per version; objects are validated against it and its CEL rules,
//     and an object read from storage is pruned and defaulted by it ([Store.Coerce])
//     as kube-apiserver reads a custom resource.
//   - managedFields: each create and update records the fields its manager changed;
//     server-side apply merges with the [Store.FieldManager] of the kind.
//   - Deletion ([Store.Delete], [Store.DeleteCollection]): preconditions on uid and
//     resourceVersion; an object without finalizers goes at once, one with finalizers
//     gets a deletionTimestamp and stays until an update removes its last one; the
//     propagation policy becomes the garbage collector's orphan and foregroundDeletion
//     finalizers when one runs (Options.GarbageCollection), and otherwise Orphan is
//     carried out by the Store itself.
//   - The namespace lifecycle: nothing is created in a namespace that does not exist
//     or is terminating; a new Namespace gets the kubernetes finalizer and phase
//     Active, a deleted one turns Terminating and stays while its spec.finalizers
//     remain, and default, kube-system and kube-public cannot be deleted
//     ([NamespaceFields] and [UpdateNamespace] read and edit a Namespace of any Go
//     type or none).
//   - Reads ([Store.Get], [Store.List], [Store.Watch]): objects as a GET answers them,
//     pruned and defaulted by their schema and converted to the Request's version.
//   - Dry runs: every step but the write.
package registry
