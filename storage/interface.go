package storage

import (
	"context"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/watch"
)

// Interface is what every storage backend implements: a versioned key/value store of
// scheme.Object values with optimistic concurrency, consistent paginated lists and watches.
// It is modelled on the roles k8s.io/apiserver asks of etcd, without any etcd-only method.
//
// # Keys
//
// A key names one object and looks like a path: "/<group>/<resource>/<namespace>/<name>"
// for a namespaced object and "/<group>/<resource>/<name>" for a cluster-scoped one
// (see [Key] and [Prefix]; the legacy core group is written "core"). A prefix names a
// collection and always ends with "/": "/apps/deployments/" (every namespace) or
// "/apps/deployments/default/" (one namespace). Backends order keys bytewise; List and
// recursive Watch take a prefix (a missing trailing "/" is added).
//
// # Resource versions
//
// Each store keeps one monotonic uint64 counter, a logical clock that every write
// (create, update, delete) advances by at least one. An object carries the version of its
// last write in metadata.resourceVersion, rendered as a decimal string
// ([FormatResourceVersion]); a list carries the version it was read at. Callers treat the
// strings as opaque; [ParseResourceVersion] turns a client's string into the counter.
//
// # Ownership
//
// Backends never retain memory the caller passed in, and never return memory that they
// or another caller keep: every object handed in is deep-copied before it is stored, and
// every object handed out by Create, Get, List, GuaranteedUpdate and Delete is the
// caller's own (see scheme.DeepCopy). Create hands back the caller's own object, updated
// to what was stored, so that a create costs one copy, as kube-apiserver's fills in its
// out argument. Objects in watch events are the exception:
// like kube-apiserver's watch cache, a backend may share one event object between all
// its watches, so event objects are read-only. So are the items of ListShared, a
// method some backends add (memory, bolt and the watch cache): List without the copies,
// for a reader that only encodes the items, such as a list response.
//
// # Errors
//
// Every error is an [*Error]: one of the sentinels of this package (ErrNotFound,
// ErrConflict, ...) with the key it concerns and the detail a client may be shown, so
// errors.Is works, logs name the object and the REST layer answers without the key.
// Errors of the caller's own functions (an UpdateFunc, a ValidateDeletionFunc) are
// returned as they are.
type Interface interface {
	// Create stores a copy of obj at key, which must not exist (else ErrAlreadyExists).
	// obj's resourceVersion must be empty (else ErrInvalidObject). On success it sets obj's
	// resourceVersion to the new version and returns obj, which now equals what is stored
	// and remains the caller's; on failure obj is unchanged.
	Create(ctx context.Context, key string, obj scheme.Object) (scheme.Object, error)

	// Get returns the object at key, or ErrNotFound. opts.ResourceVersion follows the
	// spec's table for get: "" is Most Recent, "0" is Any, N is Not older than N (a future
	// N waits briefly, then fails with ErrTooLargeResourceVersion).
	Get(ctx context.Context, key string, opts GetOptions) (scheme.Object, error)

	// List returns the objects whose keys start with prefix, in key order, that match
	// opts.Predicate, following the spec's table for list (resourceVersion,
	// resourceVersionMatch, limit, continue). A page of a paginated list, and every page
	// after it, is read at the same resourceVersion: a consistent snapshot. An empty
	// collection is not an error.
	List(ctx context.Context, prefix string, opts ListOptions) (*ListResult, error)

	// GuaranteedUpdate runs a read-modify-write loop on key: it reads the current object,
	// checks opts.Preconditions (ErrConflict on mismatch), calls tryUpdate with a private
	// copy of it and writes the result only if the object is still at the version that
	// was read, retrying from a fresh read otherwise, until it succeeds, tryUpdate fails
	// (its error is returned as is) or ctx ends.
	//
	// If tryUpdate returns an object equal to the current one (ignoring resourceVersion)
	// nothing is written, no event is sent and the current object is returned. If the
	// returned object has a resourceVersion that differs from the current one's, the
	// update fails with ErrConflict (optimistic concurrency); an empty resourceVersion
	// means "whatever is current". When key does not exist the result is ErrNotFound,
	// unless opts.IgnoreNotFound is set: then tryUpdate gets nil and its result is created.
	// The returned object is the caller's copy of what is stored.
	GuaranteedUpdate(ctx context.Context, key string, opts UpdateOptions, tryUpdate UpdateFunc) (scheme.Object, error)

	// Delete removes the object at key, or fails with ErrNotFound. It checks
	// opts.Preconditions and then runs opts.Validate on the current object, atomically with
	// the removal (a concurrent write makes Delete re-read and check again). It returns
	// the object as it was last stored (its resourceVersion is that of its last write;
	// the watch event for the deletion carries the deletion's resourceVersion).
	Delete(ctx context.Context, key string, opts DeleteOptions) (scheme.Object, error)

	// Watch streams the changes to key (or, with opts.Recursive, to every key under the
	// prefix key) that match opts.Predicate, in resourceVersion order, each exactly once.
	// opts.ResourceVersion follows the spec's table for watch: "" and "0" first send the
	// current state as synthetic ADDED events (unless opts.SendInitialEvents says
	// otherwise), N starts right after N. An N older than the history window fails with
	// ErrGone; a future N waits briefly, then fails with ErrTooLargeResourceVersion. An
	// object that starts or stops matching the predicate is sent as ADDED or DELETED.
	// Event objects are shared, read-only. The watch ends when ctx ends or Stop is called;
	// a watch that falls behind the history window ends with an ERROR event (410 Expired).
	Watch(ctx context.Context, key string, opts WatchOptions) (watch.Interface, error)

	// Count returns how many objects are stored under prefix.
	Count(ctx context.Context, prefix string) (int64, error)
}

// GetOptions are the options of Interface.Get.
type GetOptions struct {
	// ResourceVersion is the client's resourceVersion parameter: "" (Most Recent), "0"
	// (Any) or a version (Not older than).
	ResourceVersion string
}

// ResourceVersionMatch is the resourceVersionMatch parameter of a list.
type ResourceVersionMatch string

// The values of resourceVersionMatch; "" means unset.
const (
	ResourceVersionMatchNotOlderThan ResourceVersionMatch = "NotOlderThan"
	ResourceVersionMatchExact        ResourceVersionMatch = "Exact"
)

// ListOptions are the options of Interface.List.
type ListOptions struct {
	// ResourceVersion is the client's resourceVersion parameter.
	ResourceVersion string
	// ResourceVersionMatch is the client's resourceVersionMatch parameter ("" if unset).
	ResourceVersionMatch ResourceVersionMatch
	// Limit is the maximum number of items to return; 0 means no limit.
	Limit int64
	// Continue is a token from a previous page's ListResult.Continue.
	Continue string
	// Predicate selects the objects to return; the zero Predicate selects all.
	Predicate Predicate
}

// ListResult is one page of a list.
type ListResult struct {
	// Items are the matching objects in key order, each the caller's own copy.
	Items []scheme.Object
	// ResourceVersion is the version the list was read at (the list's
	// metadata.resourceVersion).
	ResourceVersion string
	// Continue is the token for the next page, or "" when this is the last page.
	Continue string
	// RemainingItemCount is how many objects follow this page, set only when the list
	// was cut short by Limit and no selector was given.
	RemainingItemCount *int64
}

// Preconditions must hold on the current object for an update or delete to proceed; a nil
// field is not checked.
type Preconditions struct {
	// UID, when set, must equal the object's uid.
	UID *scheme.UID
	// ResourceVersion, when set, must equal the object's resourceVersion.
	ResourceVersion *string
}

// UpdateFunc computes the new state of an object from its current state, which is the
// function's own copy (nil when the object does not exist and IgnoreNotFound is set). It
// may modify and return current, or return a new object. It may be called more than once.
type UpdateFunc func(current scheme.Object) (scheme.Object, error)

// ValidateDeletionFunc decides whether the current object may be deleted; an error
// aborts the deletion and is returned as is. current is the stored object itself, not a
// copy (kube-apiserver's deletion hooks likewise see the object its watch cache holds):
// the function must only read it. A delete then costs no copy for the check.
type ValidateDeletionFunc func(ctx context.Context, current scheme.Object) error

// UpdateOptions are the options of Interface.GuaranteedUpdate.
type UpdateOptions struct {
	// Preconditions are checked against the current object before tryUpdate runs.
	Preconditions *Preconditions
	// IgnoreNotFound makes a missing object a create: tryUpdate is called with nil.
	IgnoreNotFound bool
	// CachedExisting, when set, is a recent state of the object (a watch cache's, with
	// its resourceVersion) that a backend whose reads cost a round trip may start from
	// instead of reading (kube-apiserver's cachedExistingObject). It may be stale: a
	// backend that uses it decides nothing on it alone (a failed precondition, an
	// error of tryUpdate, a write that changes nothing, a conflict) without reading the
	// current state and trying again. The backend does not modify it; tryUpdate still
	// gets its own copy. Backends that hold their state in memory ignore it.
	CachedExisting scheme.Object
}

// DeleteOptions are the options of Interface.Delete.
type DeleteOptions struct {
	// Preconditions are checked against the current object.
	Preconditions *Preconditions
	// Validate, when set, runs on the current object just before it is removed.
	Validate ValidateDeletionFunc
	// CachedExisting is UpdateOptions.CachedExisting for a delete: the deletion is
	// conditional on the key still being at its resourceVersion, and a failed
	// precondition or Validate error on it is checked again on the current state.
	CachedExisting scheme.Object
}

// WatchOptions are the options of Interface.Watch.
type WatchOptions struct {
	// ResourceVersion is the client's resourceVersion parameter.
	ResourceVersion string
	// Recursive watches every key under the prefix key rather than key alone.
	Recursive bool
	// Predicate selects the objects to report; the zero Predicate selects all.
	Predicate Predicate
	// Bookmarks allows BOOKMARK events (allowWatchBookmarks).
	Bookmarks bool
	// SendInitialEvents is the sendInitialEvents parameter: nil keeps the default of the
	// resourceVersion table; true sends the state as ADDED events first and then (with
	// Bookmarks) a BOOKMARK annotated "k8s.io/initial-events-end": "true"; false sends none.
	SendInitialEvents *bool
	// NewBookmarkObject returns an empty object of the watched kind for BOOKMARK events;
	// the backend sets its resourceVersion (and annotations). When nil, bookmarks carry a
	// *scheme.Unstructured with only metadata.
	NewBookmarkObject func() scheme.Object
	// Batches says that the caller reads the watch with watch.Batcher's NextBatch when
	// the watch returned implements it, not from ResultChan. A backend that serves
	// watches from a watch.Broadcaster passes it on (watch.WatchOptions.Batches); one
	// whose watches do not implement watch.Batcher ignores it.
	Batches bool
}

// Compactor is implemented by backends whose history can be discarded on demand.
type Compactor interface {
	// Compact discards history older than rv: afterwards, watches from and Exact or
	// continue reads at a version below rv fail with ErrGone. Versions at or after rv,
	// and the current state, are kept.
	Compact(ctx context.Context, rv uint64) error
}

// Versioned is implemented by backends that can report their current resourceVersion
// without listing.
type Versioned interface {
	// CurrentResourceVersion returns the version of the store's latest write.
	CurrentResourceVersion(ctx context.Context) (uint64, error)
}
