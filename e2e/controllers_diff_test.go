package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/builtin"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/registry/admission"
	"github.com/apikit-dev/apikit/registry/strategies"
	apikitrest "github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
)

// The side-by-side checks of issue 24 items 4 and 10: the same requests on apikit
// (apitest with the built-in kinds, their strategies, the CRD API and the controllers)
// and on the real kube-apiserver and kube-controller-manager, and the same answers.

var (
	gvrNamespaces = k8sschema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	gvrConfigMaps = k8sschema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrEvents     = k8sschema.GroupVersionResource{Version: "v1", Resource: "events"}
	gvrCRDs       = k8sschema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// sideBySide is one server of the comparison.
type sideBySide struct {
	name string
	dc   dynamic.Interface
	// cfg is its client configuration, for raw requests.
	cfg *rest.Config
	// uids name the uids the server gave, so that transcripts compare across servers.
	uids map[string]string
}

// startSideBySide starts the real control plane (skipping without it) and apikit as
// the envtest drop-in and examples/testenv assemble it: the built-in kinds, their
// strategies, kube's default admission plugins (admission.Builtin()), the controllers
// and the CRD API.
func startSideBySide(t *testing.T, apiserverExtra ...string) []*sideBySide {
	t.Helper()
	return startSideBySideWith(t, nil, apiserverExtra...)
}

// startSideBySideWith is startSideBySide with apikit's validating admission extended by
// extraValidating (run after admission.Builtin()'s), as a host adds plugins of nested
// modules (cel/policy's ValidatingAdmissionPolicy).
func startSideBySideWith(t *testing.T, extraValidating []registry.ValidatingAdmission, apiserverExtra ...string) []*sideBySide {
	t.Helper()
	kcp := startKubeControlPlane(t, apiserverExtra...)
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	plugins := admission.Builtin()
	validating := append(append([]registry.ValidatingAdmission{}, plugins.Validating...), extraValidating...)
	srv := apitest.NewServer(t, s, apitest.Options{REST: apikitrest.Options{Strategies: strategies.Builtin(),
		MutatingAdmission: plugins.Mutating, ValidatingAdmission: validating}, Controllers: true, CRDAPI: true})
	apikitCfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var out []*sideBySide
	for _, c := range []struct {
		name string
		cfg  *rest.Config
	}{{"kube", kcp.Config}, {"apikit", apikitCfg}} {
		cfg := rest.CopyConfig(c.cfg)
		cfg.QPS, cfg.Burst, cfg.Timeout = -1, -1, 30*time.Second
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &sideBySide{name: c.name, dc: dc, cfg: cfg, uids: map[string]string{}})
	}
	return out
}

// anonymize replaces the uids the server gave by their names.
func (sv *sideBySide) anonymize(s string) string {
	for uid, name := range sv.uids {
		s = strings.ReplaceAll(s, uid, "<uid of "+name+">")
	}
	return s
}

func (sv *sideBySide) create(t *testing.T, ctx context.Context, gvr k8sschema.GroupVersionResource, ns string, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	got, err := sv.dc.Resource(gvr).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("%s: create %s %s: %v", sv.name, gvr.Resource, obj["metadata"], err)
	}
	sv.uids[string(got.GetUID())] = gvr.Resource + "/" + got.GetName()
	return got
}

// waitFor polls cond, bounded in count and time, and reports how long it took.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for i := 0; i < 600 && time.Since(start) < 60*time.Second; i++ {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not after %s", what, time.Since(start))
	return 0
}

// TestSideBySide_GenerationOfStatusWritesAndBuiltInKinds sends the same writes to a
// CRD with a status subresource, one without, a ConfigMap and a Namespace, and
// compares metadata.generation after each.
func TestSideBySide_GenerationOfStatusWritesAndBuiltInKinds(t *testing.T) {
	servers := startSideBySide(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	crd := func(kind, plural string, status bool) map[string]any {
		version := map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
			"type": "object", "properties": map[string]any{
				"spec":   map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
				"status": map[string]any{"type": "object", "properties": map[string]any{"ready": map[string]any{"type": "boolean"}}},
			}}}}
		if status {
			version["subresources"] = map[string]any{"status": map[string]any{}}
		}
		return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": plural + ".side.example.com"},
			"spec": map[string]any{"group": "side.example.com", "scope": "Namespaced",
				"names": map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind)}, "versions": []any{version}}}
	}
	type step struct {
		what     string
		gvr      k8sschema.GroupVersionResource
		ns, name string
		sub      string // "status" for /status
		patch    string // a merge patch; "" creates the object of create
		create   map[string]any
		del      bool // deletes the object, then reads it (it has a finalizer)
	}
	gadgets := k8sschema.GroupVersionResource{Group: "side.example.com", Version: "v1", Resource: "gadgets"}
	gizmos := k8sschema.GroupVersionResource{Group: "side.example.com", Version: "v1", Resource: "gizmos"}
	obj := func(kind, name string, spec any) map[string]any {
		return map[string]any{"apiVersion": "side.example.com/v1", "kind": kind, "metadata": map[string]any{"name": name}, "spec": spec}
	}
	steps := []step{
		{what: "create gadget", gvr: gadgets, ns: "default", name: "g", create: obj("Gadget", "g", map[string]any{"size": 1})},
		{what: "gadget /status 1", gvr: gadgets, ns: "default", name: "g", sub: "status", patch: `{"status":{"ready":true}}`},
		{what: "gadget /status 2", gvr: gadgets, ns: "default", name: "g", sub: "status", patch: `{"status":{"ready":false}}`},
		{what: "gadget /status 3", gvr: gadgets, ns: "default", name: "g", sub: "status", patch: `{"status":{"ready":true}}`},
		{what: "gadget /status with spec", gvr: gadgets, ns: "default", name: "g", sub: "status", patch: `{"spec":{"size":9},"status":{"ready":false}}`},
		{what: "gadget status on the main resource", gvr: gadgets, ns: "default", name: "g", patch: `{"status":{"ready":true}}`},
		{what: "gadget label", gvr: gadgets, ns: "default", name: "g", patch: `{"metadata":{"labels":{"a":"b"}}}`},
		{what: "gadget spec", gvr: gadgets, ns: "default", name: "g", patch: `{"spec":{"size":2}}`},
		{what: "gadget finalizer", gvr: gadgets, ns: "default", name: "g", patch: `{"metadata":{"finalizers":["example.com/hold"]}}`},
		{what: "gadget deleted (marked)", gvr: gadgets, ns: "default", name: "g", del: true},
		{what: "gadget deleted again", gvr: gadgets, ns: "default", name: "g", del: true},
		{what: "create gizmo", gvr: gizmos, ns: "default", name: "z", create: obj("Gizmo", "z", map[string]any{"size": 1})},
		{what: "gizmo status on the main resource", gvr: gizmos, ns: "default", name: "z", patch: `{"status":{"ready":true}}`},
		{what: "gizmo label", gvr: gizmos, ns: "default", name: "z", patch: `{"metadata":{"labels":{"a":"b"}}}`},
		{what: "gizmo spec", gvr: gizmos, ns: "default", name: "z", patch: `{"spec":{"size":2}}`},
		{what: "create configmap", gvr: gvrConfigMaps, ns: "default", name: "c", create: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"a": "1"}}},
		{what: "configmap data", gvr: gvrConfigMaps, ns: "default", name: "c", patch: `{"data":{"a":"2"}}`},
		{what: "create namespace", gvr: gvrNamespaces, name: "gen", create: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "gen"}}},
		{what: "namespace label", gvr: gvrNamespaces, name: "gen", patch: `{"metadata":{"labels":{"a":"b"}}}`},
	}
	var transcripts [][]string
	for _, sv := range servers {
		for _, c := range []map[string]any{crd("Gadget", "gadgets", true), crd("Gizmo", "gizmos", false)} {
			sv.create(t, ctx, gvrCRDs, "", c)
			name := c["metadata"].(map[string]any)["name"].(string)
			took := waitFor(t, sv.name+": "+name+" established", func() bool {
				got, err := sv.dc.Resource(gvrCRDs).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false
				}
				conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
				return slices.ContainsFunc(conds, func(c any) bool {
					m, _ := c.(map[string]any)
					return m["type"] == "Established" && m["status"] == "True"
				})
			})
			t.Logf("%s: %s established in %s", sv.name, name, took.Round(time.Millisecond))
		}
		var lines []string
		for _, st := range steps {
			r := sv.dc.Resource(st.gvr).Namespace(st.ns)
			var got *unstructured.Unstructured
			var err error
			if st.del {
				if err = r.Delete(ctx, st.name, metav1.DeleteOptions{}); err == nil {
					got, err = r.Get(ctx, st.name, metav1.GetOptions{})
				}
			} else if st.create != nil {
				// A new CRD's resource may take a moment to be served.
				for i := 0; i < 100; i++ {
					if got, err = r.Create(ctx, &unstructured.Unstructured{Object: st.create}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
			} else {
				var subs []string
				if st.sub != "" {
					subs = []string{st.sub}
				}
				got, err = r.Patch(ctx, st.name, types.MergePatchType, []byte(st.patch), metav1.PatchOptions{}, subs...)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", sv.name, st.what, err)
			}
			lines = append(lines, fmt.Sprintf("%s: generation %d", st.what, got.GetGeneration()))
		}
		t.Logf("%s:\n%s", sv.name, strings.Join(lines, "\n"))
		transcripts = append(transcripts, lines)
	}
	if !slices.Equal(transcripts[0], transcripts[1]) {
		t.Errorf("kube:\n%s\napikit:\n%s", strings.Join(transcripts[0], "\n"), strings.Join(transcripts[1], "\n"))
	}
}

// TestSideBySide_OwnerReferencesTheCollectorCannotResolve makes on both servers the
// dependents of kube's unresolvable-reference rules, then a sentinel with a dangling
// reference; once the sentinel is collected, the collector has processed the others.
// It compares which dependents stay and the garbage collector's events.
func TestSideBySide_OwnerReferencesTheCollectorCannotResolve(t *testing.T) {
	servers := startSideBySide(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref := func(kind, name string, uid types.UID) []any {
		return []any{map[string]any{"apiVersion": "v1", "kind": kind, "name": name, "uid": string(uid)}}
	}
	namespace := func(name string, owners []any) map[string]any {
		meta := map[string]any{"name": name}
		if owners != nil {
			meta["ownerReferences"] = owners
		}
		return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta}
	}
	configMap := func(name string, owners []any) map[string]any {
		meta := map[string]any{"name": name}
		if owners != nil {
			meta["ownerReferences"] = owners
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
	}
	const missing = types.UID("00000000-0000-4000-8000-000000000001")
	var transcripts []string
	for _, sv := range servers {
		sv.uids[string(missing)] = "a missing object"
		owner := sv.create(t, ctx, gvrConfigMaps, "default", configMap("owner", nil))
		other := sv.create(t, ctx, gvrNamespaces, "", namespace("other", nil))
		// The case: a Namespace owned by a ConfigMap, with content.
		sv.create(t, ctx, gvrNamespaces, "", namespace("owned-by-a-configmap", ref("ConfigMap", "owner", owner.GetUID())))
		sv.create(t, ctx, gvrConfigMaps, "owned-by-a-configmap", configMap("content", nil))
		// A Namespace owned by a ConfigMap that does not exist.
		sv.create(t, ctx, gvrNamespaces, "", namespace("owned-by-a-missing-configmap", ref("ConfigMap", "owner", missing)))
		// A ConfigMap owned by one of another namespace.
		sv.create(t, ctx, gvrConfigMaps, "other", configMap("owned-across-namespaces", ref("ConfigMap", "owner", owner.GetUID())))
		// A ConfigMap owned by a Namespace (cluster-scoped owners may own anything).
		sv.create(t, ctx, gvrConfigMaps, "default", configMap("owned-by-a-namespace", ref("Namespace", "other", other.GetUID())))
		// A ConfigMap whose reference names the owner with another uid.
		sv.create(t, ctx, gvrConfigMaps, "default", configMap("owned-by-another-uid", ref("ConfigMap", "owner", missing)))
		// The sentinel, last: a dangling reference the collector deletes.
		sv.create(t, ctx, gvrConfigMaps, "default", configMap("sentinel", ref("ConfigMap", "gone", missing)))
		took := waitFor(t, sv.name+": the sentinel collected", func() bool {
			_, err := sv.dc.Resource(gvrConfigMaps).Namespace("default").Get(ctx, "sentinel", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
		// The events of the cross-namespace references are recorded as the graph
		// takes the dependents in, before the sentinel's deletion.
		wantEvents := 2
		var events []string
		waitFor(t, sv.name+": the garbage collector's events", func() bool {
			events = events[:0]
			for _, ns := range []string{"default", "other"} {
				list, err := sv.dc.Resource(gvrEvents).Namespace(ns).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false
				}
				for _, ev := range list.Items {
					if src, _, _ := unstructured.NestedString(ev.Object, "source", "component"); src != "garbage-collector-controller" {
						continue
					}
					fields := map[string]any{"namespace": ev.GetNamespace()}
					for _, k := range []string{"type", "reason", "message", "involvedObject", "source", "count", "reportingComponent", "reportingInstance"} {
						fields[k] = ev.Object[k]
					}
					b, _ := json.Marshal(fields)
					events = append(events, sv.anonymize(string(b)))
				}
			}
			return len(events) >= wantEvents
		})
		slices.Sort(events)
		lines := []string{}
		for _, o := range []struct {
			gvr      k8sschema.GroupVersionResource
			ns, name string
		}{
			{gvrNamespaces, "", "owned-by-a-configmap"},
			{gvrConfigMaps, "owned-by-a-configmap", "content"},
			{gvrNamespaces, "", "owned-by-a-missing-configmap"},
			{gvrConfigMaps, "other", "owned-across-namespaces"},
			{gvrConfigMaps, "default", "owned-by-a-namespace"},
			{gvrConfigMaps, "default", "owned-by-another-uid"},
		} {
			_, err := sv.dc.Resource(o.gvr).Namespace(o.ns).Get(ctx, o.name, metav1.GetOptions{})
			lines = append(lines, fmt.Sprintf("%s %s/%s exists: %v", o.gvr.Resource, o.ns, o.name, err == nil))
		}
		lines = append(lines, events...)
		t.Logf("%s (sentinel collected after %s):\n%s", sv.name, took.Round(time.Millisecond), strings.Join(lines, "\n"))
		transcripts = append(transcripts, strings.Join(lines, "\n"))
	}
	if transcripts[0] != transcripts[1] {
		t.Errorf("kube:\n%s\napikit:\n%s", transcripts[0], transcripts[1])
	}
}
