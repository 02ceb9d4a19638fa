package builtin

import "github.com/apikit-dev/apikit/scheme"

// The groups of the non-core kinds.
var (
	EventsV1         = scheme.GroupVersion{Group: "events.k8s.io", Version: "v1"}
	CoordinationV1   = scheme.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}
	AuthenticationV1 = scheme.GroupVersion{Group: "authentication.k8s.io", Version: "v1"}
)

// EventsEvent is the events.k8s.io/v1 Event, the form client-go's tools/events
// recorder writes. Its Go name differs from core/v1 Event; its kind is "Event".
type EventsEvent struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata"`

	EventTime                scheme.MicroTime `json:"eventTime"`
	Series                   *EventSeries     `json:"series,omitempty"`
	ReportingController      string           `json:"reportingController,omitempty"`
	ReportingInstance        string           `json:"reportingInstance,omitempty"`
	Action                   string           `json:"action,omitempty"`
	Reason                   string           `json:"reason,omitempty"`
	Regarding                ObjectReference  `json:"regarding,omitempty"`
	Related                  *ObjectReference `json:"related,omitempty"`
	Note                     string           `json:"note,omitempty"`
	Type                     string           `json:"type,omitempty"`
	DeprecatedSource         EventSource      `json:"deprecatedSource,omitempty"`
	DeprecatedFirstTimestamp scheme.Time      `json:"deprecatedFirstTimestamp,omitempty"`
	DeprecatedLastTimestamp  scheme.Time      `json:"deprecatedLastTimestamp,omitempty"`
	DeprecatedCount          int32            `json:"deprecatedCount,omitempty"`
}

// EventsEventList is a list of events.k8s.io/v1 Events (kind "EventList").
type EventsEventList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []EventsEvent `json:"items"`
}

// Lease is a lock with a holder and an expiry, the object of leader election.
type Lease struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Spec LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is who holds a Lease and until when.
type LeaseSpec struct {
	HolderIdentity       *string           `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32            `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *scheme.MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *scheme.MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32            `json:"leaseTransitions,omitempty"`
	Strategy             *string           `json:"strategy,omitempty"`
	PreferredHolder      *string           `json:"preferredHolder,omitempty"`
}

// LeaseList is a list of Leases.
type LeaseList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Lease `json:"items"`
}

// SelfSubjectReview asks who the requester is: created, answered with status.userInfo,
// never stored (kubectl auth whoami).
type SelfSubjectReview struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata,omitempty"`

	Status SelfSubjectReviewStatus `json:"status,omitempty"`
}

// SelfSubjectReviewStatus holds the answer of a SelfSubjectReview.
type SelfSubjectReviewStatus struct {
	UserInfo UserInfo `json:"userInfo,omitempty"`
}

// UserInfo is what the server's authenticator said about the requester.
type UserInfo struct {
	Username string                `json:"username,omitempty"`
	UID      string                `json:"uid,omitempty"`
	Groups   []string              `json:"groups,omitempty"`
	Extra    map[string]ExtraValue `json:"extra,omitempty"`
}

// ExtraValue is one value list of UserInfo.Extra.
type ExtraValue []string

// SelfSubjectReviewList exists because every kind has a list kind; nothing lists reviews.
type SelfSubjectReviewList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []SelfSubjectReview `json:"items"`
}
