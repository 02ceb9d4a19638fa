package storage

import (
	"context"
	"errors"
	"testing"
)

func TestError_NamesTheKeyForLogsAndUnwrapsToTheSentinel(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{
		{"sentinel and key", NewError(ErrNotFound, "/core/pods/ns/a"), "not found: /core/pods/ns/a"},
		{"sentinel, key and detail", NewErrorf(ErrConflict, "/core/pods/ns/a", "precondition %s", "uid"), "conflict: /core/pods/ns/a: precondition uid"},
		{"no key", NewErrorf(ErrInvalidSelector, "", "found '='"), "invalid selector: found '='"},
		{"at a version", NewErrorAt(ErrGone, "/core/pods/", 5, "too old resource version: 5 (9)"), "resource version is too old: /core/pods/: too old resource version: 5 (9)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(tc.err, tc.err.Err) {
				t.Errorf("errors.Is(%v, %v) = false", tc.err, tc.err.Err)
			}
		})
	}
}

func TestWithKey_AddsTheKeyOnceAndKeepsTheCause(t *testing.T) {
	keyless := NewErrorf(ErrInvalidOptions, "", "limit must not be negative, got -1")
	keyed := WithKey(keyless, "/g/r/")
	var se *Error
	if !errors.As(keyed, &se) || se.Key != "/g/r/" || se.Err != ErrInvalidOptions || se.Detail != keyless.Detail {
		t.Errorf("WithKey(keyless) = %#v", keyed)
	}
	if keyless.Key != "" {
		t.Errorf("WithKey changed its argument: key %q", keyless.Key)
	}
	if again := WithKey(keyed, "/other/"); again != keyed {
		t.Errorf("WithKey replaced a key: %v", again)
	}
	cancelled := WithKey(context.Canceled, "/g/r/ns/a")
	if !errors.As(cancelled, &se) || se.Key != "/g/r/ns/a" || !errors.Is(cancelled, context.Canceled) {
		t.Errorf("WithKey(context.Canceled) = %#v", cancelled)
	}
	if WithKey(nil, "/g/r/") != nil {
		t.Error("WithKey(nil) is not nil")
	}
}

// The parsers of client input fail with keyless errors whose detail is what the client
// is shown.
func TestParsers_FailWithTheClientsDetailAndNoKey(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		sentinel   error
		wantDetail string
	}{
		{"resourceVersion", func() error { _, err := ParseResourceVersion("x1"); return err }(), ErrInvalidResourceVersion, `"x1" is not a valid resourceVersion`},
		{"list options", func() error { _, err := ResolveList("/g/r/", ListOptions{Limit: -1}); return err }(), ErrInvalidOptions, "limit must not be negative, got -1"},
		{"continue token", func() error { _, _, err := DecodeContinue("e30", "/g/r/"); return err }(), ErrInvalidContinue, `server does not recognize this encoded version ""`},
		{"label selector", func() error { _, err := ParseLabelSelector("=a"); return err }(), ErrInvalidSelector, "found '=', expected: !, identifier, or 'end of string'"},
		{"field selector", func() error { _, err := ParseFieldSelector("a"); return err }(), ErrInvalidSelector, "invalid selector: 'a'; can't understand 'a'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			se, ok := tc.err.(*Error)
			if !ok {
				t.Fatalf("error = %v (%T), want a *Error", tc.err, tc.err)
			}
			if se.Err != tc.sentinel || se.Key != "" || se.Detail != tc.wantDetail {
				t.Errorf("error = {%v %q %q}, want {%v \"\" %q}", se.Err, se.Key, se.Detail, tc.sentinel, tc.wantDetail)
			}
		})
	}
}
