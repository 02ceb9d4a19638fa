package audit_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/scheme"
)

// A policy in kube-apiserver's --audit-policy-file format decides per request how much
// is recorded; the first matching rule wins, and no match records nothing.
func ExampleParsePolicy() {
	p, err := audit.ParsePolicy([]byte(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["secrets"]
- level: Metadata
`))
	if err != nil {
		log.Fatal(err)
	}
	e := audit.NewEvaluator(p)
	alice := &audit.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
	for _, a := range []*audit.Attributes{
		{User: alice, Verb: "get", Path: "/healthz"},
		{User: alice, Verb: "create", Namespace: "prod", Resource: "secrets", ResourceRequest: true, APIVersion: "v1"},
		{User: alice, Verb: "list", Namespace: "prod", APIGroup: "apps", Resource: "deployments", ResourceRequest: true, APIVersion: "v1"},
	} {
		rc := e.Evaluate(a)
		fmt.Printf("%s %s%s: %s, omits RequestReceived: %v\n", a.Verb, a.Resource, a.Path, rc.Level, rc.Omits(audit.StageRequestReceived))
	}

	// An invalid policy is refused as kube-apiserver refuses it at start-up.
	_, err = audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n"))
	fmt.Println(err != nil)
	// Output:
	// get /healthz: None, omits RequestReceived: true
	// create secrets: RequestResponse, omits RequestReceived: true
	// list deployments: Metadata, omits RequestReceived: true
	// true
}

// WriterSink writes each event as one JSON line, like kube-apiserver's --audit-log-path;
// package rest calls it through rest.Options.Audit.
func ExampleWriterSink() {
	sink := audit.NewWriterSink(os.Stdout)
	at := scheme.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC))
	err := sink.ProcessEvent(&audit.Event{
		Kind:       audit.EventKind,
		APIVersion: audit.APIVersion,
		Level:      audit.LevelMetadata,
		AuditID:    "7e0f4a6c-1b2d-4e3f-8a9b-0c1d2e3f4a5b",
		Stage:      audit.StageResponseComplete,
		RequestURI: "/api/v1/namespaces/prod/configmaps/settings",
		Verb:       "get",
		User:       audit.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}},
		SourceIPs:  []string{"127.0.0.1"},
		ObjectRef: &audit.ObjectReference{
			Resource: "configmaps", Namespace: "prod", Name: "settings", APIVersion: "v1",
		},
		ResponseStatus:           &scheme.Status{Code: 200},
		RequestReceivedTimestamp: at,
		StageTimestamp:           at,
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"7e0f4a6c-1b2d-4e3f-8a9b-0c1d2e3f4a5b","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/prod/configmaps/settings","verb":"get","user":{"username":"alice","groups":["system:authenticated"]},"sourceIPs":["127.0.0.1"],"objectRef":{"resource":"configmaps","namespace":"prod","name":"settings","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-01-02T03:04:05.678901Z","stageTimestamp":"2026-01-02T03:04:05.678901Z"}
}
