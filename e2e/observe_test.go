package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authnv1 "k8s.io/api/authentication/v1"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/audit/policy"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	sigsjson "sigs.k8s.io/json"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/rest"
)

const observeWidgets = "/apis/toys.example.com/v1/namespaces/default/widgets"

func observeDo(t *testing.T, srv *apitest.Server, method, path, body string, hdr ...string) int {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// TestObserve_MetricsParseWithPrometheusTextParser scrapes /metrics after a few requests
// and parses it strictly with the Prometheus text parser: kube-apiserver's families
// with their types and label names, no duplicate series.
func TestObserve_MetricsParseWithPrometheusTextParser(t *testing.T) {
	srv := apitest.NewServer(t, api.NewScheme(), apitest.Options{REST: rest.Options{Metrics: metrics.NewRegistry()}})
	observeDo(t, srv, "POST", observeWidgets, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"color":"blue"}}`)
	observeDo(t, srv, "GET", observeWidgets+"/a", "")
	observeDo(t, srv, "GET", observeWidgets+"?watch=true&timeoutSeconds=1", "")
	observeDo(t, srv, "GET", observeWidgets+"/a", "", "User-Agent", "quote\" backslash\\ newline")

	var fams map[string]*dtoFamily
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		res, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if ct := res.Header.Get("Content-Type"); ct != string(expfmt.NewFormat(expfmt.TypeTextPlain)) {
			t.Errorf("Content-Type %q, want %q", ct, expfmt.NewFormat(expfmt.TypeTextPlain))
		}
		parser := expfmt.NewTextParser(model.LegacyValidation)
		parsed, err := parser.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("the Prometheus text parser rejects /metrics: %v\n%s", err, body)
		}
		fams = summarize(t, parsed)
		if f := fams["apiserver_watch_events_total"]; f != nil || time.Now().After(deadline) {
			break
		}
	}
	for name, want := range map[string]dtoFamily{
		"apiserver_request_total":             {"COUNTER", []string{"code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"}},
		"apiserver_request_duration_seconds":  {"HISTOGRAM", []string{"component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"}},
		"apiserver_response_sizes":            {"HISTOGRAM", []string{"component", "group", "resource", "scope", "subresource", "verb", "version"}},
		"apiserver_current_inflight_requests": {"GAUGE", []string{"request_kind"}},
		"apiserver_longrunning_requests":      {"GAUGE", []string{"component", "group", "resource", "scope", "subresource", "verb", "version"}},
		"apiserver_watch_events_total":        {"COUNTER", []string{"group", "resource", "version"}},
		"apiserver_watch_events_sizes":        {"HISTOGRAM", []string{"group", "resource", "version"}},
		"etcd_request_duration_seconds":       {"HISTOGRAM", []string{"group", "operation", "resource"}},
		"etcd_requests_total":                 {"COUNTER", []string{"group", "operation", "resource"}},
		"apiserver_storage_objects":           {"GAUGE", []string{"resource"}},
		"apiserver_resource_objects":          {"GAUGE", []string{"group", "resource"}},
		"go_goroutines":                       {"GAUGE", nil},
	} {
		got, ok := fams[name]
		if !ok {
			t.Errorf("no family %s", name)
			continue
		}
		if got.Type != want.Type || !slices.Equal(got.Labels, want.Labels) {
			t.Errorf("%s: %s %v, want %s %v", name, got.Type, got.Labels, want.Type, want.Labels)
		}
	}
}

// dtoFamily is what the test compares of a parsed family: its type and label names.
type dtoFamily struct {
	Type   string
	Labels []string
}

func summarize(t *testing.T, parsed map[string]*dto.MetricFamily) map[string]*dtoFamily {
	out := map[string]*dtoFamily{}
	for name, f := range parsed {
		seen := map[string]bool{}
		var labels []string
		for _, m := range f.GetMetric() {
			var key []string
			labels = labels[:0]
			for _, lp := range m.GetLabel() {
				labels = append(labels, lp.GetName())
				key = append(key, lp.GetName()+"="+lp.GetValue())
			}
			k := strings.Join(key, ",")
			if seen[k] {
				t.Errorf("%s has the series {%s} twice", name, k)
			}
			seen[k] = true
		}
		sort.Strings(labels)
		out[name] = &dtoFamily{Type: f.GetType().String(), Labels: slices.Clone(labels)}
	}
	return out
}

// TestObserve_AuditLinesAreKubeEvents decodes the audit log strictly into
// k8s.io/apiserver's audit/v1 Event and compares what kube-apiserver would record.
func TestObserve_AuditLinesAreKubeEvents(t *testing.T) {
	var log syncBuffer
	pol := &audit.Policy{Rules: []audit.PolicyRule{{Level: audit.LevelRequestResponse, Verbs: []string{"create"}}, {Level: audit.LevelMetadata}}}
	srv := apitest.NewServer(t, api.NewScheme(), apitest.Options{REST: rest.Options{Audit: &audit.Config{Policy: pol, Sink: audit.NewWriterSink(&log)}}})
	observeDo(t, srv, "POST", observeWidgets, `{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{"color":"blue"}}`, "Audit-ID", "create-1", "User-Agent", "e2e")
	observeDo(t, srv, "GET", observeWidgets+"/nope", "", "Audit-ID", "get-1", "User-Agent", "e2e")

	var events []auditv1.Event
	for deadline := time.Now().Add(10 * time.Second); len(events) < 4 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		events = events[:0]
		sc := bufio.NewScanner(strings.NewReader(log.String()))
		for sc.Scan() {
			var ev auditv1.Event
			strict, err := sigsjson.UnmarshalStrict(sc.Bytes(), &ev)
			if err != nil || len(strict) > 0 {
				t.Fatalf("audit line is no strict audit/v1 Event: %v %v\n%s", err, strict, sc.Bytes())
			}
			events = append(events, ev)
		}
	}
	if len(events) != 4 {
		t.Fatalf("%d events, want 4", len(events))
	}
	user := authnv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}
	// kube-apiserver's WithAuthorization annotates the events after authorization with
	// the decision and the authorizer's reason, empty for AlwaysAllow.
	allowed := map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}
	for i, want := range []auditv1.Event{
		{Level: auditv1.LevelRequestResponse, AuditID: "create-1", Stage: auditv1.StageRequestReceived, RequestURI: observeWidgets, Verb: "create", User: user, UserAgent: "e2e",
			ObjectRef: &auditv1.ObjectReference{Resource: "widgets", Namespace: "default", APIGroup: "toys.example.com", APIVersion: "v1"}},
		{Level: auditv1.LevelRequestResponse, AuditID: "create-1", Stage: auditv1.StageResponseComplete, RequestURI: observeWidgets, Verb: "create", User: user, UserAgent: "e2e",
			ObjectRef:   &auditv1.ObjectReference{Resource: "widgets", Namespace: "default", Name: "a", APIGroup: "toys.example.com", APIVersion: "v1"},
			Annotations: allowed},
		{Level: auditv1.LevelMetadata, AuditID: "get-1", Stage: auditv1.StageRequestReceived, RequestURI: observeWidgets + "/nope", Verb: "get", User: user, UserAgent: "e2e",
			ObjectRef: &auditv1.ObjectReference{Resource: "widgets", Namespace: "default", Name: "nope", APIGroup: "toys.example.com", APIVersion: "v1"}},
		{Level: auditv1.LevelMetadata, AuditID: "get-1", Stage: auditv1.StageResponseComplete, RequestURI: observeWidgets + "/nope", Verb: "get", User: user, UserAgent: "e2e",
			ObjectRef:   &auditv1.ObjectReference{Resource: "widgets", Namespace: "default", Name: "nope", APIGroup: "toys.example.com", APIVersion: "v1"},
			Annotations: allowed},
	} {
		got := events[i]
		if got.Kind != "Event" || got.APIVersion != "audit.k8s.io/v1" {
			t.Errorf("event %d is %s %s", i, got.APIVersion, got.Kind)
		}
		if got.RequestReceivedTimestamp.IsZero() || got.StageTimestamp.Before(&got.RequestReceivedTimestamp) {
			t.Errorf("event %d timestamps %v %v", i, got.RequestReceivedTimestamp, got.StageTimestamp)
		}
		if len(got.SourceIPs) != 1 || got.SourceIPs[0] != "127.0.0.1" {
			t.Errorf("event %d sourceIPs %v", i, got.SourceIPs)
		}
		want.TypeMeta, want.SourceIPs = got.TypeMeta, got.SourceIPs
		want.RequestReceivedTimestamp, want.StageTimestamp = got.RequestReceivedTimestamp, got.StageTimestamp
		want.ResponseStatus, want.RequestObject, want.ResponseObject = got.ResponseStatus, got.RequestObject, got.ResponseObject
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Errorf("event %d\n got %s\nwant %s", i, g, w)
		}
	}
	created := events[1]
	if created.ResponseStatus == nil || created.ResponseStatus.Code != 201 {
		t.Errorf("create responseStatus %+v", created.ResponseStatus)
	}
	if created.RequestObject == nil || !bytes.Contains(created.RequestObject.Raw, []byte(`"color":"blue"`)) ||
		created.ResponseObject == nil || !bytes.Contains(created.ResponseObject.Raw, []byte(`"uid"`)) {
		t.Errorf("create bodies %v %v", created.RequestObject, created.ResponseObject)
	}
	if st := events[3].ResponseStatus; st == nil || st.Code != 404 || st.Reason != "NotFound" || events[3].ResponseObject != nil {
		t.Errorf("get responseStatus %+v at Metadata, responseObject %v", st, events[3].ResponseObject)
	}
}

// TestObserve_PolicyEvaluationMatchesKube feeds the same generated policies and requests
// to k8s.io/apiserver's policy evaluator and to package audit's, and compares levels,
// omitted stages and omitManagedFields.
func TestObserve_PolicyEvaluationMatchesKube(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	some := func(xs ...string) []string {
		var out []string
		for _, x := range xs {
			if rng.IntN(3) == 0 {
				out = append(out, x)
			}
		}
		return out
	}
	levels := []string{"None", "Metadata", "Request", "RequestResponse"}
	stages := []string{"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"}
	users := []string{"alice", "bob", "system:kube-proxy"}
	groups := []string{"system:authenticated", "system:nodes", "admins"}
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	apiGroups := []string{"", "toys.example.com", "apps"}
	resources := []string{"widgets", "pods", "widgets/status", "pods/log", "*", "*/status", "widgets/*", "configmaps"}
	names := []string{"a", "b"}
	namespaces := []string{"", "default", "kube-system"}
	paths := []string{"/healthz", "/healthz/ping", "/version", "/apis", "/apis/toys.example.com", "/metrics"}
	urlSpecs := []string{"*", "/healthz*", "/version", "/apis/*", "/metrics"}

	const policies, requestsPerPolicy = 300, 60
	compared := 0
	for range policies {
		pol := map[string]any{"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": some(stages...)}
		if rng.IntN(2) == 0 {
			pol["omitManagedFields"] = true
		}
		var rules []map[string]any
		for range 1 + rng.IntN(5) {
			r := map[string]any{"level": pick(levels...), "users": some(users...), "userGroups": some(groups...), "verbs": some(verbs...), "omitStages": some(stages...)}
			switch rng.IntN(3) {
			case 0:
				var grs []map[string]any
				for range 1 + rng.IntN(2) {
					gr := map[string]any{"group": pick(append(apiGroups, "*")...), "resources": some(resources...)}
					if len(gr["resources"].([]string)) > 0 && rng.IntN(3) == 0 {
						gr["resourceNames"] = some(names...)
					}
					grs = append(grs, gr)
				}
				r["resources"] = grs
				r["namespaces"] = some(namespaces...)
			case 1:
				r["nonResourceURLs"] = some(urlSpecs...)
			}
			if rng.IntN(3) == 0 {
				r["omitManagedFields"] = rng.IntN(2) == 0
			}
			rules = append(rules, r)
		}
		pol["rules"] = rules
		doc, _ := json.Marshal(pol)

		kubePolicy, kubeErr := policy.LoadPolicyFromBytes(doc)
		ours, ourErr := audit.ParsePolicy(doc)
		if (kubeErr == nil) != (ourErr == nil) {
			t.Fatalf("policy %s: kube says %v, we say %v", doc, kubeErr, ourErr)
		}
		if kubeErr != nil {
			continue
		}
		kubeEval := policy.NewPolicyRuleEvaluator(kubePolicy)
		ourEval := audit.NewEvaluator(ours)
		for range requestsPerPolicy {
			var u *user.DefaultInfo
			var ou *audit.UserInfo
			if rng.IntN(8) > 0 {
				u = &user.DefaultInfo{Name: pick(users...), Groups: some(groups...)}
				ou = &audit.UserInfo{Username: u.Name, Groups: u.Groups}
			}
			attrs := authorizer.AttributesRecord{Verb: pick(verbs...), ResourceRequest: rng.IntN(3) > 0}
			if u != nil {
				attrs.User = u
			}
			if attrs.ResourceRequest {
				attrs.Namespace, attrs.APIGroup, attrs.APIVersion = pick(namespaces...), pick(apiGroups...), "v1"
				res, sub, _ := strings.Cut(pick("widgets", "pods", "configmaps", "widgets/status", "pods/log", "widgets/scale"), "/")
				attrs.Resource, attrs.Subresource, attrs.Name = res, sub, pick("", "a", "b")
			} else {
				attrs.Path, attrs.Verb = pick(paths...), pick("get", "post", "put")
			}
			want := kubeEval.EvaluatePolicyRule(attrs)
			got := ourEval.Evaluate(&audit.Attributes{
				User: ou, Verb: attrs.Verb, Namespace: attrs.Namespace, APIGroup: attrs.APIGroup, APIVersion: attrs.APIVersion,
				Resource: attrs.Resource, Subresource: attrs.Subresource, Name: attrs.Name, Path: attrs.Path, ResourceRequest: attrs.ResourceRequest,
			})
			if string(got.Level) != string(want.Level) || !sameStageSet(got.OmitStages, want.OmitStages) || got.OmitManagedFields != want.OmitManagedFields {
				t.Fatalf("policy %s\nrequest %+v user %+v\nkube: %s %v %v\nours: %s %v %v", doc, attrs, u,
					want.Level, want.OmitStages, want.OmitManagedFields, got.Level, got.OmitStages, got.OmitManagedFields)
			}
			compared++
		}
	}
	if compared < policies*requestsPerPolicy/2 {
		t.Errorf("only %d evaluations compared; the generator makes too many invalid policies", compared)
	}
}

func sameStageSet(ours []audit.Stage, kube []auditinternal.Stage) bool {
	a := make([]string, len(ours))
	for i, s := range ours {
		a[i] = string(s)
	}
	b := make([]string, len(kube))
	for i, s := range kube {
		b[i] = string(s)
	}
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
