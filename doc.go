// Package apikit is a toolkit for building Kubernetes-style API servers in Go that real
// Kubernetes clients (kubectl, client-go, controller-runtime) talk to unchanged.
//
// A host program registers its resource types in a [scheme.Scheme], picks a storage
// backend and mounts apikit's handler on its own http.Server. A request travels one path,
// each step a package with one job:
//
//	decode (codec) -> convert to the internal hub and default (conversion)
//	-> validate (validation) -> store (storage) -> fan out to watchers (watch)
//	-> convert to the requested version (conversion) -> encode (codec)
//
// The packages, from the bottom up:
//
//   - [github.com/apikit-dev/apikit/scheme]: the object model (TypeMeta, ObjectMeta,
//     Status, Unstructured), deep copy without code generation, and the registry of
//     kinds, resources, scopes and versions.
//   - [github.com/apikit-dev/apikit/validation]: field paths, field error lists and the
//     ready rules for names, labels, annotations and metadata.
//   - [github.com/apikit-dev/apikit/conversion]: star conversion through the internal
//     hub, defaulting, typed <-> unstructured, and a round-trip test helper.
//   - [github.com/apikit-dev/apikit/codec]: JSON and YAML with strict field checking,
//     and media types.
//   - [github.com/apikit-dev/apikit/watch]: watch events and the fan-out broadcaster.
//   - [github.com/apikit-dev/apikit/storage]: the storage interface, its conformance
//     suite, and the memory and bolt backends.
//
// The example types in examples/widgets/api show a group with two versions converting
// through a hub.
package apikit
