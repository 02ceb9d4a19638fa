package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// The side-by-side check of issue 26 for PersistentVolumeClaims, PersistentVolumes and
// Nodes: the same manifests, valid and invalid, written to kube-apiserver (with its
// default admission plugins but ServiceAccount, as envtest runs it) and to apikit (with
// admission.Builtin()), answered and stored alike once the fields a server picks are
// set aside. Each write's answer is compared, not a later read, so that kube's
// controllers (the PV binder, the node lifecycle controller) cannot race it; the
// claims name a StorageClass no server has, so that the binder leaves them alone.

// storageDiffCase is one write: a manifest POSTed to its collection, or with fixture
// set, a change PUT over the object that case created (to its /status with status).
type storageDiffCase struct {
	name, collection, manifest string
	fixture                    string
	status                     bool
	update                     func(obj map[string]any)
}

func storageDiffCases() []storageDiffCase {
	const (
		pvcs  = "/api/v1/namespaces/default/persistentvolumeclaims"
		pvs   = "/api/v1/persistentvolumes"
		nodes = "/api/v1/nodes"
	)
	claim := func(name, spec string) string {
		return "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: " + name + "\nspec:\n" + spec
	}
	const claimSpec = "  accessModes: [ReadWriteOnce]\n  storageClassName: standard\n  resources: {requests: {storage: 1Gi}}\n"
	volume := func(name, spec string) string {
		return "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: " + name + "\nspec:\n  storageClassName: manual\n" + spec
	}
	const volumeBase = "  accessModes: [ReadWriteOnce]\n  capacity: {storage: 5Gi}\n"
	node := func(name, rest string) string {
		return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n" + rest
	}
	return []storageDiffCase{
		{name: "claim with kube's defaults and finalizer", collection: pvcs, manifest: claim("c-min", claimSpec)},
		{name: "claim in Block mode from a snapshot", collection: pvcs, manifest: claim("c-block", claimSpec+
			"  volumeMode: Block\n  dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: snap}\n")},
		{name: "claim with the beta class annotation", collection: pvcs, manifest: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: c-beta\n" +
			"  annotations: {volume.beta.kubernetes.io/storage-class: standard}\nspec:\n  accessModes: [ReadOnlyMany]\n  resources: {requests: {storage: 2Gi}}\n"},
		{name: "claim with a populator data source dropped", collection: pvcs, manifest: claim("c-pop", claimSpec+"  dataSource: {apiGroup: example.com, kind: Populator, name: p}\n")},
		{name: "claim without access modes or storage", collection: pvcs, manifest: claim("c-empty", "  resources: {}\n")},
		{name: "claim with bad modes, class and size", collection: pvcs, manifest: claim("c-bad",
			"  accessModes: [ReadWriteOncePod, ReadWriteOnce, Sometimes]\n  storageClassName: Fast_SSD\n  volumeMode: Raw\n  resources: {requests: {storage: \"0\"}}\n")},
		{name: "claim with data sources that differ", collection: pvcs, manifest: claim("c-ds", claimSpec+
			"  dataSource: {kind: PersistentVolumeClaim, name: a}\n  dataSourceRef: {kind: PersistentVolumeClaim, name: b}\n")},
		{name: "volume on NFS with kube's defaults and finalizer", collection: pvs, manifest: volume("v-nfs", volumeBase+"  nfs: {server: nfs.example.com, path: /exports}\n")},
		{name: "local volume with node affinity", collection: pvs, manifest: volume("v-local", volumeBase+"  local: {path: /mnt/disk}\n"+
			"  nodeAffinity:\n    required:\n      nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]\n")},
		{name: "volume without a source", collection: pvs, manifest: volume("v-none", volumeBase)},
		{name: "volume with two sources and no size", collection: pvs, manifest: volume("v-two", "  accessModes: [ReadWriteOnce]\n  capacity: {storage: \"0\", cpu: \"1\"}\n"+
			"  hostPath: {path: /data}\n  nfs: {server: \"\", path: rel}\n  persistentVolumeReclaimPolicy: Keep\n")},
		{name: "csi volume without driver, handle or secret namespace", collection: pvs, manifest: volume("v-csi", volumeBase+
			"  csi: {driver: \"\", volumeHandle: \"\", nodePublishSecretRef: {name: Bad_Name}}\n  volumeAttributesClassName: \"\"\n")},
		{name: "local volume without node affinity", collection: pvs, manifest: volume("v-nolocal", volumeBase+"  local: {path: /mnt/../etc}\n")},
		{name: "node registering with its status", collection: nodes, manifest: node("n-status",
			"  labels: {node-role.kubernetes.io/worker: \"\"}\nspec:\n  podCIDR: 10.244.1.0/24\n  podCIDRs: [10.244.9.0/24, \"fd00::/64\"]\n"+
				"  taints: [{key: dedicated, value: db, effect: NoSchedule}]\nstatus:\n  capacity: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n"+
				"  addresses: [{type: InternalIP, address: 10.0.0.7}]\n")},
		{name: "node with the not-ready taint already", collection: nodes, manifest: node("n-tainted",
			"spec:\n  taints: [{key: node.kubernetes.io/not-ready, effect: NoSchedule}]\n  providerID: aws:///i-1\n")},
		{name: "node with bad taints", collection: nodes, manifest: node("n-badtaint",
			"spec:\n  taints: [{key: a, effect: NoSchedule}, {key: a, value: x, effect: NoSchedule}, {key: b/c/d, value: -x, effect: Never}, {key: e}]\n")},
		{name: "node with bad podCIDRs", collection: nodes, manifest: node("n-badcidr", "spec:\n  podCIDRs: [10.0.0.1/24, 10.1.0.0/16, nope]\n")},
		{name: "node with a negative capacity", collection: nodes, manifest: node("n-neg", "status:\n  capacity: {memory: -1Gi, pods: 1500m}\n")},
		{name: "claim class changed", fixture: "c-min", collection: pvcs, update: func(o map[string]any) {
			setPath(o, "other", "spec", "storageClassName")
		}},
		{name: "claim volume name set once", fixture: "c-block", collection: pvcs, update: func(o map[string]any) {
			setPath(o, "pv-1", "spec", "volumeName")
		}},
		{name: "claim bound through /status", fixture: "c-block", collection: pvcs, status: true, update: func(o map[string]any) {
			setPath(o, map[string]any{"phase": "Bound", "accessModes": []any{"ReadWriteOnce"}, "capacity": map[string]any{"storage": "1Gi"}}, "status")
			setPath(o, "ignored", "spec", "volumeName")
		}},
		{name: "bound claim grown without a class that expands", fixture: "c-block", collection: pvcs, update: func(o map[string]any) {
			setPath(o, map[string]any{"storage": "2Gi"}, "spec", "resources", "requests")
		}},
		{name: "bound claim shrunk below its capacity", fixture: "c-block", collection: pvcs, update: func(o map[string]any) {
			setPath(o, map[string]any{"storage": "500Mi"}, "spec", "resources", "requests")
		}},
		{name: "volume source changed", fixture: "v-nfs", collection: pvs, update: func(o map[string]any) {
			setPath(o, "other.example.com", "spec", "nfs", "server")
		}},
		{name: "node podCIDRs and external ID changed", fixture: "n-status", collection: nodes, update: func(o map[string]any) {
			setPath(o, "10.244.2.0/24", "spec", "podCIDR")
			setPath(o, []any{"10.244.2.0/24"}, "spec", "podCIDRs")
			setPath(o, "i-123", "spec", "externalID")
		}},
		{name: "node providerID changed", fixture: "n-tainted", collection: nodes, update: func(o map[string]any) {
			setPath(o, "aws:///i-2", "spec", "providerID")
		}},
	}
}

// TestSideBySide_StorageAndNodesAsKubeAPIServer writes storageDiffCases to
// kube-apiserver and to apikit and compares the answers.
func TestSideBySide_StorageAndNodesAsKubeAPIServer(t *testing.T) {
	kcp := startKubeControlPlane(t, "--disable-admission-plugins=ServiceAccount")
	srv := newStorageServer(t)
	apikitCfg, err := clientcmd.RESTConfigFromKubeConfig(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cases := storageDiffCases()
	answers := make([][]appsDiffAnswer, 2)
	for i, c := range []struct {
		name string
		cfg  *rest.Config
	}{{"kube", kcp.Config}, {"apikit", apikitCfg}} {
		cfg := rest.CopyConfig(c.cfg)
		cfg.QPS, cfg.Burst, cfg.Timeout = -1, -1, 30*time.Second
		sv := &sideBySide{name: c.name, cfg: cfg, uids: map[string]string{}}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]any{}
		for _, sc := range cases {
			var code int
			var m map[string]any
			if sc.update == nil {
				body, err := yaml.YAMLToJSON([]byte(sc.manifest))
				if err != nil {
					t.Fatalf("%s: %v", sc.name, err)
				}
				code, m = sv.do(t, hc, "POST", sc.collection, "application/json", string(body))
			} else {
				obj := stored[sc.fixture]
				if obj == nil {
					t.Fatalf("%s: %s: the fixture %s was not created", sv.name, sc.name, sc.fixture)
				}
				raw, _ := json.Marshal(obj)
				var cp map[string]any
				_ = json.Unmarshal(raw, &cp)
				sc.update(cp)
				path := sc.collection + "/" + sc.fixture
				if sc.status {
					path += "/status"
				}
				body, _ := json.Marshal(cp)
				code, m = sv.do(t, hc, "PUT", path, "application/json", string(body))
			}
			ans := appsDiffAnswer{Code: code}
			if m["kind"] == "Status" {
				ans.setRefusal(m)
			} else {
				if code < 300 {
					stored[get(m, "metadata", "name").(string)] = m
				}
				cp := copyJSON(m)
				ans.Stored = normalizeStorageStored(cp)
			}
			answers[i] = append(answers[i], ans)
		}
	}
	equal := 0
	for j, c := range cases {
		if d := cmp.Diff(answers[0][j], answers[1][j]); d != "" {
			t.Errorf("%s (-kube +apikit):\n%s", c.name, d)
			continue
		}
		equal++
	}
	t.Logf("%d of %d claim, volume and node writes answered and stored as kube-apiserver does", equal, len(cases))
	if equal == 0 || answers[0][0].Code != http.StatusCreated {
		t.Errorf("kube-apiserver refused the first claim: %+v", answers[0][0])
	}
}

// normalizeStorageStored is normalizeStored and the volume's lastPhaseTransitionTime,
// a time each server picks.
func normalizeStorageStored(m map[string]any) map[string]any {
	m = normalizeStored(m)
	if st, ok := m["status"].(map[string]any); ok && st["lastPhaseTransitionTime"] != nil {
		st["lastPhaseTransitionTime"] = "<time>"
	}
	return m
}
