package controllers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apikit-dev/apikit/authz"

	"github.com/apikit-dev/apikit/controllers"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/storage"
	"github.com/apikit-dev/apikit/storage/memory"
)

// env is a REST handler with a garbage collector and a namespace controller over one
// memory store. Its kinds: core/v1 Namespace, test.example.com/v1 Deployment and
// ReplicaSet and Pod (namespaced), Node (cluster-scoped), all schema-only.
type env struct {
	t      testing.TB
	h      http.Handler
	mgr    *controllers.Manager
	store  *memory.Store
	scheme *scheme.Scheme
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, envOptions{})
}

// envOptions change what newEnvWith builds.
type envOptions struct {
	// store is the memory store's options.
	store memory.Options
	// wrap, when set, is the store the controllers use, around the memory store.
	wrap func(storage.Interface) storage.Interface
	// controllers are more options of the controllers (Scheme and Storage are set).
	controllers controllers.Options
}

func newEnvWith(t testing.TB, o envOptions) *env {
	t.Helper()
	s := newScheme(t)
	store := memory.New(o.store)
	t.Cleanup(store.Close)
	h, err := rest.New(rest.Options{AllowAnonymous: true, Authorizer: authz.AlwaysAllow{}, Scheme: s, Storage: store, GarbageCollection: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	opts := o.controllers
	opts.Scheme, opts.Storage = s, storage.Interface(store)
	if o.wrap != nil {
		opts.Storage = o.wrap(store)
	}
	mgr, err := controllers.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Stop)
	e := &env{t: t, h: h, mgr: mgr, store: store, scheme: s}
	e.idle()
	return e
}

// newScheme registers the kinds of env.
func newScheme(t testing.TB) *scheme.Scheme {
	t.Helper()
	s := scheme.New()
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	if err := s.AddResource(scheme.Resource{Kind: "Namespace", Plural: "namespaces", StatusSubresource: true}); err != nil {
		t.Fatal(err)
	}
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "Event"})
	s.AddUnstructuredKind(scheme.GroupVersionKind{Version: "v1", Kind: "EventList"})
	if err := s.AddResource(scheme.Resource{Kind: "Event", Plural: "events", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	gv := scheme.GroupVersion{Group: "test.example.com", Version: "v1"}
	for _, k := range []struct {
		kind, plural string
		namespaced   bool
	}{{"Deployment", "deployments", true}, {"ReplicaSet", "replicasets", true}, {"Pod", "pods", true}, {"Node", "nodes", false}} {
		s.AddUnstructuredKind(gv.WithKind(k.kind))
		s.AddUnstructuredKind(gv.WithKind(k.kind + "List"))
		if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: k.kind, Plural: k.plural, Namespaced: k.namespaced}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (e *env) idle() {
	e.t.Helper()
	e.idleWithin(10 * time.Second)
}

// idleWithin waits until the controllers are idle, failing after d, and returns how
// long it took.
func (e *env) idleWithin(d time.Duration) time.Duration {
	e.t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := e.mgr.WaitIdle(ctx); err != nil {
		e.t.Fatalf("WaitIdle after %s: %v", time.Since(start).Round(time.Millisecond), err)
	}
	return time.Since(start)
}

func (e *env) do(method, path string, body any) (int, map[string]any) {
	e.t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

// path is the URL of a kind's collection or object: "pods", "ns", "name".
func path(plural, ns, name string) string {
	p := "/apis/test.example.com/v1/"
	if plural == "namespaces" {
		p = "/api/v1/"
	}
	if ns != "" {
		p += "namespaces/" + ns + "/"
	}
	p += plural
	if name != "" {
		p += "/" + name
	}
	return p
}

var kinds = map[string]string{"deployments": "Deployment", "replicasets": "ReplicaSet", "pods": "Pod", "nodes": "Node", "namespaces": "Namespace"}

type ref struct {
	owner map[string]any
	block bool
}

// create creates an object, owned by owners, with finalizers, and returns it.
func (e *env) create(plural, ns, name string, finalizers []string, owners ...ref) map[string]any {
	e.t.Helper()
	meta := map[string]any{"name": name}
	if len(finalizers) > 0 {
		meta["finalizers"] = finalizers
	}
	var refs []any
	for _, o := range owners {
		om := o.owner["metadata"].(map[string]any)
		refs = append(refs, map[string]any{"apiVersion": o.owner["apiVersion"], "kind": o.owner["kind"], "name": om["name"], "uid": om["uid"], "blockOwnerDeletion": o.block})
	}
	if refs != nil {
		meta["ownerReferences"] = refs
	}
	apiVersion := "test.example.com/v1"
	if plural == "namespaces" {
		apiVersion = "v1"
	}
	code, out := e.do("POST", path(plural, ns, ""), map[string]any{"apiVersion": apiVersion, "kind": kinds[plural], "metadata": meta})
	if code != http.StatusCreated {
		e.t.Fatalf("create %s %s/%s: %d %v", plural, ns, name, code, out)
	}
	return out
}

func (e *env) get(plural, ns, name string) (map[string]any, bool) {
	e.t.Helper()
	code, out := e.do("GET", path(plural, ns, name), nil)
	return out, code == http.StatusOK
}

func (e *env) deleteWith(plural, ns, name, policy string) {
	e.t.Helper()
	q := ""
	if policy != "" {
		q = "?propagationPolicy=" + policy
	}
	if code, out := e.do("DELETE", path(plural, ns, name)+q, nil); code != http.StatusOK {
		e.t.Fatalf("delete %s/%s: %d %v", plural, name, code, out)
	}
}

func (e *env) removeFinalizers(plural, ns, name string) {
	e.t.Helper()
	e.patch(plural, ns, name, `{"metadata":{"finalizers":null}}`)
}

func (e *env) patch(plural, ns, name, mergePatch string) {
	e.t.Helper()
	req := httptest.NewRequest("PATCH", path(plural, ns, name), strings.NewReader(mergePatch))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		e.t.Fatalf("patch %s/%s: %d %s", plural, name, rec.Code, rec.Body)
	}
}

func ownerNames(obj map[string]any) []string {
	var out []string
	refs, _ := obj["metadata"].(map[string]any)["ownerReferences"].([]any)
	for _, r := range refs {
		out = append(out, r.(map[string]any)["name"].(string))
	}
	return out
}

func TestNamespaceController_CreatesTheDefaultNamespaces(t *testing.T) {
	e := newEnv(t)
	for _, name := range controllers.DefaultNamespaces {
		ns, ok := e.get("namespaces", "", name)
		if !ok || ns["status"].(map[string]any)["phase"] != "Active" {
			t.Errorf("namespace %s: %v", name, ns)
		}
	}
}

func TestGarbageCollector_Propagation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		// block sets blockOwnerDeletion on the ReplicaSet's reference; podFinalizer
		// holds the Pod until the test removes it.
		block, podFinalizer bool
		// Whether each object exists once the controllers are idle.
		wantDeployment, wantReplicaSet, wantPod bool
		// wantOrphaned: the ReplicaSet lost its ownerReference.
		wantOrphaned bool
	}{
		{name: "BackgroundDeletesDependentsAfterTheOwner", policy: "Background"},
		{name: "DefaultIsBackground", policy: ""},
		{name: "ForegroundDeletesDependentsThenTheOwner", policy: "Foreground", block: true},
		{name: "ForegroundWaitsForABlockingDependentWithAFinalizer", policy: "Foreground", block: true, podFinalizer: true, wantDeployment: true, wantReplicaSet: true, wantPod: true},
		{name: "ForegroundDoesNotWaitForNonBlockingDependents", policy: "Foreground", podFinalizer: true, wantPod: true},
		{name: "OrphanKeepsDependentsWithoutTheReference", policy: "Orphan", wantReplicaSet: true, wantPod: true, wantOrphaned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			d := e.create("deployments", "default", "web", nil)
			rs := e.create("replicasets", "default", "web-1", nil, ref{d, tc.block})
			var fins []string
			if tc.podFinalizer {
				fins = []string{"example.com/hold"}
			}
			e.create("pods", "default", "web-1-a", fins, ref{rs, tc.block})
			e.deleteWith("deployments", "default", "web", tc.policy)
			e.idle()
			_, gotD := e.get("deployments", "default", "web")
			gotRS, okRS := e.get("replicasets", "default", "web-1")
			_, gotPod := e.get("pods", "default", "web-1-a")
			if gotD != tc.wantDeployment || okRS != tc.wantReplicaSet || gotPod != tc.wantPod {
				t.Fatalf("deployment %v replicaset %v pod %v, want %v %v %v", gotD, okRS, gotPod, tc.wantDeployment, tc.wantReplicaSet, tc.wantPod)
			}
			if okRS && tc.wantOrphaned != (len(ownerNames(gotRS)) == 0) {
				t.Errorf("replicaset owners %v", ownerNames(gotRS))
			}
			if tc.podFinalizer {
				e.removeFinalizers("pods", "default", "web-1-a")
				e.idle()
				if _, ok := e.get("deployments", "default", "web"); ok && !tc.wantOrphaned {
					t.Errorf("the deployment stays after its pod went")
				}
			}
		})
	}
}

func TestGarbageCollector_Owners(t *testing.T) {
	t.Run("AClusterScopedOwnerCollectsNamespacedDependents", func(t *testing.T) {
		e := newEnv(t)
		n := e.create("nodes", "", "n1", nil)
		e.create("pods", "default", "p", nil, ref{owner: n})
		e.deleteWith("nodes", "", "n1", "")
		e.idle()
		if _, ok := e.get("pods", "default", "p"); ok {
			t.Error("pod stays")
		}
	})
	t.Run("ADependentWithALiveOwnerLosesOnlyTheGoneReference", func(t *testing.T) {
		e := newEnv(t)
		a := e.create("deployments", "default", "a", nil)
		b := e.create("replicasets", "default", "b", nil)
		e.create("pods", "default", "p", nil, ref{owner: a}, ref{owner: b})
		e.deleteWith("deployments", "default", "a", "")
		e.idle()
		p, ok := e.get("pods", "default", "p")
		if !ok || strings.Join(ownerNames(p), ",") != "b" {
			t.Errorf("pod %v owners %v", ok, ownerNames(p))
		}
	})
	t.Run("AReferenceWithAnotherUIDIsDangling", func(t *testing.T) {
		e := newEnv(t)
		a := e.create("deployments", "default", "a", nil)
		stale := map[string]any{"apiVersion": a["apiVersion"], "kind": a["kind"], "metadata": map[string]any{"name": "a", "uid": "00000000-0000-0000-0000-000000000000"}}
		e.create("pods", "default", "p", nil, ref{owner: stale})
		e.idle()
		if _, ok := e.get("pods", "default", "p"); ok {
			t.Error("pod with a dangling reference stays")
		}
	})
	t.Run("AForegroundCycleEnds", func(t *testing.T) {
		e := newEnv(t)
		a := e.create("deployments", "default", "a", nil)
		b := e.create("replicasets", "default", "b", nil, ref{a, true})
		e.patch("deployments", "default", "a", `{"metadata":{"ownerReferences":[{"apiVersion":"test.example.com/v1","kind":"ReplicaSet","name":"b","uid":"`+b["metadata"].(map[string]any)["uid"].(string)+`","blockOwnerDeletion":true}]}}`)
		e.deleteWith("deployments", "default", "a", "Foreground")
		e.idle()
		_, okA := e.get("deployments", "default", "a")
		_, okB := e.get("replicasets", "default", "b")
		if okA || okB {
			t.Errorf("a %v b %v remain", okA, okB)
		}
	})
}

func TestNamespaceController_DeletesTheContentThenTheNamespace(t *testing.T) {
	e := newEnv(t)
	e.create("namespaces", "", "team", nil)
	e.create("pods", "team", "plain", nil)
	e.create("pods", "team", "held", []string{"example.com/hold"})
	e.create("pods", "default", "elsewhere", nil)
	e.deleteWith("namespaces", "", "team", "")
	e.idle()
	ns, ok := e.get("namespaces", "", "team")
	if !ok {
		t.Fatal("namespace went while a pod waits for its finalizer")
	}
	if ns["status"].(map[string]any)["phase"] != "Terminating" {
		t.Errorf("phase %v", ns["status"])
	}
	want := map[string]string{
		"NamespaceContentRemaining":    "Some resources are remaining: pods.test.example.com has 1 resource instances",
		"NamespaceFinalizersRemaining": "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	for _, c := range ns["status"].(map[string]any)["conditions"].([]any) {
		c := c.(map[string]any)
		if msg, ok := want[c["type"].(string)]; ok && (c["message"] != msg || c["status"] != "True") {
			t.Errorf("condition %v", c)
		}
	}
	if _, ok := e.get("pods", "team", "plain"); ok {
		t.Error("pod without finalizers stays")
	}
	if code, _ := e.do("POST", path("pods", "team", ""), map[string]any{"apiVersion": "test.example.com/v1", "kind": "Pod", "metadata": map[string]any{"name": "late"}}); code != http.StatusForbidden {
		t.Errorf("create in a terminating namespace: %d", code)
	}
	e.removeFinalizers("pods", "team", "held")
	e.idle()
	if _, ok := e.get("namespaces", "", "team"); ok {
		t.Error("namespace stays after its content went")
	}
	if _, ok := e.get("pods", "default", "elsewhere"); !ok {
		t.Error("a pod of another namespace went")
	}
}
