package admission

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authz"
	"github.com/apikit-dev/apikit/builtin"
	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage/memory"
)

// BenchmarkPodSecurity_Evaluate is the cost of one evaluation of a pod with three
// containers at restricted:latest: a pod every check allows, and a bare one that four
// checks forbid (their texts built).
func BenchmarkPodSecurity_Evaluate(b *testing.B) {
	allowed := restrictedPod()
	for i := 1; i < 3; i++ {
		c := allowed.Spec.Containers[0]
		c.Name = fmt.Sprintf("c%d", i)
		allowed.Spec.Containers = append(allowed.Spec.Containers, c)
	}
	bare := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}, {Name: "c"}}}}
	lv := psLevelVersion{psRestricted, psLatest}
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
	}{{"allowed", allowed}, {"forbidden", bare}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if e := evaluatePod(lv, &c.pod.ObjectMeta, &c.pod.Spec); e.allowed() != (c.name == "allowed") {
					b.Fatal(e.detail())
				}
			}
		})
	}
}

// BenchmarkPodSecurity_ExistingPods is the check of a namespace's pods when its
// enforce level tightens, at kube's limit of 3000 pods.
func BenchmarkPodSecurity_ExistingPods(b *testing.B) {
	pods := make([]*corev1.Pod, psMaxPodsToCheck)
	for i := range pods {
		pods[i] = restrictedPod()
		pods[i].Name = fmt.Sprintf("pod-%d", i)
		pods[i].Spec.HostNetwork = i%10 == 0
	}
	b.ReportAllocs()
	for b.Loop() {
		if w := podsWarnings(context.Background(), "ns", psLevelVersion{psBaseline, psLatest}, pods, psMaxPodsToCheck); len(w) != 2 {
			b.Fatal(w)
		}
	}
}

// BenchmarkPodCreate_Admission is a pod create through apikit's handler (in-process,
// dryRun=All so that the store does not grow) without admission plugins, as before
// PodSecurity and Priority, and with Builtin() in a namespace without labels and in
// one enforcing restricted.
func BenchmarkPodCreate_Admission(b *testing.B) {
	pod := `{"metadata":{"name":"p"},"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},` +
		`"containers":[{"name":"c","image":"nginx","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}}`
	for _, c := range []struct {
		name      string
		admission bool
		labels    string
	}{{"none", false, ""}, {"builtin-unlabelled", true, ""}, {"builtin-restricted", true, `{"pod-security.kubernetes.io/enforce":"restricted"}`}} {
		b.Run(c.name, func(b *testing.B) {
			s := scheme.New()
			if err := builtin.AddToScheme(s); err != nil {
				b.Fatal(err)
			}
			opts := rest.Options{Scheme: s, Storage: memory.New(memory.Options{}), Strategies: strategies.Builtin(),
				AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}}
			if c.admission {
				p := Builtin()
				opts.MutatingAdmission, opts.ValidatingAdmission = p.Mutating, p.Validating
			}
			h, err := rest.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			ns := `{"metadata":{"name":"ns"}}`
			if c.labels != "" {
				ns = `{"metadata":{"name":"ns","labels":` + c.labels + `}}`
			}
			if code := benchSend(h, "/api/v1/namespaces", ns); code != http.StatusCreated {
				b.Fatal(code)
			}
			b.ReportAllocs()
			for b.Loop() {
				if code := benchSend(h, "/api/v1/namespaces/ns/pods?dryRun=All", pod); code != http.StatusCreated {
					b.Fatal(code)
				}
			}
		})
	}
}

func benchSend(h http.Handler, path, body string) int {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

var _ registry.ValidatingAdmission = PodSecurity{}
