// Package storage defines what apikit asks of a storage backend: [Interface] (create,
// get, list, guaranteed update, delete, watch, count over keys shaped like
// "/group/resource/namespace/name"), the resourceVersion rules of the Kubernetes API
// ([ResolveGet], [ResolveList], [ParseResourceVersion]), opaque continue tokens, label
// and field selectors ([ParseLabelSelector], [ParseFieldSelector], [Predicate]) and the
// typed errors ([Error] of [ErrNotFound], [ErrConflict], [ErrGone], ...) that the REST
// layer maps to Status responses. It knows nothing of HTTP.
//
// Backends live in sub-packages (storage/memory, storage/bolt) and all pass the
// conformance suite in storage/storagetest. Optional capabilities are small interfaces
// found by type assertion, such as [Compactor].
package storage
