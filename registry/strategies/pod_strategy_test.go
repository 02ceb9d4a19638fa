package strategies

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

func TestDropDisabledPodFields_ClearsTheFieldsOfV137sDisabledGates(t *testing.T) {
	withAll := func() *corev1.Pod {
		p := validPod()
		p.Annotations = map[string]string{"pod.beta.kubernetes.io/init-containers": "[]", "keep": "me"}
		p.Spec.Volumes[0].EmptyDir.Mode = ptr(int32(0o700))
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: "s", DefaultUser: ptr(int64(1000)), Items: []corev1.KeyToPath{{Key: "k", Path: "p", User: ptr(int64(1))}}}}})
		c := &p.Spec.Containers[0]
		c.VolumeMounts[0].BindMountOptions = []string{"noexec"}
		c.Lifecycle = &corev1.Lifecycle{StopSignal: ptr(corev1.Signal("SIGTERM"))}
		c.LivenessProbe = probe(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: scheme.IntOrString{IntVal: 80}, Scheme: "HTTP", Protocol: ptr(corev1.HTTPProtocolHTTP2)}})
		c.ReadinessProbe = probe(corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9, Mode: ptr(corev1.GRPCProbeModeTLS)}})
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{}
		p.Spec.EvictionResponders = []corev1.EvictionResponder{{}}
		return p
	}
	t.Run("a new pod loses them", func(t *testing.T) {
		p := withAll()
		dropDisabledPodFields(&p.Spec, p.Annotations, nil)
		c := p.Spec.Containers[0]
		s := p.Spec.Volumes[1].Secret
		for _, f := range []struct {
			name string
			left bool
		}{
			{"emptyDir.mode", p.Spec.Volumes[0].EmptyDir.Mode != nil},
			{"bindMountOptions", c.VolumeMounts[0].BindMountOptions != nil},
			{"lifecycle (empty without stopSignal)", c.Lifecycle != nil},
			{"httpGet.protocol", c.LivenessProbe.HTTPGet.Protocol != nil},
			{"grpc.mode", c.ReadinessProbe.GRPC.Mode != nil},
			{"secret defaultUser", s.DefaultUser != nil},
			{"item user", s.Items[0].User != nil},
			{"schedulingGroup", p.Spec.SchedulingGroup != nil},
			{"evictionResponders", p.Spec.EvictionResponders != nil},
			{"init container annotation", p.Annotations["pod.beta.kubernetes.io/init-containers"] != ""},
			{"other annotations kept", p.Annotations["keep"] != "me"},
		} {
			if f.left {
				t.Errorf("%s: not as kube leaves it", f.name)
			}
		}
	})
	t.Run("an update keeps what the stored pod uses", func(t *testing.T) {
		p, old := withAll(), withAll()
		dropDisabledPodFields(&p.Spec, p.Annotations, &old.Spec)
		if d := cmp.Diff(withAll().Spec, p.Spec, quantityEqual); d != "" {
			t.Errorf("spec changed (-want +got):\n%s", d)
		}
	})
}

func TestUniqueErrors_DropsRepeatsAsKubesToAggregate(t *testing.T) {
	p := validation.NewPath("spec")
	errs := validation.ErrorList{validation.Required(p, ""), validation.Invalid(p, "a", "x"), validation.Required(p, ""), validation.Invalid(p, "b", "x")}
	got := causes(uniqueErrors(errs))
	want := []string{"spec: Required value", `spec: Invalid value: "a": x`, `spec: Invalid value: "b": x`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestBadStruct_RendersKubesInternalGoFieldNames(t *testing.T) {
	p := validPod()
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true), AllowPrivilegeEscalation: ptr(false),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	got := causes(validatePodCreate(p))
	// The text kube v1.37.2 gives for this container (its internal SecurityContext).
	want := []string{`spec.containers[0].securityContext: Invalid value: {"Capabilities":{"Add":null,"Drop":["ALL"]},"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set ` + "`allowPrivilegeEscalation`" + ` to false and ` + "`privileged`" + ` to true`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-kube +got):\n%s", d)
	}
	if s := goJSONIndent(corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": quantity.MustParse("1")}}); s != "{\n \"Limits\": {\n  \"cpu\": \"1\"\n },\n \"Requests\": null,\n \"Claims\": null\n}" {
		t.Errorf("quantities keep their JSON form, got %s", s)
	}
}

// The expected hunks are Python difflib's unified_diff (n=3) of the same lines, the
// algorithm go-difflib ports; SplitLines gives the text a last "\n" line.
func TestUnifiedDiff_IsGoDifflibsOutput(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"one changed line with three lines of context",
			"a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nX\nf\ng\nh\n",
			"@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+X\n f\n g\n h\n"},
		{"distant changes make two hunks, removals before insertions",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nB\n",
			"@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -8,6 +9,5 @@\n 8\n 9\n 10\n-11\n-12\n+B\n \n"},
		{"equal texts have no hunk", "a\n", "a\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff(splitLines(tt.a), splitLines(tt.b)); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestUnifiedDiff_PopularLinesDoNotSeedMatchesInLongTexts(t *testing.T) {
	// In a b of 200 lines or more, a line found in more than 1% of them cannot start
	// a match (difflib's autojunk); it still extends the matches next to it.
	var a, b []string
	for i := 0; i < 100; i++ {
		a = append(a, "x\n", "u"+strings.Repeat("a", i%7)+"\n")
		b = append(b, "x\n", "v"+strings.Repeat("a", i%7)+"\n")
	}
	m := newLineMatcher(a, b)
	if _, ok := m.b2j["x\n"]; ok {
		t.Fatal(`"x" occurs in half of b's lines and still seeds matches`)
	}
	// Python difflib: [Match(a=0, b=0, size=1), Match(a=200, b=200, size=0)].
	if d := cmp.Diff([]lineMatch{{0, 0, 1}, {200, 200, 0}}, m.matchingBlocks(), cmp.AllowUnexported(lineMatch{})); d != "" {
		t.Errorf("matching blocks (-difflib +got):\n%s", d)
	}
	// In a short text the same line seeds every match.
	short := newLineMatcher(a[:20], b[:20])
	if n := len(short.matchingBlocks()); n != 11 {
		t.Errorf("%d matching blocks in 20 lines, want 10 and the sentinel", n)
	}
}

func TestPodSpecWarnings_AreKubesWarnings(t *testing.T) {
	p := validPod()
	p.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/os": "linux"}
	p.Spec.TerminationGracePeriodSeconds = ptr(int64(-1))
	p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "a"}, {Name: "a"}}
	p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "http", ContainerPort: 80, Protocol: "TCP"})
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule"}}
	p.Name = "web.v1"
	want := []string{
		"metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]",
		`spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
		"spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod",
		`spec.imagePullSecrets[1].name: duplicate name "a"`,
		"spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]",
		`spec.containers[0].ports[1]: duplicate port name "http" with spec.containers[0].ports[0], services and probes that select ports by name will use spec.containers[0].ports[0]`,
		"spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
	}
	if d := cmp.Diff(want, podWarningsOnCreate(p)); d != "" {
		t.Errorf("(-kube +got):\n%s", d)
	}
	tmpl := &corev1.PodTemplateSpec{Spec: p.Spec}
	if got := podTemplateWarnings(validation.NewPath("spec", "template"), tmpl); len(got) == 0 || !strings.HasPrefix(got[0], "spec.template.spec.nodeSelector[beta.kubernetes.io/os]: ") {
		t.Errorf("template warnings %q, want them under spec.template", got)
	}
}

func TestDefaultPodLevelResources_AsKubesFixedDefaulting(t *testing.T) {
	q := quantity.MustParse
	spec := &corev1.PodSpec{
		Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("2"), "memory": q("2Gi")}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("100m")}}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("200m"), "memory": q("64Mi")}}},
		},
		InitContainers: []corev1.Container{{Name: "i", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("1")}}}},
	}
	defaultPodLevelResources(spec)
	// cpu: max(100m+200m, init's 1) = 1; memory: 64Mi from the containers.
	want := corev1.ResourceList{"cpu": q("1"), "memory": q("64Mi")}
	if d := cmp.Diff(want, spec.Resources.Requests, quantityEqual); d != "" {
		t.Errorf("requests (-kube +got):\n%s", d)
	}
}

func TestAddDefaultTolerations_AsKubesDefaultTolerationSecondsAdmission(t *testing.T) {
	notReady := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr(int64(300))}
	unreachable := corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr(int64(300))}
	own := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr(int64(5))}
	tests := []struct {
		name     string
		in, want []corev1.Toleration
	}{
		{"none get both", nil, []corev1.Toleration{notReady, unreachable}},
		{"an own not-ready toleration is kept", []corev1.Toleration{own}, []corev1.Toleration{own, unreachable}},
		{"a toleration of every taint needs none", []corev1.Toleration{{Operator: "Exists"}}, []corev1.Toleration{{Operator: "Exists"}}},
		{"a NoSchedule toleration does not count", []corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoSchedule"}},
			[]corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoSchedule"}, notReady, unreachable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &corev1.PodSpec{Tolerations: tt.in}
			addDefaultTolerations(spec)
			if d := cmp.Diff(tt.want, spec.Tolerations); d != "" {
				t.Errorf("(-kube +got):\n%s", d)
			}
		})
	}
}

func TestValidatePodUpdate_AGatedPodMayOnlyNarrowItsPlacement(t *testing.T) {
	gated := func() *corev1.Pod {
		p := validPod()
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/g"}}
		p.Spec.NodeSelector = map[string]string{"zone": "a"}
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: "In", Values: []string{"ssd"}}}}}}}}
		return p
	}
	tests := []struct {
		name   string
		mutate func(p *corev1.Pod)
		want   []string
	}{
		{"a selector label may be added", func(p *corev1.Pod) { p.Spec.NodeSelector["rack"] = "1" }, nil},
		{"a term's requirement may be added", func(p *corev1.Pod) {
			t := &p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0]
			t.MatchExpressions = append(t.MatchExpressions, corev1.NodeSelectorRequirement{Key: "gpu", Operator: "Exists"})
		}, nil},
		{"a selector label may not change", func(p *corev1.Pod) { p.Spec.NodeSelector["zone"] = "b" }, []string{
			`spec.nodeSelector: Invalid value: {"zone":"b"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`}},
		{"a term may not be removed", func(p *corev1.Pod) {
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions = nil
		}, []string{`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: {"MatchExpressions":null,"MatchFields":null}: only additions are allowed (no mutations or deletions)`}},
		{"an empty list is the nil one", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{}
			p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := gated()
			tt.mutate(p)
			if d := cmp.Diff(tt.want, causes(validatePodUpdate(p, gated()))); d != "" {
				t.Errorf("(-kube +got):\n%s", d)
			}
		})
	}
}
