package apitest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/apiextensions"
	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/metrics"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

func TestOptionsControllers_CollectsDependentsAndRunsNamespaces(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true})
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	if code, body := do("POST", "/api/v1/namespaces/nowhere/configmaps", `{"metadata":{"name":"a"}}`); code != http.StatusNotFound || !strings.Contains(body, `namespaces \"nowhere\" not found`) {
		t.Errorf("create in a missing namespace = %d %s, want 404 namespaces \"nowhere\" not found", code, body)
	}
	code, owner := do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"owner"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create owner = %d %s", code, owner)
	}
	uid := owner[strings.Index(owner, `"uid":"`)+7:]
	uid = uid[:strings.Index(uid, `"`)]
	dep := `{"metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"` + uid + `"}]}}`
	if code, body := do("POST", "/api/v1/namespaces/default/configmaps", dep); code != http.StatusCreated {
		t.Fatalf("create dependent = %d %s", code, body)
	}
	if code, _ := do("DELETE", "/api/v1/namespaces/default/configmaps/owner", ""); code != http.StatusOK {
		t.Fatalf("delete owner = %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := do("GET", "/api/v1/namespaces/default/configmaps/dependent", ""); code != http.StatusNotFound {
		t.Errorf("the dependent of a deleted owner = %d, want 404 once the garbage collector is idle", code)
	}
}

func TestClock_ReachesTheCRDConditionsAndTheDefaultNamespaces(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true, CRDAPI: true})
	frozen := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	srv.Clock().Set(frozen)
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.tools.example.com"},
	  "spec":{"group":"tools.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
	  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	req, err := http.NewRequest("POST", srv.URL+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.NewReader(crd))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST CRD = %d", resp.StatusCode)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := srv.Client().Get(srv.URL + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.tools.example.com")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), `"type":"Established"`) {
			if !strings.Contains(string(body), `"lastTransitionTime":"2031-01-02T03:04:05Z"`) || !strings.Contains(string(body), `"creationTimestamp":"2031-01-02T03:04:05Z"`) {
				t.Errorf("the CRD's times are not the frozen clock's:\n%s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CRD was not established:\n%s", body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOptionsControllers_ServesTheControllersHealthChecksAndMetrics(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Metrics: metrics.NewRegistry()}, Controllers: true})
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	// A pass has run once the controllers are idle: they watch the store.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/livez/garbage-collector-controller", "ok"},
		{"/livez/namespace-controller", "ok"},
		{"/healthz?verbose", "[+]garbage-collector-controller ok"},
		{"/livez?verbose", "[+]namespace-controller ok"},
		{"/metrics", controllers.MetricFollowing + " 1"},
	} {
		if code, body := get(tc.path); code != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %q, want 200 with %q", tc.path, code, body, tc.want)
		}
	}
}

// The case with the built-in kinds: a Namespace owned by a ConfigMap stays, with
// its contents, and gets kube's OwnerRefInvalidNamespace warning in "default".
func TestOptionsControllers_ANamespaceOwnedByAConfigMapStaysWithAWarning(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true})
	do := jsonRequests(t, srv)
	code, cm := do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"owner"}}`)
	if code != http.StatusCreated {
		t.Fatalf("create configmap = %d %v", code, cm)
	}
	cmUID := cm["metadata"].(map[string]any)["uid"].(string)
	code, ns := do("POST", "/api/v1/namespaces", `{"metadata":{"name":"owned","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"`+cmUID+`"}]}}`)
	if code != http.StatusCreated {
		t.Fatalf("create namespace = %d %v", code, ns)
	}
	if code, m := do("POST", "/api/v1/namespaces/owned/configmaps", `{"metadata":{"name":"content"}}`); code != http.StatusCreated {
		t.Fatalf("create content = %d %v", code, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := do("GET", "/api/v1/namespaces/owned/configmaps/content", ""); code != http.StatusOK {
		t.Errorf("the namespace's content = %d, want 200: a cluster-scoped dependent of a namespaced owner is not collected", code)
	}
	_, list := do("GET", "/api/v1/namespaces/default/events", "")
	items, _ := list["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("events in default: %v, want one", list)
	}
	ev := items[0].(map[string]any)
	want := map[string]any{
		"type": "Warning", "reason": "OwnerRefInvalidNamespace", "count": float64(1),
		"message":        `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ` + cmUID + `] does not exist in namespace ""`,
		"involvedObject": map[string]any{"kind": "Namespace", "apiVersion": "v1", "name": "owned", "uid": ns["metadata"].(map[string]any)["uid"]},
		"source":         map[string]any{"component": "garbage-collector-controller"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(ev[k], v) {
			t.Errorf("event %s = %v, want %v", k, ev[k], v)
		}
	}
	if ev["firstTimestamp"] == nil || ev["firstTimestamp"] != ev["lastTimestamp"] {
		t.Errorf("event timestamps first %v last %v, want equal", ev["firstTimestamp"], ev["lastTimestamp"])
	}
}

// A custom resource owns a ConfigMap: the owner's kind and version resolve through the
// CRD, so deleting the owner collects the dependent.
func TestOptionsControllers_ACustomResourceOwnerIsResolvedThroughItsCRD(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true, CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "")}})
	do := jsonRequests(t, srv)
	code, g := do("POST", gizmosPath, gizmoJSON)
	if code != http.StatusCreated {
		t.Fatalf("create gizmo = %d %v", code, g)
	}
	uid := g["metadata"].(map[string]any)["uid"].(string)
	if code, m := do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"dep","ownerReferences":[{"apiVersion":"tools.example.com/v1","kind":"Gizmo","name":"g","uid":"`+uid+`"}]}}`); code != http.StatusCreated {
		t.Fatalf("create dependent = %d %v", code, m)
	}
	if code, m := do("DELETE", gizmosPath+"/g", ""); code != http.StatusOK {
		t.Fatalf("delete gizmo = %d %v", code, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := do("GET", "/api/v1/namespaces/default/configmaps/dep", ""); code != http.StatusNotFound {
		t.Errorf("the dependent of a deleted custom resource = %d, want 404", code)
	}
}

// A CRD refused for a kind another CRD of its group holds (KindConflict, or
// ListKindConflict for the list kind that comes with it) serves nothing, so the
// collector must not map that kind to it: mapped to the refused CRD, which serves
// another version, a Gizmo's dependents could not be resolved and would outlive it.
func TestOptionsControllers_ACRDRefusedForAKindInUseDoesNotChangeHowTheCollectorMapsIt(t *testing.T) {
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}, Controllers: true, CRDs: []*apiextensions.CustomResourceDefinition{gizmoCRD(t, "")}})
	do := jsonRequests(t, srv)
	code, g := do("POST", gizmosPath, gizmoJSON)
	if code != http.StatusCreated {
		t.Fatalf("create gizmo = %d %v", code, g)
	}
	uid := g["metadata"].(map[string]any)["uid"].(string)
	if code, m := do("POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"dep","ownerReferences":[{"apiVersion":"tools.example.com/v1","kind":"Gizmo","name":"g","uid":"`+uid+`"}]}}`); code != http.StatusCreated {
		t.Fatalf("create dependent = %d %v", code, m)
	}
	impostor := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgetz.tools.example.com"},
	  "spec":{"group":"tools.example.com","scope":"Namespaced","names":{"plural":"widgetz","kind":"Gizmo"},
	  "versions":[{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	if code, m := do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", impostor); code != http.StatusCreated {
		t.Fatalf("create the CRD claiming Gizmo = %d %v", code, m)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, crd := do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgetz.tools.example.com", "")
		if r := reasonOf(crd, "NamesAccepted"); r == "KindConflict" || r == "ListKindConflict" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CRD claiming Gizmo never got NamesAccepted KindConflict or ListKindConflict: %v", crd["status"])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, m := do("DELETE", gizmosPath+"/g", ""); code != http.StatusOK {
		t.Fatalf("delete gizmo = %d %v", code, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Controllers.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := do("GET", "/api/v1/namespaces/default/configmaps/dep", ""); code != http.StatusNotFound {
		t.Errorf("the dependent of a deleted Gizmo = %d after another CRD was refused the kind Gizmo, want 404", code)
	}
}

// reasonOf is the reason of a CRD's condition of type typ, as decoded JSON.
func reasonOf(crd map[string]any, typ string) string {
	status, _ := crd["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			r, _ := m["reason"].(string)
			return r
		}
	}
	return ""
}

// jsonRequests returns a function that sends a JSON body (or none) to srv as its admin
// and returns the answer's code and decoded body.
func jsonRequests(t *testing.T, srv *apitest.Server) func(method, path, body string) (int, map[string]any) {
	return func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
}
