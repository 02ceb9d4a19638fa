package admission_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// restrictedSpec are the pod spec fields that the restricted level asks for, for the
// one container "c" of podJSON.
func restrictedSpec() map[string]any {
	return map[string]any{
		"securityContext": map[string]any{"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"containers": []any{map[string]any{"name": "c", "image": "nginx", "securityContext": map[string]any{
			"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}}}},
	}
}

// kube's answer to a pod with one bare container "c" under restricted:latest.
const bareRestrictedDetail = `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
	`unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ` +
	`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
	`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

// TestPodSecurity_PodsAreEnforcedAndWarnedByTheirNamespaceLabels holds pod creates to
// kube-apiserver's answers under each namespace policy: kube's 403 with its message when
// the enforce level forbids the pod, kube's Warning when only the warn level does.
func TestPodSecurity_PodsAreEnforcedAndWarnedByTheirNamespaceLabels(t *testing.T) {
	srv := admissionServer(t, map[string]map[string]string{
		"open":       nil,
		"baseline":   {"pod-security.kubernetes.io/enforce": "baseline"},
		"restricted": {"pod-security.kubernetes.io/enforce": "restricted"},
		"warned":     {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted"},
		"pinned":     {"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "v1.21"},
		"badlabel":   {"pod-security.kubernetes.io/warn": "restricted"},
	})
	hostNetwork := map[string]any{"hostNetwork": true}
	for _, c := range []struct {
		name, namespace string
		spec            map[string]any
		wantCode        int
		wantMessage     string
		wantWarnings    []string
	}{
		{name: "bare pod, no labels", namespace: "open", wantCode: 201},
		{name: "host network, no labels", namespace: "open", spec: hostNetwork, wantCode: 201},
		{name: "bare pod under baseline", namespace: "baseline", wantCode: 201},
		{name: "host network under baseline", namespace: "baseline", spec: hostNetwork, wantCode: 403,
			wantMessage: `pods "host-network-under-baseline" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`},
		{name: "bare pod under restricted", namespace: "restricted", wantCode: 403,
			wantMessage: `pods "bare-pod-under-restricted" is forbidden: violates PodSecurity "restricted:latest": ` + bareRestrictedDetail},
		{name: "restricted pod under restricted", namespace: "restricted", spec: restrictedSpec(), wantCode: 201},
		{name: "bare pod warned of restricted", namespace: "warned", wantCode: 201,
			wantWarnings: []string{`would violate PodSecurity "restricted:latest": ` + bareRestrictedDetail}},
		{name: "host network under baseline warned of restricted", namespace: "warned", spec: hostNetwork, wantCode: 403,
			wantMessage: `pods "host-network-under-baseline-warned-of-restricted" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`},
		// v1.21's restricted has neither the capabilities check (v1.22) nor runAsUser's
		// (v1.23), and seccomp and privilege escalation as they were then.
		{name: "bare pod under restricted v1.21", namespace: "pinned", wantCode: 403,
			wantMessage: `pods "bare-pod-under-restricted-v1-21" is forbidden: violates PodSecurity "restricted:v1.21": ` +
				`allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
				`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
				`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{name: "warn label alone", namespace: "badlabel", wantCode: 201,
			wantWarnings: []string{`would violate PodSecurity "restricted:latest": ` + bareRestrictedDetail}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "-", ",", "", ".", "-").Replace(c.name)
			r := send(t, srv, http.MethodPost, "/api/v1/namespaces/"+c.namespace+"/pods", podJSON(name, c.spec))
			if r.code != c.wantCode {
				t.Fatalf("code %d, want %d: %v", r.code, c.wantCode, r.body)
			}
			if c.wantCode == 403 && (r.body["message"] != c.wantMessage || r.body["reason"] != "Forbidden") {
				t.Errorf("status %v\n%q\nwant Forbidden\n%q", r.body["reason"], r.body["message"], c.wantMessage)
			}
			if !slices.Equal(r.warnings, c.wantWarnings) {
				t.Errorf("warnings\n%q\nwant\n%q", r.warnings, c.wantWarnings)
			}
		})
	}
}

// TestPodSecurity_WorkloadTemplatesAreWarnedNeverRefused: kube checks the pod templates
// of the workload kinds only for the warn (and audit) level, which follows a stricter
// enforce level when the namespace gives no warn label.
func TestPodSecurity_WorkloadTemplatesAreWarnedNeverRefused(t *testing.T) {
	srv := admissionServer(t, map[string]map[string]string{
		"restricted": {"pod-security.kubernetes.io/enforce": "restricted"},
		"open":       nil,
	})
	labels := map[string]any{"app": "web"}
	template := map[string]any{"metadata": map[string]any{"labels": labels},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}
	deployment := map[string]any{"metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": template}}
	podTemplate := map[string]any{"metadata": map[string]any{"name": "web"}, "template": template}
	want := []string{`would violate PodSecurity "restricted:latest": ` + bareRestrictedDetail}
	for _, c := range []struct {
		name, path   string
		body         map[string]any
		wantWarnings []string
	}{
		{"deployment under restricted", "/apis/apps/v1/namespaces/restricted/deployments", deployment, want},
		{"podtemplate under restricted", "/api/v1/namespaces/restricted/podtemplates", podTemplate, want},
		{"deployment without labels", "/apis/apps/v1/namespaces/open/deployments", deployment, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := send(t, srv, http.MethodPost, c.path, c.body)
			if r.code != http.StatusCreated {
				t.Fatalf("code %d, want 201: %v", r.code, r.body)
			}
			if !slices.Equal(r.warnings, c.wantWarnings) {
				t.Errorf("warnings\n%q\nwant\n%q", r.warnings, c.wantWarnings)
			}
		})
	}
}

// TestPodSecurity_NamespaceLabelsAsKube: an invalid level or version is kube's 422
// with its causes; tightening the enforce level warns of the existing pods that
// violate it, one line per reason with a pod's name and the count of the others.
func TestPodSecurity_NamespaceLabelsAsKube(t *testing.T) {
	srv := admissionServer(t, map[string]map[string]string{"apps": nil})
	for _, c := range []struct {
		name, label, value, wantMessage string
	}{
		{"unknown level", "pod-security.kubernetes.io/enforce", "strict",
			`Namespace "unknown-level" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`},
		{"version without v", "pod-security.kubernetes.io/warn-version", "1.30",
			`Namespace "version-without-v" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ReplaceAll(c.name, " ", "-")
			r := send(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": name, "labels": map[string]any{c.label: c.value}}})
			if r.code != http.StatusUnprocessableEntity || r.body["reason"] != "Invalid" || r.body["message"] != c.wantMessage {
				t.Errorf("%d %v %q, want 422 Invalid %q", r.code, r.body["reason"], r.body["message"], c.wantMessage)
			}
		})
	}

	for _, name := range []string{"web-2", "web-1"} {
		if r := send(t, srv, http.MethodPost, "/api/v1/namespaces/apps/pods", podJSON(name, map[string]any{"hostPID": true})); r.code != http.StatusCreated {
			t.Fatalf("pod %s: %d %v", name, r.code, r.body)
		}
	}
	if r := send(t, srv, http.MethodPost, "/api/v1/namespaces/apps/pods", podJSON("ok", restrictedSpec())); r.code != http.StatusCreated {
		t.Fatalf("pod ok: %d %v", r.code, r.body)
	}
	ns := send(t, srv, http.MethodGet, "/api/v1/namespaces/apps", nil).body
	ns["metadata"].(map[string]any)["labels"] = map[string]any{"pod-security.kubernetes.io/enforce": "baseline"}
	r := send(t, srv, http.MethodPut, "/api/v1/namespaces/apps", ns)
	want := []string{
		`existing pods in namespace "apps" violate the new PodSecurity enforce level "baseline:latest"`,
		`web-1 (and 1 other pod): host namespaces`,
	}
	if r.code != http.StatusOK || !slices.Equal(r.warnings, want) {
		t.Errorf("tightening to baseline: %d, warnings\n%q\nwant 200 and\n%q", r.code, r.warnings, want)
	}
	// Loosening, or keeping the level, checks nothing.
	ns = r.body
	ns["metadata"].(map[string]any)["labels"] = map[string]any{"pod-security.kubernetes.io/enforce": "baseline", "team": "a"}
	if r := send(t, srv, http.MethodPut, "/api/v1/namespaces/apps", ns); r.code != http.StatusOK || len(r.warnings) != 0 {
		t.Errorf("same level: %d, warnings %q; want 200 and none", r.code, r.warnings)
	}

	// A pod's update is checked when it changes an image, not otherwise.
	pod := send(t, srv, http.MethodGet, "/api/v1/namespaces/apps/pods/web-1", nil).body
	pod["metadata"].(map[string]any)["labels"] = map[string]any{"tier": "front"}
	r = send(t, srv, http.MethodPut, "/api/v1/namespaces/apps/pods/web-1", pod)
	if r.code != http.StatusOK {
		t.Fatalf("label update: %d %v, want 200", r.code, r.body)
	}
	pod = r.body
	pod["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"] = "nginx:1.27"
	r = send(t, srv, http.MethodPut, "/api/v1/namespaces/apps/pods/web-1", pod)
	const wantMessage = `pods "web-1" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`
	if r.code != http.StatusForbidden || r.body["message"] != wantMessage {
		t.Errorf("image update: %d %q, want 403 %q", r.code, r.body["message"], wantMessage)
	}
}
