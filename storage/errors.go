package storage

import (
	"errors"
	"fmt"
)

// Sentinel errors. Backends return them inside an [*Error] that names the key concerned;
// callers test them with errors.Is. The REST layer maps each to a Status.
var (
	// ErrNotFound: no object at the key (404 NotFound).
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: Create on a key that holds an object (409 AlreadyExists).
	ErrAlreadyExists = errors.New("already exists")
	// ErrConflict: a precondition or resourceVersion did not match the stored object (409 Conflict).
	ErrConflict = errors.New("conflict")
	// ErrGone: the requested resourceVersion is older than the history kept (410 Expired / Gone).
	ErrGone = errors.New("resource version is too old")
	// ErrTooLargeResourceVersion: the requested resourceVersion is newer than the store
	// reached within the wait (504 Timeout with the "Too large resource version" cause).
	ErrTooLargeResourceVersion = errors.New("too large resource version")
	// ErrInvalidObject: the object cannot be stored as given, e.g. it carries a
	// resourceVersion on create (400 / 500 depending on the caller).
	ErrInvalidObject = errors.New("invalid object")
	// ErrInvalidResourceVersion: a resourceVersion that is not a decimal uint64 (400 BadRequest).
	ErrInvalidResourceVersion = errors.New("invalid resource version")
	// ErrInvalidOptions: a combination of resourceVersion, resourceVersionMatch, limit and
	// continue that the spec's tables call invalid (400 BadRequest).
	ErrInvalidOptions = errors.New("invalid list options")
	// ErrInvalidContinue: a continue token that cannot be decoded (400 BadRequest).
	ErrInvalidContinue = errors.New("continue key is not valid")
	// ErrInvalidSelector: a label or field selector that does not parse (400 BadRequest).
	ErrInvalidSelector = errors.New("invalid selector")
	// ErrUnavailable: the backend could not be reached or did not answer in time, for
	// example an etcd cluster without quorum, or takes no more writes, as storage/bolt
	// after a write to its disk failed (503 ServiceUnavailable); the client may retry,
	// at this server once it is back or restarted, or at another replica. A write fails
	// with it only when it was not applied.
	ErrUnavailable = errors.New("storage unavailable")
	// ErrTimeout: a write whose outcome the backend left unknown: it was sent but not
	// answered in time, or the backend answered that it could not tell (etcd's
	// "etcdserver: request timed out", then in the Error's Detail). It may have been
	// applied, or may be later, so a client must not be told to try again (a retried
	// create makes a second object): kube-apiserver's 504 Timeout, or its 500 with the
	// backend's own text when there is a Detail.
	ErrTimeout = errors.New("storage request timed out")
)

// Error is a failure of the store, in fields rather than in a sentence, so that the REST
// layer builds a client's Status from what it may show and never from the text of
// Error(), which names the storage key. Keys are the store's internal addresses (in
// kube-apiserver, etcd keys) and must not reach clients.
//
// Backends make one with [NewError], [NewErrorf], [NewErrorAt] or [WithKey]; parsers of client input
// ([ParseResourceVersion], [ResolveList], the selector parsers) make one without a key,
// and a backend adds the key it was asked about with WithKey.
type Error struct {
	// Err is what failed: one of this package's sentinels (ErrNotFound, ErrGone, ...), or
	// for a failure no sentinel names (a cancelled context, a journal that failed) the
	// cause itself. Unwrap returns it, so errors.Is(err, storage.ErrNotFound) holds.
	Err error
	// Key is the object's key or the collection's prefix the operation was about; "" when
	// the error concerns only the caller's input. It is for logs and tests, never for
	// clients.
	Key string
	// ResourceVersion is the version the failure is about, where there is one: the
	// version asked for of ErrGone and ErrTooLargeResourceVersion, else 0.
	ResourceVersion uint64
	// Detail explains the failure in words a client may be shown, e.g. "too old resource
	// version: 5 (10)"; the REST layer builds kube-apiserver's message from Err and
	// Detail. It never contains a key.
	Detail string
}

// NewError returns the error sentinel about key, with no detail.
func NewError(sentinel error, key string) *Error {
	return &Error{Err: sentinel, Key: key}
}

// NewErrorf returns the error sentinel about key, with a detail formatted for clients:
// the arguments must not include a key.
func NewErrorf(sentinel error, key, format string, args ...any) *Error {
	return &Error{Err: sentinel, Key: key, Detail: fmt.Sprintf(format, args...)}
}

// NewErrorAt returns the error sentinel (ErrGone, ErrTooLargeResourceVersion) about key
// and resourceVersion rv, with a detail formatted for clients: the arguments must not
// include a key.
func NewErrorAt(sentinel error, key string, rv uint64, format string, args ...any) *Error {
	return &Error{Err: sentinel, Key: key, ResourceVersion: rv, Detail: fmt.Sprintf(format, args...)}
}

// WithKey returns err as an *Error about key: an *Error that names no key yet (one from
// a parser of client input) gets key, one that names a key is returned as is, and any
// other error (a cancelled context, a journal's failure) becomes the Err of a new *Error.
func WithKey(err error, key string) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		if e.Key != "" {
			return e
		}
		keyed := *e
		keyed.Key = key
		return &keyed
	}
	return &Error{Err: err, Key: key}
}

// Error reads "<what failed>[: <key>][: <detail>]", e.g. "not found: /core/pods/ns/a".
// It names the key: it is for logs, not for clients (see [Error.Detail]).
func (e *Error) Error() string {
	msg := e.Err.Error()
	if e.Key != "" {
		msg += ": " + e.Key
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns Err, so errors.Is and errors.As see the sentinel or the cause.
func (e *Error) Unwrap() error { return e.Err }
