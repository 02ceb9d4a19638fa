package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

func ptr[T any](v T) *T { return &v }

// restrictedPod is a pod with one container "c" that every check allows.
func restrictedPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: scheme.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "c", Image: "nginx", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		},
	}
}

// TestPodSecurityChecks_OnePodPerCheckAsKube holds each check to kube's outcome and
// text at latest: a restricted pod changed in one way, evaluated at privileged (always
// allowed), baseline and restricted; "" is allowed.
func TestPodSecurityChecks_OnePodPerCheckAsKube(t *testing.T) {
	for _, c := range []struct {
		name       string
		change     func(p *corev1.Pod)
		baseline   string
		restricted string
	}{
		{"nothing changed", func(*corev1.Pod) {}, "", ""},
		{"host namespaces", func(p *corev1.Pod) { p.Spec.HostNetwork, p.Spec.HostIPC = true, true },
			"host namespaces (hostNetwork=true, hostIPC=true)", "host namespaces (hostNetwork=true, hostIPC=true)"},
		{"privileged", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.Privileged = ptr(true) },
			`privileged (container "c" must not set securityContext.privileged=true)`, `privileged (container "c" must not set securityContext.privileged=true)`},
		{"a capability beyond the default set", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"SYS_ADMIN"}
		},
			`non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)`,
			`unrestricted capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)`},
		{"a default capability", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"CHOWN"}
		},
			"", `unrestricted capabilities (container "c" must not include "CHOWN" in securityContext.capabilities.add)`},
		{"NET_BIND_SERVICE", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_BIND_SERVICE"}
		}, "", ""},
		{"capabilities not dropped", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.Capabilities = nil },
			"", `unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])`},
		{"hostPath volume", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		}, `hostPath volumes (volume "h")`, `restricted volume types (volume "h" uses restricted volume type "hostPath")`},
		{"nfs and cephfs volumes", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "n", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{}}},
				{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "f", VolumeSource: corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{}}}}
		}, "", `restricted volume types (volumes "n", "f" use restricted volume types "cephfs", "nfs")`},
		{"host ports", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}, {ContainerPort: 80, HostPort: 80}}
		}, `hostPort (container "c" uses hostPorts 80, 8080)`, `hostPort (container "c" uses hostPorts 80, 8080)`},
		{"AppArmor unconfined", func(p *corev1.Pod) {
			p.Spec.SecurityContext.AppArmorProfile = &corev1.AppArmorProfile{Type: "Unconfined"}
		},
			`forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")`,
			`forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")`},
		{"AppArmor annotation", func(p *corev1.Pod) {
			p.Annotations = map[string]string{"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}
		}, `forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined"")`,
			`forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined"")`},
		{"SELinux type and user", func(p *corev1.Pod) {
			p.Spec.SecurityContext.SELinuxOptions = &corev1.SELinuxOptions{Type: "spc_t", User: "system_u"}
		}, `seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)`,
			`seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set)`},
		{"unmasked /proc", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.ProcMount = ptr(corev1.ProcMountType("Unmasked"))
		},
			`procMount (container "c" must not set securityContext.procMount to "Unmasked")`,
			`procMount (container "c" must not set securityContext.procMount to "Unmasked")`},
		{"unmasked /proc in a user namespace", func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr(false)
			p.Spec.Containers[0].SecurityContext.ProcMount = ptr(corev1.ProcMountType("Unmasked"))
		}, "", `procMount (container "c" must not set securityContext.procMount to "Unmasked")`},
		{"seccomp unconfined", func(p *corev1.Pod) { p.Spec.SecurityContext.SeccompProfile.Type = "Unconfined" },
			`seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")`,
			`seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")`},
		{"seccomp unset", func(p *corev1.Pod) { p.Spec.SecurityContext.SeccompProfile = nil },
			"", `seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{"sysctls", func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "kernel.msgmax"}, {Name: "net.ipv4.tcp_rmem"}, {Name: "vm.swappiness"}}
		}, "forbidden sysctls (kernel.msgmax, vm.swappiness)", "forbidden sysctls (kernel.msgmax, vm.swappiness)"},
		{"Windows hostProcess", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext.WindowsOptions = &corev1.WindowsSecurityContextOptions{HostProcess: ptr(true)}
		}, `hostProcess (container "c" must not set securityContext.windowsOptions.hostProcess=true)`,
			`hostProcess (container "c" must not set securityContext.windowsOptions.hostProcess=true)`},
		{"probe and lifecycle hosts", func(p *corev1.Pod) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "example.com"}}}
			p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Host: "10.0.0.1"}}}
		}, `probe or lifecycle host (container "c" uses probe or lifecycle hosts "10.0.0.1", "example.com")`,
			`probe or lifecycle host (container "c" uses probe or lifecycle hosts "10.0.0.1", "example.com")`},
		{"privilege escalation", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil },
			"", `allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)`},
		{"runAsNonRoot false", func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsNonRoot = ptr(false) },
			"", `runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)`},
		{"runAsUser 0", func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.RunAsUser = ptr(int64(0)) },
			"", `runAsUser=0 (container "c" must not set runAsUser=0)`},
		{"a Windows pod without the Linux-only fields", func(p *corev1.Pod) {
			p.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
			p.Spec.SecurityContext.SeccompProfile, p.Spec.Containers[0].SecurityContext = nil, nil
		}, "", ""},
		{"an init and an ephemeral container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i"}}
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e"}}}
		}, "", `allowPrivilegeEscalation != false (containers "i", "e" must set securityContext.allowPrivilegeEscalation=false), ` +
			`unrestricted capabilities (containers "i", "e" must set securityContext.capabilities.drop=["ALL"])`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := restrictedPod()
			c.change(p)
			for _, lv := range []struct {
				level psLevel
				want  string
			}{{psPrivileged, ""}, {psBaseline, c.baseline}, {psRestricted, c.restricted}} {
				if got := evaluatePod(psLevelVersion{lv.level, psLatest}, &p.ObjectMeta, &p.Spec).detail(); got != lv.want {
					t.Errorf("%s:\n got %q\nwant %q", lv.level, got, lv.want)
				}
			}
		})
	}
}

// TestPodSecurityChecks_VersionsAsKube: a version pin evaluates each check as it was
// at that version, and a version newer than the newest check's is latest.
func TestPodSecurityChecks_VersionsAsKube(t *testing.T) {
	bare := func(p *corev1.Pod) { p.Spec.SecurityContext, p.Spec.Containers[0].SecurityContext = nil, nil }
	for _, c := range []struct {
		name   string
		change func(p *corev1.Pod)
		lv     string
		want   string
	}{
		{"no capabilities check before v1.22", bare, "restricted:v1.21",
			`allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ` +
				`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ` +
				`seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		{"no privilege escalation check before v1.8, no seccomp field before v1.19", bare, "restricted:v1.7",
			`runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)`},
		{"the seccomp annotations before v1.19", func(p *corev1.Pod) {
			p.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
		}, "baseline:v1.18", `seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")`},
		{"the seccomp annotations are not read from v1.19", func(p *corev1.Pod) {
			p.Annotations = map[string]string{"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}
		}, "baseline:v1.19", ""},
		{"container_engine_t before v1.31", func(p *corev1.Pod) {
			p.Spec.SecurityContext.SELinuxOptions = &corev1.SELinuxOptions{Type: "container_engine_t"}
		}, "baseline:v1.30", `seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "container_engine_t")`},
		{"container_engine_t from v1.31", func(p *corev1.Pod) {
			p.Spec.SecurityContext.SELinuxOptions = &corev1.SELinuxOptions{Type: "container_engine_t"}
		}, "baseline:v1.31", ""},
		{"probe hosts allowed before v1.34", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Host: "example.com"}}}
		}, "baseline:v1.33", ""},
		{"a v1.37 sysctl before v1.37", func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.tcp_notsent_lowat"}}
		}, "baseline:v1.36", "forbidden sysctls (net.ipv4.tcp_notsent_lowat)"},
		{"a v1.37 sysctl at a future version", func(p *corev1.Pod) {
			p.Spec.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.tcp_notsent_lowat"}}
		}, "baseline:v1.99", ""},
		{"user namespaces do not relax runAsNonRoot before v1.35", func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr(false)
			p.Spec.SecurityContext.RunAsNonRoot = nil
		}, "restricted:v1.34", `runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)`},
		{"user namespaces relax runAsNonRoot from v1.35", func(p *corev1.Pod) {
			p.Spec.HostUsers = ptr(false)
			p.Spec.SecurityContext.RunAsNonRoot = nil
		}, "restricted:v1.35", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			level, version, _ := strings.Cut(c.lv, ":")
			v, msg := parseVersion(version)
			if msg != "" {
				t.Fatal(msg)
			}
			p := restrictedPod()
			c.change(p)
			if got := evaluatePod(psLevelVersion{psLevel(level), v}, &p.ObjectMeta, &p.Spec).detail(); got != c.want {
				t.Errorf("%s:\n got %q\nwant %q", c.lv, got, c.want)
			}
		})
	}
}

// TestPodSecurity_ExistingPodsCheckIsBounded: kube checks at most 3000 of a namespace's
// pods when its enforce level tightens, one pod of each controller first, and says how
// many it checked.
func TestPodSecurity_ExistingPodsCheckIsBounded(t *testing.T) {
	const total = psMaxPodsToCheck + 500
	pods := make([]*corev1.Pod, 0, total)
	owner := scheme.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: ptr(true)}
	for i := range total {
		p := restrictedPod()
		p.Name = fmt.Sprintf("pod-%05d", i)
		if i%2 == 0 {
			// Half the pods belong to one controller: only its first counts before the
			// others, so the 3000 checked reach the pods without one at the end.
			p.OwnerReferences = []scheme.OwnerReference{owner}
		}
		if i == total-1 {
			p.Spec.HostPID = true
		}
		pods = append(pods, p)
	}
	got := podsWarnings(context.Background(), "ns", psLevelVersion{psBaseline, psLatest}, pods, psMaxPodsToCheck)
	want := []string{
		fmt.Sprintf("new PodSecurity enforce level only checked against the first 3000 of %d existing pods", total),
		`existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"`,
		fmt.Sprintf("pod-%05d: host namespaces", total-1),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got = podsWarnings(ctx, "ns", psLevelVersion{psBaseline, psLatest}, pods, psMaxPodsToCheck)
	if len(got) == 0 || got[0] != fmt.Sprintf("new PodSecurity enforce level only checked against the first 1 of %d existing pods", total) {
		t.Errorf("with the time up: %q, want the first pod checked only", got)
	}
}
