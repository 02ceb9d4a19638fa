package admission_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	admissionv1 "github.com/apikit-dev/apikit/builtin/admission/v1"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// reviewer answers one AdmissionReview request: the HTTP code and the body to send
// (an *admissionv1.AdmissionResponse is wrapped in a v1 AdmissionReview).
type reviewer func(req *admissionv1.AdmissionRequest) (int, any)

// hookServer is a TLS webhook server on 127.0.0.1 whose paths answer with reviewers,
// recording the requests each path received.
type hookServer struct {
	*httptest.Server
	ca []byte

	mu       sync.Mutex
	handlers map[string]reviewer
	got      map[string][]*admissionv1.AdmissionRequest
	// hang is closed when the test ends, releasing handlers that wait on it.
	hang chan struct{}
}

func newHookServer(t testing.TB) *hookServer {
	t.Helper()
	hs := &hookServer{handlers: map[string]reviewer{}, got: map[string][]*admissionv1.AdmissionRequest{}, hang: make(chan struct{})}
	hs.Server = httptest.NewTLSServer(http.HandlerFunc(hs.serve))
	hs.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	t.Cleanup(func() { close(hs.hang); hs.Close() })
	return hs
}

func (hs *hookServer) handle(path string, r reviewer) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.handlers[path] = r
}

func (hs *hookServer) requests(path string) []*admissionv1.AdmissionRequest {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.got[path]
}

func (hs *hookServer) serve(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	hs.mu.Lock()
	h := hs.handlers[r.URL.Path]
	hs.got[r.URL.Path] = append(hs.got[r.URL.Path], review.Request)
	hs.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	code, body := h(review.Request)
	if resp, ok := body.(*admissionv1.AdmissionResponse); ok {
		body = admissionv1.AdmissionReview{TypeMeta: scheme.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// allow answers allowed, with the patch ops when there are some.
func allow(ops ...any) reviewer {
	return func(req *admissionv1.AdmissionRequest) (int, any) {
		resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
		if len(ops) > 0 {
			resp.Patch, _ = json.Marshal(ops)
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
		}
		return http.StatusOK, resp
	}
}

// deny answers a refusal with status.
func deny(st *scheme.Status) reviewer {
	return func(req *admissionv1.AdmissionRequest) (int, any) {
		return http.StatusOK, &admissionv1.AdmissionResponse{UID: req.UID, Allowed: false, Result: st}
	}
}

// webhookServer is an apitest server with the built-in kinds, their strategies and
// Builtin()'s plugins (with opts for the webhooks), and the namespace "default".
func webhookServer(t *testing.T, opts admission.WebhookOptions) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.BuiltinWith(admission.Options{Webhooks: opts})
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
	sendExpect(t, srv, http.MethodPost, "/api/v1/namespaces", obj{"metadata": obj{"name": "default"}}, http.StatusCreated)
	return srv
}

// hookSpec is one webhook of a configuration, the fields a test sets.
type hookSpec struct {
	name, path string
	url        string // overrides the hook server's URL+path
	rules      []any  // nil: CREATE and UPDATE of configmaps
	extra      obj    // more fields (failurePolicy, selectors, ...)
}

// configure creates a Mutating or ValidatingWebhookConfiguration named name.
func configure(t *testing.T, srv *apitest.Server, hs *hookServer, mutating bool, name string, hooks ...hookSpec) {
	t.Helper()
	var webhooks []any
	for _, h := range hooks {
		rules := h.rules
		if rules == nil {
			rules = []any{obj{"operations": []any{"CREATE", "UPDATE"}, "apiGroups": []any{""}, "apiVersions": []any{"v1"}, "resources": []any{"configmaps"}}}
		}
		url := h.url
		if url == "" {
			url = hs.URL + h.path
		}
		w := obj{"name": h.name, "clientConfig": obj{"url": url, "caBundle": hs.ca}, "rules": rules,
			"sideEffects": "None", "admissionReviewVersions": []any{"v1"}}
		for k, v := range h.extra {
			w[k] = v
		}
		webhooks = append(webhooks, w)
	}
	kind, resource := "ValidatingWebhookConfiguration", "validatingwebhookconfigurations"
	if mutating {
		kind, resource = "MutatingWebhookConfiguration", "mutatingwebhookconfigurations"
	}
	sendExpect(t, srv, http.MethodPost, "/apis/admissionregistration.k8s.io/v1/"+resource,
		obj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": obj{"name": name}, "webhooks": webhooks}, http.StatusCreated)
}

func configMap(name string, labels obj, data obj) obj {
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": name, "labels": labels}, "data": data}
}

const configMapsPath = "/api/v1/namespaces/default/configmaps"

// TestWebhooks_AllowDenyAndPatchAsKube holds the answers of allowed, refused and
// patching webhooks and the AdmissionReview request they are sent.
func TestWebhooks_AllowDenyAndPatchAsKube(t *testing.T) {
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	hs.handle("/mutate", allow(obj{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}))
	hs.handle("/validate", func(req *admissionv1.AdmissionRequest) (int, any) {
		var cm struct {
			Data map[string]string `json:"data"`
		}
		_ = json.Unmarshal(req.Object, &cm)
		resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: cm.Data["bad"] == "", Warnings: []string{"looked at " + req.Name}}
		if !resp.Allowed {
			resp.Result = &scheme.Status{Message: "bad data", Reason: "BadData", Code: 422}
		}
		return http.StatusOK, resp
	})
	configure(t, srv, hs, true, "m", hookSpec{name: "m.example.com", path: "/mutate"})
	configure(t, srv, hs, false, "v", hookSpec{name: "v.example.com", path: "/validate"})

	r := send(t, srv, http.MethodPost, configMapsPath, configMap("good", obj{"a": "b"}, obj{"k": "v"}))
	if r.code != http.StatusCreated || at(r.body, "metadata", "labels", "mutated") != "yes" {
		t.Fatalf("good: %d %v", r.code, r.body)
	}
	if len(r.warnings) != 1 || r.warnings[0] != "looked at good" {
		t.Errorf("warnings %q", r.warnings)
	}
	got := hs.requests("/validate")
	if len(got) != 1 {
		t.Fatalf("validate got %d requests", len(got))
	}
	req := got[0]
	if req.Kind != (admissionv1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) || req.Resource.Resource != "configmaps" ||
		req.Operation != admissionv1.Create || req.Namespace != "default" || req.Name != "good" || req.DryRun == nil || *req.DryRun ||
		string(req.OldObject) != "null" || req.RequestKind == nil || req.RequestKind.Kind != "ConfigMap" {
		t.Errorf("request %+v", req)
	}
	var opts map[string]any
	_ = json.Unmarshal(req.Options, &opts)
	if opts["kind"] != "CreateOptions" || opts["apiVersion"] != "meta.k8s.io/v1" {
		t.Errorf("options %s", req.Options)
	}
	var sent map[string]any
	_ = json.Unmarshal(req.Object, &sent)
	if at(sent, "metadata", "labels", "mutated") != "yes" || at(sent, "apiVersion") != "v1" || at(sent, "kind") != "ConfigMap" {
		t.Errorf("validating webhook saw %s, want the mutated object", req.Object)
	}

	r = send(t, srv, http.MethodPost, configMapsPath, configMap("bad", obj{"x": "y"}, obj{"bad": "x"}))
	if r.code != 422 || at(r.body, "reason") != "BadData" || at(r.body, "message") != `admission webhook "v.example.com" denied the request: bad data` {
		t.Errorf("bad: %d %v", r.code, r.body)
	}
	sendExpect(t, srv, http.MethodGet, configMapsPath+"/bad", nil, http.StatusNotFound)

	// An update is sent with the old object and UpdateOptions.
	cm := sendExpect(t, srv, http.MethodGet, configMapsPath+"/good", nil, http.StatusOK)
	cm["data"] = obj{"k": "w"}
	sendExpect(t, srv, http.MethodPut, configMapsPath+"/good", cm, http.StatusOK)
	got = hs.requests("/validate")
	last := got[len(got)-1]
	_ = json.Unmarshal(last.Options, &opts)
	if last.Operation != admissionv1.Update || string(last.OldObject) == "null" || opts["kind"] != "UpdateOptions" {
		t.Errorf("update request %+v options %s", last, last.Options)
	}
}

// TestWebhooks_DenialStatusAsKube holds kube's ToStatusErr: a code under 400 becomes
// 400, and the message is the webhook's message, else its reason, else "without
// explanation".
func TestWebhooks_DenialStatusAsKube(t *testing.T) {
	tests := []struct {
		name    string
		st      *scheme.Status
		code    int
		reason  string
		message string
	}{
		{"no status", nil, 400, "", `admission webhook "v.example.com" denied the request without explanation`},
		{"message", &scheme.Status{Message: "no", Code: 403, Reason: "Forbidden"}, 403, "Forbidden", `admission webhook "v.example.com" denied the request: no`},
		{"reason only", &scheme.Status{Reason: "Because", Code: 200}, 400, "Because", `admission webhook "v.example.com" denied the request: Because`},
	}
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	configure(t, srv, hs, false, "v", hookSpec{name: "v.example.com", path: "/validate"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs.handle("/validate", deny(tt.st))
			r := send(t, srv, http.MethodPost, configMapsPath, configMap("x", nil, nil))
			if r.code != tt.code || at(r.body, "message") != tt.message || (tt.reason != "" && at(r.body, "reason") != tt.reason) {
				t.Errorf("%d %v, want %d %q %q", r.code, r.body, tt.code, tt.reason, tt.message)
			}
		})
	}
}

// TestWebhooks_RulesAndSelectorsChooseTheWebhooks holds kube's matching: operations,
// groups, versions, resources with wildcards and subresources, scope, the namespace's
// and the object's labels.
func TestWebhooks_RulesAndSelectorsChooseTheWebhooks(t *testing.T) {
	rule := func(ops, resources []any, scope string) []any {
		r := obj{"operations": ops, "apiGroups": []any{"*"}, "apiVersions": []any{"*"}, "resources": resources}
		if scope != "" {
			r["scope"] = scope
		}
		return []any{r}
	}
	create := []any{"CREATE"}
	tests := []struct {
		name   string
		rules  []any
		extra  obj
		called bool
	}{
		{"all resources", rule(create, []any{"*"}, ""), nil, true},
		{"the resource", rule(create, []any{"configmaps"}, ""), nil, true},
		{"another resource", rule(create, []any{"secrets"}, ""), nil, false},
		{"resources and subresources", rule(create, []any{"*/*"}, ""), nil, true},
		{"a subresource only", rule(create, []any{"*/status"}, ""), nil, false},
		{"another operation", rule([]any{"UPDATE", "DELETE"}, []any{"*"}, ""), nil, false},
		{"any operation", rule([]any{"*"}, []any{"*"}, ""), nil, true},
		{"namespaced scope", rule(create, []any{"*"}, "Namespaced"), nil, true},
		{"cluster scope", rule(create, []any{"*"}, "Cluster"), nil, false},
		{"another group", []any{obj{"operations": create, "apiGroups": []any{"apps"}, "apiVersions": []any{"*"}, "resources": []any{"*"}}}, nil, false},
		{"another version", []any{obj{"operations": create, "apiGroups": []any{""}, "apiVersions": []any{"v2"}, "resources": []any{"*"}}}, nil, false},
		{"namespace selector matching", nil, obj{"namespaceSelector": obj{"matchLabels": obj{"env": "test"}}}, true},
		{"namespace selector not matching", nil, obj{"namespaceSelector": obj{"matchLabels": obj{"env": "prod"}}}, false},
		{"object selector matching", nil, obj{"objectSelector": obj{"matchExpressions": []any{obj{"key": "app", "operator": "In", "values": []any{"web"}}}}}, true},
		{"object selector not matching", nil, obj{"objectSelector": obj{"matchExpressions": []any{obj{"key": "app", "operator": "DoesNotExist"}}}}, false},
	}
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	sendExpect(t, srv, http.MethodPost, "/api/v1/namespaces", obj{"metadata": obj{"name": "labelled", "labels": obj{"env": "test"}}}, http.StatusCreated)
	hs.handle("/h", allow())
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "c" + string(rune('a'+i))
			configure(t, srv, hs, false, name, hookSpec{name: name + ".example.com", path: "/h", rules: tt.rules, extra: tt.extra})
			before := len(hs.requests("/h"))
			sendExpect(t, srv, http.MethodPost, "/api/v1/namespaces/labelled/configmaps", configMap(name, obj{"app": "web"}, nil), http.StatusCreated)
			if called := len(hs.requests("/h")) > before; called != tt.called {
				t.Errorf("called %v, want %v", called, tt.called)
			}
			sendExpect(t, srv, http.MethodDelete, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"+name, nil, http.StatusOK)
		})
	}
	// kube never calls webhooks on the webhook configurations themselves.
	configure(t, srv, hs, false, "all", hookSpec{name: "all.example.com", path: "/h", rules: rule([]any{"*"}, []any{"*"}, "")})
	before := len(hs.requests("/h"))
	configure(t, srv, hs, true, "another", hookSpec{name: "x.example.com", path: "/h"})
	if len(hs.requests("/h")) != before {
		t.Error("a webhook was called on a webhook configuration")
	}
}

// TestWebhooks_FailurePolicyOnBrokenWebhooks holds kube's answers to webhooks that
// refuse connections, hang past their timeout, answer with an error or lie (a wrong
// uid, an undecodable patch, a patch from a validating webhook), under failurePolicy
// Fail and Ignore, and to patches that cannot be applied, whatever the policy.
func TestWebhooks_FailurePolicyOnBrokenWebhooks(t *testing.T) {
	hs := newHookServer(t)
	closed := httptest.NewTLSServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	hs.handle("/hang", func(req *admissionv1.AdmissionRequest) (int, any) {
		<-hs.hang
		return http.StatusOK, &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	})
	hs.handle("/wronguid", func(req *admissionv1.AdmissionRequest) (int, any) {
		return http.StatusOK, &admissionv1.AdmissionResponse{UID: "other", Allowed: true}
	})
	hs.handle("/error", func(req *admissionv1.AdmissionRequest) (int, any) {
		return http.StatusInternalServerError, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "boom", "code": 500}
	})
	hs.handle("/badpatch", func(req *admissionv1.AdmissionRequest) (int, any) {
		pt := admissionv1.PatchTypeJSONPatch
		return http.StatusOK, &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true, Patch: []byte(`{"not":"a patch"}`), PatchType: &pt}
	})
	hs.handle("/missingpath", allow(obj{"op": "replace", "path": "/spec/nothing", "value": 1}))
	hs.handle("/breaking", allow(obj{"op": "replace", "path": "/data", "value": 7}))
	hs.handle("/patch", allow(obj{"op": "add", "path": "/metadata/labels", "value": obj{"x": "y"}}))
	tests := []struct {
		name     string
		mutating bool
		spec     hookSpec
		// want is the code and message prefix under Fail; under Ignore the create
		// succeeds unless ignoreToo.
		code      int
		message   string
		ignoreToo bool
	}{
		{"refused", false, hookSpec{url: closedURL + "/x"}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: Post "` + closedURL + `/x?timeout=10s": dial tcp ` + strings.TrimPrefix(closedURL, "https://") + `: connect: connection refused`, false},
		{"hung past its timeout", false, hookSpec{path: "/hang", extra: obj{"timeoutSeconds": 1}}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: Post "` + hs.URL + `/hang?timeout=1s": context deadline exceeded`, false},
		{"wrong uid", false, hookSpec{path: "/wronguid"}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": received invalid webhook response: expected response.uid=`, false},
		{"error status", false, hookSpec{path: "/error"}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: boom`, false},
		{"patch from a validating webhook", false, hookSpec{path: "/patch"}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": received invalid webhook response: validating webhook may not return response.patch`, false},
		{"undecodable patch", true, hookSpec{path: "/badpatch"}, 500,
			`Internal error occurred: failed calling webhook "w.example.com": received undecodable patch in webhook response: `, false},
		{"patch of a missing path", true, hookSpec{path: "/missingpath"}, 500, `Internal error occurred: `, true},
		{"patch breaking the object", true, hookSpec{path: "/breaking"}, 500, `Internal error occurred: `, true},
	}
	for _, tt := range tests {
		for _, policy := range []string{"Fail", "Ignore"} {
			t.Run(tt.name+"/"+policy, func(t *testing.T) {
				srv := webhookServer(t, admission.WebhookOptions{})
				spec := tt.spec
				spec.name = "w.example.com"
				spec.extra = obj{"failurePolicy": policy}
				for k, v := range tt.spec.extra {
					spec.extra[k] = v
				}
				configure(t, srv, hs, tt.mutating, "c", spec)
				r := send(t, srv, http.MethodPost, configMapsPath, configMap("x", nil, obj{"k": "v"}))
				if policy == "Ignore" && !tt.ignoreToo {
					if r.code != http.StatusCreated {
						t.Fatalf("%d %v, want 201", r.code, r.body)
					}
					return
				}
				msg, _ := at(r.body, "message").(string)
				if r.code != tt.code || !strings.HasPrefix(msg, tt.message) {
					t.Fatalf("%d %q, want %d %q", r.code, msg, tt.code, tt.message)
				}
				sendExpect(t, srv, http.MethodGet, configMapsPath+"/x", nil, http.StatusNotFound)
			})
		}
	}
}

// TestWebhooks_DryRunNeedsSideEffectsNone holds that webhooks with sideEffects None
// and NoneOnDryRun are called on a dry-run request and told dryRun.
func TestWebhooks_DryRunNeedsSideEffectsNone(t *testing.T) {
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	hs.handle("/h", allow())
	configure(t, srv, hs, false, "v", hookSpec{name: "none.example.com", path: "/h", extra: obj{"sideEffects": "NoneOnDryRun"}})
	sendExpect(t, srv, http.MethodPost, configMapsPath+"?dryRun=All", configMap("x", nil, nil), http.StatusCreated)
	if got := hs.requests("/h"); len(got) != 1 || got[0].DryRun == nil || !*got[0].DryRun {
		t.Fatalf("requests %+v", got)
	}
	// v1 configurations allow no other sideEffects (kube's validation), so the 400 of
	// a webhook with side effects is held by the internal test.
	configure(t, srv, hs, false, "w", hookSpec{name: "none2.example.com", path: "/h", extra: obj{"sideEffects": "None"}})
	sendExpect(t, srv, http.MethodPost, configMapsPath+"?dryRun=All", configMap("x", nil, nil), http.StatusCreated)
	if got := hs.requests("/h"); len(got) != 3 {
		t.Fatalf("%d requests, want 3", len(got))
	}
	// Without dryRun the webhook is called.
	sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("x", nil, nil), http.StatusCreated)
}

// TestWebhooks_ReinvocationIfNeeded holds kube's reinvocation: a webhook with
// reinvocationPolicy IfNeeded is called once more when a later webhook changed the
// object; one with Never is not.
func TestWebhooks_ReinvocationIfNeeded(t *testing.T) {
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	hs.handle("/first", allow())
	hs.handle("/never", allow())
	hs.handle("/second", func(req *admissionv1.AdmissionRequest) (int, any) {
		if strings.Contains(string(req.Object), `"second"`) {
			return allow()(req)
		}
		return allow(obj{"op": "add", "path": "/metadata/labels", "value": obj{"second": "yes"}})(req)
	})
	configure(t, srv, hs, true, "a", hookSpec{name: "first.example.com", path: "/first", extra: obj{"reinvocationPolicy": "IfNeeded"}},
		hookSpec{name: "never.example.com", path: "/never"})
	configure(t, srv, hs, true, "b", hookSpec{name: "second.example.com", path: "/second", extra: obj{"reinvocationPolicy": "IfNeeded"}})
	body := sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("x", nil, nil), http.StatusCreated)
	if at(body, "metadata", "labels", "second") != "yes" {
		t.Errorf("stored %v", body)
	}
	first := hs.requests("/first")
	if len(first) != 2 || len(hs.requests("/never")) != 1 || len(hs.requests("/second")) != 1 {
		t.Fatalf("calls: first %d, never %d, second %d; want 2, 1, 1", len(first), len(hs.requests("/never")), len(hs.requests("/second")))
	}
	if !strings.Contains(string(first[1].Object), `"second":"yes"`) {
		t.Errorf("reinvocation saw %s", first[1].Object)
	}
}

// fakeConditions compiles every condition to "the object has label expression=true".
type fakeConditions struct{}

func (fakeConditions) CompileConditions(conds []admission.MatchCondition) (admission.ConditionMatcher, error) {
	return fakeMatcher(conds), nil
}

type fakeMatcher []admission.MatchCondition

func (m fakeMatcher) Match(_ context.Context, in admission.ConditionInput) admission.MatchResult {
	labels, _ := at(in.Object, "metadata", "labels").(map[string]any)
	for _, c := range m {
		if c.Expression == "error" {
			return admission.MatchResult{Err: errString("no such key: x")}
		}
		if labels[c.Expression] != "true" {
			return admission.MatchResult{FailedCondition: c.Name}
		}
	}
	if in.Request["operation"] != "CREATE" && in.Request["operation"] != "UPDATE" {
		return admission.MatchResult{Err: errString("request not given")}
	}
	return admission.MatchResult{Matches: true}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestWebhooks_MatchConditions holds that a webhook is called only when its
// matchConditions match, that an evaluation error is kube's 403 under Fail and skips the
// webhook under Ignore, and that without a compiler such a webhook fails.
func TestWebhooks_MatchConditions(t *testing.T) {
	hs := newHookServer(t)
	hs.handle("/h", allow())
	srv := webhookServer(t, admission.WebhookOptions{Conditions: fakeConditions{}})
	configure(t, srv, hs, false, "v", hookSpec{name: "c.example.com", path: "/h", extra: obj{"matchConditions": []any{obj{"name": "sel", "expression": "sel"}}}})
	sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("skipped", nil, nil), http.StatusCreated)
	if n := len(hs.requests("/h")); n != 0 {
		t.Fatalf("called %d times for a non-matching object", n)
	}
	sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("called", obj{"sel": "true"}, nil), http.StatusCreated)
	if n := len(hs.requests("/h")); n != 1 {
		t.Fatalf("called %d times for a matching object", n)
	}
	configure(t, srv, hs, false, "w", hookSpec{name: "e.example.com", path: "/h", extra: obj{"matchConditions": []any{obj{"name": "e", "expression": "error"}}}})
	r := send(t, srv, http.MethodPost, configMapsPath, configMap("failed", nil, nil))
	if r.code != 403 || at(r.body, "message") != `configmaps "failed" is forbidden: no such key: x` {
		t.Errorf("evaluation error: %d %v", r.code, r.body)
	}

	plain := webhookServer(t, admission.WebhookOptions{})
	configure(t, plain, hs, false, "v", hookSpec{name: "c.example.com", path: "/h", extra: obj{"failurePolicy": "Ignore", "matchConditions": []any{obj{"name": "sel", "expression": "sel"}}}})
	sendExpect(t, plain, http.MethodPost, configMapsPath, configMap("x", obj{"sel": "true"}, nil), http.StatusCreated)
	configure(t, plain, hs, false, "w", hookSpec{name: "d.example.com", path: "/h", extra: obj{"matchConditions": []any{obj{"name": "sel", "expression": "sel"}}}})
	if r := send(t, plain, http.MethodPost, configMapsPath, configMap("y", obj{"sel": "true"}, nil)); r.code != 403 {
		t.Errorf("no compiler, failurePolicy Fail: %d %v", r.code, r.body)
	}
}

// TestWebhooks_MatchPolicyEquivalentConvertsTheRequest holds kube's matchPolicy: a
// webhook whose rule names autoscaling/v2 is called, with Equivalent, for an
// autoscaling/v1 write, with the object at v2 (kind and resource v2, requestKind and
// requestResource v1), and its patch lands in the stored object; with Exact it is not.
func TestWebhooks_MatchPolicyEquivalentConvertsTheRequest(t *testing.T) {
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	hs.handle("/exact", allow())
	hs.handle("/equivalent", allow(obj{"op": "add", "path": "/metadata/labels", "value": obj{"seen": "v2"}}))
	rules := []any{obj{"operations": []any{"CREATE"}, "apiGroups": []any{"autoscaling"}, "apiVersions": []any{"v2"}, "resources": []any{"horizontalpodautoscalers"}}}
	configure(t, srv, hs, true, "m", hookSpec{name: "exact.example.com", path: "/exact", rules: rules, extra: obj{"matchPolicy": "Exact"}},
		hookSpec{name: "equivalent.example.com", path: "/equivalent", rules: rules, extra: obj{"matchPolicy": "Equivalent"}})
	body := sendExpect(t, srv, http.MethodPost, "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", obj{
		"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": obj{"name": "h"},
		"spec": obj{"scaleTargetRef": obj{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3, "targetCPUUtilizationPercentage": 50},
	}, http.StatusCreated)
	if at(body, "metadata", "labels", "seen") != "v2" || at(body, "spec", "targetCPUUtilizationPercentage") != float64(50) {
		t.Errorf("stored %v", body)
	}
	if n := len(hs.requests("/exact")); n != 0 {
		t.Errorf("the Exact webhook was called %d times", n)
	}
	got := hs.requests("/equivalent")
	if len(got) != 1 {
		t.Fatalf("the Equivalent webhook was called %d times", len(got))
	}
	req := got[0]
	if req.Kind != (admissionv1.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}) ||
		req.Resource != (admissionv1.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}) ||
		*req.RequestKind != (admissionv1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}) ||
		req.RequestResource.Version != "v1" {
		t.Errorf("request %+v %+v %+v", req.Kind, req.Resource, req.RequestKind)
	}
	var sent map[string]any
	_ = json.Unmarshal(req.Object, &sent)
	if at(sent, "apiVersion") != "autoscaling/v2" || at(sent, "spec", "metrics") == nil {
		t.Errorf("sent %s, want the v2 object", req.Object)
	}
}

// TestWebhooks_ConfigurationChangesApplyToTheNextWrite holds that the compiled
// configurations follow the stored ones: an update (a new resourceVersion) and a delete
// apply to the next write.
func TestWebhooks_ConfigurationChangesApplyToTheNextWrite(t *testing.T) {
	hs := newHookServer(t)
	srv := webhookServer(t, admission.WebhookOptions{})
	hs.handle("/a", allow())
	hs.handle("/b", deny(&scheme.Status{Message: "b says no"}))
	configure(t, srv, hs, false, "v", hookSpec{name: "v.example.com", path: "/a"})
	sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("one", nil, nil), http.StatusCreated)
	path := "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/v"
	c := sendExpect(t, srv, http.MethodGet, path, nil, http.StatusOK)
	c["webhooks"].([]any)[0].(map[string]any)["clientConfig"].(map[string]any)["url"] = hs.URL + "/b"
	sendExpect(t, srv, http.MethodPut, path, c, http.StatusOK)
	if r := send(t, srv, http.MethodPost, configMapsPath, configMap("two", nil, nil)); r.code != 400 || at(r.body, "message") != `admission webhook "v.example.com" denied the request: b says no` {
		t.Errorf("after the update: %d %v", r.code, r.body)
	}
	sendExpect(t, srv, http.MethodDelete, path, nil, http.StatusOK)
	sendExpect(t, srv, http.MethodPost, configMapsPath, configMap("three", nil, nil), http.StatusCreated)
	if a, b := len(hs.requests("/a")), len(hs.requests("/b")); a != 1 || b != 1 {
		t.Errorf("calls: /a %d, /b %d; want 1, 1", a, b)
	}
}
