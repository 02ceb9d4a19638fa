package controllers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// events lists the core/v1 Events of a namespace.
func (e *env) events(ns string) []map[string]any {
	e.t.Helper()
	code, list := e.do("GET", "/api/v1/namespaces/"+ns+"/events", nil)
	if code != http.StatusOK {
		e.t.Fatalf("list events: %d %v", code, list)
	}
	var out []map[string]any
	for _, it := range list["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// eventFields are the fields of a recorded Event that kube's recorder sets from what
// it is told, in a comparable form.
func eventFields(ev map[string]any) string {
	b, _ := json.Marshal(map[string]any{
		"type": ev["type"], "reason": ev["reason"], "message": ev["message"], "involvedObject": ev["involvedObject"],
		"source": ev["source"], "count": ev["count"], "reportingComponent": ev["reportingComponent"],
		"sameTimestamps": ev["firstTimestamp"] != nil && ev["firstTimestamp"] == ev["lastTimestamp"],
	})
	return string(b)
}

// TestGarbageCollector_ReferencesItCannotResolve holds kube's collector's rules for
// owner references that cannot name an owner: owners are looked up in the dependent's
// namespace (kube's graph_builder reports OwnerRefInvalidNamespace when the uid is an
// object of another namespace), a cluster-scoped dependent may only have
// cluster-scoped owners (kube leaves it alone), and a reference to a kind the server
// does not serve is retried, not treated as gone.
func TestGarbageCollector_ReferencesItCannotResolve(t *testing.T) {
	warning := func(kind, name, uid, ns, message string) string {
		involved := map[string]any{"apiVersion": "test.example.com/v1", "kind": kind, "name": name, "uid": uid}
		if ns != "" {
			involved["namespace"] = ns
		}
		return eventFields(map[string]any{
			"type": "Warning", "reason": "OwnerRefInvalidNamespace", "message": message, "involvedObject": involved,
			"source": map[string]any{"component": "garbage-collector-controller"}, "count": float64(1),
			"reportingComponent": "garbage-collector-controller", "firstTimestamp": "t", "lastTimestamp": "t",
		})
	}
	for _, tc := range []struct {
		name string
		// setup makes the owner and the dependent; it returns the dependent's
		// resource, namespace and name, and the Warning wanted ("" for none).
		setup         func(e *env) (plural, ns, name, wantEvent string)
		wantDependent bool
	}{
		{
			name: "AClusterScopedDependentOfALiveNamespacedOwnerStaysWithAWarning",
			setup: func(e *env) (string, string, string, string) {
				p := e.create("pods", "default", "p", nil)
				n := e.create("nodes", "", "n", nil, ref{owner: p})
				uid, nodeUID := uidOf(p), uidOf(n)
				return "nodes", "", "n", warning("Node", "n", nodeUID, "",
					fmt.Sprintf(`ownerRef [test.example.com/v1/Pod, namespace: , name: p, uid: %s] does not exist in namespace ""`, uid))
			},
			wantDependent: true,
		},
		{
			name: "AClusterScopedDependentOfAMissingNamespacedOwnerStaysQuietly",
			setup: func(e *env) (string, string, string, string) {
				gone := map[string]any{"apiVersion": "test.example.com/v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "uid": "00000000-0000-0000-0000-000000000001"}}
				e.create("nodes", "", "n", nil, ref{owner: gone})
				return "nodes", "", "n", ""
			},
			wantDependent: true,
		},
		{
			name: "ANamespacedDependentOfAnOwnerInAnotherNamespaceIsCollectedWithAWarning",
			setup: func(e *env) (string, string, string, string) {
				e.create("namespaces", "", "other", nil)
				d := e.create("deployments", "other", "d", nil)
				p := e.create("pods", "default", "p", nil, ref{owner: d})
				return "pods", "default", "p", warning("Pod", "p", uidOf(p), "default",
					fmt.Sprintf(`ownerRef [test.example.com/v1/Deployment, namespace: default, name: d, uid: %s] does not exist in namespace "default"`, uidOf(d)))
			},
		},
		{
			name: "ADependentOfAKindTheServerDoesNotServeStays",
			setup: func(e *env) (string, string, string, string) {
				unknown := map[string]any{"apiVersion": "unknown.example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": "t", "uid": "00000000-0000-0000-0000-000000000002"}}
				e.create("pods", "default", "p", nil, ref{owner: unknown})
				return "pods", "default", "p", ""
			},
			wantDependent: true,
		},
		{
			name: "ADependentOfAVersionTheServerDoesNotServeStays",
			setup: func(e *env) (string, string, string, string) {
				gone := map[string]any{"apiVersion": "test.example.com/v2", "kind": "Deployment", "metadata": map[string]any{"name": "d", "uid": "00000000-0000-0000-0000-000000000003"}}
				e.create("pods", "default", "p", nil, ref{owner: gone})
				return "pods", "default", "p", ""
			},
			wantDependent: true,
		},
		{
			name: "ANamespacedDependentOfAClusterScopedOwnerStays",
			setup: func(e *env) (string, string, string, string) {
				n := e.create("nodes", "", "n", nil)
				e.create("pods", "default", "p", nil, ref{owner: n})
				return "pods", "default", "p", ""
			},
			wantDependent: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			plural, ns, name, wantEvent := tc.setup(e)
			e.idle()
			// More passes do not record the warning again.
			e.create("pods", "default", "unrelated", nil)
			e.idle()
			if _, ok := e.get(plural, ns, name); ok != tc.wantDependent {
				t.Errorf("dependent %s %s/%s exists: %v, want %v", plural, ns, name, ok, tc.wantDependent)
			}
			var got []string
			for _, ev := range e.events("default") {
				got = append(got, eventFields(ev))
			}
			switch {
			case wantEvent == "" && len(got) > 0:
				t.Errorf("events %v, want none", got)
			case wantEvent != "" && (len(got) != 1 || got[0] != wantEvent):
				t.Errorf("events\n%v\nwant one\n%s", got, wantEvent)
			}
		})
	}
}

func uidOf(obj map[string]any) string { return obj["metadata"].(map[string]any)["uid"].(string) }

// TestGarbageCollector_MarkingADependentDeletingBumpsItsGeneration: the collector
// deletes through kube-apiserver, whose markAsDeleting bumps the generation of an
// object it gives a deletionTimestamp; the in-process collector does the same.
func TestGarbageCollector_MarkingADependentDeletingBumpsItsGeneration(t *testing.T) {
	e := newEnv(t)
	d := e.create("deployments", "default", "web", nil)
	e.create("pods", "default", "p", []string{"example.com/hold"}, ref{owner: d})
	e.deleteWith("deployments", "default", "web", "Background")
	e.idle()
	p, ok := e.get("pods", "default", "p")
	if !ok {
		t.Fatal("the pod with a finalizer went")
	}
	meta := p["metadata"].(map[string]any)
	if meta["deletionTimestamp"] == nil || meta["generation"] != float64(2) {
		t.Errorf("pod deletionTimestamp %v generation %v, want set and 2", meta["deletionTimestamp"], meta["generation"])
	}
}
