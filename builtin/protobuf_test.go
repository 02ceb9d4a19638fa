package builtin

import (
	"bytes"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/google/go-cmp/cmp"
)

func newScheme(t *testing.T) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestProtobuf_EveryKindRoundTrips(t *testing.T) {
	s := newScheme(t)
	ser := protobuf.New(s)
	yes := true
	holder := "me"
	secs := int32(15)
	micro := scheme.NewMicroTime(time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC).Local())
	sec := scheme.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC).Local())
	meta := scheme.ObjectMeta{Name: "x", Namespace: "ns"}
	ref := ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", APIVersion: "v1", ResourceVersion: "3", FieldPath: "spec"}
	objs := []scheme.Kinded{
		&Namespace{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: scheme.ObjectMeta{Name: "x"},
			Spec:   NamespaceSpec{Finalizers: []string{"kubernetes"}},
			Status: NamespaceStatus{Phase: "Active", Conditions: []NamespaceCondition{{Type: "T", Status: "True", LastTransitionTime: sec, Reason: "R", Message: "M"}}}},
		&ConfigMap{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Immutable: &yes,
			Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"bin": {0, 1, 2}}},
		&Secret{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta, Immutable: &yes,
			Data: map[string][]byte{"p": []byte("q")}, StringData: map[string]string{"s": "t"}, Type: "Opaque"},
		&ServiceAccount{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta,
			Secrets: []ObjectReference{ref}, ImagePullSecrets: []LocalObjectReference{{Name: "pull"}}, AutomountServiceAccountToken: &yes},
		&Event{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Event"}, ObjectMeta: meta, InvolvedObject: ref, Reason: "R", Message: "M",
			Source: EventSource{Component: "c", Host: "h"}, FirstTimestamp: sec, LastTimestamp: sec, Count: 2, Type: "Normal",
			EventTime: micro, Series: &EventSeries{Count: 3, LastObservedTime: micro}, Action: "A", Related: &ref,
			ReportingComponent: "rc", ReportingInstance: "ri"},
		&EventsEvent{TypeMeta: scheme.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, ObjectMeta: meta, EventTime: micro,
			Series: &EventSeries{Count: 3, LastObservedTime: micro}, ReportingController: "rc", ReportingInstance: "ri", Action: "A",
			Reason: "R", Regarding: ref, Related: &ref, Note: "N", Type: "Warning", DeprecatedSource: EventSource{Component: "c"},
			DeprecatedFirstTimestamp: sec, DeprecatedLastTimestamp: sec, DeprecatedCount: 4},
		&Lease{TypeMeta: scheme.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}, ObjectMeta: meta,
			Spec: LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &micro, RenewTime: &micro, LeaseTransitions: &secs}},
		&SelfSubjectReview{TypeMeta: scheme.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"},
			Status: SelfSubjectReviewStatus{UserInfo: UserInfo{Username: "u", UID: "1", Groups: []string{"g"}, Extra: map[string]ExtraValue{"k": {"v1", "v2"}}}}},
	}
	roundTripProtobuf(t, ser, objs)
}

// roundTripProtobuf checks that each object decodes from its protobuf encoding as it was.
func roundTripProtobuf(t *testing.T, ser *protobuf.Serializer, objs []scheme.Kinded) {
	t.Helper()
	for _, obj := range objs {
		var buf bytes.Buffer
		if err := ser.Encode(&buf, obj); err != nil {
			t.Fatalf("encode %T: %v", obj, err)
		}
		res, err := ser.Decode(buf.Bytes(), nil, nil)
		if err != nil {
			t.Fatalf("decode %T: %v", obj, err)
		}
		if d := cmp.Diff(obj, res.Object); d != "" {
			t.Errorf("%T round trip (-want +got):\n%s", obj, d)
		}
	}
}
