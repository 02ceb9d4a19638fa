package validation

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
)

// ErrorType says why a field is invalid. Its values are those of Kubernetes'
// field.ErrorType and travel unchanged as the reason of a StatusCause.
type ErrorType string

// The error types of Kubernetes' field errors.
const (
	// ErrorTypeNotFound reports that a referenced value does not exist. See NotFound.
	ErrorTypeNotFound ErrorType = "FieldValueNotFound"
	// ErrorTypeRequired reports a missing value (empty string, null, empty list). See Required.
	ErrorTypeRequired ErrorType = "FieldValueRequired"
	// ErrorTypeDuplicate reports a value that must be unique but is not. See Duplicate.
	ErrorTypeDuplicate ErrorType = "FieldValueDuplicate"
	// ErrorTypeInvalid reports a malformed value. See Invalid.
	ErrorTypeInvalid ErrorType = "FieldValueInvalid"
	// ErrorTypeNotSupported reports a value outside an enumeration. See NotSupported.
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	// ErrorTypeForbidden reports a well-formed value that is not allowed here. See Forbidden.
	ErrorTypeForbidden ErrorType = "FieldValueForbidden"
	// ErrorTypeTooLong reports a value longer than allowed; the value is not echoed. See TooLong.
	ErrorTypeTooLong ErrorType = "FieldValueTooLong"
	// ErrorTypeTooMany reports a list with too many items. See TooMany.
	ErrorTypeTooMany ErrorType = "FieldValueTooMany"
	// ErrorTypeInternal reports a failure unrelated to the user's input. See InternalError.
	ErrorTypeInternal ErrorType = "InternalError"
	// ErrorTypeTypeInvalid reports a value of the wrong type for its schema. See TypeInvalid.
	ErrorTypeTypeInvalid ErrorType = "FieldValueTypeInvalid"
)

// String returns the human phrase Kubernetes prints for the type ("Required value",
// "Unsupported value", ...).
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid, ErrorTypeTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeInternal:
		return "Internal error"
	default:
		return "<unknown error " + strconv.Quote(string(t)) + ">"
	}
}

// FieldImmutableErrorMsg is the detail of the error Immutable returns.
const FieldImmutableErrorMsg = "field is immutable"

// Error is one problem with one field. Field is the rendered Path; BadValue is the
// offending value, echoed in the message for the types that show it.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// omitValue as a BadValue makes the message leave the value out (TooMany with an
// unknown count).
type omitValue struct{}

// OmitValue as the value of Invalid leaves the value out of the message
// ("p: Invalid value: detail"), as kube's field.OmitValueType does.
var OmitValue any = omitValue{}

// Error renders "field: body", for example
// `spec.color: Unsupported value: "pink": supported values: "blue", "green"`.
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody renders the message without the field: the phrase of the type, the bad
// value for the types that echo it, and the detail. It is what kube-apiserver puts in
// a StatusCause's message.
func (e *Error) ErrorBody() string {
	var s string
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong, ErrorTypeInternal:
		s = e.Type.String()
	case ErrorTypeInvalid, ErrorTypeTypeInvalid, ErrorTypeNotSupported,
		ErrorTypeNotFound, ErrorTypeDuplicate, ErrorTypeTooMany:
		if _, omit := e.BadValue.(omitValue); omit {
			s = e.Type.String()
			break
		}
		s = e.Type.String() + ": " + formatValue(e.BadValue)
	default:
		s = ErrorTypeInternal.String() + ": unhandled error code: " + e.Type.String() + ": please report this"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// formatValue renders a bad value as Kubernetes does: simple scalars with %v,
// strings quoted, everything else as JSON (falling back to String() or %#v).
func formatValue(v any) string {
	switch t := v.(type) {
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t)
	case string:
		return strconv.Quote(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", v)
}

// Unwrap returns the error an InternalError was built from, so that errors.Is and
// errors.As see through it.
func (e *Error) Unwrap() error {
	err, _ := e.BadValue.(error)
	return err
}

// Required reports that the field at p must be set: "p: Required value[: detail]".
func Required(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: p.String(), BadValue: "", Detail: detail}
}

// Invalid reports a malformed value: `p: Invalid value: "v": detail`.
func Invalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// Immutable reports that an update changed a field that may not change; it is Invalid
// with the detail "field is immutable", as Kubernetes reports it.
func Immutable(p *Path, value any) *Error {
	return Invalid(p, value, FieldImmutableErrorMsg)
}

// Duplicate reports a value that must be unique: `p: Duplicate value: "v"`.
func Duplicate(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: p.String(), BadValue: value}
}

// NotSupported reports a value outside an enumeration, listing the accepted ones in
// the order given: `p: Unsupported value: "pink": supported values: "blue", "green"`.
func NotSupported(p *Path, value any, validValues []string) *Error {
	detail := ""
	if len(validValues) > 0 {
		var b strings.Builder
		b.WriteString("supported values: ")
		for i, v := range validValues {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(v))
		}
		detail = b.String()
	}
	return &Error{Type: ErrorTypeNotSupported, Field: p.String(), BadValue: value, Detail: detail}
}

// Forbidden reports a well-formed value that is not permitted in this situation:
// "p: Forbidden: detail".
func Forbidden(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: p.String(), BadValue: "", Detail: detail}
}

// TooLong reports a value longer than maxLength bytes without echoing it:
// "p: Too long: may not be more than 63 bytes". A negative maxLength gives the detail
// "value is too long". The value argument is not used.
func TooLong(p *Path, value any, maxLength int) *Error {
	var detail string
	switch {
	case maxLength == 1:
		detail = "may not be more than 1 byte"
	case maxLength >= 0:
		detail = "may not be more than " + strconv.Itoa(maxLength) + " bytes"
	default:
		detail = "value is too long"
	}
	return &Error{Type: ErrorTypeTooLong, Field: p.String(), BadValue: "<value omitted>", Detail: detail}
}

// TooMany reports a list with more than max items: "p: Too many: 5: must have at
// most 3 items". A negative actual leaves the count out; a negative max gives the
// detail "has too many items".
func TooMany(p *Path, actual, max int) *Error {
	var detail string
	switch {
	case max == 1:
		detail = "must have at most 1 item"
	case max >= 0:
		detail = "must have at most " + strconv.Itoa(max) + " items"
	default:
		detail = "has too many items"
	}
	var bad any = actual
	if actual < 0 {
		bad = omitValue{}
	}
	return &Error{Type: ErrorTypeTooMany, Field: p.String(), BadValue: bad, Detail: detail}
}

// NotFound reports that a referenced value does not exist: `p: Not found: "v"`.
func NotFound(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: p.String(), BadValue: value}
}

// InternalError reports a failure that is not the user's fault:
// "p: Internal error: <err>". err must not be nil; Unwrap returns it.
func InternalError(p *Path, err error) *Error {
	return &Error{Type: ErrorTypeInternal, Field: p.String(), BadValue: err, Detail: err.Error()}
}

// TypeInvalid reports a value of the wrong type for its schema:
// `p: Invalid value: "v": detail`.
func TypeInvalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: p.String(), BadValue: value, Detail: detail}
}

// ErrorList is the outcome of validating an object: empty when it is valid.
//
// An ErrorList is itself an error, but a nil ErrorList stored in an error variable is
// not a nil error; use Err to get an error that is nil when the list is empty.
type ErrorList []*Error

// Err returns the list as an error, or nil when it is empty.
func (list ErrorList) Err() error {
	if len(list) == 0 {
		return nil
	}
	return list
}

// Error renders the list as Kubernetes aggregates it: duplicates (by message)
// dropped, a single error as is, several as "[a, b]".
func (list ErrorList) Error() string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0].Error()
	}
	seen := make(map[string]struct{}, len(list))
	var b strings.Builder
	for _, e := range list {
		msg := e.Error()
		if _, dup := seen[msg]; dup {
			continue
		}
		if len(seen) > 0 {
			b.WriteString(", ")
		}
		seen[msg] = struct{}{}
		b.WriteString(msg)
	}
	if len(seen) == 1 {
		return b.String()
	}
	return "[" + b.String() + "]"
}

// Unwrap returns the errors of the list, so that errors.Is and errors.As look into
// each of them.
func (list ErrorList) Unwrap() []error {
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errs
}

// Causes returns one StatusCause per error, as kube-apiserver builds them: the reason
// is the error type, the message the error without its field (ErrorBody), and the
// field the rendered path. Unlike Error, it keeps duplicates.
func (list ErrorList) Causes() []scheme.StatusCause {
	if len(list) == 0 {
		return nil
	}
	causes := make([]scheme.StatusCause, len(list))
	for i, e := range list {
		causes[i] = scheme.StatusCause{
			Type:    scheme.CauseType(e.Type),
			Message: e.ErrorBody(),
			Field:   e.Field,
		}
	}
	return causes
}

// ToStatus returns the 422 Invalid Status kube-apiserver answers with when an object
// of kind gk named name fails validation. The message reads
// `Widget.toys.example.com "foo" is invalid: [...]` and the details carry the causes.
func (list ErrorList) ToStatus(gk scheme.GroupKind, name string) *scheme.Status {
	msg := gk.String() + " " + strconv.Quote(name) + " is invalid"
	if len(list) > 0 {
		msg += ": " + list.Error()
	}
	return &scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   scheme.StatusFailure,
		Message:  msg,
		Reason:   scheme.StatusReasonInvalid,
		Details: &scheme.StatusDetails{
			Name:   name,
			Group:  gk.Group,
			Kind:   gk.Kind,
			Causes: list.Causes(),
		},
		Code: http.StatusUnprocessableEntity,
	}
}
