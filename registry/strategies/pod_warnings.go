package strategies

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/validation"
)

// deprecatedNodeLabels are the node labels kube warns about in selectors and
// topology keys, with its messages.
var deprecatedNodeLabels = map[string]string{
	`beta.kubernetes.io/arch`:                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	`beta.kubernetes.io/os`:                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	`failure-domain.beta.kubernetes.io/region`:      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	`failure-domain.beta.kubernetes.io/zone`:        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	`beta.kubernetes.io/instance-type`:              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	`app.kubernetes.io/created-by`:                  `deprecated since v1.9`,
	`scheduler.alpha.kubernetes.io/preferAvoidPods`: `deprecated since v1.22; use Taints and Tolerations instead`,
	`node-role.kubernetes.io/master`:                `use "node-role.kubernetes.io/control-plane" instead`,
}

// deprecatedPodAnnotations are the pod annotations kube warns about.
var deprecatedPodAnnotations = []struct{ key, message string }{
	{`scheduler.alpha.kubernetes.io/critical-pod`, `non-functional in v1.16+; use the "priorityClassName" field instead`},
	{`security.alpha.kubernetes.io/sysctls`, `non-functional in v1.11+; use the "sysctls" field instead`},
	{`security.alpha.kubernetes.io/unsafe-sysctls`, `non-functional in v1.11+; use the "sysctls" field instead`},
}

// podTemplateWarnings are kube's GetWarningsForPodTemplate: the warnings of a
// workload's template, their paths under fldPath (for example spec.template).
func podTemplateWarnings(fldPath *validation.Path, t *corev1.PodTemplateSpec) []string {
	if t == nil {
		return nil
	}
	return podSpecWarnings(fldPath, &t.Spec, t.Annotations)
}

// podSpecWarnings is kube's warningsForPodSpecAndMeta for a new object: deprecated node
// labels, annotations and volume types, selectors that match nothing, duplicate or
// overlapping definitions, fractional byte quantities and non-canonical IPs. fldPath
// is nil for a Pod.
func podSpecWarnings(fldPath *validation.Path, spec *corev1.PodSpec, annotations map[string]string) []string {
	var w []string
	specPath := fldPath.Child("spec")
	for _, k := range sortedKeys(spec.NodeSelector) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			w = append(w, specPath.Child("nodeSelector").Key(k).String()+": "+msg)
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		na := a.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			tp := specPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			for i, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				w = append(w, nodeSelectorTermWarnings(t, false, tp.Index(i))...)
			}
		}
		pp := specPath.Child("affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			w = append(w, nodeSelectorTermWarnings(t.Preference, true, pp.Index(i).Child("preference"))...)
		}
	}
	for i, t := range spec.TopologySpreadConstraints {
		tp := specPath.Child("topologySpreadConstraints").Index(i)
		if msg, ok := deprecatedNodeLabels[t.TopologyKey]; ok {
			w = append(w, tp.Child("topologyKey").String()+": "+t.TopologyKey+" is "+msg)
		}
		if t.LabelSelector == nil {
			w = append(w, tp.Child("labelSelector").String()+": a null labelSelector results in matching no pod")
		}
	}
	for _, d := range deprecatedPodAnnotations {
		if _, ok := annotations[d.key]; ok {
			w = append(w, fldPath.Child("metadata", "annotations").Key(d.key).String()+": "+d.message)
		}
	}
	for i, v := range spec.Volumes {
		vp := specPath.Child("volumes").Index(i)
		add := func(set bool, name, msg string) {
			if set {
				w = append(w, vp.Child(name).String()+": "+msg)
			}
		}
		add(v.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+")
		add(v.GitRepo != nil, "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+")
		add(v.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+")
		add(v.Flocker != nil, "flocker", "deprecated in v1.22, non-functional in v1.25+")
		add(v.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+")
		add(v.Quobyte != nil, "quobyte", "deprecated in v1.22, non-functional in v1.25+")
		add(v.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+")
		add(v.CephFS != nil, "cephfs", "deprecated in v1.28, non-functional in v1.31+")
		add(v.RBD != nil, "rbd", "deprecated in v1.28, non-functional in v1.31+")
	}
	if len(spec.HostAliases) > 1 {
		seen := map[string]bool{}
		for i, a := range spec.HostAliases {
			if seen[a.IP] {
				w = append(w, specPath.Child("hostAliases").Index(i).Child("ip").String()+": duplicate ip "+strconv.Quote(a.IP))
			}
			seen[a.IP] = true
		}
	}
	if len(spec.ImagePullSecrets) > 1 {
		seen := map[string]bool{}
		for i, s := range spec.ImagePullSecrets {
			if seen[s.Name] {
				w = append(w, specPath.Child("imagePullSecrets").Index(i).Child("name").String()+": duplicate name "+strconv.Quote(s.Name))
			}
			seen[s.Name] = true
		}
	}
	for i, s := range spec.ImagePullSecrets {
		if s.Name == "" {
			w = append(w, specPath.Child("imagePullSecrets").Index(i).Child("name").String()+`: invalid empty name ""`)
		}
	}
	fractional := func(l corev1.ResourceList, name corev1.ResourceName, p *validation.Path) {
		if q, ok := l[name]; ok && q.MilliValue()%1000 != 0 {
			w = append(w, p.Key(string(name)).String()+": fractional byte value "+strconv.Quote(q.String())+" is invalid, must be an integer")
		}
	}
	fractional(spec.Overhead, corev1.ResourceMemory, specPath.Child("overhead"))
	fractional(spec.Overhead, corev1.ResourceEphemeralStorage, specPath.Child("overhead"))
	if spec.SecurityContext == nil || spec.SecurityContext.SeccompProfile == nil {
		const key = "seccomp.security.alpha.kubernetes.io/pod"
		if _, ok := annotations[key]; ok {
			w = append(w, fldPath.Child("metadata", "annotations").Key(key).String()+`: non-functional in v1.27+; use the "seccompProfile" field instead`)
		}
	}
	visitContainers(spec, specPath, func(c *corev1.Container, p *validation.Path) {
		if c.SecurityContext == nil || c.SecurityContext.SeccompProfile == nil {
			key := "container.seccomp.security.alpha.kubernetes.io/" + c.Name
			if _, ok := annotations[key]; ok {
				w = append(w, fldPath.Child("metadata", "annotations").Key(key).String()+`: non-functional in v1.27+; use the "seccompProfile" field instead`)
			}
		}
		fractional(c.Resources.Limits, corev1.ResourceMemory, p.Child("resources", "limits"))
		fractional(c.Resources.Requests, corev1.ResourceMemory, p.Child("resources", "requests"))
		fractional(c.Resources.Limits, corev1.ResourceEphemeralStorage, p.Child("resources", "limits"))
		fractional(c.Resources.Requests, corev1.ResourceEphemeralStorage, p.Child("resources", "requests"))
		if len(c.Env) > 1 {
			seen := map[string]bool{}
			for i, e := range c.Env {
				if !seen[e.Name] {
					seen[e.Name] = true
					continue
				}
				ref := "$(" + e.Name + ")"
				if e.ValueFrom != nil || e.Value == ref || !strings.Contains(e.Value, ref) {
					w = append(w, p.Child("env").Index(i).String()+": hides previous definition of "+strconv.Quote(e.Name)+", which may be dropped when using apply")
				}
			}
		}
	})
	type portBlock struct {
		path *validation.Path
		port corev1.ContainerPort
	}
	ports := map[string][]portBlock{}
	visitContainers(spec, specPath, func(c *corev1.Container, p *validation.Path) {
		for i, port := range c.Ports {
			pp := p.Child("ports").Index(i)
			if port.HostIP != "" && port.HostPort == 0 {
				w = append(w, fmt.Sprintf("%s: hostIP set without hostPort: {Name:%s HostPort:%d ContainerPort:%d Protocol:%s HostIP:%s}",
					pp, port.Name, port.HostPort, port.ContainerPort, port.Protocol, port.HostIP))
			}
			k := strconv.Itoa(int(port.ContainerPort)) + "/" + string(port.Protocol)
			for _, o := range ports[k] {
				a, b := port.HostIP == "", o.port.HostIP == ""
				switch {
				case port.HostIP == o.port.HostIP && port.HostPort == o.port.HostPort:
					w = append(w, pp.String()+": duplicate port definition with "+o.path.String())
				case port.HostPort == 0 || o.port.HostPort == 0:
					w = append(w, pp.String()+": overlapping port definition with "+o.path.String())
				case port.HostPort == o.port.HostPort && (a || b) && !(a && b):
					w = append(w, pp.String()+": dangerously ambiguous port definition with "+o.path.String())
				}
			}
			ports[k] = append(ports[k], portBlock{pp, port})
		}
	})
	names := map[string]*validation.Path{}
	visitContainers(spec, specPath, func(c *corev1.Container, p *validation.Path) {
		for i, port := range c.Ports {
			if port.Name == "" {
				continue
			}
			pp := p.Child("ports").Index(i)
			if o, ok := names[port.Name]; ok {
				w = append(w, pp.String()+": duplicate port name "+strconv.Quote(port.Name)+" with "+o.String()+
					", services and probes that select ports by name will use "+o.String())
			} else {
				names[port.Name] = pp
			}
		}
	})
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		w = append(w, specPath.Child("terminationGracePeriodSeconds").String()+": must be >= 0; negative values are invalid and will be treated as 1")
	}
	if a := spec.Affinity; a != nil {
		for _, pa := range []struct {
			name      string
			required  []corev1.PodAffinityTerm
			preferred []corev1.WeightedPodAffinityTerm
		}{
			{"podAffinity", podAffinityRequired(a.PodAffinity), podAffinityPreferred(a.PodAffinity)},
			{"podAntiAffinity", podAntiAffinityRequired(a.PodAntiAffinity), podAntiAffinityPreferred(a.PodAntiAffinity)},
		} {
			for i, t := range pa.required {
				if t.LabelSelector == nil {
					w = append(w, specPath.Child("affinity", pa.name, "requiredDuringSchedulingIgnoredDuringExecution").Index(i).Child("labelSelector").String()+
						": a null labelSelector results in matching no pod")
				}
			}
			for i, t := range pa.preferred {
				if t.PodAffinityTerm.LabelSelector == nil {
					w = append(w, specPath.Child("affinity", pa.name, "preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm", "labelSelector").String()+
						": a null labelSelector results in matching no pod")
				}
			}
		}
	}
	if c := spec.DNSConfig; c != nil {
		for i, ns := range c.Nameservers {
			w = append(w, ipWarnings(specPath.Child("dnsConfig", "nameservers").Index(i), ns)...)
		}
	}
	for i, a := range spec.HostAliases {
		w = append(w, ipWarnings(specPath.Child("hostAliases").Index(i).Child("ip"), a.IP)...)
	}
	return w
}

func podAffinityRequired(a *corev1.PodAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAffinityPreferred(a *corev1.PodAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityRequired(a *corev1.PodAntiAffinity) []corev1.PodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.RequiredDuringSchedulingIgnoredDuringExecution
}

func podAntiAffinityPreferred(a *corev1.PodAntiAffinity) []corev1.WeightedPodAffinityTerm {
	if a == nil {
		return nil
	}
	return a.PreferredDuringSchedulingIgnoredDuringExecution
}

func nodeSelectorTermWarnings(t corev1.NodeSelectorTerm, checkValues bool, p *validation.Path) []string {
	var w []string
	for i, e := range t.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		if msg, ok := deprecatedNodeLabels[e.Key]; ok {
			w = append(w, ep.Child("key").String()+": "+e.Key+" is "+msg)
		}
		if checkValues {
			for j, v := range e.Values {
				for _, msg := range validation.IsValidLabelValue(v) {
					w = append(w, ep.Child("values").Index(j).String()+": "+v+" is invalid, "+msg)
				}
			}
		}
	}
	return w
}

// ipWarnings is apimachinery's GetWarningsForIP: an address kube accepts in a legacy
// field but in a form it does not recommend.
func ipWarnings(p *validation.Path, value string) []string {
	a, err := netip.ParseAddr(value)
	if err != nil {
		return nil
	}
	if a.Is4In6() {
		return []string{fmt.Sprintf("%s: non-standard IP address %q is invalid: use %q", p, value, a.Unmap().String())}
	}
	if a.Is6() && a.String() != value {
		return []string{fmt.Sprintf("%s: IPv6 address %q should be in RFC 5952 canonical format (%q)", p, value, a.String())}
	}
	return nil
}
