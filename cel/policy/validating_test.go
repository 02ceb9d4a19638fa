package policy_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/audit"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/cel/policy"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

type obj = map[string]any

type response struct {
	code     int
	body     obj
	warnings []string
}

func newServer(t testing.TB) *apitest.Server {
	t.Helper()
	return newServerWith(t, false)
}

// newServerWith is the built-in API with kube's strategies and admission plugins,
// the policy plugin, the CRD API when crds, and a namespace "ns" labelled env=test.
func newServerWith(t testing.TB, crds bool, audited ...*audit.Config) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.Builtin()
	var auditConfig *audit.Config
	if len(audited) > 0 {
		auditConfig = audited[0]
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), Audit: auditConfig,
		MutatingAdmission: p.Mutating, ValidatingAdmission: append(append([]registry.ValidatingAdmission{}, p.Validating...), policy.NewValidating())}, CRDAPI: crds})
	expect(t, srv, http.MethodPost, "/api/v1/namespaces", obj{"metadata": obj{"name": "ns", "labels": obj{"env": "test"}}}, http.StatusCreated)
	return srv
}

func send(t testing.TB, srv *apitest.Server, method, path string, body any) response {
	t.Helper()
	var in io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		in = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, srv.URL+path, in)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := response{code: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&r.body); err != nil {
		t.Fatal(err)
	}
	for _, w := range resp.Header.Values("Warning") {
		text := strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`)
		r.warnings = append(r.warnings, strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text))
	}
	return r
}

func expect(t testing.TB, srv *apitest.Server, method, path string, body any, want int) obj {
	t.Helper()
	r := send(t, srv, method, path, body)
	if r.code != want {
		t.Fatalf("%s %s: %d, want %d: %v", method, path, r.code, want, r.body)
	}
	return r.body
}

const (
	policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	cms      = "/api/v1/namespaces/ns/configmaps"
)

func configMapRules() []any {
	return []any{obj{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"}}}
}

func vap(name string, spec obj) obj {
	if _, ok := spec["matchConstraints"]; !ok {
		spec["matchConstraints"] = obj{"resourceRules": configMapRules()}
	}
	return obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": obj{"name": name}, "spec": spec}
}

func binding(name, policyName string, spec obj) obj {
	spec["policyName"] = policyName
	if _, ok := spec["validationActions"]; !ok {
		spec["validationActions"] = []any{"Deny"}
	}
	return obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": obj{"name": name}, "spec": spec}
}

func configMap(name string, data obj) obj {
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": name}, "data": data}
}

// TestValidating_KubesDecisionsAndTexts holds kube's answers: a failed validation
// denies with 422 Invalid and kube's message (the validation's message,
// messageExpression or expression), a validation's reason sets the code, Warn adds
// kube's warning and stores, matchConditions skip, params come from the binding's
// paramRef, and the policy resources themselves are exempt.
func TestValidating_KubesDecisionsAndTexts(t *testing.T) {
	srv := newServer(t)
	expect(t, srv, http.MethodPost, policies, vap("no-bad", obj{
		"matchConditions": []any{obj{"name": "not-skipped", "expression": "!has(object.metadata.labels) || !('skip' in object.metadata.labels)"}},
		"validations": []any{
			obj{"expression": "!has(object.data) || !('bad' in object.data)"},
			obj{"expression": "!has(object.data) || !('worse' in object.data)", "message": "no worse", "reason": "Forbidden"},
			obj{"expression": "!has(object.data) || !('dyn' in object.data)", "messageExpression": "'dyn is ' + object.data.dyn"},
		}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("no-bad-b", "no-bad", obj{}), http.StatusCreated)

	r := send(t, srv, http.MethodPost, cms, configMap("c1", obj{"bad": "x"}))
	wantMsg := `configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad-b' denied request: failed expression: !has(object.data) || !('bad' in object.data)`
	if r.code != 422 || r.body["reason"] != "Invalid" || r.body["message"] != wantMsg {
		t.Errorf("bad: %d %v", r.code, r.body)
	}
	r = send(t, srv, http.MethodPost, cms, configMap("c2", obj{"worse": "x"}))
	if r.code != 403 || r.body["reason"] != "Forbidden" || !strings.HasSuffix(r.body["message"].(string), "denied request: no worse") {
		t.Errorf("worse: %d %v", r.code, r.body)
	}
	r = send(t, srv, http.MethodPost, cms, configMap("c3", obj{"dyn": "here"}))
	if r.code != 422 || !strings.HasSuffix(r.body["message"].(string), "denied request: dyn is here") {
		t.Errorf("messageExpression: %d %v", r.code, r.body)
	}
	skipped := configMap("c4", obj{"bad": "x"})
	skipped["metadata"].(obj)["labels"] = obj{"skip": "yes"}
	expect(t, srv, http.MethodPost, cms, skipped, http.StatusCreated)
	expect(t, srv, http.MethodPost, cms, configMap("c5", obj{"good": "x"}), http.StatusCreated)

	// Warn instead of Deny: the write is stored, with kube's warning.
	expect(t, srv, http.MethodDelete, bindings+"/no-bad-b", nil, http.StatusOK)
	expect(t, srv, http.MethodPost, bindings, binding("no-bad-b", "no-bad", obj{"validationActions": []any{"Warn"}}), http.StatusCreated)
	r = send(t, srv, http.MethodPost, cms, configMap("c6", obj{"bad": "x"}))
	wantWarn := "Validation failed for ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad-b': failed expression: !has(object.data) || !('bad' in object.data)"
	if r.code != 201 || len(r.warnings) != 1 || r.warnings[0] != wantWarn {
		t.Errorf("warn: %d %q %v", r.code, r.warnings, r.body)
	}

	// A policy may not lock the policy resources.
	expect(t, srv, http.MethodPost, policies, vap("all", obj{
		"matchConstraints": obj{"resourceRules": []any{obj{"apiGroups": []any{"*"}, "apiVersions": []any{"*"}, "operations": []any{"*"}, "resources": []any{"*"}}}},
		"validations":      []any{obj{"expression": "false"}}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("all-b", "all", obj{}), http.StatusCreated)
	expect(t, srv, http.MethodDelete, bindings+"/all-b", nil, http.StatusOK)
}

// TestValidating_Params holds paramKind and paramRef: the param's data are params,
// a missing param is allowed or denied by parameterNotFoundAction, and a paramKind
// no resource serves is the policy's configuration error.
func TestValidating_Params(t *testing.T) {
	srv := newServer(t)
	expect(t, srv, http.MethodPost, policies, vap("max-keys", obj{
		"paramKind":   obj{"apiVersion": "v1", "kind": "ConfigMap"},
		"validations": []any{obj{"expression": "!has(object.data) || size(object.data) <= int(params.data.max)", "messageExpression": "'at most ' + params.data.max + ' keys'"}},
		"matchConstraints": obj{"resourceRules": configMapRules(), "objectSelector": obj{"matchExpressions": []any{
			obj{"key": "param", "operator": "DoesNotExist"}}}}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("max-keys-b", "max-keys", obj{"paramRef": obj{"name": "limits", "parameterNotFoundAction": "Deny"}}), http.StatusCreated)

	r := send(t, srv, http.MethodPost, cms, configMap("c1", obj{"a": "1"}))
	want := `configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-b' denied request: failed to configure binding: no params found for policy binding with ` + "`Deny`" + ` parameterNotFoundAction`
	if r.code != 422 || r.body["message"] != want {
		t.Errorf("no param: %d %v", r.code, r.body)
	}
	limits := configMap("limits", obj{"max": "1"})
	limits["metadata"].(obj)["labels"] = obj{"param": "yes"}
	expect(t, srv, http.MethodPost, cms, limits, http.StatusCreated)
	expect(t, srv, http.MethodPost, cms, configMap("c1", obj{"a": "1"}), http.StatusCreated)
	r = send(t, srv, http.MethodPost, cms, configMap("c2", obj{"a": "1", "b": "2"}))
	if r.code != 422 || !strings.HasSuffix(r.body["message"].(string), "denied request: at most 1 keys") {
		t.Errorf("over the param: %d %v", r.code, r.body)
	}

	expect(t, srv, http.MethodPost, policies, vap("unknown-param", obj{
		"paramKind":   obj{"apiVersion": "example.com/v1", "kind": "Nothing"},
		"validations": []any{obj{"expression": "true"}}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("unknown-param-b", "unknown-param", obj{"paramRef": obj{"name": "x", "parameterNotFoundAction": "Allow"}}), http.StatusCreated)
	r = send(t, srv, http.MethodPost, cms, configMap("c3", nil))
	want = `configmaps "c3" is forbidden: ValidatingAdmissionPolicy 'unknown-param' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'`
	if r.code != 422 || r.body["message"] != want {
		t.Errorf("unknown paramKind: %d %v", r.code, r.body)
	}
}

// TestValidating_DocsExampleWithACustomResourceParam is the Kubernetes
// documentation's parameterized policy: Deployments in test namespaces may have at
// most as many replicas as the ReplicaLimit custom resource the binding names.
func TestValidating_DocsExampleWithACustomResourceParam(t *testing.T) {
	srv := newServerWith(t, true)
	expect(t, srv, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", obj{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": obj{"name": "replicalimits.rules.example.com"},
		"spec": obj{"group": "rules.example.com", "scope": "Namespaced", "names": obj{"plural": "replicalimits", "kind": "ReplicaLimit", "singular": "replicalimit", "listKind": "ReplicaLimitList"},
			"versions": []any{obj{"name": "v1", "served": true, "storage": true, "schema": obj{"openAPIV3Schema": obj{"type": "object",
				"properties": obj{"maxReplicas": obj{"type": "integer"}}}}}}}}, http.StatusCreated)
	limits := "/apis/rules.example.com/v1/namespaces/ns/replicalimits"
	for i := 0; ; i++ {
		if r := send(t, srv, http.MethodGet, limits, nil); r.code == http.StatusOK {
			break
		} else if i == 100 {
			t.Fatalf("the CRD is not served: %d %v", r.code, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	expect(t, srv, http.MethodPost, limits, obj{"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit", "metadata": obj{"name": "replica-limit-test.example.com"}, "maxReplicas": 3}, http.StatusCreated)
	expect(t, srv, http.MethodPost, policies, vap("replicalimit-policy.example.com", obj{
		"failurePolicy": "Fail",
		"paramKind":     obj{"apiVersion": "rules.example.com/v1", "kind": "ReplicaLimit"},
		"matchConstraints": obj{"resourceRules": []any{obj{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"deployments"}}}},
		"validations": []any{obj{"expression": "object.spec.replicas <= params.maxReplicas",
			"messageExpression": "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)", "reason": "Invalid"}}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("replicalimit-binding-test.example.com", "replicalimit-policy.example.com", obj{
		"paramRef":       obj{"name": "replica-limit-test.example.com", "namespace": "ns", "parameterNotFoundAction": "Deny"},
		"matchResources": obj{"namespaceSelector": obj{"matchLabels": obj{"env": "test"}}}}), http.StatusCreated)
	deploy := func(name string, replicas int) obj {
		return obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": obj{"name": name}, "spec": obj{
			"replicas": replicas, "selector": obj{"matchLabels": obj{"app": name}},
			"template": obj{"metadata": obj{"labels": obj{"app": name}}, "spec": obj{"containers": []any{obj{"name": "app", "image": "nginx:1.27"}}}}}}
	}
	const deployments = "/apis/apps/v1/namespaces/ns/deployments"
	expect(t, srv, http.MethodPost, deployments, deploy("small", 3), http.StatusCreated)
	r := send(t, srv, http.MethodPost, deployments, deploy("big", 4))
	want := `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no greater than 3`
	if r.code != http.StatusUnprocessableEntity || r.body["message"] != want {
		t.Errorf("over the limit: %d %v", r.code, r.body)
	}
}

// eventSink keeps the annotations of the ResponseComplete events it receives.
type eventSink struct {
	mu          sync.Mutex
	annotations []map[string]string
}

func (s *eventSink) ProcessEvent(ev *audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Stage == audit.StageResponseComplete && ev.ObjectRef != nil && ev.ObjectRef.Resource == "configmaps" {
		s.annotations = append(s.annotations, ev.Annotations)
	}
	return nil
}

// TestValidating_AuditAnnotations holds kube's audit annotations: an auditAnnotation's
// value under "<policy>/<key>", and a failed validation of a binding with the Audit
// action in validation.policy.admission.k8s.io/validation_failure.
func TestValidating_AuditAnnotations(t *testing.T) {
	p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"))
	if err != nil {
		t.Fatal(err)
	}
	sink := &eventSink{}
	srv := newServerWith(t, false, &audit.Config{Policy: p, Sink: sink})
	expect(t, srv, http.MethodPost, policies, vap("audited", obj{
		"validations":      []any{obj{"expression": "!has(object.data) || !('bad' in object.data)", "message": "no bad"}},
		"auditAnnotations": []any{obj{"key": "keys", "valueExpression": "string(size(object.data))"}}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, bindings, binding("audited-b", "audited", obj{"validationActions": []any{"Audit"}}), http.StatusCreated)
	expect(t, srv, http.MethodPost, cms, configMap("c1", obj{"bad": "x", "ok": "y"}), http.StatusCreated)
	// The ResponseComplete event may be recorded after the answer is sent.
	for i := 0; i < 200; i++ {
		sink.mu.Lock()
		n := len(sink.annotations)
		sink.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.annotations) != 1 {
		t.Fatalf("%d ConfigMap events, want 1: %v", len(sink.annotations), sink.annotations)
	}
	got := sink.annotations[0]
	if got["audited/keys"] != "2" {
		t.Errorf("audited/keys = %q, want 2 (all: %v)", got["audited/keys"], got)
	}
	want := `[{"message":"no bad","policy":"audited","binding":"audited-b","expressionIndex":0,"validationActions":["Audit"]}]`
	if got["validation.policy.admission.k8s.io/validation_failure"] != want {
		t.Errorf("validation_failure = %q, want %q", got["validation.policy.admission.k8s.io/validation_failure"], want)
	}
}

// TestValidating_PoliciesWhoseExpressionsDoNotCompile holds the CEL half of kube's
// validation of a policy: 422 Invalid with one cause per expression that does not
// compile or has the wrong type, params declared only with a paramKind.
func TestValidating_PoliciesWhoseExpressionsDoNotCompile(t *testing.T) {
	srv := newServer(t)
	r := send(t, srv, http.MethodPost, policies, vap("bad", obj{
		"matchConditions":  []any{obj{"name": "m", "expression": "params.x == 1"}},
		"variables":        []any{obj{"name": "v", "expression": "object.metadata.name +"}},
		"validations":      []any{obj{"expression": "'not a bool'", "messageExpression": "1"}},
		"auditAnnotations": []any{obj{"key": "k", "valueExpression": "variables.v"}},
	}))
	if r.code != http.StatusUnprocessableEntity || r.body["reason"] != "Invalid" {
		t.Fatalf("%d %v", r.code, r.body)
	}
	var fields []string
	for _, c := range at(r.body, "details", "causes").([]any) {
		fields = append(fields, c.(obj)["field"].(string))
	}
	want := []string{"spec.matchConditions[0].expression", "spec.variables[0].expression", "spec.validations[0].expression", "spec.validations[0].messageExpression", "spec.auditAnnotations[0].valueExpression"}
	if strings.Join(fields, ",") != strings.Join(want, ",") {
		t.Errorf("causes on %v, want %v: %v", fields, want, r.body["message"])
	}
	msg := r.body["message"].(string)
	for _, part := range []string{
		`ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: [`,
		`spec.matchConditions[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')`,
		`spec.validations[0].expression: Invalid value: "'not a bool'": must evaluate to bool but got string`,
		`spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int`,
	} {
		if !strings.Contains(msg, part) {
			t.Errorf("message lacks %q:\n%s", part, msg)
		}
	}
}

func at(m obj, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(obj)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}
