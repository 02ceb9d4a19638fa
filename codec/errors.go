package codec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// MaxDepth is the deepest nesting of objects and arrays the JSON decoder accepts, the
// same limit encoding/json applies. Deeper input is an error, never a stack overflow.
const MaxDepth = 10000

// maxIssues bounds how many field issues one decode collects, like sigs.k8s.io/json.
const maxIssues = 100

// SyntaxError is malformed JSON: what was wrong and at which byte offset.
type SyntaxError struct {
	Msg    string
	Offset int64
}

// Error describes the problem and where it is.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte offset %d: %s", e.Offset, e.Msg)
}

// TypeError is a JSON value that cannot be stored in the Go value at Path: a string
// for an int32 field, or a number that overflows it.
type TypeError struct {
	Value  string       // the JSON value's description: "string", "number 3000000000", ...
	Type   reflect.Type // the Go type it was meant for
	Path   string       // the field path, like "spec.replicas"
	Offset int64        // byte offset of the value
}

// Error names the value, the Go type and the field path.
func (e *TypeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("json: cannot unmarshal %s into Go value of type %v (byte offset %d)", e.Value, e.Type, e.Offset)
	}
	return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s of type %v (byte offset %d)", e.Value, e.Path, e.Type, e.Offset)
}

// UnmarshalerError is what a field's own decoder (an UnmarshalJSON method: a Quantity's
// parser, a Time's) refused, at the field's path.
type UnmarshalerError struct {
	Path string
	Err  error
}

// Error names the field and the decoder's error.
func (e *UnmarshalerError) Error() string { return "decoding " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the decoder's error.
func (e *UnmarshalerError) Unwrap() error { return e.Err }

// ObjectError is a document of a known kind whose content could not be decoded into it.
// kube-apiserver answers such a body "<Kind> in version "<v>" cannot be handled as a
// <Kind>: <the decoder's error>" (an UnmarshalerError's own error, without its path).
type ObjectError struct {
	GVK scheme.GroupVersionKind
	Err error
}

// Error names the kind and what failed.
func (e *ObjectError) Error() string { return "decoding " + e.GVK.Kind + ": " + e.Err.Error() }

// Unwrap returns what failed.
func (e *ObjectError) Unwrap() error { return e.Err }

// IssueType says what is wrong with a field: it is unknown or appears twice.
type IssueType string

// The two kinds of strict-decoding issue, worded like kube-apiserver.
const (
	UnknownField   IssueType = "unknown field"
	DuplicateField IssueType = "duplicate field"
)

// FieldIssue is one unknown or duplicate field found while decoding, with its path in
// the form kube-apiserver reports: "spec.parts[2].nmae", "metadata.labels.app".
type FieldIssue struct {
	Type IssueType
	Path string
}

// String renders the issue like kube-apiserver: `unknown field "spec.foo"`.
func (i FieldIssue) String() string { return string(i.Type) + " " + strconv.Quote(i.Path) }

// FieldIssues are the strict-decoding findings of one decode, in input order, at most
// 100 and without repeats. A decode that returns issues still succeeded.
type FieldIssues []FieldIssue

// Warnings returns one message per issue, for fieldValidation=Warn.
func (is FieldIssues) Warnings() []string {
	out := make([]string, len(is))
	for i, x := range is {
		out[i] = x.String()
	}
	return out
}

// Err returns a *StrictError holding the issues, or nil when there are none; it serves
// fieldValidation=Strict.
func (is FieldIssues) Err() error {
	if len(is) == 0 {
		return nil
	}
	return &StrictError{Issues: is}
}

// StrictError reports unknown or duplicate fields as one error, worded like
// k8s.io/apimachinery: `strict decoding error: unknown field "spec.foo", duplicate field "spec.color"`.
type StrictError struct {
	Issues FieldIssues
}

// Error lists every issue, apimachinery-style.
func (e *StrictError) Error() string {
	var b strings.Builder
	b.WriteString("strict decoding error: ")
	for i, x := range e.Issues {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x.String())
	}
	return b.String()
}

// MissingKindError says a document names no kind and none could be defaulted. Its
// message matches apimachinery's: Object 'Kind' is missing in '...'.
type MissingKindError struct {
	Data string
}

// Error matches apimachinery's missing-kind message.
func (e *MissingKindError) Error() string {
	return fmt.Sprintf("Object 'Kind' is missing in '%s'", e.Data)
}

// MissingVersionError says a document names no apiVersion and none could be
// defaulted. Its message matches apimachinery's.
type MissingVersionError struct {
	Data string
}

// Error matches apimachinery's missing-apiVersion message.
func (e *MissingVersionError) Error() string {
	return fmt.Sprintf("Object 'apiVersion' is missing in '%s'", e.Data)
}

// excerpt shortens a document for an error message.
func excerpt(data []byte) string {
	const limit = 256
	if len(data) > limit {
		return string(data[:limit]) + "..."
	}
	return string(data)
}
