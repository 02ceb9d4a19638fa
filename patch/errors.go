package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apikit-dev/apikit/scheme"
)

// Sentinel errors every error of this package wraps; package rest maps them to Status.
var (
	// ErrMalformed is a patch that cannot be read (bad JSON or YAML, an unknown
	// directive, a bad operation): kube answers 400 BadRequest.
	ErrMalformed = errors.New("malformed patch")
	// ErrRejected is a well-formed patch that does not apply to the object (a path that
	// does not exist, a failed test operation, a list item without its merge key):
	// kube answers 422.
	ErrRejected = errors.New("patch rejected")
	// ErrUnsupported is a patch type the kind does not support (strategic merge on a
	// kind without a schema): kube answers 415 UnsupportedMediaType.
	ErrUnsupported = errors.New("unsupported patch type")
	// ErrTooLarge is a patch beyond a size limit (more JSON patch operations than
	// MaxJSONPatchOperations): kube answers 413 RequestEntityTooLarge.
	ErrTooLarge = errors.New("patch too large")
)

// Error is a patch failure with the message kube-apiserver sends; it wraps one of the
// sentinel errors.
type Error struct {
	// Kind is ErrMalformed, ErrRejected, ErrUnsupported or ErrTooLarge.
	Kind error
	// Message is the text for the client, without a prefix.
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

func malformed(format string, args ...any) error {
	return &Error{Kind: ErrMalformed, Message: fmt.Sprintf(format, args...)}
}

func rejected(format string, args ...any) error {
	return &Error{Kind: ErrRejected, Message: fmt.Sprintf(format, args...)}
}

// Conflict is one field another manager owns with a different value.
type Conflict struct {
	// Manager is the manager as kube prints it: `"kubectl"` for an applier,
	// `"editor" using v1 at 2024-01-02T03:04:05Z` for an updater.
	Manager string
	// Field is the field path in structured-merge-diff notation: .spec.color,
	// .spec.parts[name="wheel"].count.
	Field string

	id string // the manager identifier, which orders the message
}

// ConflictError is a server-side apply that would change fields other managers own:
// kube answers 409 Conflict with one cause per field and manager.
type ConflictError struct {
	// Conflicts are the conflicting fields, in the order structured-merge-diff found them.
	Conflicts []Conflict
}

// Error is kube's message, which kubectl prints: "Apply failed with 1 conflict:
// conflict with "m": .spec.x", or for several, grouped by manager.
func (e *ConflictError) Error() string {
	if len(e.Conflicts) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", e.Conflicts[0].Manager, e.Conflicts[0].Field)
	}
	byManager := map[string][]string{}
	printed := map[string]string{}
	var managers []string
	for _, c := range e.Conflicts {
		id := c.id
		if id == "" {
			id = c.Manager
		}
		if _, ok := byManager[id]; !ok {
			managers = append(managers, id)
			printed[id] = c.Manager
		}
		byManager[id] = append(byManager[id], c.Field)
	}
	sort.Strings(managers)
	var msgs []string
	for _, m := range managers {
		msgs = append(msgs, fmt.Sprintf("conflicts with %s:", printed[m]))
		for _, f := range byManager[m] {
			msgs = append(msgs, "- "+f)
		}
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(e.Conflicts), strings.Join(msgs, "\n"))
}

// printManager renders a manager identifier (the JSON of a ManagedFieldsEntry without
// fields) as kube does in conflict messages.
func printManager(id string) string {
	var e scheme.ManagedFieldsEntry
	if err := json.Unmarshal([]byte(id), &e); err != nil {
		return fmt.Sprintf("%q", id)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s = fmt.Sprintf("%s with subresource %q", s, e.Subresource)
	}
	if e.Operation == scheme.ManagedFieldsOperationUpdate {
		if e.Time == nil || e.Time.IsZero() {
			return fmt.Sprintf("%s using %s", s, e.APIVersion)
		}
		return fmt.Sprintf("%s using %s at %s", s, e.APIVersion, e.Time.UTC().Format(time.RFC3339))
	}
	return s
}
