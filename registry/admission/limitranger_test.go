package admission_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// newServer is the built-in API with kube's strategies and the plugins of Builtin().
func newServer(t *testing.T) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := admission.Builtin()
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", obj{"metadata": obj{"name": "ns"}}, http.StatusCreated)
	return srv
}

type obj = map[string]any

// call sends body (JSON) and decodes the answer, failing unless the code is want.
func call(t *testing.T, srv *apitest.Server, method, path string, body any, want int) obj {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, srv.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out obj
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: decoding the answer: %v", method, path, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %v, want %d", method, path, resp.StatusCode, out, want)
	}
	return out
}

func at(m obj, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(obj)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func pod(name string, resources obj, init ...obj) obj {
	c := obj{"name": "app", "image": "nginx:1.27"}
	if resources != nil {
		c["resources"] = resources
	}
	spec := obj{"containers": []any{c}}
	if len(init) > 0 {
		spec["initContainers"] = []any{init[0]}
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": obj{"name": name}, "spec": spec}
}

// TestLimitRanger_DefaultsAndBoundsAsKube holds kube's LimitRanger on pods: a
// container without requests and limits gets the Container item's defaults (and the
// annotation that says so); one past a bound is refused with kube's 403 and message;
// pods in a namespace without LimitRanges pass untouched.
func TestLimitRanger_DefaultsAndBoundsAsKube(t *testing.T) {
	srv := newServer(t)
	const pods = "/api/v1/namespaces/ns/pods"
	plain := call(t, srv, http.MethodPost, pods, pod("before", nil), http.StatusCreated)
	if r := at(plain, "spec", "containers").([]any)[0].(obj)["resources"]; !cmp.Equal(r, obj{}) {
		t.Errorf("a pod without LimitRanges got resources %v", r)
	}
	call(t, srv, http.MethodPost, "/api/v1/namespaces/ns/limitranges", obj{"apiVersion": "v1", "kind": "LimitRange",
		"metadata": obj{"name": "limits"}, "spec": obj{"limits": []any{
			obj{"type": "Container", "max": obj{"cpu": "1", "memory": "1Gi"}, "min": obj{"cpu": "50m"},
				"default": obj{"cpu": "500m", "memory": "256Mi"}, "defaultRequest": obj{"cpu": "100m"},
				"maxLimitRequestRatio": obj{"cpu": "10"}},
			obj{"type": "Pod", "max": obj{"memory": "1536Mi"}},
		}}}, http.StatusCreated)

	got := call(t, srv, http.MethodPost, pods, pod("defaulted", nil, obj{"name": "init", "image": "busybox:1.36",
		"resources": obj{"limits": obj{"memory": "128Mi"}}}), http.StatusCreated)
	wantResources := obj{"limits": obj{"cpu": "500m", "memory": "256Mi"}, "requests": obj{"cpu": "100m", "memory": "256Mi"}}
	if d := cmp.Diff(wantResources, at(got, "spec", "containers").([]any)[0].(obj)["resources"]); d != "" {
		t.Errorf("defaulted container resources (-want +got):\n%s", d)
	}
	if d := cmp.Diff(obj{"limits": obj{"cpu": "500m", "memory": "128Mi"}, "requests": obj{"cpu": "100m", "memory": "128Mi"}},
		at(got, "spec", "initContainers").([]any)[0].(obj)["resources"]); d != "" {
		t.Errorf("defaulted init container resources (-want +got):\n%s", d)
	}
	// The strategy's qosClass sees the defaults: kube runs PrepareForCreate after
	// mutating admission.
	bare := call(t, srv, http.MethodPost, pods, pod("bare", nil), http.StatusCreated)
	if got := at(bare, "status", "qosClass"); got != "Burstable" {
		t.Errorf("qosClass = %v, want Burstable (from the defaulted requests)", got)
	}
	wantNote := "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; cpu request for init container init; cpu limit for init container init"
	if got := at(got, "metadata", "annotations", "kubernetes.io/limit-ranger"); got != wantNote {
		t.Errorf("annotation = %v, want %q", got, wantNote)
	}

	for _, c := range []struct {
		name      string
		resources obj
		want      string
	}{
		{"limit past the container max", obj{"limits": obj{"cpu": "2"}},
			`pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2`},
		{"request under the min", obj{"requests": obj{"cpu": "10m"}, "limits": obj{"cpu": "20m"}},
			`pods "p" is forbidden: minimum cpu usage per Container is 50m, but request is 10m`},
		{"ratio past the max", obj{"requests": obj{"cpu": "60m"}, "limits": obj{"cpu": "1"}},
			`pods "p" is forbidden: cpu max limit to request ratio per Container is 10, but provided ratio is 16.666667`},
		{"two bounds at once", obj{"requests": obj{"cpu": "10m"}, "limits": obj{"cpu": "2"}},
			`pods "p" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 10, but provided ratio is 200.000000]`},
		{"pod memory past the pod max", obj{"limits": obj{"memory": "1Gi"}},
			`pods "p" is forbidden: maximum memory usage per Pod is 1536Mi, but limit is 1792Mi`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pod("p", c.resources)
			if c.name == "pod memory past the pod max" {
				spec := p["spec"].(obj)
				spec["containers"] = append(spec["containers"].([]any), obj{"name": "b", "image": "nginx:1.27", "resources": obj{"limits": obj{"memory": "768Mi"}}})
			}
			st := call(t, srv, http.MethodPost, pods, p, http.StatusForbidden)
			if st["reason"] != "Forbidden" || st["message"] != c.want {
				t.Errorf("refused with %v %q, want Forbidden %q", st["reason"], st["message"], c.want)
			}
		})
	}
}
