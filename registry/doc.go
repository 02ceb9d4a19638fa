// Package registry is the lifecycle of an object without HTTP, as k8s.io/apiserver's
// generic registry Store is under its REST handlers: what a write does between a
// decoded object and storage, whoever asks for it — the HTTP layer (package rest), the
// garbage collector and the namespace controller (package controllers).
//
// A [Store] is built once over a scheme and a storage.Interface with [New]. Each call
// takes a context carrying the user ([authn.WithUser]) and a [Request] naming the
// resource, the namespace and version of the request and whether it is a dry run, and
// fails with a *scheme.Status (package apierrors), as kube's registry fails with
// StatusErrors.
//
// What a Store owns:
//
//   - Strategies: per-resource hooks, as a [StrategyFor] of the kind's own Go type or
//     a value with any of the hook methods of [Strategy], resolved once by
//     [ResolveStrategy], which refuses a hook that would never be called.
//   - Admission: [MutatingAdmission] and [ValidatingAdmission] plugins in kube's
//     order, told of each write by [AdmissionAttributes].
//   - Schema-only kinds: the structural schema registered with openapi.Register is
//     compiled once per version, and an object read from storage is pruned and
//     defaulted by it ([Store.Coerce]) as kube-apiserver reads a custom resource.
//   - Deletion ([Store.Delete], [Store.DeleteCollection]): preconditions on uid and
//     resourceVersion; an object without finalizers goes at once, one with finalizers
//     gets a deletionTimestamp and stays until its last one is removed; the
//     propagation policy becomes the garbage collector's orphan and foregroundDeletion
//     finalizers when one runs (Options.GarbageCollection), and otherwise Orphan is
//     carried out by the Store itself.
//   - The namespace lifecycle: a new Namespace gets the kubernetes finalizer and phase
//     Active, a deleted one turns Terminating and stays while its spec.finalizers
//     remain, and default, kube-system and kube-public cannot be deleted
//     ([NamespaceFields] and [UpdateNamespace] read and edit a Namespace of any Go
//     type or none).
//   - Dry runs: every step but the write.
package registry
