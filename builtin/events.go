package builtin

import (
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/scheme"
)

// registerEventConversions lets core/v1 and events.k8s.io/v1 Events convert into each
// other: the events.k8s.io resource is served from the core events' storage, as in
// kube-apiserver, so an event written through either group is read through both. The
// fields map as k8s.io/kubernetes pkg/apis/events/v1 maps them; those of the same name
// (eventTime, series, action, reason, type, related, reportingInstance) convert as they are.
func registerEventConversions(s *scheme.Scheme) {
	conversion.RegisterAcrossGroups(s, coreToEventsV1, eventsV1ToCore)
}

func coreToEventsV1(in *corev1.Event, out *eventsv1.Event, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.Regarding = in.InvolvedObject
	out.Note = in.Message
	out.ReportingController = in.ReportingComponent
	out.DeprecatedSource = in.Source
	out.DeprecatedFirstTimestamp = in.FirstTimestamp
	out.DeprecatedLastTimestamp = in.LastTimestamp
	out.DeprecatedCount = in.Count
	return nil
}

func eventsV1ToCore(in *eventsv1.Event, out *corev1.Event, sc conversion.Scope) error {
	if err := sc.AutoConvert(in, out); err != nil {
		return err
	}
	out.InvolvedObject = in.Regarding
	out.Message = in.Note
	out.ReportingComponent = in.ReportingController
	out.Source = in.DeprecatedSource
	out.FirstTimestamp = in.DeprecatedFirstTimestamp
	out.LastTimestamp = in.DeprecatedLastTimestamp
	out.Count = in.DeprecatedCount
	return nil
}
