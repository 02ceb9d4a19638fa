package kubecode

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// casesPerKind is how many generated objects each kind gets; -short runs a tenth.
const casesPerKind = 300

// diffsShown is how many differences per kind print as a diff.
const diffsShown = 8

// seed is the generator's seed; KUBECODE_SEED replays another.
func seed(t *testing.T) uint64 {
	if s := os.Getenv("KUBECODE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("KUBECODE_SEED: %v", err)
		}
		return n
	}
	return 26
}

// intendedDifference is one way apikit is meant to answer differently from kube's code
// run in-process, or one way this in-process run of kube's code is not all of
// kube-apiserver: a comparison rule applied to both results before they are compared,
// counted and reported by name. None hides a difference of a stored object's fields
// or of a 422's causes.
type intendedDifference struct {
	name string
	// why says why the difference is intended.
	why string
	// applies says whether it applies to the case and its two results.
	applies func(c Case, kube, apikit *Result) bool
	// normalize changes both results so that the difference goes.
	normalize func(kube, apikit *Result)
}

// intendedDifferences are the named exceptions of the comparison.
var intendedDifferences = []intendedDifference{
	{
		name: "storage key in a uid precondition conflict",
		why: "kube's 409 for a body whose metadata.uid is not the stored object's wraps its storage error, which " +
			"names the etcd key (/registry/...); apikit never puts a storage key in a message. The code and " +
			"reason are compared, not the message.",
		applies: func(_ Case, kube, apikit *Result) bool {
			return kube.Code == 409 && apikit.Code == 409 && strings.Contains(kube.Message, "StorageError")
		},
		normalize: func(kube, apikit *Result) { kube.Message, apikit.Message = "", "" },
	},
	{
		name: "Priority admission of a Pod",
		why: "kube-apiserver's default admission (as envtest runs it) includes Priority, which gives a pod without " +
			"a priorityClassName spec.priority 0 and spec.preemptionPolicy PreemptLowerPriority; the in-process kube " +
			"run does not include it (it needs a PriorityClass informer), so apikit's two fields, when they are " +
			"exactly these, are set aside. DefaultTolerationSeconds does run in-process (Kinds[\"Pod\"].Admission).",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "Pod" && kube.Code < 300 && apikit.Code < 300 && admittedByPriority(kube, apikit)
		},
		normalize: func(_, apikit *Result) {
			var o map[string]any
			if json.Unmarshal(apikit.Object, &o) != nil {
				return
			}
			spec := o["spec"].(map[string]any)
			delete(spec, "priority")
			delete(spec, "preemptionPolicy")
			apikit.Object, _ = json.Marshal(o)
		},
	},
}

// admittedByPriority said whether apikit's stored Pod had what kube-apiserver's Priority
// admission plugin sets (spec.priority 0, spec.preemptionPolicy PreemptLowerPriority)
// where the in-process kube run did not run the plugin. Both sides now run Priority
// where they are compared on it (TestDifferential_Priority: kube's plugin over the
// system classes, apikit's admission.Builtin()) and neither where they are not
// (TestDifferential_CoreV1Pods compares apikit's handler without admission plugins),
// so the difference never applies.
func admittedByPriority(_, _ *Result) bool { return false }

func specOf(b []byte) map[string]any {
	var o struct {
		Spec map[string]any `json:"spec"`
	}
	if json.Unmarshal(b, &o) != nil {
		return nil
	}
	return o.Spec
}

// normalizeStored is the comparison's view of a stored object: the fields each server
// sets from its own state are taken out (metadata.uid, resourceVersion and
// creationTimestamp: both servers set them, to different values; metadata.managedFields:
// kube-apiserver's handler writes them with its field manager, which the in-process kube
// run does not include, and their times differ); metadata.generation stays, since both
// servers' strategies set it.
func normalizeStored(b []byte) (any, error) {
	var o map[string]any
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	if m, ok := o["metadata"].(map[string]any); ok {
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
			delete(m, k)
		}
	}
	return o, nil
}

// outcome is the comparison of one case.
type outcome struct {
	c            Case
	kube, apikit Result
	diff         string
	intended     []string
}

// compare returns "" when the two results are the same, or a readable diff.
func compare(c Case, kube, apikit Result) (diff string, intended []string) {
	for _, d := range intendedDifferences {
		if d.applies(c, &kube, &apikit) {
			d.normalize(&kube, &apikit)
			intended = append(intended, d.name)
		}
	}
	var b strings.Builder
	if kube.Code != apikit.Code {
		fmt.Fprintf(&b, "  code: kube %d, apikit %d\n", kube.Code, apikit.Code)
	}
	if kube.Code >= 300 || apikit.Code >= 300 {
		if kube.Reason != apikit.Reason {
			fmt.Fprintf(&b, "  reason: kube %q, apikit %q\n", kube.Reason, apikit.Reason)
		}
		// A 422's message is the causes joined; the causes are compared instead.
		if kube.Code != 422 && kube.Message != apikit.Message {
			fmt.Fprintf(&b, "  message:\n    kube:   %s\n    apikit: %s\n", kube.Message, apikit.Message)
		}
		b.WriteString(diffCauses(kube.SortedCauses(), apikit.SortedCauses()))
	}
	if kube.Code < 300 && apikit.Code < 300 {
		ko, err := normalizeStored(kube.Object)
		if err != nil {
			fmt.Fprintf(&b, "  kube's object: %v\n", err)
		}
		ao, err := normalizeStored(apikit.Object)
		if err != nil {
			fmt.Fprintf(&b, "  apikit's object: %v\n", err)
		}
		if !cmp.Equal(ko, ao) {
			fmt.Fprintf(&b, "  stored object (-kube +apikit):\n%s", diffPaths(ko, ao))
		}
	}
	return b.String(), intended
}

// diffCauses lists the causes only one side gave: "-" kube's, "+" apikit's.
func diffCauses(kube, apikit []Cause) string {
	key := func(c Cause) string { return c.Type + "\x00" + c.Field + "\x00" + c.Message }
	count := map[string]int{}
	for _, c := range apikit {
		count[key(c)]++
	}
	var b strings.Builder
	for _, c := range kube {
		if count[key(c)] > 0 {
			count[key(c)]--
			continue
		}
		fmt.Fprintf(&b, "    - %s %s: %s\n", c.Type, c.Field, c.Message)
	}
	for _, c := range apikit {
		if count[key(c)] > 0 {
			count[key(c)]--
			fmt.Fprintf(&b, "    + %s %s: %s\n", c.Type, c.Field, c.Message)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "  causes (-kube +apikit):\n" + b.String()
}

// diffPaths lists the leaves (JSON paths and values) only one object has: "-" kube's,
// "+" apikit's; an empty object or list is a leaf.
func diffPaths(kube, apikit any) string {
	k, a := map[string]string{}, map[string]string{}
	flatten("", kube, k)
	flatten("", apikit, a)
	var lines []string
	for p, v := range k {
		if a[p] != v {
			lines = append(lines, fmt.Sprintf("    - %s: %s", p, v))
		}
	}
	for p, v := range a {
		if k[p] != v {
			lines = append(lines, fmt.Sprintf("    + %s: %s", p, v))
		}
	}
	// By path, kube's line first.
	slices.SortFunc(lines, func(x, y string) int { return strings.Compare(x[6:]+x[4:5], y[6:]+y[4:5]) })
	return strings.Join(lines, "\n") + "\n"
}

func flatten(path string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			out[path] = "{}"
		}
		for k, e := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flatten(p, e, out)
		}
	case []any:
		if len(v) == 0 {
			out[path] = "[]"
		}
		for i, e := range v {
			flatten(fmt.Sprintf("%s[%d]", path, i), e, out)
		}
	default:
		b, _ := json.Marshal(v)
		out[path] = string(b)
	}
}

// kindSummary counts the outcomes of one kind.
type kindSummary struct {
	kind                                  string
	objects, creates, updates             int
	equal, different                      int
	kubeRefused, apikitRefused, notServed int
	intended                              map[string]int
	shown                                 []outcome
}

func (s kindSummary) String() string {
	var in []string
	for _, d := range intendedDifferences {
		if n := s.intended[d.name]; n > 0 {
			in = append(in, fmt.Sprintf("%q %d", d.name, n))
		}
	}
	line := fmt.Sprintf("%-18s %d objects (%d creates, %d updates): %d equal, %d different; kube refused %d, apikit refused %d",
		s.kind, s.objects, s.creates, s.updates, s.equal, s.different, s.kubeRefused, s.apikitRefused)
	if s.notServed > 0 {
		line += fmt.Sprintf("; apikit does not serve the kind (%d)", s.notServed)
	}
	if len(in) > 0 {
		line += "; intended differences: " + strings.Join(in, ", ")
	}
	return line
}

// runCase sends c to both sides: the create of c.Old first for an update (which both must
// accept: it is a valid base manifest), then c's own request.
func runCase(t *testing.T, kube *Server, apikit *apikitServer, c Case) (kr, ar Result) {
	t.Helper()
	body := JSON(c.Body)
	if c.Old == nil {
		kr, err := kube.Create(c.Kind, c.Namespace, body)
		if err != nil {
			t.Fatalf("%s: kube: %v", c, err)
		}
		return kr, apikit.Create(c.Kind, c.Namespace, body)
	}
	old := JSON(c.Old)
	kold, err := kube.Create(c.Kind, c.Namespace, old)
	if err != nil || kold.Code != 201 {
		t.Fatalf("%s: kube refused the base manifest: %v %d %s", c, err, kold.Code, kold.Message)
	}
	aold := apikit.Create(c.Kind, c.Namespace, old)
	kr, err = kube.Update(c.Kind, c.Namespace, kold.Object, UpdateBody(c, kold.Object))
	if err != nil {
		t.Fatalf("%s: kube: %v", c, err)
	}
	if aold.Code != 201 {
		// apikit refused the base: the update cannot be compared; the create's answer
		// stands for it.
		return kr, aold
	}
	return kr, apikit.Update(c.Kind, c.Namespace, c.Old["metadata"].(Object)["name"].(string), UpdateBody(c, aold.Object))
}

// differential runs the generated cases of kinds through both sides and reports.
func differential(t *testing.T, kinds []string) {
	n := casesPerKind
	if testing.Short() {
		n /= 10
	}
	sd := seed(t)
	kube := &Server{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var summaries []kindSummary
	for _, kind := range kinds {
		apikit := newApikit(t)
		if admittedKinds[kind] {
			apikit = admittingApikit(t, map[string]map[string]string{"ns1": nil})
		}
		sum := kindSummary{kind: kind, intended: map[string]int{}}
		served := apikit.served(kind)
		for _, c := range Generate(kind, sd, n) {
			// Every case gets a fresh name space on both sides: the case index is in
			// the name, so creates never collide.
			kr, ar := runCase(t, kube, apikit, c)
			sum.objects++
			if c.Old != nil {
				sum.updates++
			} else {
				sum.creates++
			}
			if kr.Code >= 300 {
				sum.kubeRefused++
			}
			if ar.Code >= 300 {
				sum.apikitRefused++
			}
			if !served {
				sum.notServed++
			}
			diff, intended := compare(c, kr, ar)
			for _, name := range intended {
				sum.intended[name]++
			}
			if diff == "" {
				sum.equal++
				continue
			}
			sum.different++
			if len(sum.shown) < diffsShown {
				sum.shown = append(sum.shown, outcome{c: c, kube: kr, apikit: ar, diff: diff, intended: intended})
			}
		}
		summaries = append(summaries, sum)
	}
	for _, s := range summaries {
		for _, o := range s.shown {
			t.Errorf("%s differs:\n%s", o.c, o.diff)
		}
	}
	for _, s := range summaries {
		t.Log(s)
		if s.different > 0 {
			t.Errorf("%s: %d of %d objects differ (seed %d; first %d shown above)", s.kind, s.different, s.objects, sd, min(s.different, diffsShown))
		}
	}
	if !slices.ContainsFunc(summaries, func(s kindSummary) bool { return s.kubeRefused > 0 && s.kubeRefused < s.objects }) {
		t.Errorf("the generator gave no kind both accepted and refused objects")
	}
}

// TestDifferential_AppsV1 feeds generated Deployments, StatefulSets, DaemonSets,
// ReplicaSets and ControllerRevisions, valid and invalid, creates and updates, to
// k8s.io/kubernetes v1.37.2's code and to apikit, and compares the stored objects and
// the 422 causes.
func TestDifferential_AppsV1(t *testing.T) {
	differential(t, []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision"})
}

// TestDifferential_CoreV1Pods does the same for Pods and PodTemplates.
func TestDifferential_CoreV1Pods(t *testing.T) {
	differential(t, []string{"Pod", "PodTemplate"})
}

// TestDifferential_CoreV1PodResize does the same for the writes of pods/resize: every
// case an update of a created Pod through the subresource, kube's side with its
// ResizeStrategy (PrepareForUpdate, ValidatePodResize).
func TestDifferential_CoreV1PodResize(t *testing.T) {
	differential(t, []string{"PodResize"})
}
