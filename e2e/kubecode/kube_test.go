package kubecode

import (
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
}
