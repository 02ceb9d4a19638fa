package strategies_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

// TestBuiltin_DeletesTakeKubesDefaultGarbageCollectionPolicies deletes each kind whose
// strategy in kube names a default policy, with and without options, on a server whose
// collector runs (rest.Options.GarbageCollection): a batch/v1 Job and a v1
// ReplicationController orphan their dependents unless told otherwise (the Job's
// delete warns so), Events never take the collector's finalizers, and a Deployment
// deletes its dependents in the background.
func TestBuiltin_DeletesTakeKubesDefaultGarbageCollectionPolicies(t *testing.T) {
	const jobWarning = `299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"`
	coreEvent := map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e"},
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "p"}, "reason": "Started", "message": "m", "type": "Normal"}
	eventsEvent := map[string]any{"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": map[string]any{"name": "e"},
		"eventTime": "2026-12-02T13:00:00.000000Z", "reportingController": "example.com/c", "reportingInstance": "c-1",
		"action": "Start", "reason": "Started", "type": "Normal", "regarding": map[string]any{"kind": "Pod", "namespace": "default", "name": "p"}}
	cases := []struct {
		name, collection, object string
		body                     func() map[string]any
		query                    string
		// wantFinalizers are those the answer's object has; nil means the answer is a
		// Status: the object went at once.
		wantFinalizers []string
		wantWarnings   []string
	}{
		{name: "a Job without options orphans its pods, warning", collection: "/apis/batch/v1/namespaces/default/jobs", object: "pi", body: piJob,
			wantFinalizers: []string{"orphan"}, wantWarnings: []string{jobWarning}},
		{name: "a Job with Background goes without a warning", collection: "/apis/batch/v1/namespaces/default/jobs", object: "pi", body: piJob,
			query: "propagationPolicy=Background"},
		{name: "a Job with Foreground waits for its pods", collection: "/apis/batch/v1/namespaces/default/jobs", object: "pi", body: piJob,
			query: "propagationPolicy=Foreground", wantFinalizers: []string{"foregroundDeletion"}},
		{name: "a Job with orphanDependents=false goes without a warning", collection: "/apis/batch/v1/namespaces/default/jobs", object: "pi", body: piJob,
			query: "orphanDependents=false"},
		{name: "a ReplicationController without options orphans its pods, silently", collection: "/api/v1/namespaces/default/replicationcontrollers", object: "web", body: webRC,
			wantFinalizers: []string{"orphan"}},
		{name: "a ReplicationController with Background goes", collection: "/api/v1/namespaces/default/replicationcontrollers", object: "web", body: webRC,
			query: "propagationPolicy=Background"},
		{name: "a core Event ignores Orphan", collection: "/api/v1/namespaces/default/events", object: "e", body: func() map[string]any { return coreEvent },
			query: "propagationPolicy=Orphan"},
		{name: "a core Event ignores Foreground", collection: "/api/v1/namespaces/default/events", object: "e", body: func() map[string]any { return coreEvent },
			query: "propagationPolicy=Foreground"},
		{name: "an events.k8s.io Event ignores Orphan", collection: "/apis/events.k8s.io/v1/namespaces/default/events", object: "e", body: func() map[string]any { return eventsEvent },
			query: "propagationPolicy=Orphan"},
		{name: "a Deployment without options goes", collection: "/apis/apps/v1/namespaces/default/deployments", object: "web", body: webDeployment},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin(), GarbageCollection: true}})
			call(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
			call(t, srv, http.MethodPost, c.collection, c.body(), http.StatusCreated)
			path := c.collection + "/" + c.object
			if c.query != "" {
				path += "?" + c.query
			}
			out, header := callWithHeader(t, srv, http.MethodDelete, path, nil, http.StatusOK)
			if warnings := header.Values("Warning"); !slices.Equal(warnings, c.wantWarnings) {
				t.Errorf("warnings %q, want %q", warnings, c.wantWarnings)
			}
			if c.wantFinalizers == nil {
				if out["kind"] != "Status" || out["status"] != "Success" {
					t.Errorf("answer %v, want a Success Status (the object went at once)", out)
				}
				call(t, srv, http.MethodGet, c.collection+"/"+c.object, nil, http.StatusNotFound)
				return
			}
			var finalizers []string
			listed, _ := at(out, "metadata", "finalizers").([]any)
			for _, f := range listed {
				finalizers = append(finalizers, f.(string))
			}
			if !slices.Equal(finalizers, c.wantFinalizers) || at(out, "metadata", "deletionTimestamp") == nil {
				t.Errorf("answer's finalizers %v, deletionTimestamp %v: want %v and one set", finalizers, at(out, "metadata", "deletionTimestamp"), c.wantFinalizers)
			}
		})
	}
}
