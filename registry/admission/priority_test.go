package admission_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// admissionServer serves the built-in kinds with kube's write rules and
// admission.Builtin(), as the envtest drop-in does, with the namespaces given created
// with their labels.
func admissionServer(t *testing.T, namespaces map[string]map[string]string) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.Builtin()
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
	for name, labels := range namespaces {
		ns := map[string]any{"metadata": map[string]any{"name": name, "labels": labels}}
		if r := send(t, srv, http.MethodPost, "/api/v1/namespaces", ns); r.code != http.StatusCreated {
			t.Fatalf("creating namespace %s: %d %v", name, r.code, r.body)
		}
	}
	return srv
}

// response is what a test reads of an answer.
type response struct {
	code     int
	body     map[string]any
	warnings []string
}

// send makes one request with a JSON body and returns its answer.
func send(t *testing.T, srv *apitest.Server, method, path string, body any) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(b))
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
		// kube's `299 - "text"`, the text's quotes and backslashes escaped.
		text := strings.TrimSuffix(strings.TrimPrefix(w, `299 - "`), `"`)
		text = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(text)
		r.warnings = append(r.warnings, text)
	}
	return r
}

// podJSON is a pod named name with one container "c" and the spec fields given.
func podJSON(name string, spec map[string]any) map[string]any {
	s := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}
	for k, v := range spec {
		s[k] = v
	}
	return map[string]any{"metadata": map[string]any{"name": name}, "spec": s}
}

// TestPriority_PodsGetTheirClassPriorityAsKube holds the Priority plugin to kube's
// answers (plugin/pkg/admission/priority, v1.37.2): the system classes' values in any
// namespace, 0 and PreemptLowerPriority without a class, kube's 403 for an unknown
// class and for a priority or preemptionPolicy that differs from the class's.
func TestPriority_PodsGetTheirClassPriorityAsKube(t *testing.T) {
	srv := admissionServer(t, map[string]map[string]string{"default": nil})
	const path = "/api/v1/namespaces/default/pods"
	for _, c := range []struct {
		name         string
		spec         map[string]any
		wantCode     int
		wantPriority float64
		wantClass    any
		wantMessage  string
	}{
		{name: "no class", wantCode: 201, wantPriority: 0, wantClass: nil},
		{name: "system node critical", spec: map[string]any{"priorityClassName": "system-node-critical"}, wantCode: 201,
			wantPriority: 2000001000, wantClass: "system-node-critical"},
		{name: "system cluster critical outside kube-system", spec: map[string]any{"priorityClassName": "system-cluster-critical"},
			wantCode: 201, wantPriority: 2000000000, wantClass: "system-cluster-critical"},
		{name: "the class's own priority", spec: map[string]any{"priorityClassName": "system-cluster-critical", "priority": 2000000000},
			wantCode: 201, wantPriority: 2000000000, wantClass: "system-cluster-critical"},
		{name: "unknown class", spec: map[string]any{"priorityClassName": "gold"}, wantCode: 403,
			wantMessage: `pods "unknown-class" is forbidden: no PriorityClass with name gold was found`},
		{name: "priority without a class", spec: map[string]any{"priority": 5}, wantCode: 403,
			wantMessage: `pods "priority-without-a-class" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
		{name: "priority other than the class's", spec: map[string]any{"priorityClassName": "system-node-critical", "priority": 7}, wantCode: 403,
			wantMessage: `pods "priority-other-than-the-class-s" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 2000001000 from the given PriorityClass name`},
		{name: "preemption policy other than the class's", spec: map[string]any{"preemptionPolicy": "Never"}, wantCode: 403,
			wantMessage: `pods "preemption-policy-other-than-the-class-s" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "-", "'", "-").Replace(c.name)
			r := send(t, srv, http.MethodPost, path, podJSON(name, c.spec))
			if r.code != c.wantCode {
				t.Fatalf("code %d, want %d: %v", r.code, c.wantCode, r.body)
			}
			if c.wantCode != 201 {
				if r.body["message"] != c.wantMessage || r.body["reason"] != "Forbidden" {
					t.Errorf("status %v %q, want Forbidden %q", r.body["reason"], r.body["message"], c.wantMessage)
				}
				return
			}
			spec := r.body["spec"].(map[string]any)
			if spec["priority"] != c.wantPriority || spec["preemptionPolicy"] != "PreemptLowerPriority" || spec["priorityClassName"] != c.wantClass {
				t.Errorf("priority %v, preemptionPolicy %v, class %v; want %v, PreemptLowerPriority, %v",
					spec["priority"], spec["preemptionPolicy"], spec["priorityClassName"], c.wantPriority, c.wantClass)
			}
		})
	}
}

// TestPriority_AnUpdateWithoutThePriorityKeepsTheStoredOne: kube's plugin copies the
// stored pod's priority and preemptionPolicy into an update that drops them, so a
// client that PUTs a pod it built (without the server's fields) is not refused for
// changing the spec.
func TestPriority_AnUpdateWithoutThePriorityKeepsTheStoredOne(t *testing.T) {
	srv := admissionServer(t, map[string]map[string]string{"default": nil})
	const path = "/api/v1/namespaces/default/pods"
	created := send(t, srv, http.MethodPost, path, podJSON("web", map[string]any{"priorityClassName": "system-node-critical"}))
	if created.code != http.StatusCreated {
		t.Fatalf("create: %d %v", created.code, created.body)
	}
	spec := created.body["spec"].(map[string]any)
	delete(spec, "priority")
	delete(spec, "preemptionPolicy")
	created.body["metadata"].(map[string]any)["labels"] = map[string]any{"tier": "web"}
	updated := send(t, srv, http.MethodPut, path+"/web", created.body)
	if updated.code != http.StatusOK {
		t.Fatalf("update: %d %v", updated.code, updated.body)
	}
	if s := updated.body["spec"].(map[string]any); s["priority"] != 2000001000.0 || s["preemptionPolicy"] != "PreemptLowerPriority" {
		t.Errorf("priority %v, preemptionPolicy %v after the update, want the stored 2000001000, PreemptLowerPriority", s["priority"], s["preemptionPolicy"])
	}
	// The spec is the stored one once Priority has carried the two fields over: kube
	// keeps the generation.
	if g := updated.body["metadata"].(map[string]any)["generation"]; g != 1.0 {
		t.Errorf("generation %v after a labels-only update, want kube's 1", g)
	}
}
