package builtin

import (
	"regexp"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/conversion"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
)

// registerCoreDefaults registers kube-apiserver v1.37's defaulting of the core/v1 pod
// types (k8s.io/kubernetes pkg/apis/core/v1 defaults.go and the +default markers of
// k8s.io/api), one function per type. conversion.Default runs a type's function before
// those of the values it holds, which is the order of kube's generated
// SetObjectDefaults_Pod: the pod, then its spec, then volumes, containers, probes, and
// last the rounding of each resource list. The pod-level defaults (requests from
// limits, enableServiceLinks, host ports on the host network) are the Pod kind's
// alone: a PodTemplateSpec in a workload does not get them, as in kube.
func registerCoreDefaults(s *scheme.Scheme) {
	conversion.RegisterDefaults(s, defaultPod)
	conversion.RegisterDefaults(s, defaultPodSpec)
	conversion.RegisterDefaults(s, defaultPodStatus)
	conversion.RegisterDefaults(s, defaultVolume)
	conversion.RegisterDefaults(s, defaultContainer)
	conversion.RegisterDefaults(s, func(c *corev1.EphemeralContainerCommon) { defaultContainer((*corev1.Container)(c)) })
	conversion.RegisterDefaults(s, func(p *corev1.ContainerPort) {
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
	})
	conversion.RegisterDefaults(s, defaultProbe)
	conversion.RegisterDefaults(s, defaultHTTPGetAction)
	conversion.RegisterDefaults(s, func(g *corev1.GRPCAction) {
		if g.Service == nil {
			g.Service = new(string)
		}
	})
	conversion.RegisterDefaults(s, func(f *corev1.ObjectFieldSelector) {
		if f.APIVersion == "" {
			f.APIVersion = "v1"
		}
	})
	conversion.RegisterDefaults(s, func(f *corev1.FileKeySelector) {
		if f.Optional == nil {
			f.Optional = new(bool)
		}
	})
	conversion.RegisterDefaults(s, func(h *corev1.HostPathVolumeSource) {
		if h.Type == nil {
			h.Type = ptrTo(corev1.HostPathUnset)
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.SecretVolumeSource) { defaultMode(&v.DefaultMode) })
	conversion.RegisterDefaults(s, func(v *corev1.ConfigMapVolumeSource) { defaultMode(&v.DefaultMode) })
	conversion.RegisterDefaults(s, func(v *corev1.DownwardAPIVolumeSource) { defaultMode(&v.DefaultMode) })
	conversion.RegisterDefaults(s, func(v *corev1.ProjectedVolumeSource) { defaultMode(&v.DefaultMode) })
	conversion.RegisterDefaults(s, func(t *corev1.ServiceAccountTokenProjection) {
		if t.ExpirationSeconds == nil {
			t.ExpirationSeconds = ptrTo(int64(3600))
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.ISCSIVolumeSource) {
		if v.ISCSIInterface == "" {
			v.ISCSIInterface = "default"
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.RBDVolumeSource) {
		if v.RBDPool == "" {
			v.RBDPool = "rbd"
		}
		if v.RadosUser == "" {
			v.RadosUser = "admin"
		}
		if v.Keyring == "" {
			v.Keyring = "/etc/ceph/keyring"
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.AzureDiskVolumeSource) {
		if v.CachingMode == nil {
			v.CachingMode = ptrTo(corev1.AzureDataDiskCachingReadWrite)
		}
		if v.FSType == nil {
			v.FSType = ptrTo("ext4")
		}
		if v.ReadOnly == nil {
			v.ReadOnly = new(bool)
		}
		if v.Kind == nil {
			v.Kind = ptrTo(corev1.AzureSharedBlobDisk)
		}
	})
	conversion.RegisterDefaults(s, func(v *corev1.ScaleIOVolumeSource) {
		if v.StorageMode == "" {
			v.StorageMode = "ThinProvisioned"
		}
		if v.FSType == "" {
			v.FSType = "xfs"
		}
	})
	conversion.RegisterDefaults(s, defaultPersistentVolumeClaim)
	conversion.RegisterDefaults(s, defaultPersistentVolumeClaimSpec)
	conversion.RegisterDefaults(s, defaultResourceList)
}

func ptrTo[T any](v T) *T { return &v }

// defaultVolumeMode is 0644, the mode of the files of secret, configMap, downwardAPI
// and projected volumes when defaultMode is unset.
const defaultVolumeMode int32 = 0o644

func defaultMode(m **int32) {
	if *m == nil {
		*m = ptrTo(defaultVolumeMode)
	}
}

// defaultPod is kube's SetDefaults_Pod with the feature gates of 1.37 at their
// defaults: PodLevelResourcesFixDefaulting moves pod-level requests to the strategy,
// and H2CContainerProbe (alpha) leaves httpGet.protocol alone.
func defaultPod(p *corev1.Pod) {
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		p.Spec.TerminationGracePeriodSeconds = ptrTo(int64(1))
	}
	requestsFromLimits(p.Spec.Containers)
	requestsFromLimits(p.Spec.InitContainers)
	if p.Spec.EnableServiceLinks == nil {
		p.Spec.EnableServiceLinks = ptrTo(true)
	}
	if p.Spec.HostNetwork {
		hostPortsFromContainerPorts(p.Spec.Containers)
		hostPortsFromContainerPorts(p.Spec.InitContainers)
	}
}

// requestsFromLimits gives each container a request equal to its limit for each
// resource it limits without requesting.
func requestsFromLimits(containers []corev1.Container) {
	for i := range containers {
		r := &containers[i].Resources
		if r.Limits == nil {
			continue
		}
		if r.Requests == nil {
			r.Requests = make(corev1.ResourceList, len(r.Limits))
		}
		for name, limit := range r.Limits {
			if _, ok := r.Requests[name]; !ok {
				r.Requests[name] = limit
			}
		}
	}
}

// hostPortsFromContainerPorts sets hostPort to containerPort where unset, for a pod on
// the host's network.
func hostPortsFromContainerPorts(containers []corev1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			if p := &containers[i].Ports[j]; p.HostPort == 0 {
				p.HostPort = p.ContainerPort
			}
		}
	}
}

// defaultPodSpec is kube's SetDefaults_PodSpec: serviceAccountName and its deprecated
// alias agree, and the scheduling and lifecycle policies get their defaults.
func defaultPodSpec(s *corev1.PodSpec) {
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptrTo(int64(30))
	}
	if s.SchedulerName == "" {
		s.SchedulerName = "default-scheduler"
	}
}

// defaultPodStatus is kube's SetDefaults_PodStatus: podIP and podIPs agree, podIP
// winning when both are set and differ.
func defaultPodStatus(s *corev1.PodStatus) {
	hasIP, hasIPs := s.PodIP != "", len(s.PodIPs) > 0
	switch {
	case hasIP && !hasIPs:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	case !hasIP && hasIPs:
		s.PodIP = s.PodIPs[0].IP
	case hasIP && hasIPs && s.PodIPs[0].IP != s.PodIP:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	}
}

// defaultVolume is kube's SetDefaults_Volume: a volume without a source is an
// emptyDir; an image volume's pull policy follows its tag (ImageVolume is GA).
func defaultVolume(v *corev1.Volume) {
	if volumeSourceEmpty(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	if v.Image != nil && v.Image.PullPolicy == "" {
		v.Image.PullPolicy = pullPolicyFor(v.Image.Reference)
	}
}

func volumeSourceEmpty(s *corev1.VolumeSource) bool {
	return s.HostPath == nil && s.EmptyDir == nil && s.GCEPersistentDisk == nil && s.AWSElasticBlockStore == nil &&
		s.GitRepo == nil && s.Secret == nil && s.NFS == nil && s.ISCSI == nil && s.Glusterfs == nil &&
		s.PersistentVolumeClaim == nil && s.RBD == nil && s.FlexVolume == nil && s.Cinder == nil &&
		s.CephFS == nil && s.Flocker == nil && s.DownwardAPI == nil && s.FC == nil && s.AzureFile == nil &&
		s.ConfigMap == nil && s.VsphereVolume == nil && s.Quobyte == nil && s.AzureDisk == nil &&
		s.PhotonPersistentDisk == nil && s.Projected == nil && s.PortworxVolume == nil && s.ScaleIO == nil &&
		s.StorageOS == nil && s.CSI == nil && s.Ephemeral == nil && s.Image == nil
}

// defaultContainer is kube's SetDefaults_Container.
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicyFor(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = "/dev/termination-log"
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
}

func defaultProbe(p *corev1.Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
}

func defaultHTTPGetAction(a *corev1.HTTPGetAction) {
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = corev1.URISchemeHTTP
	}
}

// defaultResourceList is kube's SetDefaults_ResourceList: every quantity rounded up to
// a milli.
func defaultResourceList(l *corev1.ResourceList) {
	for name, q := range *l {
		if !q.RoundUp(quantity.Milli) {
			(*l)[name] = q
		}
	}
}

// pullPolicyFor is the pull policy kube gives an image: Always when its reference
// parses with the tag "latest" (or with neither tag nor digest, which means latest),
// IfNotPresent otherwise, including a reference that does not parse.
func pullPolicyFor(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// The grammar of container image references (github.com/distribution/reference).
var (
	imageReference = regexp.MustCompile(func() string {
		const (
			alnum     = `[a-z0-9]+`
			separator = `(?:[._]|__|[-]+)`
			component = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
			host      = `(?:` + component + `(?:\.` + component + `)*|\[(?:[a-fA-F0-9:]+)\])`
			domain    = host + `(?::[0-9]+)?`
			path      = alnum + `(?:` + separator + alnum + `)*`
			remote    = path + `(?:/` + path + `)*`
			name      = `(?:` + domain + `/)?` + remote
			tag       = `[\w][\w.-]{0,127}`
			digest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
		)
		return `^(` + name + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`
	}())
	imageIdentifier = regexp.MustCompile(`^[a-f0-9]{64}$`)
	imageDomain     = regexp.MustCompile(`^((?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?/`)
)

// imageTag is the tag kube's ParseImageName finds in image: its tag, "latest" when it
// has neither tag nor digest, "" when it has only a digest or does not parse.
func imageTag(image string) string {
	if imageIdentifier.MatchString(image) {
		return ""
	}
	domain, remainder := splitImageDomain(image)
	remote := remainder
	if i := strings.IndexByte(remainder, ':'); i >= 0 {
		remote = remainder[:i]
	}
	if strings.ToLower(remote) != remote {
		return ""
	}
	ref := domain + "/" + remainder
	m := imageReference.FindStringSubmatch(ref)
	if m == nil {
		return ""
	}
	path := m[1]
	if d := imageDomain.FindString(path); d != "" {
		path = path[len(d):]
	}
	if len(path) > 255 {
		return ""
	}
	tag, digest := m[2], m[3]
	if digest != "" && !validDigest(digest) {
		return ""
	}
	if tag == "" && digest == "" {
		return "latest"
	}
	return tag
}

// splitImageDomain is distribution's splitDockerDomain: the registry of a reference
// and the rest, docker.io and library/ for the familiar names.
func splitImageDomain(name string) (domain, remainder string) {
	first, rest, ok := strings.Cut(name, "/")
	switch {
	case !ok:
		return "docker.io", "library/" + name
	case first == "localhost":
		domain, remainder = first, rest
	case first == "index.docker.io":
		domain, remainder = "docker.io", rest
	case strings.ContainsAny(first, ".:"), strings.ToLower(first) != first:
		domain, remainder = first, rest
	default:
		domain, remainder = "docker.io", name
	}
	if domain == "docker.io" && !strings.ContainsRune(remainder, '/') {
		remainder = "library/" + remainder
	}
	return domain, remainder
}

// validDigest is go-digest's Validate for the algorithms kubelet links in: sha256,
// sha384 and sha512 with their lowercase hex lengths.
func validDigest(d string) bool {
	alg, hex, _ := strings.Cut(d, ":")
	n := map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}[alg]
	if n == 0 || len(hex) != n {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// defaultPersistentVolumeClaim is core/v1's SetDefaults_PersistentVolumeClaim: a claim
// (a StatefulSet's volumeClaimTemplates hold them) is Pending until bound.
func defaultPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
}

// defaultPersistentVolumeClaimSpec is core/v1's SetDefaults_PersistentVolumeClaimSpec:
// a Filesystem volume unless the claim asks for a Block one.
func defaultPersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		mode := corev1.PersistentVolumeFilesystem
		spec.VolumeMode = &mode
	}
}
