package storage

import (
	"fmt"
	"strconv"
)

// ParseResourceVersion parses a resourceVersion string into the store's counter. The
// empty string parses as 0 (unset). Anything else that is not a decimal uint64 fails
// with ErrInvalidResourceVersion.
func ParseResourceVersion(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, NewErrorf(ErrInvalidResourceVersion, "", "%q is not a valid resourceVersion", s)
	}
	return v, nil
}

// FormatResourceVersion renders a counter value as a resourceVersion string; 0 renders
// as "" (an object never written).
func FormatResourceVersion(v uint64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}

// ReadMode is how a read picks the version of the store it sees.
type ReadMode int

// The read semantics of the spec's resourceVersion tables.
const (
	// ReadMostRecent reads the latest state (resourceVersion unset).
	ReadMostRecent ReadMode = iota
	// ReadAny reads any state; backends serve the latest (resourceVersion "0").
	ReadAny
	// ReadNotOlderThan reads a state at least as new as the version, waiting briefly for a
	// future one.
	ReadNotOlderThan
	// ReadExact reads the state exactly at the version; it fails with ErrGone when that
	// version has left the history window.
	ReadExact
)

// String names the mode as the spec's tables do.
func (m ReadMode) String() string {
	switch m {
	case ReadMostRecent:
		return "Most Recent"
	case ReadAny:
		return "Any"
	case ReadNotOlderThan:
		return "Not older than"
	case ReadExact:
		return "Exact"
	}
	return fmt.Sprintf("ReadMode(%d)", int(m))
}

// ReadSpec is a list or get request resolved against the spec's tables: the mode, the
// version it names, and for a continued list the key to continue from.
type ReadSpec struct {
	// Mode is the read semantics.
	Mode ReadMode
	// ResourceVersion is the version for ReadNotOlderThan and ReadExact, else 0.
	ResourceVersion uint64
	// From is, for a continued list, the key to continue from (inclusive): always under
	// the listed prefix, whatever the token says (see DecodeContinue). "" otherwise.
	From string
}

// ResolveGet resolves a get's resourceVersion: "" is Most Recent, "0" Any, N Not older than N.
func ResolveGet(opts GetOptions) (ReadSpec, error) {
	switch opts.ResourceVersion {
	case "":
		return ReadSpec{Mode: ReadMostRecent}, nil
	case "0":
		return ReadSpec{Mode: ReadAny}, nil
	}
	rv, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return ReadSpec{}, err
	}
	return ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: rv}, nil
}

// ResolveList resolves the resourceVersion, resourceVersionMatch, limit and continue of a
// list of prefix (as EnsurePrefix returns it) exactly as the spec's "resourceVersionMatch
// and paging parameters for list" table does. Invalid combinations fail with
// ErrInvalidOptions, a malformed version with ErrInvalidResourceVersion and a malformed
// token, or one that would continue outside prefix, with ErrInvalidContinue.
func ResolveList(prefix string, opts ListOptions) (ReadSpec, error) {
	if opts.Limit < 0 {
		return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "limit must not be negative, got %d", opts.Limit)
	}
	rvSet := opts.ResourceVersion != ""
	var rv uint64
	if rvSet {
		var err error
		if rv, err = ParseResourceVersion(opts.ResourceVersion); err != nil {
			return ReadSpec{}, err
		}
	}
	switch opts.ResourceVersionMatch {
	case "", ResourceVersionMatchExact, ResourceVersionMatchNotOlderThan:
	default:
		return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "unknown resourceVersionMatch %q", opts.ResourceVersionMatch)
	}
	if opts.ResourceVersionMatch != "" && !rvSet {
		return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "resourceVersionMatch is forbidden unless resourceVersion is provided")
	}
	if opts.Continue != "" {
		if opts.ResourceVersionMatch != "" {
			return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "resourceVersionMatch is forbidden when continue is provided")
		}
		if rvSet && rv != 0 {
			return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "specifying resource version is not allowed when using continue")
		}
		tokRV, from, err := DecodeContinue(opts.Continue, prefix)
		if err != nil {
			return ReadSpec{}, err
		}
		return ReadSpec{Mode: ReadExact, ResourceVersion: tokRV, From: from}, nil
	}
	switch opts.ResourceVersionMatch {
	case ResourceVersionMatchExact:
		if rv == 0 {
			return ReadSpec{}, NewErrorf(ErrInvalidOptions, "", "resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"")
		}
		return ReadSpec{Mode: ReadExact, ResourceVersion: rv}, nil
	case ResourceVersionMatchNotOlderThan:
		if rv == 0 {
			return ReadSpec{Mode: ReadAny}, nil
		}
		return ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: rv}, nil
	}
	switch {
	case !rvSet:
		return ReadSpec{Mode: ReadMostRecent}, nil
	case rv == 0:
		return ReadSpec{Mode: ReadAny}, nil
	case opts.Limit > 0:
		return ReadSpec{Mode: ReadExact, ResourceVersion: rv}, nil
	default:
		return ReadSpec{Mode: ReadNotOlderThan, ResourceVersion: rv}, nil
	}
}
