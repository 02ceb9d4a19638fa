package storage

import (
	"errors"
	"fmt"
)

// Sentinel errors. Backends wrap them with the key concerned (see [NewError]); callers
// test them with errors.Is. The REST layer maps each to a Status.
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
)

// NewError wraps sentinel with the key it concerns, as "sentinel: key".
func NewError(sentinel error, key string) error {
	return fmt.Errorf("%w: %s", sentinel, key)
}

// NewErrorf wraps sentinel with the key and a formatted detail, as "sentinel: key: detail".
func NewErrorf(sentinel error, key, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", sentinel, key, fmt.Sprintf(format, args...))
}
