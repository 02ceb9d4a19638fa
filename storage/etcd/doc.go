// Package etcd is the storage backend for several apikit replicas over one etcd v3
// cluster, as kube-apiserver runs: [Store] implements storage.Interface,
// storage.Versioned and storage.Compactor on the etcd client.
//
// It is a module of its own (github.com/apikit-dev/apikit/storage/etcd) because the etcd
// client brings gRPC: a program that does not import it inherits none of that.
//
// # Mapping
//
// An object at storage key k lives at etcd key Options.Prefix+k ("/registry/apps/
// deployments/ns/name" by default), encoded by Options.Codec (CBOR with its
// self-described tag by default, see [NewCodec]) without its resourceVersion. Its
// resourceVersion is the key's mod revision and a list's is the revision it was read
// at, so every replica over one cluster agrees on versions. Creates, guaranteed updates
// and deletes are transactions comparing the key's revision with the one read, which
// makes optimistic concurrency hold across replicas; an update whose result encodes to
// the stored bytes writes nothing. Lists are read at one revision, in bounded ranges,
// and their continue tokens name that revision, so every page is the same snapshot.
// Watches are etcd watches from a revision (with the previous value of each key, for
// DELETED events and selector transitions) and bookmarks come from etcd's progress
// notifications.
//
// # Failures
//
// Every error is a *storage.Error naming the key and never an etcd endpoint. A revision
// etcd has compacted is storage.ErrGone (410), one it has not reached yet
// storage.ErrTooLargeResourceVersion after a short wait; an etcd that cannot be reached
// or has no leader is storage.ErrUnavailable (503), and a caller's context that ends
// first is returned as the context's error (the REST layer answers 504). A write is
// ErrUnavailable only when etcd did not take it (no leader, too many requests, no
// connection to send it on); one that was sent and not answered in time, or that etcd
// answered it could not see through ("etcdserver: request timed out", in the Detail),
// may be applied all the same and is storage.ErrTimeout (kube's 504, or its 500 with
// etcd's text), which tells no client to try again. A watch ends
// with a 410 Expired ERROR event when etcd compacts past it, and with a 500 one when it
// fails otherwise, so that clients list and watch again.
package etcd
