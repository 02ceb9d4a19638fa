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
	scheme.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`

	EventTime                scheme.MicroTime        `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`
	Series                   *corev1.EventSeries     `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`
	ReportingController      string                  `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`
	ReportingInstance        string                  `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`
	Action                   string                  `json:"action,omitempty" protobuf:"bytes,6,name=action"`
	Reason                   string                  `json:"reason,omitempty" protobuf:"bytes,7,name=reason"`
	Regarding                corev1.ObjectReference  `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`
	Related                  *corev1.ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`
	Note                     string                  `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`
	Type                     string                  `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`
	DeprecatedSource         corev1.EventSource      `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	DeprecatedFirstTimestamp scheme.Time             `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	DeprecatedLastTimestamp  scheme.Time             `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	DeprecatedCount          int32                   `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// EventList is a list of events.k8s.io/v1 Events.
type EventList struct {
	scheme.TypeMeta `json:",inline"`
	scheme.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}
