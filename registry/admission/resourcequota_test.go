package admission_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// TestResourceQuota_ChargesAndRefusesAsKube holds kube's ResourceQuota admission: a
// quota without status constrains nothing; once its status is set, each create is
// charged to status.used, a dry run is not, a create past status.hard is refused with
// kube's 403 "exceeded quota" message, a quota on cpu requires each container to say it,
// and a resource missing from status.used is "status unknown".
func TestResourceQuota_ChargesAndRefusesAsKube(t *testing.T) {
	srv := newServer(t)
	const ns = "/api/v1/namespaces/ns"
	cm := func(name string) obj {
		return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": name}}
	}
	q := call(t, srv, http.MethodPost, ns+"/resourcequotas", obj{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": obj{"name": "q"},
		"spec": obj{"hard": obj{"configmaps": "2", "pods": "1", "requests.cpu": "1"}}}, http.StatusCreated)
	// No status yet: nothing is constrained, nothing charged.
	call(t, srv, http.MethodPost, ns+"/configmaps", cm("before"), http.StatusCreated)
	q["status"] = obj{"hard": obj{"configmaps": "2", "pods": "1", "requests.cpu": "1"}, "used": obj{"configmaps": "1", "pods": "0", "requests.cpu": "0"}}
	call(t, srv, http.MethodPut, ns+"/resourcequotas/q/status", q, http.StatusOK)

	call(t, srv, http.MethodPost, ns+"/configmaps?dryRun=All", cm("dry"), http.StatusCreated)
	if used := at(call(t, srv, http.MethodGet, ns+"/resourcequotas/q", nil, http.StatusOK), "status", "used", "configmaps"); used != "1" {
		t.Errorf("after a dry run: used configmaps %v, want 1", used)
	}
	call(t, srv, http.MethodPost, ns+"/configmaps", cm("second"), http.StatusCreated)
	if used := at(call(t, srv, http.MethodGet, ns+"/resourcequotas/q", nil, http.StatusOK), "status", "used", "configmaps"); used != "2" {
		t.Errorf("after a create: used configmaps %v, want 2", used)
	}
	for _, c := range []struct {
		name, path string
		body       obj
		want       string
	}{
		{"a configmap past the quota", ns + "/configmaps", cm("third"),
			`configmaps "third" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`},
		{"a pod without a cpu request", ns + "/pods", pod("no-cpu", nil),
			`pods "no-cpu" is forbidden: failed quota: q: must specify requests.cpu for: app`},
		{"a pod past the cpu quota", ns + "/pods", pod("big", obj{"requests": obj{"cpu": "1500m"}}),
			`pods "big" is forbidden: exceeded quota: q, requested: requests.cpu=1500m, used: requests.cpu=0, limited: requests.cpu=1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := call(t, srv, http.MethodPost, c.path, c.body, http.StatusForbidden)
			if st["reason"] != "Forbidden" || st["message"] != c.want {
				t.Errorf("refused with %v %q, want Forbidden %q", st["reason"], st["message"], c.want)
			}
		})
	}
	call(t, srv, http.MethodPost, ns+"/pods", pod("fits", obj{"requests": obj{"cpu": "500m"}}), http.StatusCreated)
	used := at(call(t, srv, http.MethodGet, ns+"/resourcequotas/q", nil, http.StatusOK), "status", "used")
	if u := used.(obj); u["pods"] != "1" || u["requests.cpu"] != "500m" {
		t.Errorf("after the pod: used %v, want pods 1 and requests.cpu 500m", used)
	}

	// A quota whose status.used lacks a resource of its status.hard.
	u := call(t, srv, http.MethodPost, ns+"/resourcequotas", obj{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": obj{"name": "unknown"},
		"spec": obj{"hard": obj{"secrets": "5"}}}, http.StatusCreated)
	u["status"] = obj{"hard": obj{"secrets": "5"}}
	call(t, srv, http.MethodPut, ns+"/resourcequotas/unknown/status", u, http.StatusOK)
	st := call(t, srv, http.MethodPost, ns+"/secrets", obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": "s"}}, http.StatusForbidden)
	if want := `secrets "s" is forbidden: status unknown for quota: unknown, resources: secrets`; st["message"] != want {
		t.Errorf("refused with %q, want %q", st["message"], want)
	}
}

// TestResourceQuota_ConcurrentCreatesAreEachChargedOnce holds that creates racing on
// one quota each charge it once and all succeed: status.used equals the objects
// created (the status write is conflict-checked, so none is lost to a blind write), and
// no create fails with a 409 (the namespace's checks run one at a time, and a conflict
// is re-read and retried). Without both the lock and the retry, creates fail with 409.
func TestResourceQuota_ConcurrentCreatesAreEachChargedOnce(t *testing.T) {
	srv := newServer(t)
	const ns = "/api/v1/namespaces/ns"
	q := call(t, srv, http.MethodPost, ns+"/resourcequotas", obj{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": obj{"name": "q"},
		"spec": obj{"hard": obj{"configmaps": "1000"}}}, http.StatusCreated)
	q["status"] = obj{"hard": obj{"configmaps": "1000"}, "used": obj{"configmaps": "0"}}
	call(t, srv, http.MethodPut, ns+"/resourcequotas/q/status", q, http.StatusOK)
	const workers, each = 4, 6
	var wg sync.WaitGroup
	codes := make(chan int, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				b, _ := json.Marshal(obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": fmt.Sprintf("cm-%d-%d", w, i)}})
				resp, err := srv.Client().Post(srv.URL+ns+"/configmaps", "application/json", bytes.NewReader(b))
				if err != nil {
					codes <- 0
					continue
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			}
		}()
	}
	wg.Wait()
	close(codes)
	created := 0
	for c := range codes {
		if c == http.StatusCreated {
			created++
		} else {
			t.Errorf("a create answered %d", c)
		}
	}
	used := at(call(t, srv, http.MethodGet, ns+"/resourcequotas/q", nil, http.StatusOK), "status", "used", "configmaps")
	if used != fmt.Sprint(created) || created != workers*each {
		t.Errorf("created %d of %d, status.used configmaps %v", created, workers*each, used)
	}
}
