package strategies

import (
	"maps"
	"net"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// containerContext is what kube's container checks need to know of the pod.
type containerContext struct {
	volumes       map[string]corev1.VolumeSource // the valid volumes, by name
	claimNames    map[string]bool                // the names of spec.resourceClaims
	grace         *int64                         // terminationGracePeriodSeconds
	os            *corev1.PodOS
	restartPolicy corev1.RestartPolicy
	hostUsers     bool
}

func (c containerContext) validateContainers(containers []corev1.Container, fldPath *validation.Path) validation.ErrorList {
	if len(containers) == 0 {
		return validation.ErrorList{validation.Required(fldPath, "")}
	}
	var errs validation.ErrorList
	names := make(map[string]bool, len(containers))
	for i := range containers {
		ctr := &containers[i]
		path := fldPath.Index(i)
		errs = append(errs, c.validateContainerCommon(ctr, path)...)
		if names[ctr.Name] {
			errs = append(errs, validation.Duplicate(path.Child("name"), ctr.Name))
		} else {
			names[ctr.Name] = true
		}
		if ctr.Lifecycle != nil {
			errs = append(errs, c.validateLifecycle(ctr.Lifecycle, path.Child("lifecycle"))...)
		}
		errs = append(errs, c.validateLivenessProbe(ctr.LivenessProbe, path.Child("livenessProbe"))...)
		errs = append(errs, c.validateReadinessProbe(ctr.ReadinessProbe, path.Child("readinessProbe"))...)
		errs = append(errs, c.validateStartupProbe(ctr.StartupProbe, path.Child("startupProbe"))...)
		errs = append(errs, validateContainerRestartPolicy(ctr.RestartPolicy, ctr.RestartPolicyRules, path)...)
	}
	return append(errs, hostPortConflicts(containers, fldPath, map[string]bool{})...)
}

func (c containerContext) validateInitContainers(containers, regular []corev1.Container, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	names := make(map[string]bool, len(containers)+len(regular))
	for _, r := range regular {
		names[r.Name] = true
	}
	for i := range containers {
		ctr := &containers[i]
		path := fldPath.Index(i)
		errs = append(errs, c.validateContainerCommon(ctr, path)...)
		errs = append(errs, validateInitContainerRestartPolicy(ctr.RestartPolicy, ctr.RestartPolicyRules, path)...)
		restartAlways := ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if names[ctr.Name] {
			errs = append(errs, validation.Duplicate(path.Child("name"), ctr.Name))
		} else if ctr.Name != "" {
			names[ctr.Name] = true
		}
		errs = append(errs, hostPortConflicts(containers[i:i+1], fldPath, map[string]bool{})...)
		if restartAlways {
			if ctr.Lifecycle != nil {
				errs = append(errs, c.validateLifecycle(ctr.Lifecycle, path.Child("lifecycle"))...)
			}
			errs = append(errs, c.validateLivenessProbe(ctr.LivenessProbe, path.Child("livenessProbe"))...)
			errs = append(errs, c.validateReadinessProbe(ctr.ReadinessProbe, path.Child("readinessProbe"))...)
			errs = append(errs, c.validateStartupProbe(ctr.StartupProbe, path.Child("startupProbe"))...)
		} else {
			const msg = "may not be set for init containers without restartPolicy=Always"
			if ctr.Lifecycle != nil {
				errs = append(errs, validation.Forbidden(path.Child("lifecycle"), msg))
			}
			if ctr.LivenessProbe != nil {
				errs = append(errs, validation.Forbidden(path.Child("livenessProbe"), msg))
			}
			if ctr.ReadinessProbe != nil {
				errs = append(errs, validation.Forbidden(path.Child("readinessProbe"), msg))
			}
			if ctr.StartupProbe != nil {
				errs = append(errs, validation.Forbidden(path.Child("startupProbe"), msg))
			}
			for j, p := range ctr.ResizePolicy {
				if p.RestartPolicy == corev1.RestartContainer {
					errs = append(errs, validation.Invalid(path.Child("resizePolicy").Index(j).Child("restartPolicy"), string(p.RestartPolicy),
						"must not be set to 'RestartContainer' for non-sidecar initContainers"))
				}
			}
		}
	}
	return errs
}

// ephemeralContainerFields are the fields an ephemeral container may set, by Go name
// (kube's allowedEphemeralContainerFields).
var ephemeralContainerFields = map[string]bool{
	"Name": true, "Image": true, "Command": true, "Args": true, "WorkingDir": true, "EnvFrom": true, "Env": true,
	"VolumeMounts": true, "VolumeDevices": true, "TerminationMessagePath": true, "TerminationMessagePolicy": true,
	"ImagePullPolicy": true, "SecurityContext": true, "Stdin": true, "StdinOnce": true, "TTY": true,
}

func (c containerContext) validateEphemeralContainers(ephemeral []corev1.EphemeralContainer, regular, init []corev1.Container, fldPath *validation.Path) validation.ErrorList {
	if len(ephemeral) == 0 {
		return nil
	}
	var errs validation.ErrorList
	others, all := map[string]bool{}, map[string]bool{}
	for _, r := range regular {
		others[r.Name], all[r.Name] = true, true
	}
	for _, r := range init {
		others[r.Name], all[r.Name] = true, true
	}
	for i := range ephemeral {
		ec := &ephemeral[i]
		path := fldPath.Index(i)
		ctr := (*corev1.Container)(&ec.EphemeralContainerCommon)
		errs = append(errs, c.validateContainerCommon(ctr, path)...)
		errs = append(errs, validateImageWhitespace(ctr, path)...)
		if all[ec.Name] {
			errs = append(errs, validation.Duplicate(path.Child("name"), ec.Name))
		} else {
			all[ec.Name] = true
		}
		if ec.TargetContainerName != "" && !others[ec.TargetContainerName] {
			errs = append(errs, validation.NotFound(path.Child("targetContainerName"), ec.TargetContainerName))
		}
		v := reflect.ValueOf(ec.EphemeralContainerCommon)
		for f := 0; f < v.NumField(); f++ {
			sf := v.Type().Field(f)
			if ephemeralContainerFields[sf.Name] || v.Field(f).IsZero() {
				continue
			}
			r, n := utf8.DecodeRuneInString(sf.Name)
			errs = append(errs, validation.Forbidden(path.Child(string(unicode.ToLower(r))+sf.Name[n:]), "cannot be set for an Ephemeral Container"))
		}
		for j, vm := range ec.VolumeMounts {
			if vm.SubPath != "" {
				errs = append(errs, validation.Forbidden(path.Child("volumeMounts").Index(j).Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if vm.SubPathExpr != "" {
				errs = append(errs, validation.Forbidden(path.Child("volumeMounts").Index(j).Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}

// validateImageWhitespace is kube's validateContainerOnlyForPod: a pod's image has no
// surrounding whitespace (templates may, for backward compatibility).
func validateImageWhitespace(ctr *corev1.Container, path *validation.Path) validation.ErrorList {
	if len(ctr.Image) != len(strings.TrimSpace(ctr.Image)) {
		return validation.ErrorList{validation.Invalid(path.Child("image"), ctr.Image, "must not have leading or trailing whitespace")}
	}
	return nil
}

// validateContainerCommon is kube's validateContainerCommon, the checks every kind of
// container shares.
func (c containerContext) validateContainerCommon(ctr *corev1.Container, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if ctr.Name == "" {
		errs = append(errs, validation.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, validateDNS1123Label(ctr.Name, path.Child("name"))...)
	}
	if ctr.Image == "" {
		errs = append(errs, validation.Required(path.Child("image"), ""))
	}
	switch ctr.TerminationMessagePolicy {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	case "":
		errs = append(errs, validation.Required(path.Child("terminationMessagePolicy"), ""))
	default:
		errs = append(errs, validation.NotSupported(path.Child("terminationMessagePolicy"), string(ctr.TerminationMessagePolicy), []string{"File", "FallbackToLogsOnError"}))
	}
	mounts := make(map[string]string, len(ctr.VolumeMounts))
	for _, m := range ctr.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	devices := make(map[string]string, len(ctr.VolumeDevices))
	for _, d := range ctr.VolumeDevices {
		devices[d.Name] = d.DevicePath
	}
	errs = append(errs, validateContainerPorts(ctr.Ports, path.Child("ports"))...)
	errs = append(errs, validateEnv(ctr.Env, path.Child("env"))...)
	errs = append(errs, validateEnvFrom(ctr.EnvFrom, path.Child("envFrom"))...)
	errs = append(errs, c.validateVolumeMounts(ctr, devices, path.Child("volumeMounts"))...)
	errs = append(errs, c.validateVolumeDevices(ctr.VolumeDevices, mounts, path.Child("volumeDevices"))...)
	errs = append(errs, validatePullPolicy(ctr.ImagePullPolicy, path.Child("imagePullPolicy"))...)
	errs = append(errs, validateResourceRequirements(&ctr.Resources, validateContainerResourceName, c.claimNames, path.Child("resources"))...)
	errs = append(errs, validateResizePolicy(ctr.ResizePolicy, path.Child("resizePolicy"), c.restartPolicy)...)
	errs = append(errs, validateSecurityContext(ctr.SecurityContext, path.Child("securityContext"), c.hostUsers)...)
	return errs
}

func validatePullPolicy(p corev1.PullPolicy, path *validation.Path) validation.ErrorList {
	switch p {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return nil
	case "":
		return validation.ErrorList{validation.Required(path, "")}
	}
	return validation.ErrorList{validation.NotSupported(path, string(p), []string{"Always", "IfNotPresent", "Never"})}
}

// isValidPortName is apimachinery's IsValidPortName (an IANA_SVC_NAME).
func isValidPortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, "must be no more than 15 characters")
	}
	charset, letter := port != "", false
	for i := 0; i < len(port); i++ {
		switch b := port[i]; {
		case b >= 'a' && b <= 'z':
			letter = true
		case b >= '0' && b <= '9', b == '-':
		default:
			charset = false
		}
	}
	if !charset {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !letter {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if port != "" && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

var portRangeError = inclusiveRangeError(1, 65535)

func validateContainerPorts(ports []corev1.ContainerPort, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	names := map[string]bool{}
	for i, p := range ports {
		path := fldPath.Index(i)
		if p.Name != "" {
			if msgs := isValidPortName(p.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, validation.Invalid(path.Child("name"), p.Name, msg))
				}
			} else if names[p.Name] {
				errs = append(errs, validation.Duplicate(path.Child("name"), p.Name))
			} else {
				names[p.Name] = true
			}
		}
		if p.ContainerPort == 0 {
			errs = append(errs, validation.Required(path.Child("containerPort"), ""))
		} else if p.ContainerPort < 1 || p.ContainerPort > 65535 {
			errs = append(errs, validation.Invalid(path.Child("containerPort"), int64(p.ContainerPort), portRangeError))
		}
		if p.HostPort != 0 && (p.HostPort < 1 || p.HostPort > 65535) {
			errs = append(errs, validation.Invalid(path.Child("hostPort"), int64(p.HostPort), portRangeError))
		}
		switch p.Protocol {
		case corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP:
		case "":
			errs = append(errs, validation.Required(path.Child("protocol"), ""))
		default:
			errs = append(errs, validation.NotSupported(path.Child("protocol"), string(p.Protocol), []string{"SCTP", "TCP", "UDP"}))
		}
	}
	return errs
}

// hostPortConflicts is kube's AccumulateUniqueHostPorts: protocol, hostIP and hostPort
// together are unique.
func hostPortConflicts(containers []corev1.Container, fldPath *validation.Path, seen map[string]bool) validation.ErrorList {
	var errs validation.ErrorList
	for ci, c := range containers {
		for pi, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			key := string(p.Protocol) + "/" + p.HostIP + "/" + strconv.Itoa(int(p.HostPort))
			if seen[key] {
				errs = append(errs, validation.Duplicate(fldPath.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			} else {
				seen[key] = true
			}
		}
	}
	return errs
}

// isRelaxedEnvVarName is apimachinery's IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation is GA).
func isRelaxedEnvVarName(v string) []string {
	var errs []string
	if v == "" {
		errs = append(errs, "environment variable name must be non-empty")
	}
	for _, r := range v {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == '=' {
			errs = append(errs, "a valid environment variable name must consist only of printable ASCII characters other than '='")
			break
		}
	}
	return errs
}

var envFieldPaths = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}

var volumeFieldPaths = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}

var containerResourceFieldPaths = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"}

func validateEnv(vars []corev1.EnvVar, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, ev := range vars {
		path := fldPath.Index(i)
		if ev.Name == "" {
			errs = append(errs, validation.Required(path.Child("name"), ""))
		} else {
			for _, msg := range isRelaxedEnvVarName(ev.Name) {
				errs = append(errs, validation.Invalid(path.Child("name"), ev.Name, msg))
			}
		}
		errs = append(errs, validateEnvVarValueFrom(ev, path.Child("valueFrom"))...)
	}
	return errs
}

func validateEnvVarValueFrom(ev corev1.EnvVar, fldPath *validation.Path) validation.ErrorList {
	from := ev.ValueFrom
	if from == nil {
		return nil
	}
	var errs validation.ErrorList
	n := 0
	if from.FieldRef != nil {
		n++
		errs = append(errs, validateObjectFieldSelector(from.FieldRef, envFieldPaths, fldPath.Child("fieldRef"))...)
	}
	if from.ResourceFieldRef != nil {
		n++
		errs = append(errs, validateContainerResourceFieldSelector(from.ResourceFieldRef, fldPath.Child("resourceFieldRef"), false)...)
	}
	if from.ConfigMapKeyRef != nil {
		n++
		errs = append(errs, validateKeySelector(from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if from.SecretKeyRef != nil {
		n++
		errs = append(errs, validateKeySelector(from.SecretKeyRef.Name, from.SecretKeyRef.Key, fldPath.Child("secretKeyRef"))...)
	}
	if from.FileKeyRef != nil {
		n++
		errs = append(errs, validateFileKeySelector(from.FileKeyRef, fldPath.Child("fileKeyRef"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, validation.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case ev.Value != "":
		errs = append(errs, validation.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case n > 1:
		errs = append(errs, validation.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return errs
}

// validateObjectFieldSelector checks a downward API field reference: apiVersion and
// fieldPath set, the path one of expressions or a subscripted labels/annotations path.
func validateObjectFieldSelector(fs *corev1.ObjectFieldSelector, expressions []string, fldPath *validation.Path) validation.ErrorList {
	if fs.APIVersion == "" {
		return validation.ErrorList{validation.Required(fldPath.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return validation.ErrorList{validation.Required(fldPath.Child("fieldPath"), "")}
	}
	if fs.APIVersion != "v1" {
		return validation.ErrorList{validation.Invalid(fldPath.Child("fieldPath"), fs.FieldPath,
			"error converting fieldPath: unsupported pod version: "+fs.APIVersion)}
	}
	path, subscript, ok := splitSubscriptedPath(fs.FieldPath)
	if ok {
		switch path {
		case "metadata.annotations":
			return validateQualifiedName(strings.ToLower(subscript), fldPath)
		case "metadata.labels":
			return validateQualifiedName(subscript, fldPath)
		}
		return validation.ErrorList{validation.Invalid(fldPath.Child("fieldPath"), fs.FieldPath,
			"error converting fieldPath: field label does not support subscript: "+fs.FieldPath)}
	}
	switch path {
	case "spec.host":
		// kube converts the v1 clients' old name.
		path = "spec.nodeName"
	case "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
		"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
	default:
		return validation.ErrorList{validation.Invalid(fldPath.Child("fieldPath"), fs.FieldPath,
			"error converting fieldPath: field label not supported: "+fs.FieldPath)}
	}
	if !slices.Contains(expressions, path) {
		return validation.ErrorList{validation.NotSupported(fldPath.Child("fieldPath"), path, expressions)}
	}
	return nil
}

// splitSubscriptedPath is kube's fieldpath.SplitMaybeSubscriptedPath:
// "metadata.labels['app']" is ("metadata.labels", "app", true).
func splitSubscriptedPath(p string) (string, string, bool) {
	if !strings.HasSuffix(p, "']") {
		return p, "", false
	}
	s := strings.TrimSuffix(p, "']")
	parts := strings.SplitN(s, "['", 2)
	if len(parts) < 2 || len(parts[0]) == 0 {
		return p, "", false
	}
	return parts[0], parts[1], true
}

var (
	cpuDivisors    = []string{"1m", "1"}
	memoryDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)

func validateContainerResourceFieldSelector(fs *corev1.ResourceFieldSelector, fldPath *validation.Path, volume bool) validation.ErrorList {
	var errs validation.ErrorList
	switch {
	case volume && fs.ContainerName == "":
		errs = append(errs, validation.Required(fldPath.Child("containerName"), ""))
	case fs.Resource == "":
		errs = append(errs, validation.Required(fldPath.Child("resource"), ""))
	case !slices.Contains(containerResourceFieldPaths, fs.Resource) &&
		!strings.HasPrefix(fs.Resource, "limits.hugepages-") && !strings.HasPrefix(fs.Resource, "requests.hugepages-"):
		errs = append(errs, validation.NotSupported(fldPath.Child("resource"), fs.Resource, containerResourceFieldPaths))
	}
	if fs.Divisor.IsZero() {
		return errs
	}
	d := fs.Divisor.String()
	var kind string
	switch fs.Resource {
	case "limits.cpu", "requests.cpu":
		if !slices.Contains(cpuDivisors, d) {
			errs = append(errs, validation.Invalid(fldPath.Child("divisor"), fs.Resource, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory":
		kind = "memory"
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		kind = "local ephemeral storage"
	}
	if kind != "" && !slices.Contains(memoryDivisors, d) {
		errs = append(errs, validation.Invalid(fldPath.Child("divisor"), fs.Resource,
			"only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the "+kind+" resource"))
	}
	if (strings.HasPrefix(fs.Resource, "requests.hugepages-") || strings.HasPrefix(fs.Resource, "limits.hugepages-")) && !slices.Contains(memoryDivisors, d) {
		errs = append(errs, validation.Invalid(fldPath.Child("divisor"), fs.Resource,
			"only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource"))
	}
	return errs
}

// configMapKeyErrors (builtin.go) is kube's IsConfigMapKey.

func validateKeySelector(name, key string, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, validation.Invalid(fldPath.Child("name"), name, msg))
	}
	if key == "" {
		errs = append(errs, validation.Required(fldPath.Child("key"), ""))
	} else {
		for _, msg := range configMapKeyErrors(key) {
			errs = append(errs, validation.Invalid(fldPath.Child("key"), key, msg))
		}
	}
	return errs
}

func validateFileKeySelector(s *corev1.FileKeySelector, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if s.Key == "" {
		errs = append(errs, validation.Required(fldPath.Child("key"), ""))
	} else {
		for _, msg := range isRelaxedEnvVarName(s.Key) {
			errs = append(errs, validation.Invalid(fldPath.Child("key"), s.Key, msg))
		}
	}
	if s.VolumeName == "" {
		errs = append(errs, validation.Required(fldPath.Child("volumeName"), ""))
	} else {
		errs = append(errs, validateDNS1123Label(s.VolumeName, fldPath.Child("volumeName"))...)
	}
	if s.Path == "" {
		errs = append(errs, validation.Required(fldPath.Child("path"), ""))
	} else {
		errs = append(errs, validatePathNoBacksteps(s.Path, fldPath.Child("path"))...)
	}
	return errs
}

func validateEnvFrom(vars []corev1.EnvFromSource, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for i, ev := range vars {
		path := fldPath.Index(i)
		if ev.Prefix != "" {
			for _, msg := range isRelaxedEnvVarName(ev.Prefix) {
				errs = append(errs, validation.Invalid(path.Child("prefix"), ev.Prefix, msg))
			}
		}
		n := 0
		if ev.ConfigMapRef != nil {
			n++
			errs = append(errs, validateEnvSourceName(ev.ConfigMapRef.Name, path.Child("configMapRef"))...)
		}
		if ev.SecretRef != nil {
			n++
			errs = append(errs, validateEnvSourceName(ev.SecretRef.Name, path.Child("secretRef"))...)
		}
		switch {
		case n == 0:
			errs = append(errs, validation.Invalid(fldPath, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, validation.Invalid(fldPath, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

func validateEnvSourceName(name string, fldPath *validation.Path) validation.ErrorList {
	if name == "" {
		return validation.ErrorList{validation.Required(fldPath.Child("name"), "")}
	}
	var errs validation.ErrorList
	for _, msg := range validation.NameIsDNSSubdomain(name, true) {
		errs = append(errs, validation.Invalid(fldPath.Child("name"), name, msg))
	}
	return errs
}

func (c containerContext) validateVolumeMounts(ctr *corev1.Container, devices map[string]string, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	points := map[string]bool{}
	for i, m := range ctr.VolumeMounts {
		path := fldPath.Index(i)
		if m.Name == "" {
			errs = append(errs, validation.Required(path.Child("name"), ""))
		}
		if _, ok := c.volumes[m.Name]; !ok {
			errs = append(errs, validation.NotFound(path.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, validation.Required(path.Child("mountPath"), ""))
		}
		if points[m.MountPath] {
			errs = append(errs, validation.Invalid(path.Child("mountPath"), m.MountPath, "must be unique"))
		}
		points[m.MountPath] = true
		if _, ok := devices[m.Name]; ok {
			errs = append(errs, validation.Invalid(path.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		if slices.Contains(slices.Collect(maps.Values(devices)), m.MountPath) {
			errs = append(errs, validation.Invalid(path.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
		}
		// kube reports subPath, subPathExpr and mountPropagation at the list's path.
		if m.SubPath != "" {
			errs = append(errs, validateLocalDescendingPath(m.SubPath, fldPath.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, validation.Invalid(path.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, validateLocalDescendingPath(m.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			errs = append(errs, validateMountPropagation(*m.MountPropagation, ctr, fldPath.Child("mountPropagation"))...)
		}
		errs = append(errs, validateRecursiveReadOnly(m, fldPath.Child("recursiveReadOnly"))...)
		errs = append(errs, validateBindMountOptions(m.BindMountOptions, path.Child("bindMountOptions"))...)
		if len(m.BindMountOptions) > 0 {
			if vs, ok := c.volumes[m.Name]; ok && vs.Image != nil {
				errs = append(errs, validation.Invalid(path.Child("bindMountOptions"), m.BindMountOptions, "bindMountOptions may not be used with image volumes"))
			}
		}
	}
	return errs
}

func validateMountPropagation(p corev1.MountPropagationMode, ctr *corev1.Container, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	switch p {
	case corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone:
	default:
		errs = append(errs, validation.NotSupported(path, string(p), []string{"Bidirectional", "HostToContainer", "None"}))
	}
	privileged := ctr.SecurityContext != nil && ctr.SecurityContext.Privileged != nil && *ctr.SecurityContext.Privileged
	if p == corev1.MountPropagationBidirectional && !privileged {
		errs = append(errs, validation.Forbidden(path, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

func validateRecursiveReadOnly(m corev1.VolumeMount, path *validation.Path) validation.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	var errs validation.ErrorList
	switch *m.RecursiveReadOnly {
	case corev1.RecursiveReadOnlyDisabled:
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			errs = append(errs, validation.Forbidden(path, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			errs = append(errs, validation.Forbidden(path, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		errs = append(errs, validation.NotSupported(path, string(*m.RecursiveReadOnly), []string{"Disabled", "Enabled", "IfPossible"}))
	}
	return errs
}

func validateBindMountOptions(opts []string, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, o := range opts {
		if o != "noexec" && o != "nodev" && o != "nosuid" {
			errs = append(errs, validation.NotSupported(fldPath.Index(i), o, []string{"nodev", "noexec", "nosuid"}))
		}
		if seen[o] {
			errs = append(errs, validation.Duplicate(fldPath.Index(i), o))
		}
		seen[o] = true
	}
	return errs
}

func (c containerContext) validateVolumeDevices(devices []corev1.VolumeDevice, mounts map[string]string, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	paths, names := map[string]bool{}, map[string]bool{}
	for i, d := range devices {
		path := fldPath.Index(i)
		src, matched := c.volumes[d.Name]
		isPVC := matched && (src.PersistentVolumeClaim != nil || src.Ephemeral != nil)
		if d.Name == "" {
			errs = append(errs, validation.Required(path.Child("name"), ""))
		}
		if names[d.Name] {
			errs = append(errs, validation.Invalid(path.Child("name"), d.Name, "must be unique"))
		}
		if matched && !isPVC {
			errs = append(errs, validation.Invalid(path.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if !matched {
			errs = append(errs, validation.NotFound(path.Child("name"), d.Name))
		}
		if d.DevicePath == "" {
			errs = append(errs, validation.Required(path.Child("devicePath"), ""))
		}
		if paths[d.DevicePath] {
			errs = append(errs, validation.Invalid(path.Child("devicePath"), d.DevicePath, "must be unique"))
		}
		if d.DevicePath != "" && hasBacksteps(d.DevicePath) {
			errs = append(errs, validation.Invalid(path.Child("devicePath"), d.DevicePath, "can not contain backsteps ('..')"))
		} else {
			paths[d.DevicePath] = true
		}
		if _, ok := mounts[d.Name]; ok {
			errs = append(errs, validation.Invalid(path.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		if slices.Contains(slices.Collect(maps.Values(mounts)), d.DevicePath) {
			errs = append(errs, validation.Invalid(path.Child("devicePath"), d.DevicePath, "must not already exist as a path in volumeMounts"))
		}
		if d.Name != "" {
			names[d.Name] = true
		}
	}
	return errs
}

func (c containerContext) validateLivenessProbe(p *corev1.Probe, path *validation.Path) validation.ErrorList {
	if p == nil {
		return nil
	}
	errs := c.validateProbe(p, path)
	if p.SuccessThreshold != 1 {
		errs = append(errs, validation.Invalid(path.Child("successThreshold"), int64(p.SuccessThreshold), "must be 1"))
	}
	return errs
}

func (c containerContext) validateReadinessProbe(p *corev1.Probe, path *validation.Path) validation.ErrorList {
	if p == nil {
		return nil
	}
	errs := c.validateProbe(p, path)
	if p.TerminationGracePeriodSeconds != nil {
		errs = append(errs, validation.Invalid(path.Child("terminationGracePeriodSeconds"), *p.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
	}
	return errs
}

func (c containerContext) validateStartupProbe(p *corev1.Probe, path *validation.Path) validation.ErrorList {
	if p == nil {
		return nil
	}
	errs := c.validateProbe(p, path)
	if p.SuccessThreshold != 1 {
		errs = append(errs, validation.Invalid(path.Child("successThreshold"), int64(p.SuccessThreshold), "must be 1"))
	}
	return errs
}

func (c containerContext) validateProbe(p *corev1.Probe, path *validation.Path) validation.ErrorList {
	h := p.ProbeHandler
	errs := c.validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, grpc: h.GRPC}, path)
	errs = append(errs, validateNonnegative(int64(p.InitialDelaySeconds), path.Child("initialDelaySeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.TimeoutSeconds), path.Child("timeoutSeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.PeriodSeconds), path.Child("periodSeconds"))...)
	errs = append(errs, validateNonnegative(int64(p.SuccessThreshold), path.Child("successThreshold"))...)
	errs = append(errs, validateNonnegative(int64(p.FailureThreshold), path.Child("failureThreshold"))...)
	if g := p.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, validation.Invalid(path.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

// handler is kube's commonHandler: the actions of a probe or a lifecycle hook.
type handler struct {
	exec      *corev1.ExecAction
	httpGet   *corev1.HTTPGetAction
	tcpSocket *corev1.TCPSocketAction
	grpc      *corev1.GRPCAction
	sleep     *corev1.SleepAction
}

func (c containerContext) validateHandler(h handler, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	n := 0
	one := func(set bool, name string, check func() validation.ErrorList) {
		if !set {
			return
		}
		if n > 0 {
			errs = append(errs, validation.Forbidden(path.Child(name), "may not specify more than 1 handler type"))
			return
		}
		n++
		errs = append(errs, check()...)
	}
	one(h.exec != nil, "exec", func() validation.ErrorList {
		if len(h.exec.Command) == 0 {
			return validation.ErrorList{validation.Required(path.Child("exec", "command"), "")}
		}
		return nil
	})
	one(h.httpGet != nil, "httpGet", func() validation.ErrorList { return validateHTTPGetAction(h.httpGet, path.Child("httpGet")) })
	one(h.tcpSocket != nil, "tcpSocket", func() validation.ErrorList {
		return validatePortNumOrName(h.tcpSocket.Port, path.Child("tcpSocket", "port"))
	})
	one(h.grpc != nil, "grpc", func() validation.ErrorList {
		errs := validatePortNumOrName(scheme.IntOrString{IntVal: h.grpc.Port}, path.Child("grpc", "port"))
		if m := h.grpc.Mode; m != nil && *m != corev1.GRPCProbeModePlaintext && *m != corev1.GRPCProbeModeTLS {
			errs = append(errs, validation.NotSupported(path.Child("grpc", "mode"), string(*m), []string{"Plaintext", "TLS"}))
		}
		return errs
	})
	one(h.sleep != nil, "sleep", func() validation.ErrorList {
		if g := c.grace; g != nil && (h.sleep.Seconds < 0 || h.sleep.Seconds > *g) {
			return validation.ErrorList{validation.Invalid(path.Child("sleep"), h.sleep.Seconds,
				"must be non-negative and less than terminationGracePeriodSeconds ("+strconv.FormatInt(*g, 10)+")")}
		}
		return nil
	})
	if n == 0 {
		errs = append(errs, validation.Required(path, "must specify a handler type"))
	}
	return errs
}

// httpHeaderName is apimachinery's IsHTTPHeaderName pattern.
var httpHeaderName = regexp.MustCompile(`^[-A-Za-z0-9]+$`)

func validateHTTPGetAction(h *corev1.HTTPGetAction, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if h.Path == "" {
		errs = append(errs, validation.Required(path.Child("path"), ""))
	}
	errs = append(errs, validatePortNumOrName(h.Port, path.Child("port"))...)
	if h.Scheme != corev1.URISchemeHTTP && h.Scheme != corev1.URISchemeHTTPS {
		errs = append(errs, validation.NotSupported(path.Child("scheme"), string(h.Scheme), []string{"HTTP", "HTTPS"}))
	}
	for _, hdr := range h.HTTPHeaders {
		if !httpHeaderName.MatchString(hdr.Name) {
			errs = append(errs, validation.Invalid(path.Child("httpHeaders"), hdr.Name,
				"a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"))
		}
	}
	if p := h.Protocol; p != nil {
		switch {
		case *p != corev1.HTTPProtocolHTTP1 && *p != corev1.HTTPProtocolHTTP2:
			errs = append(errs, validation.NotSupported(path.Child("protocol"), string(*p), []string{"HTTP/1.1", "HTTP2"}))
		case *p == corev1.HTTPProtocolHTTP2 && h.Scheme != corev1.URISchemeHTTP:
			errs = append(errs, validation.Invalid(path.Child("protocol"), string(*p), "is only supported with HTTP (H2C)"))
		case *p == corev1.HTTPProtocolHTTP2 && h.Host != "":
			errs = append(errs, validation.Invalid(path.Child("host"), h.Host, "must be empty when `protocol` is \"HTTP2\""))
		}
	}
	return errs
}

func validatePortNumOrName(port scheme.IntOrString, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if port.Type == scheme.Int {
		if port.IntVal < 1 || port.IntVal > 65535 {
			errs = append(errs, validation.Invalid(path, int64(port.IntVal), portRangeError))
		}
		return errs
	}
	for _, msg := range isValidPortName(port.StrVal) {
		errs = append(errs, validation.Invalid(path, port.StrVal, msg))
	}
	return errs
}

// linuxStopSignals are the stop signals kube accepts for a Linux pod, in its order.
var linuxStopSignals = func() []string {
	s := []string{"SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL", "SIGINT", "SIGIO", "SIGIOT",
		"SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT", "SIGRTMAX", "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP",
		"SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU", "SIGXFSZ", "SIGRTMIN"}
	for i := 1; i <= 15; i++ {
		s = append(s, "SIGRTMIN+"+strconv.Itoa(i))
	}
	for i := 1; i <= 14; i++ {
		s = append(s, "SIGRTMAX-"+strconv.Itoa(i))
	}
	slices.Sort(s)
	return s
}()

func (c containerContext) validateLifecycle(l *corev1.Lifecycle, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if h := l.PostStart; h != nil {
		errs = append(errs, c.validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, sleep: h.Sleep}, path.Child("postStart"))...)
	}
	if h := l.PreStop; h != nil {
		errs = append(errs, c.validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, sleep: h.Sleep}, path.Child("preStop"))...)
	}
	if s := l.StopSignal; s != nil {
		p := path.Child("stopSignal")
		switch {
		case c.os == nil:
			errs = append(errs, validation.Forbidden(p, "may not be set for containers with empty `spec.os.name`"))
		case c.os.Name == corev1.Windows:
			if *s != "SIGKILL" && *s != "SIGTERM" {
				errs = append(errs, validation.NotSupported(p, string(*s), []string{"SIGKILL", "SIGTERM"}))
			}
		case c.os.Name == corev1.Linux:
			if !slices.Contains(linuxStopSignals, string(*s)) {
				errs = append(errs, validation.NotSupported(p, string(*s), linuxStopSignals))
			}
		}
	}
	return errs
}

func validateResizePolicy(policies []corev1.ContainerResizePolicy, fldPath *validation.Path, podRestart corev1.RestartPolicy) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[corev1.ResourceName]bool{}
	for i, p := range policies {
		if seen[p.ResourceName] {
			errs = append(errs, validation.Duplicate(fldPath.Index(i), string(p.ResourceName)))
		}
		seen[p.ResourceName] = true
		switch p.ResourceName {
		case corev1.ResourceCPU, corev1.ResourceMemory:
		case "":
			errs = append(errs, validation.Required(fldPath, ""))
		default:
			errs = append(errs, validation.NotSupported(fldPath, string(p.ResourceName), []string{"cpu", "memory"}))
		}
		switch p.RestartPolicy {
		case corev1.NotRequired, corev1.RestartContainer:
		case "":
			errs = append(errs, validation.Required(fldPath, ""))
		default:
			errs = append(errs, validation.NotSupported(fldPath, string(p.RestartPolicy), []string{"NotRequired", "RestartContainer"}))
		}
		if podRestart == corev1.RestartPolicyNever && p.RestartPolicy != corev1.NotRequired {
			errs = append(errs, validation.Invalid(fldPath, string(p.RestartPolicy), "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
		}
	}
	return errs
}

// validateContainerRestartPolicy is kube's check of a container's restartPolicy and
// restartPolicyRules (ContainerRestartRules and RestartAllContainersOnContainerExits
// are on by default in 1.37).
func validateContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	pp := fldPath.Child("restartPolicy")
	if policy == nil {
		if len(rules) == 0 {
			return nil
		}
		errs = append(errs, validation.Required(pp, "must specify restartPolicy when restart rules are used"))
	} else if p := *policy; p != corev1.ContainerRestartPolicyAlways && p != corev1.ContainerRestartPolicyNever && p != corev1.ContainerRestartPolicyOnFailure {
		errs = append(errs, validation.NotSupported(pp, string(p), []string{"Always", "Never", "OnFailure"}))
	}
	if len(rules) > 20 {
		errs = append(errs, validation.TooMany(fldPath.Child("restartPolicyRules"), len(rules), 20))
	}
	for i, r := range rules {
		rp := fldPath.Child("restartPolicyRules").Index(i)
		if r.Action != corev1.ContainerRestartRuleActionRestart && r.Action != corev1.ContainerRestartRuleActionRestartAllContainers {
			errs = append(errs, validation.NotSupported(rp.Child("action"), string(r.Action), []string{"Restart", "RestartAllContainers"}))
		}
		if r.ExitCodes == nil {
			errs = append(errs, validation.Required(rp.Child("exitCodes"), "must be specified"))
			continue
		}
		if op := r.ExitCodes.Operator; op != corev1.ContainerRestartRuleOnExitCodesOpIn && op != corev1.ContainerRestartRuleOnExitCodesOpNotIn {
			errs = append(errs, validation.NotSupported(rp.Child("exitCodes", "operator"), string(op), []string{"In", "NotIn"}))
		}
		if len(r.ExitCodes.Values) > 255 {
			errs = append(errs, validation.TooMany(rp.Child("exitCodes", "values"), len(r.ExitCodes.Values), 255))
		}
	}
	return errs
}

func validateInitContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, fldPath *validation.Path) validation.ErrorList {
	if policy == nil {
		if len(rules) > 0 {
			return validation.ErrorList{validation.Required(fldPath.Child("restartPolicy"), "must specify restartPolicy when restart rules are used")}
		}
		return nil
	}
	return validateContainerRestartPolicy(policy, rules, fldPath)
}

// The resource names kube knows (helper.standardResources and friends).
var (
	standardResources = []corev1.ResourceName{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
		"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
		"services", "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage",
		"requests.storage", "services.nodeports", "services.loadbalancers"}
	integerResources = []corev1.ResourceName{"pods", "resourcequotas", "services", "replicationcontrollers", "secrets",
		"configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
)

func isHugePageResource(n corev1.ResourceName) bool {
	return strings.HasPrefix(string(n), "hugepages-")
}

func isNativeResource(n corev1.ResourceName) bool {
	return !strings.Contains(string(n), "/") || strings.Contains(string(n), "kubernetes.io/")
}

func isExtendedResource(n corev1.ResourceName) bool {
	if isNativeResource(n) || strings.HasPrefix(string(n), "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+string(n))) == 0
}

func isOvercommitAllowed(n corev1.ResourceName) bool {
	return isNativeResource(n) && !isHugePageResource(n)
}

// validateResourceName is kube's validateResourceName: a qualified name, standard when
// it has no domain.
func validateResourceName(n corev1.ResourceName, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	for _, msg := range validation.IsQualifiedName(string(n)) {
		errs = append(errs, validation.Invalid(path, string(n), msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if !strings.Contains(string(n), "/") && !slices.Contains(standardResources, n) &&
		!strings.HasPrefix(string(n), "hugepages-") && !strings.HasPrefix(string(n), "requests.hugepages-") {
		errs = append(errs, validation.Invalid(path, string(n), "must be a standard resource type or fully qualified"))
	}
	return errs
}

func validateContainerResourceName(n corev1.ResourceName, path *validation.Path) validation.ErrorList {
	errs := validateResourceName(n, path)
	if !strings.Contains(string(n), "/") {
		if n != corev1.ResourceCPU && n != corev1.ResourceMemory && n != corev1.ResourceEphemeralStorage && !isHugePageResource(n) {
			errs = append(errs, validation.Invalid(path, string(n), "must be a standard resource for containers"))
		}
	} else if !isNativeResource(n) && !isExtendedResource(n) {
		errs = append(errs, validation.Invalid(path, string(n), "doesn't follow extended resource name standard"))
	}
	return errs
}

// podLevelResources are the resources a pod's spec.resources may hold (kube's
// SupportedPodLevelResources), in order.
var podLevelResources = []string{"cpu", "hugepages-", "memory"}

func validatePodResourceName(n corev1.ResourceName, path *validation.Path) validation.ErrorList {
	if errs := validateResourceName(n, path); len(errs) > 0 {
		return errs
	}
	if n != corev1.ResourceCPU && n != corev1.ResourceMemory && !isHugePageResource(n) {
		return validation.ErrorList{validation.NotSupported(path, string(n), podLevelResources)}
	}
	return nil
}

func validateResourceQuantityValue(n corev1.ResourceName, q quantity.Quantity, path *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, validation.Invalid(path, q.String(), isNegativeErrorMsg))
	}
	if (slices.Contains(integerResources, n) || isExtendedResource(n)) && q.MilliValue()%1000 != 0 {
		errs = append(errs, validation.Invalid(path, q.String(), "must be an integer"))
	}
	return errs
}

func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := slices.Collect(maps.Keys(l))
	slices.Sort(names)
	return names
}

// hugePageSize is the page size a hugepages-<size> resource names.
func hugePageSize(n corev1.ResourceName) (quantity.Quantity, bool) {
	q, err := quantity.Parse(strings.TrimPrefix(string(n), "hugepages-"))
	if err != nil || q.Sign() <= 0 || q.MilliValue()%1000 != 0 {
		return quantity.Quantity{}, false
	}
	return q, true
}

func hugePageDivisible(n corev1.ResourceName, q quantity.Quantity) bool {
	size, ok := hugePageSize(n)
	return ok && q.Value()%size.Value() == 0
}

// validateResourceRequirements is kube's validateResourceRequirements, names checked
// by nameFn (containers' or the pod's rule).
func validateResourceRequirements(r *corev1.ResourceRequirements, nameFn func(corev1.ResourceName, *validation.Path) validation.ErrorList,
	claimNames map[string]bool, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	limCPUMem, reqCPUMem, limHuge, reqHuge := false, false, false, false
	for _, name := range sortedResourceNames(r.Limits) {
		q := r.Limits[name]
		p := limPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validateResourceQuantityValue(name, q, p)...)
		if isHugePageResource(name) {
			limHuge = true
			if !hugePageDivisible(name, q) {
				errs = append(errs, validation.Invalid(p, q.String(), q.String()+" is not positive integer multiple of "+string(name)))
			}
		}
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
			limCPUMem = true
		}
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		p := reqPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, validateResourceQuantityValue(name, q, p)...)
		if limit, ok := r.Limits[name]; ok {
			if q.Cmp(limit) != 0 && !isOvercommitAllowed(name) {
				errs = append(errs, validation.Invalid(reqPath, q.String(), "must be equal to "+string(name)+" limit of "+limit.String()))
			} else if q.Cmp(limit) > 0 {
				errs = append(errs, validation.Invalid(reqPath, q.String(), "must be less than or equal to "+string(name)+" limit of "+limit.String()))
			}
		} else if !isOvercommitAllowed(name) {
			errs = append(errs, validation.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if isHugePageResource(name) {
			reqHuge = true
			if !hugePageDivisible(name, q) {
				errs = append(errs, validation.Invalid(p, q.String(), q.String()+" is not positive integer multiple of "+string(name)))
			}
		}
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory {
			reqCPUMem = true
		}
	}
	if !limCPUMem && !reqCPUMem && (reqHuge || limHuge) {
		errs = append(errs, validation.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	return append(errs, validateResourceClaimNames(r.Claims, claimNames, fldPath.Child("claims"))...)
}

func validateResourceClaimNames(claims []corev1.ResourceClaim, podClaims map[string]bool, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	names := map[string]bool{}
	for i, c := range claims {
		p := fldPath.Index(i)
		if c.Name == "" {
			errs = append(errs, validation.Required(p, ""))
			continue
		}
		if names[c.Name] {
			errs = append(errs, validation.Duplicate(p, c.Name))
		} else {
			key := c.Name
			if c.Request != "" {
				errs = append(errs, validateDNS1123Label(c.Request, p.Child("request"))...)
				key += "/" + c.Request
			}
			if names[key] {
				errs = append(errs, validation.Duplicate(p, key))
			} else if c.Request == "" {
				for k := range names {
					if before, _, ok := strings.Cut(k, "/"); ok && before == c.Name {
						errs = append(errs, validation.Duplicate(p, c.Name))
					}
				}
			}
			names[key] = true
		}
		if !podClaims[c.Name] {
			e := validation.NotFound(p, c.Name)
			e.Detail = "must be one of the names in pod.spec.resourceClaims"
			if len(podClaims) == 0 {
				e.Detail += " which is empty"
			} else {
				list := slices.Sorted(maps.Keys(podClaims))
				e.Detail += ": " + strings.Join(list, ", ")
			}
			errs = append(errs, e)
		}
	}
	return errs
}

func podClaimNames(claims []corev1.PodResourceClaim) map[string]bool {
	names := map[string]bool{}
	for _, c := range claims {
		if c.Name != "" {
			names[c.Name] = true
		}
	}
	return names
}

func validatePodResourceClaims(meta *scheme.ObjectMeta, claims []corev1.PodResourceClaim, fldPath *validation.Path) validation.ErrorList {
	var errs validation.ErrorList
	seen := map[string]bool{}
	for i, c := range claims {
		if meta != nil {
			if _, ok := meta.Annotations["kubernetes.io/config.mirror"]; ok {
				errs = append(errs, validation.Forbidden(validation.NewPath(""), "static pods do not support resource claims"))
				continue
			}
		}
		p := fldPath.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, validation.Required(p.Child("name"), ""))
		case seen[c.Name]:
			errs = append(errs, validation.Duplicate(p.Child("name"), c.Name))
		default:
			errs = append(errs, validateDNS1123Label(c.Name, p.Child("name"))...)
			seen[c.Name] = true
		}
		if c.ResourceClaimName != nil && c.ResourceClaimTemplateName != nil {
			errs = append(errs, validation.Invalid(p, badStruct(c), "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
		}
		if c.ResourceClaimName == nil && c.ResourceClaimTemplateName == nil {
			errs = append(errs, validation.Invalid(p, badStruct(c), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
		}
		if c.ResourceClaimName != nil {
			for _, msg := range validation.NameIsDNSSubdomain(*c.ResourceClaimName, false) {
				errs = append(errs, validation.Invalid(p.Child("resourceClaimName"), *c.ResourceClaimName, msg))
			}
		}
		if c.ResourceClaimTemplateName != nil {
			for _, msg := range validation.NameIsDNSSubdomain(*c.ResourceClaimTemplateName, false) {
				errs = append(errs, validation.Invalid(p.Child("resourceClaimTemplateName"), *c.ResourceClaimTemplateName, msg))
			}
		}
	}
	return errs
}

// validatePodLevelResources checks spec.resources (PodLevelResources is on by default).
func validatePodLevelResources(spec *corev1.PodSpec, claimNames map[string]bool, fldPath *validation.Path) validation.ErrorList {
	if spec.Resources == nil {
		return nil
	}
	p := fldPath.Child("resources")
	var errs validation.ErrorList
	if len(spec.Resources.Claims) > 0 {
		errs = append(errs, validation.Forbidden(p.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	r := *spec.Resources
	r.Claims = nil
	return append(errs, validateResourceRequirements(&r, validatePodResourceName, claimNames, p)...)
}

func validateSecurityContext(sc *corev1.SecurityContext, path *validation.Path, hostUsers bool) validation.ErrorList {
	if sc == nil {
		return nil
	}
	var errs validation.ErrorList
	if sc.RunAsUser != nil {
		errs = append(errs, validateID(*sc.RunAsUser, path.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		errs = append(errs, validateID(*sc.RunAsGroup, path.Child("runAsGroup"))...)
	}
	if pm := sc.ProcMount; pm != nil {
		if *pm != corev1.DefaultProcMount && *pm != corev1.UnmaskedProcMount {
			errs = append(errs, validation.NotSupported(path.Child("procMount"), string(*pm), []string{"Default", "Unmasked"}))
		}
		if hostUsers && *pm == corev1.UnmaskedProcMount {
			errs = append(errs, validation.Invalid(path.Child("procMount"), string(*pm), "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, path.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, validation.Invalid(path, badStruct(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, validation.Invalid(path, badStruct(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, path.Child("windowsOptions"))...)
	return append(errs, validateAppArmorProfile(sc.AppArmorProfile, path.Child("appArmorProfile"))...)
}

// validateID is apimachinery's IsValidUserID / IsValidGroupID: 0 to 2^31-1.
func validateID(id int64, path *validation.Path) validation.ErrorList {
	if id < 0 || id > 1<<31-1 {
		return validation.ErrorList{validation.Invalid(path, id, inclusiveRangeError(0, 1<<31-1))}
	}
	return nil
}

var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

func validatePodSecurityContext(sc *corev1.PodSecurityContext, path *validation.Path) validation.ErrorList {
	if sc == nil {
		return nil
	}
	var errs validation.ErrorList
	if sc.FSGroup != nil {
		errs = append(errs, validateID(*sc.FSGroup, path.Child("fsGroup"))...)
	}
	if sc.RunAsUser != nil {
		errs = append(errs, validateID(*sc.RunAsUser, path.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		errs = append(errs, validateID(*sc.RunAsGroup, path.Child("runAsGroup"))...)
	}
	for i, g := range sc.SupplementalGroups {
		errs = append(errs, validateID(g, path.Child("supplementalGroups").Index(i))...)
	}
	seen := map[string]bool{}
	for i, s := range sc.Sysctls {
		p := path.Child("sysctls").Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, validation.Required(p, ""))
		case len(s.Name) > 253 || !sysctlName.MatchString(s.Name):
			errs = append(errs, validation.Invalid(p, s.Name, "must have at most 253 characters and match regex "+sysctlName.String()))
		case seen[s.Name]:
			errs = append(errs, validation.Duplicate(p, s.Name))
		}
		seen[s.Name] = true
	}
	if p := sc.FSGroupChangePolicy; p != nil && *p != corev1.FSGroupChangeAlways && *p != corev1.FSGroupChangeOnRootMismatch {
		errs = append(errs, validation.NotSupported(path.Child("fsGroupChangePolicy"), string(*p), []string{"Always", "OnRootMismatch"}))
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, path.Child("seccompProfile"))...)
	errs = append(errs, validateWindowsOptions(sc.WindowsOptions, path.Child("windowsOptions"))...)
	errs = append(errs, validateAppArmorProfile(sc.AppArmorProfile, path.Child("appArmorProfile"))...)
	if p := sc.SupplementalGroupsPolicy; p != nil && *p != corev1.SupplementalGroupsPolicyMerge && *p != corev1.SupplementalGroupsPolicyStrict {
		errs = append(errs, validation.NotSupported(path.Child("supplementalGroupsPolicy"), string(*p), []string{"Merge", "Strict"}))
	}
	if p := sc.SELinuxChangePolicy; p != nil && *p != corev1.SELinuxChangePolicyRecursive && *p != corev1.SELinuxChangePolicyMountOption {
		errs = append(errs, validation.NotSupported(path.Child("seLinuxChangePolicy"), string(*p), []string{"MountOption", "Recursive"}))
	}
	return errs
}

func validateSeccompProfile(sp *corev1.SeccompProfile, path *validation.Path) validation.ErrorList {
	if sp == nil {
		return nil
	}
	var errs validation.ErrorList
	switch sp.Type {
	case corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
	case "":
		errs = append(errs, validation.Required(path.Child("type"), "type is required when seccompProfile is set"))
	default:
		errs = append(errs, validation.NotSupported(path.Child("type"), string(sp.Type), []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	if sp.Type == corev1.SeccompProfileTypeLocalhost {
		if sp.LocalhostProfile == nil {
			errs = append(errs, validation.Required(path.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
		} else {
			errs = append(errs, validateLocalDescendingPath(*sp.LocalhostProfile, path.Child("localhostProfile"))...)
		}
	} else if sp.LocalhostProfile != nil {
		errs = append(errs, validation.Invalid(path.Child("localhostProfile"), badStruct(sp), "can only be set when seccomp type is Localhost"))
	}
	return errs
}

func validateAppArmorProfile(p *corev1.AppArmorProfile, path *validation.Path) validation.ErrorList {
	if p == nil {
		return nil
	}
	var errs validation.ErrorList
	switch p.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		if p.LocalhostProfile == nil {
			errs = append(errs, validation.Required(path.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
			break
		}
		trimmed := strings.TrimSpace(*p.LocalhostProfile)
		if trimmed != *p.LocalhostProfile {
			errs = append(errs, validation.Invalid(path.Child("localhostProfile"), *p.LocalhostProfile, "must not be padded with whitespace"))
		} else if trimmed == "" {
			errs = append(errs, validation.Required(path.Child("localhostProfile"), "must be set when AppArmor type is Localhost"))
		}
		if len(*p.LocalhostProfile) > 4095 {
			errs = append(errs, validation.TooLong(path.Child("localhostProfile"), "", 4095))
		}
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if p.LocalhostProfile != nil {
			errs = append(errs, validation.Invalid(path.Child("localhostProfile"), *p.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		errs = append(errs, validation.Required(path.Child("type"), "type is required when appArmorProfile is set"))
	default:
		errs = append(errs, validation.NotSupported(path.Child("type"), string(p.Type), []string{"Localhost", "RuntimeDefault", "Unconfined"}))
	}
	return errs
}

// validateWindowsOptions checks the GMSA credential spec name and the emptiness of the
// other Windows options; runAsUserName's domain and user rules are not yet checked.
func validateWindowsOptions(w *corev1.WindowsSecurityContextOptions, path *validation.Path) validation.ErrorList {
	if w == nil {
		return nil
	}
	var errs validation.ErrorList
	if w.GMSACredentialSpecName != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*w.GMSACredentialSpecName) {
			errs = append(errs, validation.Invalid(path.Child("gmsaCredentialSpecName"), *w.GMSACredentialSpecName, msg))
		}
	}
	if s := w.GMSACredentialSpec; s != nil {
		if len(*s) == 0 {
			errs = append(errs, validation.Invalid(path.Child("gmsaCredentialSpec"), *s, "gmsaCredentialSpec cannot be an empty string"))
		} else if len(*s) > 64*1024 {
			errs = append(errs, validation.Invalid(path.Child("gmsaCredentialSpec"), *s, "gmsaCredentialSpec size must be under 64 KiB"))
		}
	}
	if u := w.RunAsUserName; u != nil && *u == "" {
		errs = append(errs, validation.Invalid(path.Child("runAsUserName"), *u, "runAsUserName cannot be an empty string"))
	}
	return errs
}

// validateLegacyIP is kube's IsValidIPForLegacyField with StrictIPCIDRValidation (on
// by default in 1.37): an IP address without leading zeros, not IPv4-mapped IPv6.
func validateLegacyIP(value string, path *validation.Path) validation.ErrorList {
	if net.ParseIP(value) == nil {
		if sloppyIPv4(value) {
			return validation.ErrorList{validation.Invalid(path, value, "must not have leading 0s")}
		}
		return validation.ErrorList{validation.Invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
	}
	if a, err := netip.ParseAddr(value); err == nil && a.Is4In6() {
		return validation.ErrorList{validation.Invalid(path, value, "must not be an IPv4-mapped IPv6 address")}
	}
	return nil
}

// sloppyIPv4 reports whether s is an IPv4 address that only k8s.io/utils' sloppy parser
// accepts: dotted decimal with leading zeros.
func sloppyIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 {
			return false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 255 || p[0] == '+' || p[0] == '-' {
			return false
		}
	}
	return true
}

// dns1123SubdomainWithUnderscore is apimachinery's pattern for DNS search domains.
var dns1123SubdomainWithUnderscore = regexp.MustCompile(`^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$`)

func isDNS1123SubdomainWithUnderscore(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !dns1123SubdomainWithUnderscore.MatchString(v) {
		errs = append(errs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', "+
			"and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "+
			"'_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')")
	}
	return errs
}
