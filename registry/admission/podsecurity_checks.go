package admission

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
)

// The checks of the Pod Security Standards as k8s.io/pod-security-admission v0.37.2
// runs them (policy/check_*.go): each has an ID, the level it belongs to and the
// minor versions from which each of its behaviours applies, with kube's forbidden
// reason and detail texts.

// psResult is one check's outcome: allowed, or kube's forbidden reason and detail.
type psResult struct {
	allowed bool
	reason  string
	detail  string
}

var psAllowed = psResult{allowed: true}

// psCheckFunc checks a pod's (or a template's) metadata and spec.
type psCheckFunc func(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult

// psVersioned is one behaviour of a check, from minor version 1.since on; overrides are
// the baseline checks a restricted one replaces at those versions.
type psVersioned struct {
	since     int
	check     psCheckFunc
	overrides []string
}

// psCheck is one check of a level.
type psCheck struct {
	id       string
	level    psLevel
	versions []psVersioned
}

// psChecks are the checks of v1.37, baseline then restricted.
var psChecks = []psCheck{
	{"appArmorProfile", psBaseline, []psVersioned{{since: 0, check: appArmorProfile}}},
	{"capabilities_baseline", psBaseline, []psVersioned{{since: 0, check: capabilitiesBaseline}}},
	{"hostNamespaces", psBaseline, []psVersioned{{since: 0, check: hostNamespaces}}},
	{"hostPathVolumes", psBaseline, []psVersioned{{since: 0, check: hostPathVolumes}}},
	{"hostPorts", psBaseline, []psVersioned{{since: 0, check: hostPorts}}},
	{"hostProbesAndHostLifecycle", psBaseline, []psVersioned{{since: 34, check: hostProbesAndLifecycle}}},
	{"privileged", psBaseline, []psVersioned{{since: 0, check: privileged}}},
	{"procMount", psBaseline, []psVersioned{{since: 0, check: procMount}, {since: 35, check: exceptInUserNamespace(procMount)}}},
	{"seLinuxOptions", psBaseline, []psVersioned{{since: 0, check: seLinuxOptions(seLinuxTypes1_0)}, {since: 31, check: seLinuxOptions(seLinuxTypes1_31)}}},
	{"seccompProfile_baseline", psBaseline, []psVersioned{{since: 0, check: seccompAnnotations}, {since: 19, check: seccompBaseline}}},
	{"sysctls", psBaseline, []psVersioned{
		{since: 0, check: sysctls(sysctls1_0)}, {since: 27, check: sysctls(sysctls1_27)}, {since: 29, check: sysctls(sysctls1_29)},
		{since: 32, check: sysctls(sysctls1_32)}, {since: 37, check: sysctls(sysctls1_37)}}},
	{"windowsHostProcess", psBaseline, []psVersioned{{since: 0, check: windowsHostProcess}}},

	{"allowPrivilegeEscalation", psRestricted, []psVersioned{{since: 8, check: allowPrivilegeEscalation}, {since: 25, check: exceptWindows(allowPrivilegeEscalation)}}},
	{"capabilities_restricted", psRestricted, []psVersioned{
		{since: 22, check: capabilitiesRestricted, overrides: []string{"capabilities_baseline"}},
		{since: 25, check: exceptWindows(capabilitiesRestricted), overrides: []string{"capabilities_baseline"}}}},
	{"procMount_restricted", psRestricted, []psVersioned{{since: 35, check: procMount, overrides: []string{"procMount"}}}},
	{"restrictedVolumes", psRestricted, []psVersioned{{since: 0, check: restrictedVolumes, overrides: []string{"hostPathVolumes"}}}},
	{"runAsNonRoot", psRestricted, []psVersioned{{since: 0, check: runAsNonRoot}, {since: 35, check: exceptInUserNamespace(runAsNonRoot)}}},
	{"runAsUser", psRestricted, []psVersioned{{since: 23, check: runAsUser}, {since: 35, check: exceptInUserNamespace(runAsUser)}}},
	{"seccompProfile_restricted", psRestricted, []psVersioned{
		{since: 19, check: seccompRestricted, overrides: []string{"seccompProfile_baseline"}},
		{since: 25, check: exceptWindows(seccompRestricted), overrides: []string{"seccompProfile_baseline"}}}},
}

// exceptWindows is check for pods whose spec.os.name is not windows (v1.25 on).
func exceptWindows(check psCheckFunc) psCheckFunc {
	return func(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
		if spec.OS != nil && spec.OS.Name == corev1.Windows {
			return psAllowed
		}
		return check(meta, spec)
	}
}

// exceptInUserNamespace is check for pods not in a user namespace (hostUsers: false
// relaxes it, v1.35 on).
func exceptInUserNamespace(check psCheckFunc) psCheckFunc {
	return func(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
		if spec.HostUsers != nil && !*spec.HostUsers {
			return psAllowed
		}
		return check(meta, spec)
	}
}

// eachContainer calls f with each init, regular and ephemeral container, in that order.
func eachContainer(spec *corev1.PodSpec, f func(c *corev1.Container)) {
	for i := range spec.InitContainers {
		f(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		f(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		f((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// quoted is `"a", "b"`.
func quoted(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return `"` + strings.Join(items, `", "`) + `"`
}

// plural is one or many by n.
func plural(one, many string, n int) string {
	if n == 1 {
		return one
	}
	return many
}

// containersText is `container "a"` or `containers "a", "b"`.
func containersText(names []string) string {
	return plural("container", "containers", len(names)) + " " + quoted(names)
}

// sortedSet is a set of strings listed in order, as kube's sets.List.
type sortedSet map[string]struct{}

func (s sortedSet) add(v string) { s[v] = struct{}{} }

func (s sortedSet) list() []string {
	out := make([]string, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// setters are the parts of a pod that set a forbidden value: "pod", the containers
// named, the annotations.
type setters []string

// addContainers adds `container(s) "a", ...` when names has any.
func (s *setters) addContainers(names []string) {
	if len(names) > 0 {
		*s = append(*s, containersText(names))
	}
}

func (s setters) String() string { return strings.Join(s, " and ") }

const (
	appArmorAnnotationPrefix   = "container.apparmor.security.beta.kubernetes.io/"
	seccompPodAnnotation       = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnnotation = "container.seccomp.security.alpha.kubernetes.io/"
)

func appArmorProfile(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	allowedType := func(p *corev1.AppArmorProfile) bool {
		return p == nil || p.Type == corev1.AppArmorProfileTypeRuntimeDefault || p.Type == corev1.AppArmorProfileTypeLocalhost
	}
	var bad setters
	values := sortedSet{}
	if sc := spec.SecurityContext; sc != nil && !allowedType(sc.AppArmorProfile) {
		bad = append(bad, "pod")
		values.add(string(sc.AppArmorProfile.Type))
	}
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && !allowedType(c.SecurityContext.AppArmorProfile) {
			containers = append(containers, c.Name)
			values.add(string(c.SecurityContext.AppArmorProfile.Type))
		}
	})
	bad.addContainers(containers)
	var annotations []string
	for k, v := range meta.Annotations {
		if strings.HasPrefix(k, appArmorAnnotationPrefix) && v != "" && v != "runtime/default" && !strings.HasPrefix(v, "localhost/") {
			annotations = append(annotations, fmt.Sprintf("%s=%q", k, v))
		}
	}
	list := values.list()
	if len(annotations) > 0 {
		slices.Sort(annotations)
		list = append(list, annotations...)
		bad = append(bad, plural("annotation", "annotations", len(annotations)))
	}
	if len(bad) == 0 {
		return psAllowed
	}
	return psResult{reason: plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(list)),
		detail: fmt.Sprintf("%s must not set AppArmor profile type to %s", bad, quoted(list))}
}

// defaultCapabilities are the capabilities baseline lets a container add.
var defaultCapabilities = sortedSetOf("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT")

func sortedSetOf(items ...string) sortedSet {
	s := sortedSet{}
	for _, v := range items {
		s.add(v)
	}
	return s
}

func (s sortedSet) has(v string) bool { _, ok := s[v]; return ok }

func capabilitiesBaseline(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var containers []string
	added := sortedSet{}
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			return
		}
		ok := true
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if !defaultCapabilities.has(string(cp)) {
				ok = false
				added.add(string(cp))
			}
		}
		if !ok {
			containers = append(containers, c.Name)
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	return psResult{reason: "non-default capabilities",
		detail: fmt.Sprintf("%s must not include %s in securityContext.capabilities.add", containersText(containers), quoted(added.list()))}
}

func hostNamespaces(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var set []string
	if spec.HostNetwork {
		set = append(set, "hostNetwork=true")
	}
	if spec.HostPID {
		set = append(set, "hostPID=true")
	}
	if spec.HostIPC {
		set = append(set, "hostIPC=true")
	}
	if len(set) == 0 {
		return psAllowed
	}
	return psResult{reason: "host namespaces", detail: strings.Join(set, ", ")}
}

func hostPathVolumes(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var names []string
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			names = append(names, v.Name)
		}
	}
	if len(names) == 0 {
		return psAllowed
	}
	return psResult{reason: "hostPath volumes", detail: plural("volume", "volumes", len(names)) + " " + quoted(names)}
}

func hostPorts(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var containers []string
	ports := sortedSet{}
	eachContainer(spec, func(c *corev1.Container) {
		ok := true
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				ok = false
				ports.add(strconv.Itoa(int(p.HostPort)))
			}
		}
		if !ok {
			containers = append(containers, c.Name)
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	list := ports.list() // sorted as strings, as kube's sets.String lists them

	return psResult{reason: "hostPort", detail: fmt.Sprintf("%s %s %s %s", containersText(containers),
		plural("uses", "use", len(containers)), plural("hostPort", "hostPorts", len(list)), strings.Join(list, ", "))}
}

func hostProbesAndLifecycle(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	containers, hosts := sortedSet{}, sortedSet{}
	handler := func(name string, http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) {
		if http != nil && http.Host != "" {
			containers.add(name)
			hosts.add(http.Host)
		}
		if tcp != nil && tcp.Host != "" {
			containers.add(name)
			hosts.add(tcp.Host)
		}
	}
	eachContainer(spec, func(c *corev1.Container) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil {
				handler(c.Name, p.HTTPGet, p.TCPSocket)
			}
		}
		if c.Lifecycle != nil {
			for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
				if h != nil {
					handler(c.Name, h.HTTPGet, h.TCPSocket)
				}
			}
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	return psResult{reason: "probe or lifecycle host", detail: fmt.Sprintf("%s %s %s %s", containersText(containers.list()),
		plural("uses", "use", len(containers)), plural("probe or lifecycle host", "probe or lifecycle hosts", len(hosts)), quoted(hosts.list()))}
}

func privileged(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged {
			containers = append(containers, c.Name)
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	return psResult{reason: "privileged", detail: containersText(containers) + " must not set securityContext.privileged=true"}
}

func procMount(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var containers []string
	types := sortedSet{}
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && c.SecurityContext.ProcMount != nil && *c.SecurityContext.ProcMount != corev1.DefaultProcMount {
			containers = append(containers, c.Name)
			types.add(string(*c.SecurityContext.ProcMount))
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	return psResult{reason: "procMount", detail: fmt.Sprintf("%s must not set securityContext.procMount to %s", containersText(containers), quoted(types.list()))}
}

var (
	seLinuxTypes1_0  = sortedSetOf("", "container_t", "container_init_t", "container_kvm_t")
	seLinuxTypes1_31 = sortedSetOf("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t")
)

func seLinuxOptions(allowed sortedSet) psCheckFunc {
	return func(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
		types := sortedSet{}
		var setUser, setRole bool
		valid := func(o *corev1.SELinuxOptions) bool {
			ok := true
			if !allowed.has(o.Type) {
				ok = false
				types.add(o.Type)
			}
			if o.User != "" {
				ok, setUser = false, true
			}
			if o.Role != "" {
				ok, setRole = false, true
			}
			return ok
		}
		var bad setters
		if sc := spec.SecurityContext; sc != nil && sc.SELinuxOptions != nil && !valid(sc.SELinuxOptions) {
			bad = append(bad, "pod")
		}
		var containers []string
		eachContainer(spec, func(c *corev1.Container) {
			if c.SecurityContext != nil && c.SecurityContext.SELinuxOptions != nil && !valid(c.SecurityContext.SELinuxOptions) {
				containers = append(containers, c.Name)
			}
		})
		bad.addContainers(containers)
		if len(bad) == 0 {
			return psAllowed
		}
		var what []string
		if len(types) > 0 {
			what = append(what, plural("type", "types", len(types))+" "+quoted(types.list()))
		}
		if setUser {
			what = append(what, "user may not be set")
		}
		if setRole {
			what = append(what, "role may not be set")
		}
		return psResult{reason: "seLinuxOptions",
			detail: fmt.Sprintf("%s set forbidden securityContext.seLinuxOptions: %s", bad, strings.Join(what, "; "))}
	}
}

// validSeccomp is a seccomp profile type baseline and restricted allow.
func validSeccomp(t corev1.SeccompProfileType) bool {
	return t == corev1.SeccompProfileTypeLocalhost || t == corev1.SeccompProfileTypeRuntimeDefault
}

// seccompAnnotations is the baseline seccomp check before v1.19: the alpha annotations.
func seccompAnnotations(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	forbidden := sortedSet{}
	valid := func(v string) bool {
		return v == "runtime/default" || v == "docker/default" || strings.HasPrefix(v, "localhost/")
	}
	if v, ok := meta.Annotations[seccompPodAnnotation]; ok && !valid(v) {
		forbidden.add(fmt.Sprintf("%s=%q", seccompPodAnnotation, v))
	}
	eachContainer(spec, func(c *corev1.Container) {
		key := seccompContainerAnnotation + c.Name
		if v, ok := meta.Annotations[key]; ok && !valid(v) {
			forbidden.add(fmt.Sprintf("%s=%q", key, v))
		}
	})
	if len(forbidden) == 0 {
		return psAllowed
	}
	return psResult{reason: "seccompProfile",
		detail: fmt.Sprintf("forbidden %s %s", plural("annotation", "annotations", len(forbidden)), strings.Join(forbidden.list(), ", "))}
}

// seccompSetters are the parts of a pod that set a seccomp type other than
// RuntimeDefault and Localhost, the types they set, whether the pod sets a valid one,
// and the containers that set none.
func seccompSetters(spec *corev1.PodSpec) (bad setters, types sortedSet, podValid bool, unset []string) {
	types = sortedSet{}
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		if validSeccomp(sc.SeccompProfile.Type) {
			podValid = true
		} else {
			bad = append(bad, "pod")
			types.add(string(sc.SeccompProfile.Type))
		}
	}
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		switch {
		case c.SecurityContext != nil && c.SecurityContext.SeccompProfile != nil:
			if !validSeccomp(c.SecurityContext.SeccompProfile.Type) {
				containers = append(containers, c.Name)
				types.add(string(c.SecurityContext.SeccompProfile.Type))
			}
		case !podValid:
			unset = append(unset, c.Name)
		}
	})
	bad.addContainers(containers)
	return bad, types, podValid, unset
}

func seccompBaseline(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	bad, types, _, _ := seccompSetters(spec)
	if len(bad) == 0 {
		return psAllowed
	}
	return psResult{reason: "seccompProfile",
		detail: fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s", bad, quoted(types.list()))}
}

func seccompRestricted(meta *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	bad, _, _, unset := seccompSetters(spec)
	if len(bad) > 0 {
		return seccompBaseline(meta, spec)
	}
	if len(unset) == 0 {
		return psAllowed
	}
	return psResult{reason: "seccompProfile",
		detail: fmt.Sprintf(`pod or %s must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`, containersText(unset))}
}

var (
	sysctls1_0  = sortedSetOf("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")
	sysctls1_27 = union(sysctls1_0, "net.ipv4.ip_local_reserved_ports")
	sysctls1_29 = union(sysctls1_27, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes")
	sysctls1_32 = union(sysctls1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
	sysctls1_37 = union(sysctls1_32, "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat")
)

func union(s sortedSet, more ...string) sortedSet {
	out := sortedSetOf(more...)
	for v := range s {
		out.add(v)
	}
	return out
}

func sysctls(allowed sortedSet) psCheckFunc {
	return func(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
		var forbidden []string
		if spec.SecurityContext != nil {
			for _, s := range spec.SecurityContext.Sysctls {
				if !allowed.has(s.Name) {
					forbidden = append(forbidden, s.Name)
				}
			}
		}
		if len(forbidden) == 0 {
			return psAllowed
		}
		return psResult{reason: "forbidden sysctls", detail: strings.Join(forbidden, ", ")}
	}
}

func windowsHostProcess(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	hostProcess := func(o *corev1.WindowsSecurityContextOptions) bool {
		return o != nil && o.HostProcess != nil && *o.HostProcess
	}
	var bad setters
	if sc := spec.SecurityContext; sc != nil && hostProcess(sc.WindowsOptions) {
		bad = append(bad, "pod")
	}
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && hostProcess(c.SecurityContext.WindowsOptions) {
			containers = append(containers, c.Name)
		}
	})
	bad.addContainers(containers)
	if len(bad) == 0 {
		return psAllowed
	}
	return psResult{reason: "hostProcess", detail: fmt.Sprintf("%s must not set securityContext.windowsOptions.hostProcess=true", bad)}
}

func allowPrivilegeEscalation(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			containers = append(containers, c.Name)
		}
	})
	if len(containers) == 0 {
		return psAllowed
	}
	return psResult{reason: "allowPrivilegeEscalation != false",
		detail: containersText(containers) + " must set securityContext.allowPrivilegeEscalation=false"}
}

func capabilitiesRestricted(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var missingDropAll, adding []string
	added := sortedSet{}
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			missingDropAll = append(missingDropAll, c.Name)
			return
		}
		if !slices.Contains(c.SecurityContext.Capabilities.Drop, "ALL") {
			missingDropAll = append(missingDropAll, c.Name)
		}
		forbidden := false
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if cp != "NET_BIND_SERVICE" {
				forbidden = true
				added.add(string(cp))
			}
		}
		if forbidden {
			adding = append(adding, c.Name)
		}
	})
	var details []string
	if len(missingDropAll) > 0 {
		details = append(details, containersText(missingDropAll)+` must set securityContext.capabilities.drop=["ALL"]`)
	}
	if len(adding) > 0 {
		details = append(details, fmt.Sprintf("%s must not include %s in securityContext.capabilities.add", containersText(adding), quoted(added.list())))
	}
	if len(details) == 0 {
		return psAllowed
	}
	return psResult{reason: "unrestricted capabilities", detail: strings.Join(details, "; ")}
}

// allowedVolume says whether a volume's source is one restricted allows, else the
// name of its type.
func allowedVolume(v *corev1.VolumeSource) (bool, string) {
	switch {
	case v.ConfigMap != nil, v.CSI != nil, v.DownwardAPI != nil, v.EmptyDir != nil, v.Ephemeral != nil, v.Image != nil,
		v.PersistentVolumeClaim != nil, v.Projected != nil, v.Secret != nil:
		return true, ""
	case v.HostPath != nil:
		return false, "hostPath"
	case v.GCEPersistentDisk != nil:
		return false, "gcePersistentDisk"
	case v.AWSElasticBlockStore != nil:
		return false, "awsElasticBlockStore"
	case v.GitRepo != nil:
		return false, "gitRepo"
	case v.NFS != nil:
		return false, "nfs"
	case v.ISCSI != nil:
		return false, "iscsi"
	case v.Glusterfs != nil:
		return false, "glusterfs"
	case v.RBD != nil:
		return false, "rbd"
	case v.FlexVolume != nil:
		return false, "flexVolume"
	case v.Cinder != nil:
		return false, "cinder"
	case v.CephFS != nil:
		return false, "cephfs"
	case v.Flocker != nil:
		return false, "flocker"
	case v.FC != nil:
		return false, "fc"
	case v.AzureFile != nil:
		return false, "azureFile"
	case v.VsphereVolume != nil:
		return false, "vsphereVolume"
	case v.Quobyte != nil:
		return false, "quobyte"
	case v.AzureDisk != nil:
		return false, "azureDisk"
	case v.PhotonPersistentDisk != nil:
		return false, "photonPersistentDisk"
	case v.PortworxVolume != nil:
		return false, "portworxVolume"
	case v.ScaleIO != nil:
		return false, "scaleIO"
	case v.StorageOS != nil:
		return false, "storageos"
	}
	return false, "unknown"
}

func restrictedVolumes(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var names []string
	types := sortedSet{}
	for i := range spec.Volumes {
		if ok, t := allowedVolume(&spec.Volumes[i].VolumeSource); !ok {
			names = append(names, spec.Volumes[i].Name)
			types.add(t)
		}
	}
	if len(names) == 0 {
		return psAllowed
	}
	return psResult{reason: "restricted volume types", detail: fmt.Sprintf("%s %s %s %s %s",
		plural("volume", "volumes", len(names)), quoted(names), plural("uses", "use", len(names)),
		plural("restricted volume type", "restricted volume types", len(types)), quoted(types.list()))}
}

func runAsNonRoot(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var bad setters
	podNonRoot := false
	if sc := spec.SecurityContext; sc != nil && sc.RunAsNonRoot != nil {
		if *sc.RunAsNonRoot {
			podNonRoot = true
		} else {
			bad = append(bad, "pod")
		}
	}
	var explicit, implicit []string
	eachContainer(spec, func(c *corev1.Container) {
		switch {
		case c.SecurityContext != nil && c.SecurityContext.RunAsNonRoot != nil:
			if !*c.SecurityContext.RunAsNonRoot {
				explicit = append(explicit, c.Name)
			}
		case !podNonRoot:
			implicit = append(implicit, c.Name)
		}
	})
	bad.addContainers(explicit)
	if len(bad) > 0 {
		return psResult{reason: "runAsNonRoot != true", detail: fmt.Sprintf("%s must not set securityContext.runAsNonRoot=false", bad)}
	}
	if len(implicit) > 0 {
		return psResult{reason: "runAsNonRoot != true", detail: fmt.Sprintf("pod or %s must set securityContext.runAsNonRoot=true", containersText(implicit))}
	}
	return psAllowed
}

func runAsUser(_ *scheme.ObjectMeta, spec *corev1.PodSpec) psResult {
	var bad setters
	if sc := spec.SecurityContext; sc != nil && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		bad = append(bad, "pod")
	}
	var containers []string
	eachContainer(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil && *c.SecurityContext.RunAsUser == 0 {
			containers = append(containers, c.Name)
		}
	})
	bad.addContainers(containers)
	if len(bad) == 0 {
		return psAllowed
	}
	return psResult{reason: "runAsUser=0", detail: fmt.Sprintf("%s must not set runAsUser=0", bad)}
}
