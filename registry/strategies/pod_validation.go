package strategies

import (
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// podOptions are the few of kube's PodValidationOptions that differ between the places
// a pod spec is validated; the rest are fixed at kube-apiserver v1.37's feature-gate
// defaults for a new object (relaxed env var names, env files, container restart
// rules, sidecar resize policies, matchLabelKeys in topology spread, SELinux change
// policies, no comparison operators in tolerations).
type podOptions struct {
	// resourceIsPod is set for a Pod (not a template): a pod on the host network must
	// then give each port a hostPort equal to its containerPort.
	resourceIsPod bool
}

// validatePodTemplateSpec checks a pod template as kube's ValidatePodTemplateSpec does:
// the template's labels and annotations, then its pod spec (with no pod metadata, as a
// template has no name yet); ephemeral containers are forbidden in a template.
func validatePodTemplateSpec(spec *corev1.PodTemplateSpec, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	errs = append(errs, validation.ValidateLabels(spec.Labels, fldPath.Child("labels"))...)
	errs = append(errs, validation.ValidateAnnotations(spec.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validatePodSpecificAnnotations(spec.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&spec.Spec, nil, fldPath.Child("spec"))...)
	if len(spec.Spec.EphemeralContainers) > 0 {
		errs = append(errs, validation.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// validatePodSpec checks a pod spec as kube's ValidatePodSpec does, in its order, with
// its messages and paths. meta is the pod's metadata, nil for a template.
func validatePodSpec(spec *corev1.PodSpec, meta *scheme.ObjectMeta, fldPath *validation.Path) validation.ErrorList {
	return validatePodSpecWith(spec, meta, fldPath, podOptions{})
}

func validatePodSpecWith(spec *corev1.PodSpec, meta *scheme.ObjectMeta, fldPath *validation.Path, opts podOptions) validation.ErrorList {
	var errs validation.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, validation.Required(fldPath.Child("terminationGracePeriodSeconds"), ""))
	}
	grace := spec.TerminationGracePeriodSeconds
	hostUsers := spec.HostUsers == nil || *spec.HostUsers

	vols, vErrs := validateVolumes(spec.Volumes, meta, fldPath.Child("volumes"))
	errs = append(errs, vErrs...)
	claimNames := podClaimNames(spec.ResourceClaims)
	errs = append(errs, validatePodResourceClaims(meta, spec.ResourceClaims, fldPath.Child("resourceClaims"))...)
	c := containerContext{volumes: vols, claimNames: claimNames, grace: grace, os: spec.OS, restartPolicy: spec.RestartPolicy, hostUsers: hostUsers}
	errs = append(errs, c.validateContainers(spec.Containers, fldPath.Child("containers"))...)
	errs = append(errs, c.validateInitContainers(spec.InitContainers, spec.Containers, fldPath.Child("initContainers"))...)
	errs = append(errs, c.validateEphemeralContainers(spec.EphemeralContainers, spec.Containers, spec.InitContainers, fldPath.Child("ephemeralContainers"))...)
	errs = append(errs, validatePodLevelResources(spec, claimNames, fldPath)...)
	errs = append(errs, validateHostNetworkPorts(spec, fldPath, opts)...)
	errs = append(errs, validateRestartPolicy(spec.RestartPolicy, fldPath.Child("restartPolicy"))...)
	errs = append(errs, validateDNSPolicy(spec.DNSPolicy, fldPath.Child("dnsPolicy"))...)
	errs = append(errs, validateLabelMap(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	errs = append(errs, validatePodSecurityContext(spec.SecurityContext, fldPath.Child("securityContext"))...)
	if spec.ShareProcessNamespace != nil && spec.HostPID && *spec.ShareProcessNamespace {
		errs = append(errs, validation.Invalid(fldPath.Child("shareProcessNamespace"), true, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	// kube's validateImagePullSecrets cannot fail here: LocalObjectReference has only a name.
	errs = append(errs, validateAffinity(spec.Affinity, fldPath.Child("affinity"))...)
	errs = append(errs, validatePodDNSConfig(spec.DNSConfig, spec.DNSPolicy, fldPath.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, validateQualifiedName(string(g.ConditionType), fldPath.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, fldPath.Child("schedulingGates"))...)
	errs = append(errs, validateTopologySpreadConstraints(spec.TopologySpreadConstraints, fldPath.Child("topologySpreadConstraints"))...)
	errs = append(errs, validateWindowsHostProcessPod(spec, fldPath)...)
	errs = append(errs, validateHostUsers(spec, fldPath)...)
	errs = append(errs, validateHostnameOverride(spec, fldPath)...)
	if spec.ServiceAccountName != "" {
		for _, msg := range validation.NameIsDNSSubdomain(spec.ServiceAccountName, false) {
			errs = append(errs, validation.Invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.DeprecatedServiceAccount != spec.ServiceAccountName {
		errs = append(errs, validation.Invalid(fldPath.Child("deprecatedServiceAccount"), spec.DeprecatedServiceAccount,
			"must be the same as serviceAccountName: "+strconv.Quote(spec.ServiceAccountName)))
	}
	if spec.NodeName != "" {
		for _, msg := range validation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, validation.Invalid(fldPath.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, validation.Invalid(fldPath.Child("activeDeadlineSeconds"), v, inclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if spec.Hostname != "" {
		errs = append(errs, validateDNS1123Label(spec.Hostname, fldPath.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateDNS1123Label(spec.Subdomain, fldPath.Child("subdomain"))...)
	}
	if len(spec.Tolerations) > 0 {
		errs = append(errs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	}
	for i, a := range spec.HostAliases {
		p := fldPath.Child("hostAliases").Index(i)
		errs = append(errs, validateLegacyIP(a.IP, p.Child("ip"))...)
		for j, h := range a.Hostnames {
			errs = append(errs, validateDNS1123Subdomain(h, p.Child("hostnames").Index(j))...)
		}
	}
	if spec.PriorityClassName != "" {
		for _, msg := range validation.NameIsDNSSubdomain(spec.PriorityClassName, false) {
			errs = append(errs, validation.Invalid(fldPath.Child("priorityClassName"), spec.PriorityClassName, msg))
		}
	}
	if spec.RuntimeClassName != nil {
		for _, msg := range validation.NameIsDNSSubdomain(*spec.RuntimeClassName, false) {
			errs = append(errs, validation.Invalid(fldPath.Child("runtimeClassName"), *spec.RuntimeClassName, msg))
		}
	}
	if spec.PreemptionPolicy != nil {
		switch p := *spec.PreemptionPolicy; p {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			errs = append(errs, validation.Required(fldPath.Child("preemptionPolicy"), ""))
		default:
			errs = append(errs, validation.NotSupported(fldPath.Child("preemptionPolicy"), string(p), []string{"PreemptLowerPriority", "Never"}))
		}
	}
	if spec.Overhead != nil {
		for _, name := range sortedResourceNames(spec.Overhead) {
			p := fldPath.Child("overhead").Key(string(name))
			errs = append(errs, validateResourceName(name, p)...)
			errs = append(errs, validateResourceQuantityValue(name, spec.Overhead[name], p)...)
		}
	}
	if spec.OS != nil {
		switch {
		case spec.OS.Name == "":
			errs = append(errs, validation.Required(fldPath.Child("os", "name"), ""))
		case spec.OS.Name != corev1.Linux && spec.OS.Name != corev1.Windows:
			errs = append(errs, validation.NotSupported(fldPath.Child("os"), string(spec.OS.Name), []string{"linux", "windows"}))
		case spec.OS.Name == corev1.Linux:
			errs = append(errs, validateLinuxPod(spec, fldPath)...)
		}
	}
	errs = append(errs, validateFileKeyRefVolumes(spec, fldPath)...)
	return errs
}

// validatePodSpecificAnnotations is the part of kube's check of a pod's (or
// template's) annotations that concerns annotations still in use: the deprecated
// seccomp and AppArmor ones must name a valid profile.
func validatePodSpecificAnnotations(annotations map[string]string, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, k := range sortedKeys(annotations) {
		v := annotations[k]
		switch {
		case k == "seccomp.security.alpha.kubernetes.io/pod" || strings.HasPrefix(k, "container.seccomp.security.alpha.kubernetes.io/"):
			errs = append(errs, validateSeccompAnnotation(v, fldPath.Key(k))...)
		case strings.HasPrefix(k, "container.apparmor.security.beta.kubernetes.io/"):
			if v != "runtime/default" && v != "unconfined" && !strings.HasPrefix(v, "localhost/") {
				errs = append(errs, validation.Invalid(fldPath.Key(k), v, "invalid AppArmor profile name: "+strconv.Quote(v)))
			}
		}
	}
	return errs
}

func validateSeccompAnnotation(p string, path *validation.Path) validation.ErrorList {
	switch {
	case p == "runtime/default", p == "docker/default", p == "unconfined":
		return nil
	case strings.HasPrefix(p, "localhost/"):
		return validateLocalDescendingPath(strings.TrimPrefix(p, "localhost/"), path)
	}
	return validation.ErrorList{validation.Invalid(path, p, "must be a valid seccomp profile")}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// inclusiveRangeError is apimachinery's InclusiveRangeError.
func inclusiveRangeError(lo, hi int) string {
	return "must be between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi) + ", inclusive"
}

// The messages of apimachinery's and kube's numeric checks.
const (
	isNegativeErrorMsg    = "must be greater than or equal to 0"
	isNotPositiveErrorMsg = "must be greater than zero"
	fileModeErrorMsg      = "must be a number between 0 and 0777 (octal), both inclusive"
	emptyDirModeErrorMsg  = "must be a number between 0 and 01777 (octal), both inclusive"
)

func validateNonnegative(v int64, path *validation.Path) validation.ErrorList {
	if v < 0 {
		return validation.ErrorList{validation.Invalid(path, v, isNegativeErrorMsg)}
	}
	return nil
}

func validatePositive(v int64, path *validation.Path) validation.ErrorList {
	if v <= 0 {
		return validation.ErrorList{validation.Invalid(path, v, isNotPositiveErrorMsg)}
	}
	return nil
}

// validateDNS1123Label reports each of kube's IsDNS1123Label messages as Invalid at path.
func validateDNS1123Label(value string, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, validation.Invalid(path, value, msg))
	}
	return errs
}

func validateDNS1123Subdomain(value string, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(value) {
		errs = append(errs, validation.Invalid(path, value, msg))
	}
	return errs
}

func validateQualifiedName(value string, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		errs = append(errs, validation.Invalid(path, value, msg))
	}
	return errs
}

// validateLabelMap is apimachinery's ValidateLabels (keys as qualified names, values
// as label values, every error at the map's path), keys in order.
func validateLabelMap(labels map[string]string, path *validation.Path) validation.ErrorList {
	return validation.ValidateLabels(labels, path)
}

func validateRestartPolicy(p corev1.RestartPolicy, path *validation.Path) validation.ErrorList {
	switch p {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return validation.ErrorList{validation.Required(path, "")}
	}
	return validation.ErrorList{validation.NotSupported(path, string(p), []string{"Always", "OnFailure", "Never"})}
}

func validateDNSPolicy(p corev1.DNSPolicy, path *validation.Path) validation.ErrorList {
	switch p {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return validation.ErrorList{validation.Required(path, "")}
	}
	return validation.ErrorList{validation.NotSupported(path, string(p), []string{"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"})}
}

// validateHostNetworkPorts is kube's validatePodHostNetworkDeps: on the host network a
// port's hostPort must equal its containerPort (a template may leave it 0).
func validateHostNetworkPorts(spec *corev1.PodSpec, fldPath *validation.Path, opts podOptions) validation.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs validation.ErrorList
	for i, c := range spec.Containers {
		for j, p := range c.Ports {
			if (opts.resourceIsPod || p.HostPort != 0) && p.HostPort != p.ContainerPort {
				errs = append(errs, validation.Invalid(fldPath.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"),
					int64(p.HostPort), "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

func validatePodDNSConfig(c *corev1.PodDNSConfig, policy corev1.DNSPolicy, fldPath *validation.Path) validation.ErrorList {
	if policy == corev1.DNSNone {
		if c == nil {
			return validation.ErrorList{validation.Required(fldPath, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(c.Nameservers) == 0 {
			return validation.ErrorList{validation.Required(fldPath.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")}
		}
	}
	if c == nil {
		return nil
	}
	var errs validation.ErrorList
	if len(c.Nameservers) > maxDNSNameservers {
		errs = append(errs, validation.Invalid(fldPath.Child("nameservers"), c.Nameservers, "must not have more than 3 nameservers"))
	}
	for i, ns := range c.Nameservers {
		errs = append(errs, validateLegacyIP(ns, fldPath.Child("nameservers").Index(i))...)
	}
	if len(c.Searches) > maxDNSSearchPaths {
		errs = append(errs, validation.Invalid(fldPath.Child("searches"), c.Searches, "must not have more than 32 search paths"))
	}
	if len(strings.Join(c.Searches, " ")) > maxDNSSearchListChars {
		errs = append(errs, validation.Invalid(fldPath.Child("searches"), c.Searches, "must not have more than 2048 characters (including spaces) in the search list"))
	}
	for i, s := range c.Searches {
		if s == "." {
			continue
		}
		s = strings.TrimSuffix(s, ".")
		for _, msg := range isDNS1123SubdomainWithUnderscore(s) {
			errs = append(errs, validation.Invalid(fldPath.Child("searches").Index(i), s, msg))
		}
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, validation.Required(fldPath.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

func validateSchedulingGates(gates []corev1.PodSchedulingGate, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := make(map[string]bool, len(gates))
	for i, g := range gates {
		errs = append(errs, validateQualifiedName(g.Name, fldPath.Index(i))...)
		if seen[g.Name] {
			errs = append(errs, validation.Duplicate(fldPath.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return errs
}

// validateHostUsers is kube's check of a pod in a user namespace (hostUsers: false).
func validateHostUsers(spec *corev1.PodSpec, fldPath *validation.Path) validation.ErrorList {
	if spec.HostUsers == nil || *spec.HostUsers {
		return nil
	}
	var errs validation.ErrorList
	if spec.HostNetwork {
		errs = append(errs, validation.Forbidden(fldPath.Child("hostNetwork"), "when `hostUsers` is false"))
	}
	if spec.HostPID {
		errs = append(errs, validation.Forbidden(fldPath.Child("HostPID"), "when `hostUsers` is false"))
	}
	if spec.HostIPC {
		errs = append(errs, validation.Forbidden(fldPath.Child("HostIPC"), "when `hostUsers` is false"))
	}
	visitContainers(spec, fldPath, func(c *corev1.Container, p *validation.Path) {
		if len(c.VolumeDevices) > 0 {
			errs = append(errs, validation.Forbidden(p.Child("volumeDevices"), "when `hostUsers` is false"))
		}
	})
	return errs
}

func validateHostnameOverride(spec *corev1.PodSpec, fldPath *validation.Path) validation.ErrorList {
	if spec.HostnameOverride == nil {
		return nil
	}
	var errs validation.ErrorList
	p := fldPath.Child("hostnameOverride")
	if spec.SetHostnameAsFQDN != nil && *spec.SetHostnameAsFQDN {
		errs = append(errs, validation.Forbidden(p, "may not be specified when setHostnameAsFQDN is true"))
	}
	if spec.HostNetwork {
		errs = append(errs, validation.Forbidden(p, "may not be specified when hostNetwork is true"))
	}
	if len(*spec.HostnameOverride) > 64 {
		errs = append(errs, validation.TooLong(p, "", 64))
	}
	return append(errs, validateDNS1123Subdomain(*spec.HostnameOverride, p)...)
}

// validateFileKeyRefVolumes checks that each env var read from a file names an
// emptyDir volume of the pod.
func validateFileKeyRefVolumes(spec *corev1.PodSpec, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	sources := make(map[string]*corev1.VolumeSource, len(spec.Volumes))
	for i := range spec.Volumes {
		sources[spec.Volumes[i].Name] = &spec.Volumes[i].VolumeSource
	}
	visitContainers(spec, fldPath, func(c *corev1.Container, p *validation.Path) {
		for j, e := range c.Env {
			if e.ValueFrom == nil || e.ValueFrom.FileKeyRef == nil {
				continue
			}
			name := e.ValueFrom.FileKeyRef.VolumeName
			np := p.Child("env").Index(j).Child("valueFrom", "fileKeyRef", "volumeName")
			if s, ok := sources[name]; !ok {
				errs = append(errs, validation.NotFound(np, name))
			} else if s.EmptyDir == nil {
				errs = append(errs, validation.Invalid(np, name, "referenced volume must be of type emptyDir"))
			}
		}
	})
	return errs
}

// visitContainers calls fn with each init, regular and ephemeral container of spec and
// its path, in kube's order (VisitContainersWithPath).
func visitContainers(spec *corev1.PodSpec, fldPath *validation.Path, fn func(c *corev1.Container, p *validation.Path)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i], fldPath.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i], fldPath.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		fn((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), fldPath.Child("ephemeralContainers").Index(i))
	}
}

// validateWindowsHostProcessPod is kube's rule for Windows HostProcess containers: all
// or none, on the host network, and the pod and container settings agree.
func validateWindowsHostProcessPod(spec *corev1.PodSpec, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	var podHostProcess *bool
	if spec.SecurityContext != nil && spec.SecurityContext.WindowsOptions != nil {
		podHostProcess = spec.SecurityContext.WindowsOptions.HostProcess
	}
	count, hostProcess := 0, 0
	visitContainers(spec, fldPath, func(c *corev1.Container, p *validation.Path) {
		count++
		var ctr *bool
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			ctr = c.SecurityContext.WindowsOptions.HostProcess
		}
		if podHostProcess != nil && ctr != nil && *podHostProcess != *ctr {
			errs = append(errs, validation.Invalid(p.Child("securityContext", "windowsOptions", "hostProcess"), *ctr,
				"pod hostProcess value must be identical if both are specified, was "+strconv.FormatBool(*podHostProcess)))
		}
		switch {
		case ctr != nil && *ctr:
			hostProcess++
		case ctr == nil && podHostProcess != nil && *podHostProcess:
			hostProcess++
		}
	})
	if hostProcess > 0 {
		if hostProcess != count {
			errs = append(errs, validation.Invalid(fldPath, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
		}
		if !spec.HostNetwork {
			errs = append(errs, validation.Invalid(fldPath.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers"))
		}
	}
	return errs
}

// validateLinuxPod is kube's validateLinux: a pod for Linux sets no Windows options.
func validateLinuxPod(spec *corev1.PodSpec, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if sc := spec.SecurityContext; sc != nil && sc.WindowsOptions != nil {
		errs = append(errs, validation.Forbidden(fldPath.Child("securityContext").Child("windowsOptions"), "windows options cannot be set for a linux pod"))
	}
	visitContainers(spec, fldPath, func(c *corev1.Container, p *validation.Path) {
		if sc := c.SecurityContext; sc != nil && sc.WindowsOptions != nil {
			errs = append(errs, validation.Forbidden(p.Child("securityContext", "windowsOptions"), "windows options cannot be set for a linux pod"))
		}
	})
	return errs
}
