// Package audit is kube-apiserver's audit log for apikit servers: events in the shape of
// audit.k8s.io/v1 Event, a Policy read from kube's policy file format (audit.k8s.io/v1
// Policy) that decides per request at which Level it is recorded (None, Metadata,
// Request, RequestResponse) and which Stages are omitted, and Sinks that receive the
// events, such as WriterSink, which writes them as JSON lines like kube-apiserver's
// --audit-log-path.
//
// Package rest records the events (rest.Options.Audit): RequestReceived when a request
// is authenticated, ResponseStarted when a long-running request (a watch) sends its
// headers, ResponseComplete when the response is done, Panic when serving it panicked,
// and, for a request that fails authentication, one ResponseStarted event, as
// kube-apiserver does. Request and response bodies are recorded only at the Request and
// RequestResponse levels, up to Config.MaxEventBytes each.
//
// The package depends on no Kubernetes module: policy evaluation follows
// k8s.io/apiserver/pkg/audit/policy rule for rule, which a differential test in the e2e
// module checks against the real evaluator.
package audit
