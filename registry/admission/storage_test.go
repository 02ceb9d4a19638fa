package admission_test

import (
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

// storageServer serves the built-in kinds with kube's strategies and Builtin's plugins;
// withClasses adds a schema-less storage.k8s.io/v1 storageclasses resource, standing in
// for the one issue 28 serves, so that the plugins that read classes find some.
func storageServer(t testing.TB, withClasses bool) *apitest.Server {
	t.Helper()
	s := scheme.New()
	if err := builtin.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if withClasses {
		gv := scheme.GroupVersion{Group: "storage.k8s.io", Version: "v1"}
		s.AddUnstructuredKind(gv.WithKind("StorageClass"))
		s.AddUnstructuredKind(gv.WithKind("StorageClassList"))
		if err := s.AddResource(scheme.Resource{Group: gv.Group, Kind: "StorageClass", Plural: "storageclasses"}); err != nil {
			t.Fatal(err)
		}
	}
	p := admission.Builtin()
	srv := apitest.NewServer(t, s, apitest.Options{REST: rest.Options{
		Strategies: strategies.Builtin(), MutatingAdmission: p.Mutating, ValidatingAdmission: p.Validating,
	}})
	sendExpect(t, srv, http.MethodPost, "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "default"}}, http.StatusCreated)
	return srv
}

func claim(name string, extra map[string]any) map[string]any {
	spec := map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}
	for k, v := range extra {
		spec[k] = v
	}
	return map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": name}, "spec": spec}
}

const claims = "/api/v1/namespaces/default/persistentvolumeclaims"

// TestStorageAndNodePlugins_MutateNewObjectsAsKube creates claims, volumes and nodes
// through a server running Builtin's plugins: each gets kube's finalizer or taint
// once, and a claim's class is left alone when no class is the default.
func TestStorageAndNodePlugins_MutateNewObjectsAsKube(t *testing.T) {
	srv := storageServer(t, false)
	for _, c := range []struct {
		name, path string
		obj        map[string]any
		field      []string
		want       any
	}{
		{"claim gets pvc-protection", claims, claim("a", nil), []string{"metadata", "finalizers"}, []any{"kubernetes.io/pvc-protection"}},
		{"claim keeps its own pvc-protection once", claims, func() map[string]any {
			m := claim("b", nil)
			m["metadata"].(map[string]any)["finalizers"] = []any{"example.com/x", "kubernetes.io/pvc-protection"}
			return m
		}(), []string{"metadata", "finalizers"}, []any{"example.com/x", "kubernetes.io/pvc-protection"}},
		{"claim without a default class keeps none", claims, claim("c", nil), []string{"spec", "storageClassName"}, nil},
		{"volume gets pv-protection", "/api/v1/persistentvolumes", map[string]any{"apiVersion": "v1", "kind": "PersistentVolume",
			"metadata": map[string]any{"name": "pv-1"},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "capacity": map[string]any{"storage": "1Gi"},
				"hostPath": map[string]any{"path": "/data"}}}, []string{"metadata", "finalizers"}, []any{"kubernetes.io/pv-protection"}},
		{"node gets the not-ready taint", "/api/v1/nodes", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1"},
			"spec": map[string]any{"taints": []any{map[string]any{"key": "dedicated", "value": "db", "effect": "NoSchedule"}}}},
			[]string{"spec", "taints"}, []any{
				map[string]any{"key": "dedicated", "value": "db", "effect": "NoSchedule"},
				map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
			}},
		{"node that has the taint gets it once", "/api/v1/nodes", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n2"},
			"spec": map[string]any{"taints": []any{map[string]any{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}}}},
			[]string{"spec", "taints"}, []any{map[string]any{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := sendExpect(t, srv, http.MethodPost, c.path, c.obj, http.StatusCreated)
			if d := cmp.Diff(c.want, at(got, c.field...)); d != "" {
				t.Errorf("%v (-want +got):\n%s", c.field, d)
			}
		})
	}
	// An update adds nothing: the plugins act on creates.
	n := sendExpect(t, srv, http.MethodGet, "/api/v1/nodes/n1", nil, http.StatusOK)
	n["spec"].(map[string]any)["taints"] = []any{}
	if got := sendExpect(t, srv, http.MethodPut, "/api/v1/nodes/n1", n, http.StatusOK); at(got, "spec", "taints") != nil {
		t.Errorf("an update got taints %v, want none", at(got, "spec", "taints"))
	}
}

// TestPersistentVolumeClaimResize_RefusesAsKube grows bound claims: refused with kube's
// 403 when no StorageClass is served or the class does not allow expansion, allowed
// when it does; the default class is the newest default.
func TestPersistentVolumeClaimResize_RefusesAsKube(t *testing.T) {
	const refusal = `persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
	for _, c := range []struct {
		name        string
		withClasses bool
		class       string
		want        int
	}{
		{"no storageclasses served", false, "fast", http.StatusForbidden},
		{"class not found", true, "missing", http.StatusForbidden},
		{"class without expansion", true, "slow", http.StatusForbidden},
		{"class that expands", true, "fast", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := storageServer(t, c.withClasses)
			if c.withClasses {
				for _, sc := range []map[string]any{
					{"metadata": map[string]any{"name": "fast", "annotations": map[string]any{admission.IsDefaultStorageClassAnnotation: "true"}},
						"provisioner": "example.com/csi", "allowVolumeExpansion": true},
					{"metadata": map[string]any{"name": "slow"}, "provisioner": "example.com/csi"},
				} {
					sc["apiVersion"], sc["kind"] = "storage.k8s.io/v1", "StorageClass"
					sendExpect(t, srv, http.MethodPost, "/apis/storage.k8s.io/v1/storageclasses", sc, http.StatusCreated)
				}
			}
			extra := map[string]any{"storageClassName": c.class}
			pvc := sendExpect(t, srv, http.MethodPost, claims, claim("data", extra), http.StatusCreated)
			pvc["spec"].(map[string]any)["volumeName"] = "pv-1"
			pvc = sendExpect(t, srv, http.MethodPut, claims+"/data", pvc, http.StatusOK)
			pvc["status"] = map[string]any{"phase": "Bound", "capacity": map[string]any{"storage": "1Gi"}}
			pvc = sendExpect(t, srv, http.MethodPut, claims+"/data/status", pvc, http.StatusOK)
			pvc["spec"].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"storage": "2Gi"}}
			got := sendExpect(t, srv, http.MethodPut, claims+"/data", pvc, c.want)
			if c.want == http.StatusForbidden && (got["message"] != refusal || got["reason"] != "Forbidden") {
				t.Errorf("refused with %v %q, want Forbidden %q", got["reason"], got["message"], refusal)
			}
			if c.withClasses {
				d := sendExpect(t, srv, http.MethodPost, claims, claim("defaulted", nil), http.StatusCreated)
				if got := at(d, "spec", "storageClassName"); got != "fast" {
					t.Errorf("a claim without a class got %v, want the default class fast", got)
				}
			}
		})
	}
}
