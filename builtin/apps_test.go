package builtin_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	metav1 "github.com/apikit-dev/apikit/builtin/meta/v1"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// TestAppsKinds_ServedWithKubeTableColumns creates a Deployment and reads it back as the
// Table kubectl asks for: kube's columns (READY as ready/desired, UP-TO-DATE, AVAILABLE,
// AGE, and the wide CONTAINERS, IMAGES, SELECTOR) with kube's cells.
func TestAppsKinds_ServedWithKubeTableColumns(t *testing.T) {
	srv := eventsServer(t)
	dep := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{
			"replicas": 3,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"},
				"matchExpressions": []any{map[string]any{"key": "tier", "operator": "In", "values": []any{"b", "a"}}}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "a"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "app", "image": "nginx:1.27"},
					map[string]any{"name": "log", "image": "busybox"},
				}},
			},
		},
	}
	call(t, srv, http.MethodPost, "/apis/apps/v1/namespaces/default/deployments", dep, http.StatusCreated)
	table := callAccept(t, srv, "/apis/apps/v1/namespaces/default/deployments/web", "application/json;as=Table;g=meta.k8s.io;v=v1")
	var names []string
	for _, c := range table["columnDefinitions"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	if got, want := strings.Join(names, ","), "Name,Ready,Up-to-date,Available,Age,Containers,Images,Selector"; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
	for i, want := range map[int]any{0: "web", 1: "0/3", 2: float64(0), 3: float64(0), 5: "app,log", 6: "nginx:1.27,busybox", 7: "app=web,tier in (a,b)"} {
		if cells[i] != want {
			t.Errorf("cell %d (%s) = %v, want %v", i, names[i], cells[i], want)
		}
	}
	if age, _ := cells[4].(string); !strings.HasSuffix(age, "s") {
		t.Errorf("Age cell %q is not a HumanDuration of a new object", cells[4])
	}
}

// TestLabelSelectorAsSelector_RendersAsKube holds the string form kube gives a meta/v1
// LabelSelector (scale's status.selector, kubectl's SELECTOR column): terms sorted by key,
// values sorted, kube's spelling of each operator, and kube's error for an unknown one.
func TestLabelSelectorAsSelector_RendersAsKube(t *testing.T) {
	for _, tt := range []struct {
		sel  *metav1.LabelSelector
		want string
		err  string
	}{
		{sel: nil, want: ""},
		{sel: &metav1.LabelSelector{}, want: ""},
		{sel: &metav1.LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}}, want: "a=1,b=2"},
		{sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "z", Operator: "NotIn", Values: []string{"y", "x", "x"}},
			{Key: "m", Operator: "Exists"},
			{Key: "c", Operator: "DoesNotExist"},
		}}, want: "!c,m,z notin (x,y)"},
		{sel: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Gt"}}}, err: `"Gt" is not a valid label selector operator`},
	} {
		got, err := builtin.LabelSelectorAsSelector(tt.sel)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%+v: error %v, want %s", tt.sel, err, tt.err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("%+v: %q, %v; want %q", tt.sel, got.String(), err, tt.want)
		}
	}
}

// callAccept GETs path with an Accept header and decodes the 200 answer into a map.
func callAccept(t *testing.T, srv *apitest.Server, path, accept string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %v", path, resp.StatusCode, out)
	}
	return out
}

// TestPods_FieldSelectorsAsKube lists pods by the fields kube's pod strategy makes
// selectable, a Go zero value included (spec.hostNetwork=false of a pod that omits it),
// and a ReplicaSet by status.replicas.
func TestPods_FieldSelectorsAsKube(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	for _, name := range []string{"a", "b"} {
		spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}
		if name == "a" {
			spec["nodeName"], spec["hostNetwork"] = "n1", true
		}
		call(t, srv, http.MethodPost, "/api/v1/namespaces/default/pods", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec}, http.StatusCreated)
	}
	for selector, want := range map[string]string{
		"spec.nodeName=n1": "a", "spec.hostNetwork=false": "b", "spec.hostNetwork=true": "a", "status.phase=Pending": "a,b",
		"spec.restartPolicy=Always,spec.schedulerName=default-scheduler": "a,b", "status.nominatedNodeName=": "a,b",
	} {
		l := call(t, srv, http.MethodGet, "/api/v1/namespaces/default/pods?fieldSelector="+selector, nil, http.StatusOK)
		var names []string
		for _, it := range l["items"].([]any) {
			names = append(names, it.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("fieldSelector=%s: %q, want %q", selector, got, want)
		}
	}
	call(t, srv, http.MethodGet, "/api/v1/namespaces/default/pods?fieldSelector=spec.containers", nil, http.StatusBadRequest)
}
