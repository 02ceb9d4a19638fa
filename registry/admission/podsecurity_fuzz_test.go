package admission

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
)

// FuzzPodSecurity_NamespaceLabels: any label values parse into a policy whose levels
// are kube's three, with one error per invalid value, and never panic.
func FuzzPodSecurity_NamespaceLabels(f *testing.F) {
	f.Add("restricted", "v1.30", "baseline", "latest", "privileged", "v1.0")
	f.Add("strict", "1.30", "", "v1.", "Restricted", "v1.01")
	f.Fuzz(func(t *testing.T, enforce, enforceVersion, audit, auditVersion, warn, warnVersion string) {
		labels := map[string]string{psEnforceLabel: enforce, psEnforceVersionLabel: enforceVersion, psAuditLabel: audit,
			psAuditVersionLabel: auditVersion, psWarnLabel: warn, psWarnVersionLabel: warnVersion}
		p, errs := policyOf(labels)
		invalid := 0
		for _, l := range []string{enforce, audit, warn} {
			if _, msg := parseLevel(l); msg != "" {
				invalid++
			}
		}
		for _, v := range []string{enforceVersion, auditVersion, warnVersion} {
			if _, msg := parseVersion(v); msg != "" {
				invalid++
			}
		}
		if len(errs) != invalid {
			t.Errorf("%d errors for %d invalid values: %v", len(errs), invalid, errs)
		}
		for _, lv := range []psLevelVersion{p.enforce, p.audit, p.warn} {
			if lv.level != psPrivileged && lv.level != psBaseline && lv.level != psRestricted {
				t.Errorf("level %q", lv.level)
			}
			if !lv.version.latest && (lv.version.minor < 0 || !strings.HasPrefix(lv.version.String(), "v1.")) {
				t.Errorf("version %v", lv.version)
			}
		}
	})
}

// FuzzPodSecurity_Evaluate: any pod that decodes is evaluated at every level and
// version without a panic, and a forbidden one has a reason per detail.
func FuzzPodSecurity_Evaluate(f *testing.F) {
	f.Add([]byte(`{"metadata":{"annotations":{"container.apparmor.security.beta.kubernetes.io/c":"unconfined"}},"spec":{"hostNetwork":true,"containers":[{"name":"c","securityContext":{"privileged":true,"capabilities":{"add":["SYS_ADMIN"]}}}],"ephemeralContainers":[{"name":"e"}]}}`))
	f.Add([]byte(`{"spec":{"securityContext":{"sysctls":[{"name":"kernel.msgmax"}],"seLinuxOptions":{"type":"spc_t"}},"volumes":[{"name":"v","hostPath":{"path":"/"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pod corev1.Pod
		if json.Unmarshal(data, &pod) != nil {
			return
		}
		for _, level := range []psLevel{psBaseline, psRestricted} {
			for minor := 0; minor <= psMaxMinor+1; minor++ {
				e := evaluatePod(psLevelVersion{level, psVersion{minor: minor}}, &pod.ObjectMeta, &pod.Spec)
				if len(e.reasons) != len(e.details) {
					t.Fatalf("%d reasons, %d details", len(e.reasons), len(e.details))
				}
				for _, r := range e.reasons {
					if r == "" {
						t.Fatal("an empty reason")
					}
				}
			}
		}
	})
}
