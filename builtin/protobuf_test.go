package builtin

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	appsv1 "github.com/apikit-dev/apikit/builtin/apps/v1"
	authenticationv1 "github.com/apikit-dev/apikit/builtin/authentication/v1"
	coordinationv1 "github.com/apikit-dev/apikit/builtin/coordination/v1"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	eventsv1 "github.com/apikit-dev/apikit/builtin/events/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
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
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", UID: "u", APIVersion: "v1", ResourceVersion: "3", FieldPath: "spec"}
	objs := []scheme.Kinded{
		&corev1.Namespace{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: scheme.ObjectMeta{Name: "x"},
			Spec:   corev1.NamespaceSpec{Finalizers: []string{"kubernetes"}},
			Status: corev1.NamespaceStatus{Phase: "Active", Conditions: []corev1.NamespaceCondition{{Type: "T", Status: "True", LastTransitionTime: sec, Reason: "R", Message: "M"}}}},
		&corev1.ConfigMap{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Immutable: &yes,
			Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"bin": {0, 1, 2}}},
		&corev1.Secret{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta, Immutable: &yes,
			Data: map[string][]byte{"p": []byte("q")}, StringData: map[string]string{"s": "t"}, Type: "Opaque"},
		&corev1.ServiceAccount{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta,
			Secrets: []corev1.ObjectReference{ref}, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}, AutomountServiceAccountToken: &yes},
		&corev1.Event{TypeMeta: scheme.TypeMeta{APIVersion: "v1", Kind: "Event"}, ObjectMeta: meta, InvolvedObject: ref, Reason: "R", Message: "M",
			Source: corev1.EventSource{Component: "c", Host: "h"}, FirstTimestamp: sec, LastTimestamp: sec, Count: 2, Type: "Normal",
			EventTime: micro, Series: &corev1.EventSeries{Count: 3, LastObservedTime: micro}, Action: "A", Related: &ref,
			ReportingComponent: "rc", ReportingInstance: "ri"},
		&eventsv1.Event{TypeMeta: scheme.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, ObjectMeta: meta, EventTime: micro,
			Series: &corev1.EventSeries{Count: 3, LastObservedTime: micro}, ReportingController: "rc", ReportingInstance: "ri", Action: "A",
			Reason: "R", Regarding: ref, Related: &ref, Note: "N", Type: "Warning", DeprecatedSource: corev1.EventSource{Component: "c"},
			DeprecatedFirstTimestamp: sec, DeprecatedLastTimestamp: sec, DeprecatedCount: 4},
		&coordinationv1.Lease{TypeMeta: scheme.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}, ObjectMeta: meta,
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &micro, RenewTime: &micro, LeaseTransitions: &secs}},
		&authenticationv1.SelfSubjectReview{TypeMeta: scheme.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"},
			Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{Username: "u", UID: "1", Groups: []string{"g"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v1", "v2"}}}}},
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

// TestProtobuf_RegisteringWorkloadKindsIsCheap measures what protobuf.RegisterType
// costs for a Pod and a Deployment (whose messages, derived from their struct tags,
// share PodTemplateSpec): the first registration in a process derives the messages,
// every later one (another scheme, another envtest Start) finds them cached. Run it
// alone for the cold figure:
//
//	go test ./builtin -run TestProtobuf_RegisteringWorkloadKindsIsCheap -v
func TestProtobuf_RegisteringWorkloadKindsIsCheap(t *testing.T) {
	register := func(s *scheme.Scheme) {
		t.Helper()
		if err := protobuf.RegisterType(s, corev1.SchemeGroupVersion.WithKind("Pod"), &corev1.Pod{}); err != nil {
			t.Fatal(err)
		}
		if err := protobuf.RegisterType(s, appsv1.SchemeGroupVersion.WithKind("Deployment"), &appsv1.Deployment{}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	register(scheme.New())
	first := time.Since(start)
	var again time.Duration
	allocs := testing.AllocsPerRun(20, func() {
		s := scheme.New()
		start := time.Now()
		register(s)
		again += time.Since(start)
	})
	t.Logf("Pod + Deployment: first registration %v, later ones %v each, %.0f allocs", first, again/21, allocs)
	// Cached: a later registration neither derives nor compiles again.
	if allocs > 100 {
		t.Errorf("a later registration allocates %.0f times: the derivation is not cached", allocs)
	}
}
