package strategies

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// validPod is a pod as kube-apiserver stores it after defaulting: it passes validation.
func validPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: scheme.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "app", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent,
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{"cpu": quantity.MustParse("1"), "memory": quantity.MustParse("1Gi")},
					Requests: corev1.ResourceList{"cpu": quantity.MustParse("100m"), "memory": quantity.MustParse("128Mi")},
				},
			}},
			Volumes:                       []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			TerminationGracePeriodSeconds: ptr(int64(30)),
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 "default-scheduler",
		},
	}
}

func probe(h corev1.ProbeHandler) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: h, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
}

func TestValidatePod_AValidPodPasses(t *testing.T) {
	if errs := validatePodCreate(validPod()); len(errs) > 0 {
		t.Fatalf("valid pod refused: %v", causes(errs))
	}
}

// TestValidatePod_KubesMessagesPathsAndTypes holds each rule to kube-apiserver
// v1.37.2's ValidatePodCreate: the message (which carries the type's phrase and the
// path), for a pod that breaks that one rule.
func TestValidatePod_KubesMessagesPathsAndTypes(t *testing.T) {
	const dns1123Label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	const qualifiedName = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	c0 := "spec.containers[0]"
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"spec.containers: Required value"}},
		{"container name required", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "" }, []string{c0 + ".name: Required value"}},
		{"container name is a DNS label", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "App_1" }, []string{
			c0 + `.name: Invalid value: "App_1": ` + dns1123Label}},
		{"container names unique across init and regular", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Ports, c.Resources = nil, corev1.ResourceRequirements{}
			p.Spec.InitContainers = []corev1.Container{c}
		}, []string{`spec.initContainers[0].name: Duplicate value: "app"`}},
		{"duplicate container names", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Ports = nil
			p.Spec.Containers = append(p.Spec.Containers, c)
		}, []string{`spec.containers[1].name: Duplicate value: "app"`}},
		{"image required", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{c0 + ".image: Required value"}},
		{"image without surrounding spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" }, []string{
			c0 + `.image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"container port in range", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 }, []string{
			c0 + ".ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"container port required", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 }, []string{
			c0 + ".ports[0].containerPort: Required value"}},
		{"host port in range", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].HostPort = -1 }, []string{
			c0 + ".ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"}},
		{"port name is an IANA_SVC_NAME", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Name = "HTTP--x" }, []string{
			c0 + `.ports[0].name: Invalid value: "HTTP--x": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
			c0 + `.ports[0].name: Invalid value: "HTTP--x": must not contain consecutive hyphens`}},
		{"port names unique", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "http", ContainerPort: 81, Protocol: "TCP"})
		}, []string{c0 + `.ports[1].name: Duplicate value: "http"`}},
		{"protocol supported", func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].Protocol = "ICMP" }, []string{
			c0 + `.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"host ports unique", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080, Protocol: "TCP"}, {ContainerPort: 81, HostPort: 8080, Protocol: "TCP"}}
		}, []string{c0 + `.ports[1].hostPort: Duplicate value: "TCP//8080"`}},
		{"env value from exactly one source", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{}}, {Name: "B", Value: "x",
				ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}
		}, []string{
			c0 + ".env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`",
			c0 + ".env[1].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"}},
		{"env name printable ASCII without '='", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A=B"}} }, []string{
			c0 + `.env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`}},
		{"env field ref from the supported paths", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}}}}
		}, []string{c0 + `.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`}},
		{"env secret key is a config key", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}}
		}, []string{c0 + ".env[0].valueFrom.secretKeyRef.key: Required value"}},
		{"envFrom needs a source", func(p *corev1.Pod) { p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "P_"}} }, []string{
			c0 + ".envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"}},
		{"resource names are standard", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits["gpu"] = quantity.MustParse("1") }, []string{
			c0 + `.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified`,
			c0 + `.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers`}},
		{"requests at most limits", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = quantity.MustParse("2") }, []string{
			c0 + `.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"quantities not negative", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests["memory"] = quantity.MustParse("-1") }, []string{
			c0 + `.resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"extended resources need a limit equal to the request", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = quantity.MustParse("1")
		}, []string{c0 + ".resources.limits: Required value: Limit must be set for non overcommitable resources"}},
		{"mounts refer to volumes", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "missing" }, []string{
			c0 + `.volumeMounts[0].name: Not found: "missing"`}},
		{"mount paths unique", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
		}, []string{c0 + `.volumeMounts[1].mountPath: Invalid value: "/data": must be unique`}},
		{"subPath relative without backsteps, reported at the list", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].SubPath = "../x" }, []string{
			c0 + `.volumeMounts.subPath: Invalid value: "../x": must not contain '..'`}},
		{"probe needs a handler", func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe = probe(corev1.ProbeHandler{}) }, []string{
			c0 + ".livenessProbe: Required value: must specify a handler type"}},
		{"probe has one handler", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = probe(corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}},
				TCPSocket: &corev1.TCPSocketAction{Port: scheme.IntOrString{IntVal: 80}}})
		}, []string{c0 + ".readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"}},
		{"liveness success threshold is 1", func(p *corev1.Pod) {
			pr := probe(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: scheme.IntOrString{Type: scheme.String, StrVal: "http"}, Scheme: "HTTP"}})
			pr.SuccessThreshold = 2
			p.Spec.Containers[0].LivenessProbe = pr
		}, []string{c0 + ".livenessProbe.successThreshold: Invalid value: 2: must be 1"}},
		{"probe thresholds not negative", func(p *corev1.Pod) {
			pr := probe(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}})
			pr.FailureThreshold = -1
			p.Spec.Containers[0].StartupProbe = pr
		}, []string{c0 + ".startupProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0"}},
		{"httpGet scheme and port", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = probe(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: scheme.IntOrString{IntVal: 0}, Scheme: "FTP"}})
		}, []string{
			c0 + ".readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive",
			c0 + `.readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`}},
		{"preStop sleep within the grace period", func(p *corev1.Pod) {
			p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 60}}}
		}, []string{c0 + ".lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)"}},
		{"init containers have no probes without restartPolicy Always", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox", ImagePullPolicy: "IfNotPresent", TerminationMessagePolicy: "File",
				LivenessProbe: probe(corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}})}}
		}, []string{"spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"}},
		{"pull policy supported", func(p *corev1.Pod) { p.Spec.Containers[0].ImagePullPolicy = "Sometimes" }, []string{
			c0 + `.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`}},
		{"termination message policy required", func(p *corev1.Pod) { p.Spec.Containers[0].TerminationMessagePolicy = "" }, []string{
			c0 + ".terminationMessagePolicy: Required value"}},
		{"security context IDs in range", func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: ptr(int64(-1))}
		}, []string{c0 + ".securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive"}},
		{"volume names unique", func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, p.Spec.Volumes[0]) }, []string{
			`spec.volumes[1].name: Duplicate value: "data"`}},
		{"volume needs a source", func(p *corev1.Pod) { p.Spec.Volumes[0].EmptyDir = nil }, []string{
			"spec.volumes[0]: Required value: must specify a volume type", c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"volume has one source", func(p *corev1.Pod) {
			p.Spec.Volumes[0].ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, DefaultMode: ptr(int32(420))}
		}, []string{"spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type", c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"secret volume mode and item paths", func(p *corev1.Pod) {
			p.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr(int32(0o1000)),
				Items: []corev1.KeyToPath{{Key: "k", Path: "/abs"}}}}
		}, []string{
			"spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
			`spec.volumes[0].secret.items[0].path: Invalid value: "/abs": must be a relative path`,
			c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"persistent volume claim needs a name", func(p *corev1.Pod) {
			p.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{}}
		}, []string{"spec.volumes[0].persistentVolumeClaim.claimName: Required value", c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"hostPath type supported", func(p *corev1.Pod) {
			p.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x", Type: ptr(corev1.HostPathType("Dir"))}}
		}, []string{`spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
			c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"downwardAPI volume paths in kube's spelling", func(p *corev1.Pod) {
			p.Spec.Volumes[0].DownwardAPI = &corev1.DownwardAPIVolumeSource{}
		}, []string{"spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type", c0 + `.volumeMounts[0].name: Not found: "data"`}},
		{"projected token needs a service account", func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: ptr(int32(420)), Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(60))}}}}}})
		}, []string{
			"spec.volumes[1].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
			"spec.volumes[1].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set"}},
		{"restartPolicy supported", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		{"dnsPolicy None needs a config", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone }, []string{
			"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"dns nameservers are IPs", func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"1.2.3.4", "dns.local", "010.0.0.1"}, Options: []corev1.PodDNSConfigOption{{}}}
		}, []string{
			`spec.dnsConfig.nameservers[1]: Invalid value: "dns.local": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`spec.dnsConfig.nameservers[2]: Invalid value: "010.0.0.1": must not have leading 0s`,
			"spec.dnsConfig.options[0]: Required value: must not be empty"}},
		{"nodeSelector keys and values", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"a b": "c d"} }, []string{
			`spec.nodeSelector: Invalid value: "a b": ` + qualifiedName,
			`spec.nodeSelector: Invalid value: "c d": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"toleration operator Exists for an empty key", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Operator: "Equal", Value: "x"}, {Key: "k", Operator: "Exists", Value: "v"}, {Key: "k", TolerationSeconds: ptr(int64(5)), Effect: "NoSchedule"}}
		}, []string{
			"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
			`spec.tolerations[1].operator: Invalid value: "v": value must be empty when ` + "`operator`" + ` is 'Exists'`,
			"spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{"node affinity terms", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: "In"}, {Key: "x", Operator: "Near"}}}}}}}
		}, []string{
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].operator: Invalid value: "Near": not a valid selector operator`}},
		{"pod anti-affinity weight and topology key", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 101, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}}
		}, []string{
			"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100",
			"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty",
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
			`spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": ` + qualifiedName}},
		{"topology spread constraints", func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
				{MaxSkew: 0, TopologyKey: "zone", WhenUnsatisfiable: "Maybe"},
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule", MinDomains: ptr(int32(2))},
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule", MatchLabelKeys: []string{"app"}},
			}
		}, []string{
			"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
			`spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"`,
			`spec.topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
			"spec.topologySpreadConstraints[2].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"}},
		{"serviceAccountName is a DNS subdomain", func(p *corev1.Pod) {
			p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = "Robot", "Robot"
		}, []string{`spec.serviceAccountName: Invalid value: "Robot": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"deprecated serviceAccount agrees", func(p *corev1.Pod) { p.Spec.DeprecatedServiceAccount = "robot" }, []string{
			`spec.deprecatedServiceAccount: Invalid value: "robot": must be the same as serviceAccountName: ""`}},
		{"hostname and subdomain are DNS labels", func(p *corev1.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "a.b", "C" }, []string{
			`spec.hostname: Invalid value: "a.b": must not contain dots`,
			`spec.subdomain: Invalid value: "C": ` + dns1123Label}},
		{"activeDeadlineSeconds positive", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) }, []string{
			"spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"}},
		{"terminationGracePeriodSeconds required and not negative", func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr(int64(-1)) }, []string{
			"spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0"}},
		{"host network ports match", func(p *corev1.Pod) { p.Spec.HostNetwork = true }, []string{
			c0 + ".ports[0].hostPort: Invalid value: 0: must match `containerPort` when `hostNetwork` is true"}},
		{"priorityClassName is a DNS subdomain", func(p *corev1.Pod) { p.Spec.PriorityClassName = "-x" }, []string{
			`spec.priorityClassName: Invalid value: "-x": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"ephemeral containers not on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "debug", Image: "busybox", ImagePullPolicy: "IfNotPresent", TerminationMessagePolicy: "File"}}}
		}, []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"}},
		{"scheduling gates keep nodeName unset", func(p *corev1.Pod) {
			p.Spec.NodeName, p.Spec.SchedulingGates = "node-1", []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
		}, []string{"spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPod()
			tt.mutate(p)
			if d := cmp.Diff(tt.want, causes(validatePodCreate(p))); d != "" {
				t.Errorf("errors (-kube +got):\n%s", d)
			}
		})
	}
}

func TestValidatePod_ErrorTypesAreKubes(t *testing.T) {
	p := validPod()
	p.Spec.Containers[0].Name = ""
	p.Spec.Containers[0].Ports[0].Protocol = "ICMP"
	p.Spec.Volumes = append(p.Spec.Volumes, p.Spec.Volumes[0])
	p.Spec.Containers[0].VolumeMounts[0].Name = "nope"
	p.Spec.Containers[0].LivenessProbe = probe(corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"x"}}, GRPC: &corev1.GRPCAction{Port: 1}})
	p.Spec.Containers[0].Resources.Requests["cpu"] = quantity.MustParse("3")
	var got []string
	for _, e := range validatePodCreate(p) {
		got = append(got, e.Field+" "+string(e.Type))
	}
	want := []string{
		"spec.volumes[1].name FieldValueDuplicate",
		"spec.containers[0].name FieldValueRequired",
		"spec.containers[0].ports[0].protocol FieldValueNotSupported",
		"spec.containers[0].volumeMounts[0].name FieldValueNotFound",
		"spec.containers[0].resources.requests FieldValueInvalid",
		"spec.containers[0].livenessProbe.grpc FieldValueForbidden",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("field and type (-kube +got):\n%s", d)
	}
}

func TestValidatePodTemplateSpec_TemplatesFollowTemplateRules(t *testing.T) {
	tmpl := func() *corev1.PodTemplateSpec {
		p := validPod()
		return &corev1.PodTemplateSpec{ObjectMeta: scheme.ObjectMeta{Labels: p.Labels}, Spec: p.Spec}
	}
	tests := []struct {
		name   string
		mutate func(t *corev1.PodTemplateSpec)
		want   []string
	}{
		{"a valid template passes", func(*corev1.PodTemplateSpec) {}, nil},
		{"labels are checked at the template's path", func(t *corev1.PodTemplateSpec) { t.Labels = map[string]string{"app": "-web"} }, []string{
			`spec.template.labels: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"a template's image may have spaces", func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Image = " " }, nil},
		{"a template on the host network may leave hostPort 0", func(t *corev1.PodTemplateSpec) { t.Spec.HostNetwork = true }, nil},
		{"ephemeral containers are forbidden", func(t *corev1.PodTemplateSpec) {
			t.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "debug", Image: "busybox", ImagePullPolicy: "IfNotPresent", TerminationMessagePolicy: "File"}}}
		}, []string{"spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"}},
		{"the spec's paths are under the template", func(t *corev1.PodTemplateSpec) { t.Spec.RestartPolicy = "" }, []string{
			"spec.template.spec.restartPolicy: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := tmpl()
			tt.mutate(tm)
			if d := cmp.Diff(tt.want, causes(validatePodTemplateSpec(tm, validation.NewPath("spec", "template")))); d != "" {
				t.Errorf("errors (-kube +got):\n%s", d)
			}
		})
	}
}

func TestValidatePodUpdate_OnlyImagesDeadlinesTolerationsAndGatesMayChange(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string // each a prefix of one error
	}{
		{"an image may change", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }, nil},
		{"a toleration may be added", func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "k", Operator: "Exists"})
		}, nil},
		{"activeDeadlineSeconds may be set", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(30)) }, nil},
		{"the restart policy may not change", func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever }, []string{
			"spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"}},
		{"containers may not be added", func(p *corev1.Pod) {
			c := p.Spec.Containers[0]
			c.Name, c.Ports = "second", nil
			p.Spec.Containers = append(p.Spec.Containers, c)
		}, []string{"spec.containers: Forbidden: pod updates may not add or remove containers"}},
		{"an existing toleration may not change", func(p *corev1.Pod) { p.Spec.Tolerations = nil }, []string{
			"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"}},
		{"scheduling gates may only be removed", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/new"}}
		}, []string{"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/new'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := validPod()
			old.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: "Exists"}}
			p := validPod()
			p.Spec.Tolerations = []corev1.Toleration{{Key: "a", Operator: "Exists"}}
			tt.mutate(p)
			got := causes(validatePodUpdate(p, old))
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %d starting %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d = %q, want it to start %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestPodQOS_IsKubesComputePodQOS(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l["cpu"] = quantity.MustParse(cpu)
		}
		if mem != "" {
			l["memory"] = quantity.MustParse(mem)
		}
		return l
	}
	tests := []struct {
		name string
		r    []corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"nothing set is BestEffort", []corev1.ResourceRequirements{{}}, corev1.PodQOSBestEffort},
		{"equal requests and limits for both is Guaranteed", []corev1.ResourceRequirements{{Limits: rl("1", "1Gi"), Requests: rl("1000m", "1024Mi")}}, corev1.PodQOSGuaranteed},
		{"limits for cpu only is Burstable", []corev1.ResourceRequirements{{Limits: rl("1", ""), Requests: rl("1", "")}}, corev1.PodQOSBurstable},
		{"one guaranteed and one best effort is Burstable", []corev1.ResourceRequirements{{Limits: rl("1", "1Gi"), Requests: rl("1", "1Gi")}, {}}, corev1.PodQOSBurstable},
		{"requests below limits is Burstable", []corev1.ResourceRequirements{{Limits: rl("1", "1Gi"), Requests: rl("500m", "1Gi")}}, corev1.PodQOSBurstable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec corev1.PodSpec
			for i, r := range tt.r {
				spec.Containers = append(spec.Containers, corev1.Container{Name: string(rune('a' + i)), Resources: r})
			}
			if got := podQOS(&spec); got != tt.want {
				t.Errorf("qos = %s, want %s", got, tt.want)
			}
		})
	}
}
