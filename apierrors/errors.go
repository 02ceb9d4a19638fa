package apierrors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/validation"
)

// New is a failure Status with the given code, reason, message and details.
func New(code int32, reason scheme.StatusReason, msg string, details *scheme.StatusDetails) *scheme.Status {
	return &scheme.Status{
		TypeMeta: scheme.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   scheme.StatusFailure,
		Message:  msg,
		Reason:   reason,
		Details:  details,
		Code:     code,
	}
}

// NewNotFound is the 404 Status for a missing object: `widgets.toys.example.com "x" not found`.
func NewNotFound(gr scheme.GroupResource, name string) *scheme.Status {
	return New(http.StatusNotFound, scheme.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr.String(), name),
		&scheme.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewAlreadyExists is the 409 Status for a create on an existing name.
func NewAlreadyExists(gr scheme.GroupResource, name string) *scheme.Status {
	return New(http.StatusConflict, scheme.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr.String(), name),
		&scheme.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// OptimisticLockErrorMsg is kube's reason text for a stale resourceVersion.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// NewConflict is the 409 Status for a failed optimistic-concurrency check or precondition:
// `Operation cannot be fulfilled on widgets.toys.example.com "x": <why>`.
func NewConflict(gr scheme.GroupResource, name, why string) *scheme.Status {
	return New(http.StatusConflict, scheme.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr.String(), name, why),
		&scheme.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewBadRequest is a 400 BadRequest Status.
func NewBadRequest(msg string) *scheme.Status {
	return New(http.StatusBadRequest, scheme.StatusReasonBadRequest, msg, nil)
}

// NewForbidden is the 403 Status of an authorization or admission denial.
func NewForbidden(gr scheme.GroupResource, name string, err error) *scheme.Status {
	var msg string
	switch {
	case gr.Resource == "" && gr.Group == "":
		msg = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %v", gr.String(), err)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %v", gr.String(), name, err)
	}
	return New(http.StatusForbidden, scheme.StatusReasonForbidden, msg,
		&scheme.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewUnauthorized is the 401 Status for a request without acceptable credentials.
func NewUnauthorized() *scheme.Status {
	return New(http.StatusUnauthorized, scheme.StatusReasonUnauthorized, "Unauthorized", nil)
}

// NewInternalError is the 500 Status for an unexpected error.
func NewInternalError(err error) *scheme.Status {
	return New(http.StatusInternalServerError, scheme.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&scheme.StatusDetails{Causes: []scheme.StatusCause{{Message: err.Error()}}})
}

// NewResourceExpired is the 410 Expired Status of a resourceVersion or continue token
// older than the history kept.
func NewResourceExpired(msg string) *scheme.Status {
	return New(http.StatusGone, scheme.StatusReasonExpired, msg, nil)
}

// NewTooLargeResourceVersion is the 504 Timeout Status of a read at a resourceVersion the
// store did not reach in time.
func NewTooLargeResourceVersion(msg string) *scheme.Status {
	return New(http.StatusGatewayTimeout, scheme.StatusReasonTimeout, "Timeout: "+msg,
		&scheme.StatusDetails{
			Causes:            []scheme.StatusCause{{Type: scheme.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		})
}

// NewTimeout is the 504 Status of a request that did not finish before its deadline,
// with kube-apiserver's message (its timeout filter's NewTimeoutError).
func NewTimeout() *scheme.Status {
	return New(http.StatusGatewayTimeout, scheme.StatusReasonTimeout,
		"Timeout: request did not complete within the allotted timeout", &scheme.StatusDetails{})
}

// NewServiceUnavailable is the 503 Status of a storage backend that cannot be reached,
// like kube's NewServiceUnavailable: the message says why, and never where.
func NewServiceUnavailable(msg string) *scheme.Status {
	if msg == "" {
		msg = storage.ErrUnavailable.Error()
	}
	return New(http.StatusServiceUnavailable, scheme.StatusReasonServiceUnavailable, msg, nil)
}

// NewUnknownOutcome is the Status of a write the store may have applied: what
// kube-apiserver answers, which tells no client to try again and sends no Retry-After
// (client-go would send the write again): the etcd client's own error when the store
// gave its text (a 500 with reason Unknown, "etcdserver: request timed out"), else the
// 504 of a request that ran out of time.
func NewUnknownOutcome(backendText string) *scheme.Status {
	if backendText == "" {
		return NewTimeout()
	}
	return New(http.StatusInternalServerError, scheme.StatusReasonUnknown, backendText, nil)
}

// NewServerTimeout is the 500 ServerTimeout Status kube answers when a generated name
// keeps colliding.
func NewServerTimeout(gk scheme.GroupKind, operation string) *scheme.Status {
	gr := scheme.GroupResource{Group: gk.Group, Resource: gk.Kind}
	return New(http.StatusInternalServerError, scheme.StatusReasonServerTimeout,
		fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, gr.String()),
		&scheme.StatusDetails{Name: operation, Group: gk.Group, Kind: gk.Kind})
}

// NewMethodNotSupported is the 405 Status of a verb a resource does not serve.
func NewMethodNotSupported(gr scheme.GroupResource, action string) *scheme.Status {
	return New(http.StatusMethodNotAllowed, scheme.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, gr.String()),
		&scheme.StatusDetails{Group: gr.Group, Kind: gr.Resource})
}

// NewNotAcceptable is the 406 Status when no offered media type is acceptable.
func NewNotAcceptable(offered []string) *scheme.Status {
	return New(http.StatusNotAcceptable, scheme.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+strings.Join(offered, ", "), nil)
}

// NewUnsupportedMediaType is the 415 Status for a request body in an unsupported format.
func NewUnsupportedMediaType(contentType string, accepted []string) *scheme.Status {
	return New(http.StatusUnsupportedMediaType, scheme.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s", strings.Join(accepted, ", ")), nil)
}

// NewRequestEntityTooLarge is the 413 Status for a body over the limit.
func NewRequestEntityTooLarge(limit int64) *scheme.Status {
	return New(http.StatusRequestEntityTooLarge, scheme.StatusReasonRequestEntityTooLarge,
		"Request entity too large: limit is "+strconv.FormatInt(limit, 10), nil)
}

// NewObjectTooLarge is what kube-apiserver answers when etcd refuses an object over its
// request limit: the etcd client's error, which is no Status, so a 500 with reason
// Unknown and etcd's text as the message.
func NewObjectTooLarge() *scheme.Status {
	return New(http.StatusInternalServerError, scheme.StatusReasonUnknown, "etcdserver: request is too large", nil)
}

// FromError maps an error of the object lifecycle to the Status sent to the client,
// and reports whether it knew the error. Errors that are already a *scheme.Status pass
// through; a validation.ErrorList is 422 Invalid for the resource and name; storage
// errors map to kube's Status for the resource and name concerned (see FromStorage),
// their backend's text going to log. For any other error it returns a 500
// InternalError and false.
func FromError(err error, gr scheme.GroupResource, name string, log *slog.Logger) (*scheme.Status, bool) {
	var st *scheme.Status
	if errors.As(err, &st) {
		return st, true
	}
	var verrs validation.ErrorList
	if errors.As(err, &verrs) {
		return verrs.ToStatus(scheme.GroupKind{Group: gr.Group, Kind: gr.Resource}, name), true
	}
	var se *storage.Error
	if errors.As(err, &se) {
		return FromStorage(se, gr, name, log), true
	}
	// A backend outside this module may wrap a sentinel without a *storage.Error: its
	// text may name a key, so only the sentinel is read.
	for _, sentinel := range storageSentinels {
		if errors.Is(err, sentinel) {
			return FromStorage(&storage.Error{Err: sentinel}, gr, name, log), true
		}
	}
	return NewInternalError(err), false
}

// storageSentinels are the storage errors that FromStorage maps to a Status of their own.
var storageSentinels = []error{
	storage.ErrNotFound, storage.ErrAlreadyExists, storage.ErrConflict, storage.ErrGone,
	storage.ErrTooLargeResourceVersion, storage.ErrInvalidContinue, storage.ErrInvalidSelector,
	storage.ErrInvalidOptions, storage.ErrInvalidResourceVersion, storage.ErrUnavailable,
	storage.ErrTimeout,
}

// FromStorage is the Status of a storage error, built from its sentinel and the
// detail a client may be shown. The key is never read: storage keys are internal, and
// kube-apiserver never shows its etcd keys either. A failure no sentinel names goes to
// log (nil discards it) with the backend's text, and is a 500 without it.
func FromStorage(se *storage.Error, gr scheme.GroupResource, name string, log *slog.Logger) *scheme.Status {
	switch se.Err {
	case storage.ErrNotFound:
		return NewNotFound(gr, name)
	case storage.ErrAlreadyExists:
		return NewAlreadyExists(gr, name)
	case storage.ErrConflict:
		return NewConflict(gr, name, OptimisticLockErrorMsg)
	case storage.ErrGone:
		return NewResourceExpired(se.Detail)
	case storage.ErrTooLargeResourceVersion:
		return NewTooLargeResourceVersion(se.Detail)
	case storage.ErrInvalidContinue:
		// Like kube's continue errors: "continue key is not valid: <why>".
		return NewBadRequest(storage.ErrInvalidContinue.Error() + ": " + se.Detail)
	case storage.ErrInvalidSelector, storage.ErrInvalidOptions, storage.ErrInvalidResourceVersion:
		return NewBadRequest(se.Detail)
	case storage.ErrUnavailable:
		return NewServiceUnavailable(se.Detail)
	case storage.ErrTimeout:
		return NewUnknownOutcome(se.Detail)
	}
	// A failure no sentinel names (a cancelled context, a failed journal, an object the
	// store cannot keep): a 500. Its cause is the backend's own text, which may name a
	// key or a file, so the client reads the detail or the kind of failure and the log
	// has the rest.
	if log != nil {
		log.Error("rest: storage failed", "err", se.Error())
	}
	msg := "storage failed"
	switch {
	case se.Detail != "":
		msg = se.Detail
	case errors.Is(se.Err, context.Canceled), errors.Is(se.Err, context.DeadlineExceeded):
		msg = se.Err.Error()
	}
	return NewInternalError(errors.New(msg))
}

// NewDefaultsTooLarge is the 500 of a stored object that the defaults of its schema
// would make larger than the object size limit (kube would build and send it; its
// size is then unbounded).
func NewDefaultsTooLarge(obj scheme.Object, limit int64) *scheme.Status {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return NewInternalError(fmt.Errorf("the defaults of the schema of %s %q add more than %d bytes to it", gvk.Kind, obj.GetName(), limit))
}
