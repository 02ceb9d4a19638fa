package v1

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// SchemeGroupVersion is the group of the events.k8s.io Events.
var SchemeGroupVersion = scheme.GroupVersion{Group: "events.k8s.io", Version: "v1"}

// Events is the events.k8s.io resource, served from the storage of core/v1 events.
var Events = scheme.GroupResource{Group: SchemeGroupVersion.Group, Resource: "events"}

// Event is the events.k8s.io/v1 Event, the form client-go's tools/events recorder
// writes. It is stored as a core/v1 Event: package builtin registers the conversions.
type Event struct {
	scheme.TypeMeta   `json:",inline"`
	scheme.ObjectMeta `json:"metadata"`

	EventTime                scheme.MicroTime        `json:"eventTime"`
	Series                   *corev1.EventSeries     `json:"series,omitempty"`
	ReportingController      string                  `json:"reportingController,omitempty"`
	ReportingInstance        string                  `json:"reportingInstance,omitempty"`
	Action                   string                  `json:"action,omitempty"`
	Reason                   string                  `json:"reason,omitempty"`
	Regarding                corev1.ObjectReference  `json:"regarding,omitempty"`
	Related                  *corev1.ObjectReference `json:"related,omitempty"`
	Note                     string                  `json:"note,omitempty"`
	Type                     string                  `json:"type,omitempty"`
	DeprecatedSource         corev1.EventSource      `json:"deprecatedSource,omitempty"`
	DeprecatedFirstTimestamp scheme.Time             `json:"deprecatedFirstTimestamp,omitempty"`
	DeprecatedLastTimestamp  scheme.Time             `json:"deprecatedLastTimestamp,omitempty"`
	DeprecatedCount          int32                   `json:"deprecatedCount,omitempty"`
}

// EventList is a list of events.k8s.io/v1 Events.
type EventList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty"`
	Items           []Event `json:"items"`
}
