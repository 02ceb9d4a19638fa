package audit

import (
	"encoding/json"

	"github.com/apikit-dev/apikit/scheme"
)

// Level is how much of a request is recorded.
type Level string

// The audit levels, from nothing to everything.
const (
	// LevelNone records nothing.
	LevelNone Level = "None"
	// LevelMetadata records who asked what (user, verb, resource, timestamps, response
	// code) but no bodies.
	LevelMetadata Level = "Metadata"
	// LevelRequest records Metadata and the request body.
	LevelRequest Level = "Request"
	// LevelRequestResponse records Metadata and both bodies.
	LevelRequestResponse Level = "RequestResponse"
)

var levelOrder = map[Level]int{LevelNone: 0, LevelMetadata: 1, LevelRequest: 2, LevelRequestResponse: 3}

// Less tells whether l records less than o.
func (l Level) Less(o Level) bool { return levelOrder[l] < levelOrder[o] }

// Stage is a point in serving a request at which an event is recorded.
type Stage string

// The stages of kube-apiserver's audit events.
const (
	// StageRequestReceived is as soon as the request is authenticated.
	StageRequestReceived Stage = "RequestReceived"
	// StageResponseStarted is when the headers of a long-running response (a watch)
	// went out, before its body.
	StageResponseStarted Stage = "ResponseStarted"
	// StageResponseComplete is when the response is done.
	StageResponseComplete Stage = "ResponseComplete"
	// StagePanic is when serving the request panicked.
	StagePanic Stage = "Panic"
)

// Event is one audit record, as audit.k8s.io/v1 Event encodes it in JSON.
type Event struct {
	// Kind is "Event" and APIVersion "audit.k8s.io/v1".
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Level      Level  `json:"level"`
	// AuditID is the request's Audit-ID (the client's, or one the server made).
	AuditID string `json:"auditID"`
	Stage   Stage  `json:"stage"`
	// RequestURI is the path and query the client sent.
	RequestURI string `json:"requestURI"`
	// Verb is the API verb (get, list, watch, create, ...) of a resource request, the
	// lowercased HTTP method otherwise.
	Verb string   `json:"verb"`
	User UserInfo `json:"user"`
	// ImpersonatedUser is who the user acted as, with Impersonate-* headers.
	ImpersonatedUser *UserInfo `json:"impersonatedUser,omitempty"`
	// SourceIPs are the X-Forwarded-For and X-Real-Ip addresses, then the peer's.
	SourceIPs []string `json:"sourceIPs,omitempty"`
	UserAgent string   `json:"userAgent,omitempty"`
	// ObjectRef names the object of a resource request.
	ObjectRef *ObjectReference `json:"objectRef,omitempty"`
	// ResponseStatus is the response's code and, for an error, its Status.
	ResponseStatus *scheme.Status `json:"responseStatus,omitempty"`
	// RequestObject is the request body as JSON (Request level and above).
	RequestObject json.RawMessage `json:"requestObject,omitempty"`
	// ResponseObject is the response body as JSON (RequestResponse level).
	ResponseObject           json.RawMessage   `json:"responseObject,omitempty"`
	RequestReceivedTimestamp scheme.MicroTime  `json:"requestReceivedTimestamp"`
	StageTimestamp           scheme.MicroTime  `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

// The Kind and APIVersion of every Event.
const (
	EventKind  = "Event"
	APIVersion = "audit.k8s.io/v1"
)

// AnnotationTruncated is the annotation kube-apiserver sets ("true") on an event whose
// bodies were dropped for size.
const AnnotationTruncated = "audit.k8s.io/truncated"

// UserInfo is who made a request, as authentication/v1 UserInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// ObjectReference names the object a request is about.
type ObjectReference struct {
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}
