package kubecode

import (
	"fmt"
	"math/rand/v2"
)

// securityMutation is one change of a pod spec that a check of the Pod Security
// Standards reads; spec is the pod spec, meta the pod's (or template's) metadata.
type securityMutation struct {
	name  string
	apply func(r *rand.Rand, meta, spec Object)
}

// A few values of each field, allowed and forbidden by baseline and restricted.
var (
	psCapabilities   = []string{"NET_RAW", "SYS_ADMIN", "NET_BIND_SERVICE", "CHOWN", "KILL", "SYS_TIME", "AUDIT_WRITE"}
	psSeccompTypes   = []string{"RuntimeDefault", "Unconfined", "Localhost"}
	psAppArmorTypes  = []string{"RuntimeDefault", "Unconfined", "Localhost"}
	psSELinuxTypes   = []string{"container_t", "container_init_t", "container_engine_t", "spc_t", "", "unconfined_t"}
	psSysctls        = []string{"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_rmem", "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat", "kernel.msgmax", "net.core.somaxconn", "vm.swappiness"}
	psProfileAnnots  = []string{"unconfined", "runtime/default", "localhost/profile", "docker/default"}
	psProbeHosts     = []string{"example.com", "10.0.0.1", "localhost"}
	psVolumeSources  = []Object{{"hostPath": Object{"path": "/var/log"}}, {"emptyDir": Object{}}, {"configMap": Object{"name": "cm"}}, {"nfs": Object{"server": "nfs.example.com", "path": "/export"}}, {"secret": Object{"secretName": "s"}}, {"cephfs": Object{"monitors": []any{"10.0.0.2:6789"}}}, {"persistentVolumeClaim": Object{"claimName": "data"}}, {"downwardAPI": Object{}}, {"projected": Object{"sources": []any{}}}, {"iscsi": Object{"targetPortal": "10.0.0.3:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}}}
	psContainerNames = []string{"app", "sidecar", "init"}
)

// securityContextOf is the securityContext of o (a pod spec or a container), made.
func securityContextOf(o Object) Object {
	sc, ok := o["securityContext"].(Object)
	if !ok {
		sc = Object{}
		o["securityContext"] = sc
	}
	return sc
}

// someContainer is a random container of spec (its init containers included).
func someContainer(r *rand.Rand, spec Object) Object {
	all := append([]any{}, spec["containers"].([]any)...)
	if init, ok := spec["initContainers"].([]any); ok {
		all = append(all, init...)
	}
	return all[r.IntN(len(all))].(Object)
}

func profile(r *rand.Rand, types []string) Object {
	t := pick(r, types)
	p := Object{"type": t}
	if t == "Localhost" {
		p["localhostProfile"] = "profiles/p.json"
	}
	return p
}

// securityMutations are the changes the generator picks from.
var securityMutations = []securityMutation{
	{"hostNetwork", func(_ *rand.Rand, _, s Object) { s["hostNetwork"] = true }},
	{"hostPID", func(_ *rand.Rand, _, s Object) { s["hostPID"] = true }},
	{"hostIPC", func(_ *rand.Rand, _, s Object) { s["hostIPC"] = true }},
	{"hostUsers false", func(_ *rand.Rand, _, s Object) { s["hostUsers"] = false }},
	{"os windows", func(_ *rand.Rand, _, s Object) { s["os"] = Object{"name": "windows"} }},
	{"os linux", func(_ *rand.Rand, _, s Object) { s["os"] = Object{"name": "linux"} }},
	{"pod runAsNonRoot", func(r *rand.Rand, _, s Object) { securityContextOf(s)["runAsNonRoot"] = r.IntN(3) > 0 }},
	{"pod runAsUser", func(r *rand.Rand, _, s Object) { securityContextOf(s)["runAsUser"] = pick(r, []int{0, 1000}) }},
	{"pod seccomp", func(r *rand.Rand, _, s Object) { securityContextOf(s)["seccompProfile"] = profile(r, psSeccompTypes) }},
	{"pod apparmor", func(r *rand.Rand, _, s Object) { securityContextOf(s)["appArmorProfile"] = profile(r, psAppArmorTypes) }},
	{"pod selinux", func(r *rand.Rand, _, s Object) { securityContextOf(s)["seLinuxOptions"] = seLinux(r) }},
	{"pod sysctls", func(r *rand.Rand, _, s Object) {
		var l []any
		for i := 0; i < 1+r.IntN(2); i++ {
			l = append(l, Object{"name": pick(r, psSysctls), "value": "1"})
		}
		securityContextOf(s)["sysctls"] = l
	}},
	{"pod hostProcess", func(_ *rand.Rand, _, s Object) {
		securityContextOf(s)["windowsOptions"] = Object{"hostProcess": true}
	}},
	{"privileged", func(r *rand.Rand, _, s Object) { securityContextOf(someContainer(r, s))["privileged"] = r.IntN(3) > 0 }},
	{"allowPrivilegeEscalation", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["allowPrivilegeEscalation"] = r.IntN(2) == 0
	}},
	{"capabilities", func(r *rand.Rand, _, s Object) {
		caps := Object{}
		if r.IntN(3) > 0 {
			caps["add"] = []any{pick(r, psCapabilities)}
		}
		if r.IntN(3) > 0 {
			caps["drop"] = []any{pick(r, []string{"ALL", "NET_RAW"})}
		}
		securityContextOf(someContainer(r, s))["capabilities"] = caps
	}},
	{"container runAsNonRoot", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["runAsNonRoot"] = r.IntN(3) > 0
	}},
	{"container runAsUser", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["runAsUser"] = pick(r, []int{0, 1000})
	}},
	{"container seccomp", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["seccompProfile"] = profile(r, psSeccompTypes)
	}},
	{"container apparmor", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["appArmorProfile"] = profile(r, psAppArmorTypes)
	}},
	{"container selinux", func(r *rand.Rand, _, s Object) { securityContextOf(someContainer(r, s))["seLinuxOptions"] = seLinux(r) }},
	{"procMount", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["procMount"] = pick(r, []string{"Unmasked", "Default"})
	}},
	{"container hostProcess", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["windowsOptions"] = Object{"hostProcess": true}
	}},
	{"hostPort", func(r *rand.Rand, _, s Object) {
		c := someContainer(r, s)
		c["ports"] = []any{Object{"containerPort": 8080, "hostPort": pick(r, []int{8080, 80, 0})}}
	}},
	{"probe host", func(r *rand.Rand, _, s Object) {
		c := someContainer(r, s)
		if r.IntN(2) == 0 {
			c["livenessProbe"] = Object{"httpGet": Object{"port": 8080, "host": pick(r, psProbeHosts)}}
		} else {
			c["readinessProbe"] = Object{"tcpSocket": Object{"port": 8080, "host": pick(r, psProbeHosts)}}
		}
	}},
	{"lifecycle host", func(r *rand.Rand, _, s Object) {
		someContainer(r, s)["lifecycle"] = Object{"postStart": Object{"httpGet": Object{"port": 8080, "host": pick(r, psProbeHosts)}}}
	}},
	{"volume", func(r *rand.Rand, _, s Object) {
		v := clone(pick(r, psVolumeSources))
		v["name"] = fmt.Sprintf("v%d", r.IntN(1000))
		vols, _ := s["volumes"].([]any)
		s["volumes"] = append(vols, v)
	}},
	{"hostPath volume", func(r *rand.Rand, _, s Object) {
		vols, _ := s["volumes"].([]any)
		s["volumes"] = append(vols, Object{"name": fmt.Sprintf("host%d", r.IntN(1000)), "hostPath": Object{"path": "/etc"}})
	}},
	{"windows hostProcess pod", func(_ *rand.Rand, _, s Object) {
		s["os"] = Object{"name": "windows"}
		s["hostNetwork"] = true
		securityContextOf(s)["windowsOptions"] = Object{"hostProcess": true}
	}},
	{"unmasked procMount in a user namespace", func(r *rand.Rand, _, s Object) {
		s["hostUsers"] = false
		securityContextOf(someContainer(r, s))["procMount"] = "Unmasked"
	}},
	{"apparmor annotation", func(r *rand.Rand, m, s Object) {
		annotate(m, "container.apparmor.security.beta.kubernetes.io/"+someContainer(r, s)["name"].(string), pick(r, psProfileAnnots))
	}},
	{"seccomp pod annotation", func(r *rand.Rand, m, _ Object) {
		annotate(m, "seccomp.security.alpha.kubernetes.io/pod", pick(r, psProfileAnnots))
	}},
	{"baseline capability", func(r *rand.Rand, _, s Object) {
		securityContextOf(someContainer(r, s))["capabilities"] = Object{"add": []any{pick(r, []string{"SYS_ADMIN", "NET_RAW", "CHOWN"})}}
	}},
	{"restricted pod", func(_ *rand.Rand, _, s Object) { makeRestricted(s) }},
	{"restricted pod", func(_ *rand.Rand, _, s Object) { makeRestricted(s) }},
}

func seLinux(r *rand.Rand) Object {
	o := Object{"type": pick(r, psSELinuxTypes)}
	if r.IntN(4) == 0 {
		o["user"] = "system_u"
	}
	if r.IntN(4) == 0 {
		o["role"] = "system_r"
	}
	return o
}

func annotate(m Object, k, v string) {
	a, ok := m["annotations"].(Object)
	if !ok {
		a = Object{}
		m["annotations"] = a
	}
	a[k] = v
}

// makeRestricted sets what restricted asks of a pod and each of its containers.
func makeRestricted(s Object) {
	sc := securityContextOf(s)
	sc["runAsNonRoot"] = true
	sc["seccompProfile"] = Object{"type": "RuntimeDefault"}
	for _, key := range []string{"containers", "initContainers"} {
		l, _ := s[key].([]any)
		for _, c := range l {
			csc := securityContextOf(c.(Object))
			csc["allowPrivilegeEscalation"] = false
			csc["capabilities"] = Object{"drop": []any{"ALL"}}
		}
	}
}

// SecurityPod is the pod of PodSecurity's generated case i: one to three containers and
// at times an init container, with up to five security mutations applied, their names
// returned.
func SecurityPod(seed uint64, i int) (Object, []string) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	name := fmt.Sprintf("ps-%d", i)
	var containers []any
	for j := 0; j < 1+r.IntN(3); j++ {
		containers = append(containers, Object{"name": fmt.Sprintf("%s-%d", pick(r, psContainerNames), j), "image": pick(r, images)})
	}
	spec := Object{"containers": containers}
	if r.IntN(3) == 0 {
		spec["initContainers"] = []any{Object{"name": "setup", "image": "busybox"}}
	}
	meta := Object{"name": name}
	var applied []string
	for j := 0; j < r.IntN(6); j++ {
		m := pick(r, securityMutations)
		m.apply(r, meta, spec)
		applied = append(applied, m.name)
	}
	return Object{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}, applied
}

// SecurityDeployment is a Deployment whose template is SecurityPod's pod.
func SecurityDeployment(seed uint64, i int) (Object, []string) {
	pod, applied := SecurityPod(seed, i)
	meta := pod["metadata"].(Object)
	labels := Object{"app": meta["name"]}
	tmeta := Object{"labels": labels}
	if a, ok := meta["annotations"]; ok {
		tmeta["annotations"] = a
	}
	return Object{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": Object{"name": meta["name"]},
		"spec": Object{"selector": Object{"matchLabels": labels}, "template": Object{"metadata": tmeta, "spec": pod["spec"]}}}, applied
}
