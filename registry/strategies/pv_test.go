package strategies_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apikit-dev/apikit/apitest"
	"github.com/apikit-dev/apikit/registry/strategies"
	"github.com/apikit-dev/apikit/rest"
)

func volume(name string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolume",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"},
			"capacity":    map[string]any{"storage": "10Gi"},
			"nfs":         map[string]any{"server": "nfs.example.com", "path": "/exports/a"},
		},
	}
}

// TestPersistentVolume_CreateDefaultsAndRefusalsAsKube creates volumes through the HTTP
// API: a valid one is Pending since its creation, Retain and Filesystem; invalid ones
// get kube's causes.
func TestPersistentVolume_CreateDefaultsAndRefusalsAsKube(t *testing.T) {
	srv := apitest.NewServer(t, appsScheme(t), apitest.Options{REST: rest.Options{Strategies: strategies.Builtin()}})
	const path = "/api/v1/persistentvolumes"
	in := volume("pv-1")
	in["status"] = map[string]any{"phase": "Bound"}
	got := call(t, srv, http.MethodPost, path, in, http.StatusCreated)
	if at(got, "status", "phase") != "Pending" || at(got, "status", "lastPhaseTransitionTime") == nil {
		t.Errorf("created status %v, want Pending with its transition time", at(got, "status"))
	}
	if at(got, "spec", "persistentVolumeReclaimPolicy") != "Retain" || at(got, "spec", "volumeMode") != "Filesystem" {
		t.Errorf("created spec %v, want Retain and Filesystem", at(got, "spec"))
	}

	for _, c := range []struct {
		name string
		mod  func(spec map[string]any)
		want []string
	}{
		{"no source, capacity or access modes", func(s map[string]any) {
			delete(s, "nfs")
			delete(s, "capacity")
			delete(s, "accessModes")
		}, []string{
			"spec.accessModes: Required value",
			"spec.capacity: Required value",
			`spec.capacity: Unsupported value: null: supported values: "storage"`,
			"spec: Required value: must specify a volume type",
		}},
		{"two sources", func(s map[string]any) {
			s["hostPath"] = map[string]any{"path": "/data"}
		}, []string{"spec.nfs: Forbidden: may not specify more than 1 volume type"}},
		{"local volume without node affinity, bad policy and zero capacity", func(s map[string]any) {
			delete(s, "nfs")
			s["local"] = map[string]any{"path": "/mnt/../etc"}
			s["capacity"] = map[string]any{"storage": "0"}
			s["persistentVolumeReclaimPolicy"] = "Keep"
		}, []string{
			`spec.capacity[storage]: Invalid value: "0": must be greater than zero`,
			`spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"`,
			`spec.local.path: Invalid value: "/mnt/../etc": must not contain '..'`,
			"spec.nodeAffinity: Required value: Local volume requires node affinity",
		}},
		{"csi without driver or handle, and an attributes class", func(s map[string]any) {
			delete(s, "nfs")
			s["csi"] = map[string]any{"driver": "", "volumeHandle": "", "nodePublishSecretRef": map[string]any{"name": "Bad_Name"}}
			s["volumeAttributesClassName"] = ""
		}, []string{
			"spec.csi.driver: Required value",
			"spec.csi.volumeHandle: Required value",
			`spec.csi.nodePublishSecretRef.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			"spec.csi.nodePublishSecretRef.namespace: Required value",
			"spec.volumeAttributesClassName: Required value: an empty string is disallowed",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := volume("bad")
			c.mod(m["spec"].(map[string]any))
			st := call(t, srv, http.MethodPost, path, m, http.StatusUnprocessableEntity)
			if d := cmp.Diff(c.want, causesOf(st)); d != "" {
				t.Errorf("causes (-want +got):\n%s", d)
			}
		})
	}

	// The source is immutable; a /status write keeps the spec and stamps a new phase.
	got["spec"].(map[string]any)["nfs"] = map[string]any{"server": "other.example.com", "path": "/exports/a"}
	st := call(t, srv, http.MethodPut, path+"/pv-1", got, http.StatusUnprocessableEntity)
	causes := causesOf(st)
	if len(causes) != 1 || !strings.HasPrefix(causes[0], "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n") ||
		!strings.Contains(causes[0], `-  "Server": "nfs.example.com",`+"\n"+`+  "Server": "other.example.com",`) {
		t.Errorf("source change refused with %q, want kube's refusal with its diff", causes)
	}
	cur := call(t, srv, http.MethodGet, path+"/pv-1", nil, http.StatusOK)
	was := at(cur, "status", "lastPhaseTransitionTime")
	cur["status"] = map[string]any{"phase": "Available", "lastPhaseTransitionTime": was}
	cur["spec"].(map[string]any)["persistentVolumeReclaimPolicy"] = "Delete"
	after := call(t, srv, http.MethodPut, path+"/pv-1/status", cur, http.StatusOK)
	if at(after, "status", "phase") != "Available" || at(after, "spec", "persistentVolumeReclaimPolicy") != "Retain" {
		t.Errorf("after the status write: %v %v, want Available and the spec kept", at(after, "status"), at(after, "spec", "persistentVolumeReclaimPolicy"))
	}
	if at(after, "status", "lastPhaseTransitionTime") == nil {
		t.Errorf("a phase change left no lastPhaseTransitionTime")
	}
}
