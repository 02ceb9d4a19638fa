package audit_test

import (
	"io"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/scheme"
)

// BenchmarkWriterSink_ProcessEvent encodes one Metadata-level event of a GET, the
// kind a server writes twice per request.
func BenchmarkWriterSink_ProcessEvent(b *testing.B) {
	now := scheme.NewMicroTime(time.Now())
	ev := &audit.Event{
		Kind: audit.EventKind, APIVersion: audit.APIVersion, Level: audit.LevelMetadata,
		AuditID: "4f1c2a8e-1b7d-4c55-9f0e-2d3c4b5a6978", Stage: audit.StageResponseComplete,
		RequestURI: "/apis/toys.example.com/v1/namespaces/default/widgets/w1", Verb: "get",
		User: audit.UserInfo{Username: "bench", Groups: []string{"benchers", "system:authenticated"},
			Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"X509SHA256=0123456789abcdef"}}},
		SourceIPs: []string{"127.0.0.1"}, UserAgent: "Go-http-client/1.1",
		ObjectRef:                &audit.ObjectReference{Resource: "widgets", Namespace: "default", Name: "w1", APIGroup: "toys.example.com", APIVersion: "v1"},
		ResponseStatus:           &scheme.Status{Code: 200},
		RequestReceivedTimestamp: now, StageTimestamp: now,
		Annotations: map[string]string{
			"authorization.k8s.io/decision": "allow",
			"authorization.k8s.io/reason":   `RBAC: allowed by RoleBinding "bench-edits-widgets/default" of ClusterRole "widget-editor" to User "bench"`,
		},
	}
	sink := audit.NewWriterSink(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		if err := sink.ProcessEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
}
