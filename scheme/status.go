package scheme

import "fmt"

// MetaGroupVersion is where the meta kinds (Status, Table, PartialObjectMetadata,
// WatchEvent, ...) live on the wire.
var MetaGroupVersion = GroupVersion{Group: "meta.k8s.io", Version: "v1"}

// Status is the kind every error response carries (and a few success responses, such as
// a delete that finished). Its JSON shape is meta/v1 Status exactly.
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// Status is "Success" or "Failure".
	Status  string         `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
	Reason  StatusReason   `json:"reason,omitempty"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int32          `json:"code,omitempty"`
}

// Error makes a Status usable as a Go error; the message is what clients print.
func (s *Status) Error() string {
	if s.Message != "" {
		return s.Message
	}
	return fmt.Sprintf("%s (%d)", s.Reason, s.Code)
}

// The two values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// StatusDetails names the object an error is about and, for Invalid, its causes.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               UID           `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty" listType:"atomic"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason an operation failed, usually tied to a field path.
type StatusCause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// StatusReason is the machine-readable reason of a failed Status.
type StatusReason string

// The reasons kube-apiserver uses, with the HTTP code each travels with.
const (
	StatusReasonUnknown               StatusReason = ""
	StatusReasonUnauthorized          StatusReason = "Unauthorized"          // 401
	StatusReasonForbidden             StatusReason = "Forbidden"             // 403
	StatusReasonNotFound              StatusReason = "NotFound"              // 404
	StatusReasonAlreadyExists         StatusReason = "AlreadyExists"         // 409
	StatusReasonConflict              StatusReason = "Conflict"              // 409
	StatusReasonGone                  StatusReason = "Gone"                  // 410
	StatusReasonInvalid               StatusReason = "Invalid"               // 422
	StatusReasonServerTimeout         StatusReason = "ServerTimeout"         // 500 with retry
	StatusReasonStoreReadError        StatusReason = "StorageReadError"      // 500
	StatusReasonTimeout               StatusReason = "Timeout"               // 504
	StatusReasonTooManyRequests       StatusReason = "TooManyRequests"       // 429
	StatusReasonBadRequest            StatusReason = "BadRequest"            // 400
	StatusReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"      // 405
	StatusReasonNotAcceptable         StatusReason = "NotAcceptable"         // 406
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge" // 413
	StatusReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"  // 415
	StatusReasonInternalError         StatusReason = "InternalError"         // 500
	StatusReasonExpired               StatusReason = "Expired"               // 410
	StatusReasonServiceUnavailable    StatusReason = "ServiceUnavailable"    // 503
)

// CauseType is the machine-readable type of a StatusCause.
type CauseType string

// The cause types kube-apiserver uses; the field error types of package validation map onto them.
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeForbidden                CauseType = "FieldValueForbidden"
	CauseTypeTooLong                  CauseType = "FieldValueTooLong"
	CauseTypeTooMany                  CauseType = "FieldValueTooMany"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeTypeInvalid              CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)
