package e2e

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/cel/policy"
	"github.com/apikit-dev/apikit/registry"
)

// The side-by-side check of ValidatingAdmissionPolicy (issue 27): the same policies,
// bindings and params created on kube-apiserver v1.37.2 and on apikit with
// cel/policy's plugin, then the same writes; the answers' codes, reasons, messages,
// causes and warnings, and the objects stored, must be the same. kube applies a
// policy only once its informers have it, so each policy's probe write is polled
// (bounded) until refused or warned on both servers before the writes are compared.

type vapAnswer struct {
	Code     int
	Reason   string
	Message  string
	Causes   []string
	Warnings []string
	Data     map[string]any // the stored object's data (ConfigMaps) or spec.replicas
}

func vapAnswerOf(code int, body map[string]any, header http.Header) vapAnswer {
	a := vapAnswer{Code: code, Warnings: header.Values("Warning")}
	if body["kind"] == "Status" {
		a.Reason, _ = body["reason"].(string)
		a.Message, _ = body["message"].(string)
		if d, ok := body["details"].(map[string]any); ok {
			cs, _ := d["causes"].([]any)
			for _, c := range cs {
				if cm, ok := c.(map[string]any); ok {
					m, _ := cm["message"].(string)
					a.Causes = append(a.Causes, m)
				}
			}
		}
		return a
	}
	if d, ok := body["data"].(map[string]any); ok {
		a.Data = d
	}
	if spec, ok := body["spec"].(map[string]any); ok {
		a.Data = map[string]any{"replicas": spec["replicas"]}
	}
	return a
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// generatedName is a name generateName "gen-" gives.
var generatedName = regexp.MustCompile(`gen-[a-z0-9]{5}`)

// vapBody is v as a request body, none for nil.
func vapBody(t *testing.T, v any) string {
	if v == nil {
		return ""
	}
	return jsonBody(t, v)
}

type vapWrite struct {
	name, method, path string
	body               any
}

const (
	vapNS      = "vap-test"
	vapOther   = "vap-other"
	vapCMs     = "/api/v1/namespaces/" + vapNS + "/configmaps"
	vapDeploys = "/apis/apps/v1/namespaces/" + vapNS + "/deployments"
	vapPath    = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	vapbPath   = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

type vapObj = map[string]any

func vapCM(name string, labels vapObj, data vapObj) vapObj {
	meta := vapObj{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	return vapObj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
}

func vapDeploy(name string, replicas int) vapObj {
	return vapObj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": vapObj{"name": name}, "spec": vapObj{
		"replicas": replicas, "selector": vapObj{"matchLabels": vapObj{"app": name}},
		"template": vapObj{"metadata": vapObj{"labels": vapObj{"app": name}}, "spec": vapObj{"containers": []any{vapObj{"name": "app", "image": "nginx:1.27"}}}}}}
}

func cmRules(ops ...string) []any {
	o := make([]any, len(ops))
	for i, op := range ops {
		o[i] = op
	}
	return []any{vapObj{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": o, "resources": []any{"configmaps"}}}
}

func vapPolicy(name string, spec vapObj) vapObj {
	return vapObj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": vapObj{"name": name}, "spec": spec}
}

func vapBinding(name string, spec vapObj) vapObj {
	return vapObj{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": vapObj{"name": name}, "spec": spec}
}

// vapSetup is what both servers get before the writes: namespaces, a param, policies
// and their bindings.
func vapSetup() []vapWrite {
	owner := vapObj{"owner": "me"}
	return []vapWrite{
		{"ns", http.MethodPost, "/api/v1/namespaces", vapObj{"metadata": vapObj{"name": vapNS, "labels": vapObj{"env": "test", "environment": "test"}}}},
		{"other ns", http.MethodPost, "/api/v1/namespaces", vapObj{"metadata": vapObj{"name": vapOther}}},
		{"param", http.MethodPost, vapCMs, vapCM("limits", vapObj{"role": "param", "owner": "me"}, vapObj{"max": "2"})},
		{"keep", http.MethodPost, vapCMs, vapCM("keep", owner, vapObj{"a": "1"})},
		{"max-keys", http.MethodPost, vapPath, vapPolicy("vap-max-keys", vapObj{
			"paramKind": vapObj{"apiVersion": "v1", "kind": "ConfigMap"},
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE", "UPDATE"),
				"objectSelector": vapObj{"matchExpressions": []any{vapObj{"key": "role", "operator": "NotIn", "values": []any{"param"}}}}},
			"validations": []any{vapObj{"expression": "!has(object.data) || size(object.data) <= int(params.data.max)",
				"messageExpression": "'at most ' + params.data.max + ' keys, got ' + string(size(object.data))"}}})},
		{"max-keys binding", http.MethodPost, vapbPath, vapBinding("vap-max-keys-b", vapObj{"policyName": "vap-max-keys", "validationActions": []any{"Deny"},
			"paramRef":       vapObj{"name": "limits", "namespace": vapNS, "parameterNotFoundAction": "Deny"},
			"matchResources": vapObj{"namespaceSelector": vapObj{"matchLabels": vapObj{"env": "test"}}}})},
		{"owner", http.MethodPost, vapPath, vapPolicy("vap-owner", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE", "UPDATE")},
			"matchConditions":  []any{vapObj{"name": "not-skipped", "expression": "!object.metadata.name.startsWith('skip-')"}},
			"validations": []any{vapObj{"expression": "has(object.metadata.labels) && 'owner' in object.metadata.labels",
				"message": "an owner label is required", "reason": "Forbidden"}}})},
		{"owner binding", http.MethodPost, vapbPath, vapBinding("vap-owner-b", vapObj{"policyName": "vap-owner", "validationActions": []any{"Warn", "Audit"}})},
		{"vars", http.MethodPost, vapPath, vapPolicy("vap-vars", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"variables":        []any{vapObj{"name": "len", "expression": "size(object.metadata.name)"}},
			"validations": []any{
				vapObj{"expression": "variables.len < 16"},
				vapObj{"expression": "namespaceObject == null || namespaceObject.metadata.labels.env == 'test'", "message": "only in test namespaces"},
				vapObj{"expression": "authorizer.group('').resource('secrets').namespace('" + vapNS + "').check('list').allowed()", "message": "may not list secrets"},
				vapObj{"expression": "request.operation == 'CREATE' && request.userInfo.username != ''", "message": "anonymous"},
			}})},
		{"vars binding", http.MethodPost, vapbPath, vapBinding("vap-vars-b", vapObj{"policyName": "vap-vars", "validationActions": []any{"Deny"},
			"matchResources": vapObj{"namespaceSelector": vapObj{"matchLabels": vapObj{"env": "test"}}}})},
		{"errors", http.MethodPost, vapPath, vapPolicy("vap-errors", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"matchConditions":  []any{vapObj{"name": "err-only", "expression": "object.metadata.name.startsWith('err-')"}},
			"validations":      []any{vapObj{"expression": "object.data.nokey == 'x'"}}})},
		{"errors binding", http.MethodPost, vapbPath, vapBinding("vap-errors-b", vapObj{"policyName": "vap-errors", "validationActions": []any{"Deny"}})},
		{"ignored errors", http.MethodPost, vapPath, vapPolicy("vap-ignored", vapObj{
			"failurePolicy":    "Ignore",
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"validations":      []any{vapObj{"expression": "object.data.nokey == 'x'"}}})},
		{"ignored binding", http.MethodPost, vapbPath, vapBinding("vap-ignored-b", vapObj{"policyName": "vap-ignored", "validationActions": []any{"Deny"}})},
		{"keep delete", http.MethodPost, vapPath, vapPolicy("vap-keep", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("DELETE")},
			"validations":      []any{vapObj{"expression": "oldObject.metadata.name != 'keep' && object == null", "message": "keep stays"}}})},
		{"keep binding", http.MethodPost, vapbPath, vapBinding("vap-keep-b", vapObj{"policyName": "vap-keep", "validationActions": []any{"Deny"}})},
		{"namespaces", http.MethodPost, vapPath, vapPolicy("vap-ns", vapObj{
			"matchConstraints": vapObj{"resourceRules": []any{vapObj{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
				"operations": []any{"CREATE"}, "resources": []any{"namespaces"}, "scope": "Cluster"}}},
			"validations": []any{vapObj{"expression": "object.metadata.name.startsWith('vap-') && namespaceObject == null && request.namespace == object.metadata.name && request.name == object.metadata.name",
				"message": "namespaces start with vap-"}}})},
		{"namespaces binding", http.MethodPost, vapbPath, vapBinding("vap-ns-b", vapObj{"policyName": "vap-ns", "validationActions": []any{"Deny"}})},
		{"costly", http.MethodPost, vapPath, vapPolicy("vap-costly", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"matchConditions":  []any{vapObj{"name": "big-only", "expression": "has(object.data) && 'big' in object.data"}},
			"validations":      []any{vapObj{"expression": "object.data.big.split(',').all(x, object.data.big.split(',').all(y, x == y || x != y))"}}})},
		{"costly binding", http.MethodPost, vapbPath, vapBinding("vap-costly-b", vapObj{"policyName": "vap-costly", "validationActions": []any{"Deny"}})},
		{"ban a", http.MethodPost, vapCMs, vapCM("ban-a", vapObj{"owner": "me", "kind": "limit", "role": "param"}, vapObj{"banned": "x"})},
		{"ban b", http.MethodPost, vapCMs, vapCM("ban-b", vapObj{"owner": "me", "kind": "limit", "role": "param"}, vapObj{"banned": "y"})},
		{"selector", http.MethodPost, vapPath, vapPolicy("vap-selector", vapObj{
			"paramKind":        vapObj{"apiVersion": "v1", "kind": "ConfigMap"},
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"validations":      []any{vapObj{"expression": "!has(object.data) || !(params.data.banned in object.data)", "message": "a banned key"}}})},
		{"selector binding", http.MethodPost, vapbPath, vapBinding("vap-selector-b", vapObj{"policyName": "vap-selector", "validationActions": []any{"Deny"},
			"paramRef":       vapObj{"namespace": vapNS, "selector": vapObj{"matchLabels": vapObj{"kind": "limit"}}, "parameterNotFoundAction": "Allow"},
			"matchResources": vapObj{"objectSelector": vapObj{"matchLabels": vapObj{"check": "banned"}}}})},
		// The Kubernetes documentation's example: at most 5 replicas in test namespaces.
		{"replicas", http.MethodPost, vapPath, vapPolicy("demo-policy.example.com", vapObj{
			"failurePolicy": "Fail",
			"matchConstraints": vapObj{"resourceRules": []any{vapObj{"apiGroups": []any{"apps"}, "apiVersions": []any{"v1"},
				"operations": []any{"CREATE", "UPDATE"}, "resources": []any{"deployments"}}}},
			"validations": []any{vapObj{"expression": "object.spec.replicas <= 5"}}})},
		{"replicas binding", http.MethodPost, vapbPath, vapBinding("demo-binding-test.example.com", vapObj{"policyName": "demo-policy.example.com",
			"validationActions": []any{"Deny"}, "matchResources": vapObj{"namespaceSelector": vapObj{"matchLabels": vapObj{"environment": "test"}}}})},
	}
}

// vapProbes are dry-run writes each policy refuses or warns about once it applies.
func vapProbes() []vapWrite {
	owner := vapObj{"owner": "me"}
	return []vapWrite{
		{"vap-max-keys", http.MethodPost, vapCMs + "?dryRun=All", vapCM("probe", owner, vapObj{"a": "1", "b": "2", "c": "3"})},
		{"vap-owner", http.MethodPost, vapCMs + "?dryRun=All", vapCM("probe", nil, nil)},
		{"vap-vars", http.MethodPost, vapCMs + "?dryRun=All", vapCM("probe-with-a-long-name", owner, nil)},
		{"vap-errors", http.MethodPost, vapCMs + "?dryRun=All", vapCM("err-probe", owner, nil)},
		{"vap-keep", http.MethodDelete, vapCMs + "/keep?dryRun=All", nil},
		{"vap-selector", http.MethodPost, vapCMs + "?dryRun=All", vapCM("probe", vapObj{"owner": "me", "check": "banned"}, vapObj{"y": "1"})},
		{"vap-costly", http.MethodPost, vapCMs + "?dryRun=All", vapCM("probe", vapObj{"owner": "me"}, vapObj{"big": strings.Repeat("a,", 1500)})},
		{"vap-ns", http.MethodPost, "/api/v1/namespaces?dryRun=All", vapObj{"metadata": vapObj{"name": "probe"}}},
		{"demo-policy.example.com", http.MethodPost, vapDeploys + "?dryRun=All", vapDeploy("probe", 6)},
	}
}

func vapWrites() []vapWrite {
	owner := vapObj{"owner": "me"}
	return []vapWrite{
		{"allowed", http.MethodPost, vapCMs, vapCM("ok1", owner, vapObj{"a": "1"})},
		{"over the param", http.MethodPost, vapCMs, vapCM("toomany", owner, vapObj{"a": "1", "b": "2", "c": "3"})},
		{"over the param, dry run", http.MethodPost, vapCMs + "?dryRun=All", vapCM("toomany", owner, vapObj{"a": "1", "b": "2", "c": "3"})},
		{"update over the param", http.MethodPut, vapCMs + "/ok1", vapCM("ok1", owner, vapObj{"a": "1", "b": "2", "c": "3"})},
		{"no owner warns", http.MethodPost, vapCMs, vapCM("noowner", nil, vapObj{"a": "1"})},
		{"skipped by matchConditions", http.MethodPost, vapCMs, vapCM("skip-noowner", nil, vapObj{"a": "1"})},
		{"variable over", http.MethodPost, vapCMs, vapCM("a-very-long-name-indeed", owner, nil)},
		{"runtime error denies", http.MethodPost, vapCMs, vapCM("err-1", owner, vapObj{"a": "1"})},
		{"other namespace", http.MethodPost, "/api/v1/namespaces/" + vapOther + "/configmaps", vapCM("a-very-long-name-indeed", nil, vapObj{"a": "1", "b": "2", "c": "3"})},
		{"delete refused", http.MethodDelete, vapCMs + "/keep", nil},
		{"delete allowed", http.MethodDelete, vapCMs + "/ok1", nil},
		{"generateName", http.MethodPost, vapCMs, vapObj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": vapObj{"generateName": "gen-"}, "data": vapObj{"a": "1", "b": "2", "c": "3"}}},
		{"replicas over", http.MethodPost, vapDeploys, vapDeploy("big", 6)},
		{"replicas fine", http.MethodPost, vapDeploys, vapDeploy("small", 3)},
		{"banned by one of the selected params", http.MethodPost, vapCMs, vapCM("has-x", vapObj{"owner": "me", "check": "banned"}, vapObj{"x": "1"})},
		{"banned by none", http.MethodPost, vapCMs, vapCM("has-z", vapObj{"owner": "me", "check": "banned"}, vapObj{"z": "1"})},
		{"over the cost limit", http.MethodPost, vapCMs, vapCM("costly", vapObj{"owner": "me"}, vapObj{"big": strings.Repeat("a,", 1500)})},
		{"within the cost limit", http.MethodPost, vapCMs, vapCM("cheap", vapObj{"owner": "me"}, vapObj{"big": "a,b"})},
		{"namespace allowed", http.MethodPost, "/api/v1/namespaces", vapObj{"metadata": vapObj{"name": "vap-fine"}}},
		{"namespace refused", http.MethodPost, "/api/v1/namespaces", vapObj{"metadata": vapObj{"name": "other-ns"}}},
		{"policy that does not compile", http.MethodPost, vapPath, vapPolicy("vap-bad", vapObj{
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"matchConditions":  []any{vapObj{"name": "m", "expression": "params.x == 1"}},
			"variables":        []any{vapObj{"name": "v", "expression": "object.metadata.name +"}},
			"validations":      []any{vapObj{"expression": "'not a bool'", "messageExpression": "1"}, vapObj{"expression": "object.nope()"}},
			"auditAnnotations": []any{vapObj{"key": "k", "valueExpression": "variables.v"}}})},
		{"policy with params that compiles", http.MethodPost, vapPath + "?dryRun=All", vapPolicy("vap-good", vapObj{
			"paramKind":        vapObj{"apiVersion": "v1", "kind": "ConfigMap"},
			"matchConstraints": vapObj{"resourceRules": cmRules("CREATE")},
			"matchConditions":  []any{vapObj{"name": "m", "expression": "params.data.x == '1'"}},
			"validations":      []any{vapObj{"expression": "authorizer.requestResource.check('get').allowed()", "messageExpression": "string(params.data.x)"}}})},
		{"param removed", http.MethodDelete, vapCMs + "/limits", nil},
		{"no param denies", http.MethodPost, vapCMs, vapCM("after", owner, vapObj{"a": "1"})},
	}
}

// TestSideBySide_ValidatingAdmissionPolicy compares kube-apiserver's and apikit's
// answers to the writes of vapWrites under the policies of vapSetup.
func TestSideBySide_ValidatingAdmissionPolicy(t *testing.T) {
	servers := startSideBySideWith(t, []registry.ValidatingAdmission{policy.NewValidating()})
	clients := make([]*http.Client, len(servers))
	for i, sv := range servers {
		hc, err := rest.HTTPClientFor(sv.cfg)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = hc
		for _, w := range vapSetup() {
			code, body, _ := sv.doWith(t, hc, w.method, w.path, "application/json", jsonBody(t, w.body), nil)
			if code >= 300 {
				t.Fatalf("%s: setup %s: %d %v", sv.name, w.name, code, body)
			}
		}
	}
	for i, sv := range servers {
		for _, p := range vapProbes() {
			waitFor(t, sv.name+": policy "+p.name+" applies", func() bool {
				code, body, header := sv.doWith(t, clients[i], p.method, p.path, "application/json", vapBody(t, p.body), nil)
				a := vapAnswerOf(code, body, header)
				return strings.Contains(a.Message+strings.Join(a.Warnings, "\n"), "'"+p.name+"'")
			})
		}
	}
	equal, total := 0, 0
	for _, w := range vapWrites() {
		var answers []vapAnswer
		for i, sv := range servers {
			code, resp, header := sv.doWith(t, clients[i], w.method, w.path, "application/json", vapBody(t, w.body), nil)
			a := vapAnswerOf(code, resp, header)
			if w.method == http.MethodDelete && code < 300 {
				a.Data = nil // a delete answers the object or a Status; the code says enough
			}
			sort.Strings(a.Warnings)
			// A generated name differs from server to server.
			a.Message = generatedName.ReplaceAllString(a.Message, "gen-<random>")
			for i := range a.Causes {
				a.Causes[i] = generatedName.ReplaceAllString(a.Causes[i], "gen-<random>")
			}
			answers = append(answers, a)
		}
		total++
		t.Logf("%s: kube %d %s %q %q", w.name, answers[0].Code, answers[0].Reason, answers[0].Message, answers[0].Warnings)
		if d := cmp.Diff(answers[0], answers[1]); d != "" {
			t.Errorf("%s: kube and apikit differ (-kube +apikit):\n%s", w.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d ValidatingAdmissionPolicy writes answered as by kube-apiserver", equal, total)
}
