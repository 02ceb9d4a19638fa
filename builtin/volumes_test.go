package builtin_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestStorageAndNodes_ServedWithKubeTableColumns creates a claim, a volume and a node and
// reads each back as kubectl's Table: kube's columns in kube's order (wide ones last)
// and the cells of kube's printers.
func TestStorageAndNodes_ServedWithKubeTableColumns(t *testing.T) {
	srv := eventsServer(t)
	for _, c := range []struct {
		name, create, get string
		obj               map[string]any
		columns           string
		cells             map[int]any
	}{
		{"claim bound to a volume", "/api/v1/namespaces/default/persistentvolumeclaims", "/api/v1/namespaces/default/persistentvolumeclaims/data",
			map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
				"metadata": map[string]any{"name": "data", "annotations": map[string]any{"volume.beta.kubernetes.io/storage-class": "old"}},
				"spec": map[string]any{"accessModes": []any{"ReadWriteOncePod"}, "volumeName": "pv-1", "storageClassName": "fast",
					"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}},
				"status": map[string]any{"phase": "Bound", "accessModes": []any{"ReadWriteMany", "ReadWriteOnce"}, "capacity": map[string]any{"storage": "2Gi"}}},
			"Name,Status,Volume,Capacity,Access Modes,StorageClass,VolumeAttributesClass,Age,VolumeMode",
			map[int]any{0: "data", 1: "Bound", 2: "pv-1", 3: "2Gi", 4: "RWO,RWX", 5: "old", 6: "<unset>", 8: "Filesystem"}},
		{"volume claimed", "/api/v1/persistentvolumes", "/api/v1/persistentvolumes/pv-1",
			map[string]any{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": map[string]any{"name": "pv-1"},
				"spec": map[string]any{"accessModes": []any{"ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce"}, "capacity": map[string]any{"storage": "10Gi"},
					"hostPath": map[string]any{"path": "/data"}, "storageClassName": "fast", "volumeMode": "Block",
					"claimRef": map[string]any{"namespace": "default", "name": "data"}},
				"status": map[string]any{"phase": "Bound"}},
			"Name,Capacity,Access Modes,Reclaim Policy,Status,Claim,StorageClass,VolumeAttributesClass,Reason,Age,VolumeMode",
			map[int]any{0: "pv-1", 1: "10Gi", 2: "RWO,ROX,RWX", 3: "Retain", 4: "Bound", 5: "default/data", 6: "fast", 7: "<unset>", 8: "", 10: "Block"}},
		{"cordoned control-plane node", "/api/v1/nodes", "/api/v1/nodes/n1",
			map[string]any{"apiVersion": "v1", "kind": "Node",
				"metadata": map[string]any{"name": "n1", "labels": map[string]any{"node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "master"}},
				"spec":     map[string]any{"unschedulable": true},
				"status": map[string]any{
					"conditions": []any{map[string]any{"type": "Ready", "status": "False"}},
					"addresses":  []any{map[string]any{"type": "Hostname", "address": "n1"}, map[string]any{"type": "InternalIP", "address": "10.0.0.1"}},
					"nodeInfo":   map[string]any{"kubeletVersion": "v1.37.2", "kernelVersion": "6.8.0", "architecture": "arm64", "machineID": "", "systemUUID": "", "bootID": "", "kubeProxyVersion": "", "operatingSystem": "linux", "osImage": "", "containerRuntimeVersion": "containerd://2.1"}}},
			"Name,Status,Roles,Age,Version,Internal-IP,External-IP,OS-Image,Kernel-Version,Container-Runtime",
			map[int]any{0: "n1", 1: "NotReady,SchedulingDisabled", 2: "control-plane,master", 4: "v1.37.2", 5: "10.0.0.1", 6: "<none>", 7: "<unknown>", 8: "6.8.0 (arm64)", 9: "containerd://2.1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			created := call(t, srv, http.MethodPost, c.create, c.obj, http.StatusCreated)
			// The status is written as controllers write it, through /status.
			if st, ok := c.obj["status"]; ok {
				created["status"] = st
				call(t, srv, http.MethodPut, c.get+"/status", created, http.StatusOK)
			}
			table := callAccept(t, srv, c.get, "application/json;as=Table;g=meta.k8s.io;v=v1")
			var names []string
			for _, col := range table["columnDefinitions"].([]any) {
				names = append(names, col.(map[string]any)["name"].(string))
			}
			if got := strings.Join(names, ","); got != c.columns {
				t.Fatalf("columns %s, want %s", got, c.columns)
			}
			cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
			for i, want := range c.cells {
				if cells[i] != want {
					t.Errorf("cell %d (%s) = %q, want %q", i, names[i], cells[i], want)
				}
			}
		})
	}
}
