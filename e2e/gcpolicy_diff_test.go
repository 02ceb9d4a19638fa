package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/apikit-dev/apikit/apitest"
)

// The side-by-side checks of issue 26: the default garbage-collection policies of
// kube's strategies, and the Service default/kubernetes with its Endpoints and
// EndpointSlice.

var (
	gvrJobs                   = k8sschema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	gvrPods                   = k8sschema.GroupVersionResource{Version: "v1", Resource: "pods"}
	gvrReplicationControllers = k8sschema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}
)

// gcOwnerKind is a kind whose deletes the test compares: its collection path, and a
// new object of it.
type gcOwnerKind struct {
	name       string
	gvr        k8sschema.GroupVersionResource
	apiVersion string
	object     func(name string) map[string]any
}

func gcOwnerKinds() []gcOwnerKind {
	podTemplate := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "gc"}},
		"spec": map[string]any{"restartPolicy": "Never",
			"containers": []any{map[string]any{"name": "c", "image": "busybox:1.36"}}},
	}
	return []gcOwnerKind{{
		name: "Job", gvr: gvrJobs, apiVersion: "batch/v1",
		object: func(name string) map[string]any {
			return map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": name},
				"spec": map[string]any{"suspend": true, "template": podTemplate}}
		},
	}, {
		name: "ReplicationController", gvr: gvrReplicationControllers, apiVersion: "v1",
		object: func(name string) map[string]any {
			tmpl := map[string]any{"metadata": podTemplate["metadata"], "spec": map[string]any{"restartPolicy": "Always",
				"containers": []any{map[string]any{"name": "c", "image": "busybox:1.36"}}}}
			return map[string]any{"apiVersion": "v1", "kind": "ReplicationController", "metadata": map[string]any{"name": name},
				"spec": map[string]any{"replicas": 0, "selector": map[string]any{"app": "gc"}, "template": tmpl}}
		},
	}}
}

// deletionAnswer is what a delete answers and what stays once the collector ran: the
// answer's kind, finalizers, whether it carries a deletionTimestamp, its warnings, and
// whether the dependent Pod survived and with how many ownerReferences.
type deletionAnswer struct {
	Code          int
	Kind          string
	Finalizers    []string
	Deleting      bool
	Warnings      []string
	PodSurvives   bool
	PodOwnerRefs  int
	OwnerRemained bool
}

// TestSideBySide_DefaultGarbageCollectionPoliciesAsKube deletes a batch/v1 Job and a v1
// ReplicationController, each with a dependent Pod (its ownerReference as the job
// controller sets it), with no options, Background, Foreground and Orphan, and an
// Event with Orphan, on apikit and on the real kube-apiserver with
// kube-controller-manager's garbage collector, and compares the delete's answer and
// what survives once the collector ran.
func TestSideBySide_DefaultGarbageCollectionPoliciesAsKube(t *testing.T) {
	servers := startSideBySide(t, "--disable-admission-plugins=ServiceAccount")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const ns = "gcpolicy"
	for _, sv := range servers {
		sv.create(t, ctx, gvrNamespaces, "", map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	}
	queries := []struct{ name, query string }{{"no options", ""}, {"Background", "?propagationPolicy=Background"},
		{"Foreground", "?propagationPolicy=Foreground"}, {"Orphan", "?propagationPolicy=Orphan"}}
	for _, k := range gcOwnerKinds() {
		for i, q := range queries {
			t.Run(k.name+" "+q.name, func(t *testing.T) {
				owner := fmt.Sprintf("%s-%d", strings.ToLower(k.name), i)
				var answers []deletionAnswer
				for _, sv := range servers {
					hc, err := rest.HTTPClientFor(sv.cfg)
					if err != nil {
						t.Fatal(err)
					}
					made := sv.create(t, ctx, k.gvr, ns, k.object(owner))
					sv.create(t, ctx, gvrPods, ns, map[string]any{"apiVersion": "v1", "kind": "Pod",
						"metadata": map[string]any{"name": owner + "-pod", "labels": map[string]any{"app": "gc"},
							"ownerReferences": []any{map[string]any{"apiVersion": k.apiVersion, "kind": k.name, "name": owner,
								"uid": string(made.GetUID()), "controller": true, "blockOwnerDeletion": true}}},
						"spec": map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "c", "image": "busybox:1.36"}}}})
					path := resourcePath(k.gvr, ns) + "/" + owner
					a := sv.deletion(t, hc, path+q.query)
					sv.settle(t, ctx, k.gvr, ns, owner, &a)
					answers = append(answers, a)
				}
				if d := cmp.Diff(answers[0], answers[1]); d != "" {
					t.Errorf("delete of a %s with %s (-kube +apikit):\n%s", k.name, q.name, d)
				}
			})
		}
	}
	t.Run("Event Orphan", func(t *testing.T) {
		var answers []deletionAnswer
		for _, sv := range servers {
			hc, err := rest.HTTPClientFor(sv.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sv.create(t, ctx, gvrEvents, ns, map[string]any{"apiVersion": "v1", "kind": "Event", "metadata": map[string]any{"name": "e"},
				"involvedObject": map[string]any{"kind": "Pod", "namespace": ns, "name": "p"}, "reason": "Started", "message": "m", "type": "Normal"})
			a := sv.deletion(t, hc, "/api/v1/namespaces/"+ns+"/events/e?propagationPolicy=Orphan")
			_, err = sv.dc.Resource(gvrEvents).Namespace(ns).Get(ctx, "e", metav1.GetOptions{})
			a.OwnerRemained = err == nil
			answers = append(answers, a)
		}
		if d := cmp.Diff(answers[0], answers[1]); d != "" {
			t.Errorf("delete of an Event with Orphan (-kube +apikit):\n%s", d)
		}
		if answers[0].Kind != "Status" || answers[0].OwnerRemained {
			t.Errorf("kube's answer %+v: want a Status and the Event gone (Unsupported ignores Orphan)", answers[0])
		}
	})
}

// resourcePath is the collection path of gvr in namespace ns.
func resourcePath(gvr k8sschema.GroupVersionResource, ns string) string {
	if gvr.Group == "" {
		return "/api/v1/namespaces/" + ns + "/" + gvr.Resource
	}
	return "/apis/" + gvr.Group + "/" + gvr.Version + "/namespaces/" + ns + "/" + gvr.Resource
}

// deletion sends a DELETE without a body and records its answer.
func (sv *sideBySide) deletion(t *testing.T, hc *http.Client, path string) deletionAnswer {
	t.Helper()
	code, body, header := sv.doWith(t, hc, http.MethodDelete, path, "", "", nil)
	a := deletionAnswer{Code: code, Warnings: header.Values("Warning")}
	a.Kind, _ = body["kind"].(string)
	if meta, ok := body["metadata"].(map[string]any); ok {
		_, a.Deleting = meta["deletionTimestamp"]
		fs, _ := meta["finalizers"].([]any)
		for _, f := range fs {
			a.Finalizers = append(a.Finalizers, fmt.Sprint(f))
		}
	}
	return a
}

// settle waits, bounded, until the collector is done with owner: the owner is gone
// and its Pod is gone or no longer refers to it; then records the Pod.
func (sv *sideBySide) settle(t *testing.T, ctx context.Context, gvr k8sschema.GroupVersionResource, ns, owner string, a *deletionAnswer) {
	t.Helper()
	waitFor(t, sv.name+": the collector is done with "+owner, func() bool {
		if _, err := sv.dc.Resource(gvr).Namespace(ns).Get(ctx, owner, metav1.GetOptions{}); err == nil {
			return false
		}
		pod, err := sv.dc.Resource(gvrPods).Namespace(ns).Get(ctx, owner+"-pod", metav1.GetOptions{})
		if err != nil {
			a.PodSurvives, a.PodOwnerRefs = false, 0
			return true
		}
		a.PodSurvives, a.PodOwnerRefs = true, len(pod.GetOwnerReferences())
		return a.PodOwnerRefs == 0
	})
}

// TestSideBySide_KubernetesServiceAsKube compares the Service default/kubernetes, its
// Endpoints and its EndpointSlice on apikit and on the real kube-apiserver (its lease
// endpoint reconciler on, advertising the host's address as envtest's does), uid,
// resourceVersion, timestamps, managedFields and the address and ports set aside, and
// that both create the Service again once it is deleted.
func TestSideBySide_KubernetesServiceAsKube(t *testing.T) {
	host := apitest.AdvertiseAddress(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1})
	if !host.Addr().IsValid() {
		t.Skip("the host has no default route: kube-apiserver would have no address to advertise")
	}
	servers := startSideBySide(t, "--endpoint-reconciler-type=lease", "--advertise-address="+host.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	gvrServices := k8sschema.GroupVersionResource{Version: "v1", Resource: "services"}
	objects := []k8sschema.GroupVersionResource{gvrServices, {Version: "v1", Resource: "endpoints"},
		{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}}
	read := func(sv *sideBySide, gvr k8sschema.GroupVersionResource) (map[string]any, string) {
		var obj map[string]any
		waitFor(t, sv.name+": default/kubernetes "+gvr.Resource, func() bool {
			got, err := sv.dc.Resource(gvr).Namespace("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			if err != nil {
				return false
			}
			obj = got.Object
			return true
		})
		meta := obj["metadata"].(map[string]any)
		uid, _ := meta["uid"].(string)
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
			delete(meta, f)
		}
		return withoutAddressAndPorts(obj), uid
	}
	for _, gvr := range objects {
		kube, _ := read(servers[0], gvr)
		apikit, _ := read(servers[1], gvr)
		if d := cmp.Diff(kube, apikit); d != "" {
			t.Errorf("default/kubernetes %s (-kube +apikit):\n%s", gvr.Resource, d)
		}
	}
	// Deleted, the Service comes back (kube's bootstrap controller creates it again on
	// its next round, every 10 s).
	for _, sv := range servers {
		_, uid := read(sv, gvrServices)
		if err := sv.dc.Resource(gvrServices).Namespace("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("%s: deleting the kubernetes Service: %v", sv.name, err)
		}
		waitFor(t, sv.name+": the kubernetes Service created again", func() bool {
			got, err := sv.dc.Resource(gvrServices).Namespace("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			return err == nil && string(got.GetUID()) != uid
		})
		again, _ := read(sv, gvrServices)
		if ip, _ := again["spec"].(map[string]any)["clusterIP"].(string); ip != "10.0.0.1" {
			t.Errorf("%s: the kubernetes Service came back with clusterIP %q, want 10.0.0.1", sv.name, ip)
		}
	}
}

// withoutAddressAndPorts drops what differs by where each server listens: the
// endpoints' addresses and the ports of the server (targetPort, an endpoint port).
func withoutAddressAndPorts(obj map[string]any) map[string]any {
	if spec, ok := obj["spec"].(map[string]any); ok {
		for _, p := range asMaps(spec["ports"]) {
			delete(p, "targetPort")
		}
	}
	for _, s := range asMaps(obj["subsets"]) {
		for _, a := range asMaps(s["addresses"]) {
			delete(a, "ip")
		}
		for _, p := range asMaps(s["ports"]) {
			delete(p, "port")
		}
	}
	for _, e := range asMaps(obj["endpoints"]) {
		delete(e, "addresses")
	}
	if _, ok := obj["addressType"]; ok {
		for _, p := range asMaps(obj["ports"]) {
			delete(p, "port")
		}
	}
	return obj
}

// asMaps returns the objects of a JSON array.
func asMaps(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return slices.Clip(out)
}
