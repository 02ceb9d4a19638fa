package admission_test

import (
	"net/http"
	"testing"
)

// TestResize_LimitRangerAndResourceQuotaSeeIt holds that a pods/resize reaches kube's
// LimitRanger (a limit past the Container max is its 403) and ResourceQuota (a request
// past the quota is its 403 with the increase requested; one that fits is charged).
func TestResize_LimitRangerAndResourceQuotaSeeIt(t *testing.T) {
	srv := newServer(t)
	const ns = "/api/v1/namespaces/ns"
	sendExpect(t, srv, http.MethodPost, ns+"/limitranges", obj{"apiVersion": "v1", "kind": "LimitRange",
		"metadata": obj{"name": "limits"}, "spec": obj{"limits": []any{obj{"type": "Container", "max": obj{"cpu": "1"}}}}}, http.StatusCreated)
	q := sendExpect(t, srv, http.MethodPost, ns+"/resourcequotas", obj{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": obj{"name": "q"},
		"spec": obj{"hard": obj{"requests.cpu": "500m"}}}, http.StatusCreated)
	q["status"] = obj{"hard": obj{"requests.cpu": "500m"}, "used": obj{"requests.cpu": "0"}}
	sendExpect(t, srv, http.MethodPut, ns+"/resourcequotas/q/status", q, http.StatusOK)
	p := sendExpect(t, srv, http.MethodPost, ns+"/pods", pod("p", obj{"requests": obj{"cpu": "200m"}, "limits": obj{"cpu": "500m"}}), http.StatusCreated)

	resize := func(req, lim string, want int) map[string]any {
		at(p, "spec", "containers").([]any)[0].(obj)["resources"] = obj{"requests": obj{"cpu": req}, "limits": obj{"cpu": lim}}
		delete(p["metadata"].(obj), "resourceVersion")
		return sendExpect(t, srv, http.MethodPut, ns+"/pods/p/resize", p, want)
	}
	for _, c := range []struct {
		name, req, lim, want string
	}{
		{"past the LimitRange", "200m", "2", `pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		{"past the quota", "600m", "1", `pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=400m, used: requests.cpu=200m, limited: requests.cpu=500m`},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := resize(c.req, c.lim, http.StatusForbidden)
			if st["reason"] != "Forbidden" || st["message"] != c.want {
				t.Errorf("refused with %v %q, want Forbidden %q", st["reason"], st["message"], c.want)
			}
		})
	}
	resize("400m", "1", http.StatusOK)
	if used := at(sendExpect(t, srv, http.MethodGet, ns+"/resourcequotas/q", nil, http.StatusOK), "status", "used", "requests.cpu"); used != "400m" {
		t.Errorf("after the resize: used requests.cpu %v, want 400m", used)
	}
}
