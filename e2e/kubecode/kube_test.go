package kubecode

import (
	"slices"
	"strings"
	"testing"
)

// TestKube_DeploymentDefaultsAndRefusal checks the kube side alone: a minimal Deployment
// gets kube's defaults, and one whose selector does not match its template is refused with
// kube's cause.
func TestKube_DeploymentDefaultsAndRefusal(t *testing.T) {
	var s Server
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns"},
"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	r, err := s.Create("Deployment", "ns", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.Code != 201 {
		t.Fatalf("create: %d %s %+v", r.Code, r.Message, r.Causes)
	}
	for _, want := range []string{`"replicas":1`, `"maxSurge":"25%"`, `"revisionHistoryLimit":10`, `"progressDeadlineSeconds":600`, `"imagePullPolicy":"Always"`, `"generation":1`} {
		if !strings.Contains(string(r.Object), want) {
			t.Errorf("stored object lacks %s: %s", want, r.Object)
		}
	}
	bad := strings.Replace(body, `"labels":{"app":"web"}`, `"labels":{"app":"other"}`, 1)
	r, err = s.Create("Deployment", "ns", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	if r.Code != 422 || len(r.Causes) == 0 || r.Causes[0].Field != "spec.template.metadata.labels" {
		t.Fatalf("mismatched selector: %d %+v", r.Code, r.Causes)
	}
	t.Logf("%s", r.Message)

	// A Pod gets DefaultTolerationSeconds' tolerations, as kube-apiserver's admission
	// gives them.
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`
	r, err = s.Create("Pod", "ns", []byte(pod))
	if err != nil || r.Code != 201 {
		t.Fatalf("pod: %v %d %s", err, r.Code, r.Message)
	}
	// A quantity that does not parse is the handler's 400, worded as transformDecodeError
	// words it.
	badQ := strings.Replace(body, `"image":"nginx"`, `"image":"nginx","resources":{"requests":{"memory":"12Zi"}}`, 1)
	rq, err := s.Create("Deployment", "ns", []byte(badQ))
	if err != nil {
		t.Fatal(err)
	}
	if want := `Deployment in version "v1" cannot be handled as a Deployment: quantities must match the regular expression`; rq.Code != 400 || !strings.HasPrefix(rq.Message, want) {
		t.Errorf("bad quantity: %d %q, want 400 %q...", rq.Code, rq.Message, want)
	}
	// Privileged containers are allowed, as envtest's --allow-privileged=true allows them.
	priv := strings.Replace(body, `"image":"nginx"`, `"image":"nginx","securityContext":{"privileged":true}`, 1)
	if rp, err := s.Create("Deployment", "ns", []byte(priv)); err != nil || rp.Code != 201 {
		t.Errorf("privileged container: %v %d %s", err, rp.Code, rp.Message)
	}

	for _, want := range []string{`"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300`, `"imagePullPolicy":"IfNotPresent"`, `"restartPolicy":"Always"`} {
		if !strings.Contains(string(r.Object), want) {
			t.Errorf("stored pod lacks %s: %s", want, r.Object)
		}
	}
}

// TestGenerator_KubeAcceptsTheValidCases holds the generator to its word: every case
// without an invalid mutation is accepted by kube's code, and at least four in five cases with one are
// refused (a mutation may be invalid only in combination, or undone by a later one).
func TestGenerator_KubeAcceptsTheValidCases(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	s := &Server{}
	for _, kind := range append(slices.Clone(allKinds), updatesOnly...) {
		var valid, invalid, refused int
		notRefused := map[string]int{}
		for _, c := range Generate(kind, 26, n) {
			var r Result
			var err error
			if c.Old != nil {
				old, err := s.Create(kind, c.Namespace, JSON(c.Old))
				if err != nil || old.Code != 201 {
					t.Fatalf("%s: the base manifest is refused: %v %d %s", c, err, old.Code, old.Message)
				}
				r, err = s.Update(kind, c.Namespace, old.Object, UpdateBody(c, old.Object))
			} else {
				r, err = s.Create(kind, c.Namespace, JSON(c.Body))
			}
			if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			if !c.Invalid {
				valid++
				if r.Code >= 300 && strings.Contains(r.Message, "provided IP is already allocated") {
					// kube's in-memory allocator is the process's (Kinds["Service"]):
					// a requested IP an earlier case or test holds is taken.
					t.Logf("%s: its requested IP is held by an earlier case", c)
					continue
				}
				if r.Code >= 300 {
					t.Errorf("%s: kube refuses a valid case: %d %s", c, r.Code, r.Message)
				}
				continue
			}
			invalid++
			if r.Code >= 300 {
				refused++
			} else {
				notRefused[strings.Join(c.Mutations, ", ")]++
			}
		}
		t.Logf("%-18s %d cases: %d valid, %d invalid of which kube refused %d", kind, n, valid, invalid, refused)
		if refused*5 < invalid*4 {
			t.Errorf("%s: kube refused only %d of %d invalid cases; accepted: %v", kind, refused, invalid, notRefused)
		}
		if valid*5 < n {
			t.Errorf("%s: only %d of %d cases are valid", kind, valid, n)
		}
	}
}
