package kubecode

import (
	"fmt"
	"math/rand/v2"
)

// The generated PersistentVolumeClaims, PersistentVolumes and Nodes: base manifests
// with the fields users and kubelets write, and the mutations kube's validation of
// each accepts and refuses.
func init() {
	kindBases["PersistentVolumeClaim"] = baseClaim
	kindBases["PersistentVolume"] = baseVolume
	kindBases["Node"] = baseNode
	allKinds = append(allKinds, "PersistentVolumeClaim", "PersistentVolume", "Node")
	kindMutations = append(kindMutations, storageMutations)
}

var storageSizes = []string{"1Gi", "10Gi", "500Mi", "2G", "100Ti"}

func baseClaim(r *rand.Rand, o Object, _ string, _ Object) {
	o["apiVersion"] = "v1"
	spec := Object{
		"accessModes": []any{pick(r, []string{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"})},
		"resources":   Object{"requests": Object{"storage": pick(r, storageSizes)}},
	}
	if r.IntN(2) == 0 {
		spec["storageClassName"] = pick(r, []string{"standard", "fast-ssd", ""})
	}
	if r.IntN(3) == 0 {
		spec["volumeMode"] = pick(r, []string{"Filesystem", "Block"})
	}
	if r.IntN(4) == 0 {
		spec["selector"] = Object{"matchLabels": Object{"disk": "ssd"}}
	}
	if r.IntN(4) == 0 {
		spec["dataSource"] = Object{"kind": "PersistentVolumeClaim", "name": "source"}
	}
	o["spec"] = spec
}

func baseVolume(r *rand.Rand, o Object, name string, _ Object) {
	o["apiVersion"] = "v1"
	spec := Object{
		"accessModes": []any{pick(r, []string{"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"})},
		"capacity":    Object{"storage": pick(r, storageSizes)},
	}
	switch r.IntN(4) {
	case 0:
		spec["nfs"] = Object{"server": "nfs.example.com", "path": "/exports/" + name}
	case 1:
		spec["hostPath"] = Object{"path": "/mnt/" + name, "type": "DirectoryOrCreate"}
	case 2:
		spec["csi"] = Object{"driver": "ebs.csi.aws.com", "volumeHandle": "vol-" + name, "fsType": "ext4",
			"nodePublishSecretRef": Object{"name": "creds", "namespace": "kube-system"}}
		if r.IntN(2) == 0 {
			spec["volumeAttributesClassName"] = "gold"
		}
	default:
		spec["local"] = Object{"path": "/mnt/disks/" + name}
		spec["nodeAffinity"] = Object{"required": Object{"nodeSelectorTerms": []any{Object{"matchExpressions": []any{
			Object{"key": "kubernetes.io/hostname", "operator": "In", "values": []any{"node-1"}},
		}}}}}
	}
	if r.IntN(2) == 0 {
		spec["persistentVolumeReclaimPolicy"] = pick(r, []string{"Retain", "Delete"})
	}
	if r.IntN(2) == 0 {
		spec["storageClassName"] = pick(r, []string{"standard", "manual"})
	}
	if r.IntN(3) == 0 {
		spec["mountOptions"] = []any{"hard", "nfsvers=4.1"}
	}
	if r.IntN(3) == 0 {
		spec["claimRef"] = Object{"namespace": "ns1", "name": "claim-" + name}
	}
	o["spec"] = spec
}

func baseNode(r *rand.Rand, o Object, name string, _ Object) {
	o["apiVersion"] = "v1"
	at(o, "metadata")["labels"] = Object{"kubernetes.io/hostname": name, "node-role.kubernetes.io/worker": ""}
	spec := Object{}
	if r.IntN(2) == 0 {
		spec["podCIDR"] = fmt.Sprintf("10.244.%d.0/24", r.IntN(250))
		if r.IntN(2) == 0 {
			spec["podCIDRs"] = []any{spec["podCIDR"], fmt.Sprintf("fd00:%x::/64", r.IntN(0xffff))}
		}
	}
	if r.IntN(2) == 0 {
		spec["taints"] = []any{Object{"key": "dedicated", "value": "db", "effect": pick(r, []string{"NoSchedule", "NoExecute", "PreferNoSchedule"})}}
	}
	if r.IntN(3) == 0 {
		spec["providerID"] = "aws:///us-east-1a/i-" + name
	}
	o["spec"] = spec
	if r.IntN(2) == 0 {
		o["status"] = Object{
			"capacity":  Object{"cpu": pick(r, []string{"4", "8", "500m"}), "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"},
			"addresses": []any{Object{"type": "InternalIP", "address": "10.0.0.7"}, Object{"type": "Hostname", "address": name}},
			"nodeInfo": Object{"kubeletVersion": "v1.37.2", "osImage": "Ubuntu 24.04", "kernelVersion": "6.8.0", "architecture": "amd64",
				"operatingSystem": "linux", "containerRuntimeVersion": "containerd://2.1.0", "machineID": "m", "systemUUID": "u", "bootID": "b",
				"kubeProxyVersion": ""},
		}
		if r.IntN(2) == 0 {
			at(o, "status")["allocatable"] = Object{"cpu": "3500m", "memory": "15Gi", "pods": "110"}
		}
	}
}

func storageMutations() []Mutation {
	claim, volume, node := []string{"PersistentVolumeClaim"}, []string{"PersistentVolume"}, []string{"Node"}
	spec := func(o Object) Object { return at(o, "spec") }
	// removeSources leaves a volume without any source.
	removeSources := func(o Object) {
		for _, k := range []string{"nfs", "hostPath", "csi", "local", "iscsi", "rbd", "nodeAffinity", "volumeAttributesClassName"} {
			delete(spec(o), k)
		}
	}
	return []Mutation{
		// Claims, valid.
		{Name: "claim without volume mode", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "volumeMode") }},
		{Name: "claim requests more", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "resources")["requests"] = Object{"storage": "200Ti"}
		}},
		{Name: "claim with a storage limit", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "resources")["limits"] = Object{"storage": "300Ti"}
		}},
		{Name: "claim names its volume", Kinds: claim, Apply: func(_ *rand.Rand, o Object) { spec(o)["volumeName"] = "pv-claimed" }},
		{Name: "claim with a fractional request", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "resources")["requests"] = Object{"storage": "1500m"}
		}},
		{Name: "claim with an attributes class", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["volumeAttributesClassName"] = "gold"
		}},
		{Name: "claim from a snapshot", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "dataSource")
			spec(o)["dataSourceRef"] = Object{"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "snap"}
		}},
		{Name: "claim data source of another kind is dropped", Kinds: claim, ImmutableIn: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["dataSource"] = Object{"apiGroup": "example.com", "kind": "Populator", "name": "p"}
		}},
		{Name: "claim with the beta class annotation", Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "metadata", "annotations")["volume.beta.kubernetes.io/storage-class"] = "standard"
		}},
		// Claims, invalid.
		{Name: "claim without access modes", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "accessModes") }},
		{Name: "claim with an unknown access mode", Invalid: true, Kinds: claim, Apply: func(r *rand.Rand, o Object) {
			spec(o)["accessModes"] = []any{pick(r, []string{"ReadWriteSometimes", "rwo"})}
		}},
		{Name: "claim with ReadWriteOncePod and another", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["accessModes"] = []any{"ReadWriteOncePod", "ReadOnlyMany"}
		}},
		{Name: "claim without a storage request", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "resources")["requests"] = Object{"cpu": "1"}
		}},
		{Name: "claim requests nothing", Invalid: true, Kinds: claim, Apply: func(r *rand.Rand, o Object) {
			at(o, "spec", "resources")["requests"] = Object{"storage": pick(r, []string{"0", "-1Gi"})}
		}},
		{Name: "claim with a bad class name", Invalid: true, Kinds: claim, Apply: func(r *rand.Rand, o Object) {
			spec(o)["storageClassName"] = pick(r, []string{"Fast_SSD", "-x"})
		}},
		{Name: "claim with a bad attributes class name", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["volumeAttributesClassName"] = "Gold!"
		}},
		{Name: "claim with a bad volume mode", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) { spec(o)["volumeMode"] = "Raw" }},
		{Name: "claim data source ref of the core group not a claim", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "dataSource")
			spec(o)["dataSourceRef"] = Object{"kind": "ConfigMap", "name": ""}
		}},
		{Name: "claim data sources that differ", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["dataSource"] = Object{"kind": "PersistentVolumeClaim", "name": "a"}
			spec(o)["dataSourceRef"] = Object{"kind": "PersistentVolumeClaim", "name": "b"}
		}},
		{Name: "claim with a bad selector", Invalid: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["selector"] = Object{"matchExpressions": []any{Object{"key": "disk", "operator": "In"}}}
		}},
		// Claims, updates.
		{Name: "claim class changed", UpdateOnly: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) { spec(o)["storageClassName"] = "other" }},
		{Name: "claim volume mode changed", UpdateOnly: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			if spec(o)["volumeMode"] == "Block" {
				spec(o)["volumeMode"] = "Filesystem"
			} else {
				spec(o)["volumeMode"] = "Block"
			}
		}},
		{Name: "claim request lowered", UpdateOnly: true, Kinds: claim, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec", "resources")["requests"] = Object{"storage": "1Mi"}
		}},

		// Volumes, valid.
		{Name: "volume reclaimed by Recycle", Kinds: volume, Apply: func(_ *rand.Rand, o Object) { spec(o)["persistentVolumeReclaimPolicy"] = "Recycle" }},
		{Name: "volume without reclaim policy or mode", Kinds: volume, ImmutableIn: volume, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "persistentVolumeReclaimPolicy")
			delete(spec(o), "volumeMode")
		}},
		{Name: "volume in Block mode", Kinds: volume, ImmutableIn: volume, Apply: func(_ *rand.Rand, o Object) { spec(o)["volumeMode"] = "Block" }},
		{Name: "volume on iSCSI", Kinds: volume, ImmutableIn: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["iscsi"] = Object{"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage.disk1", "lun": 0}
		}},
		{Name: "volume on rbd", Kinds: volume, ImmutableIn: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["rbd"] = Object{"monitors": []any{"10.0.0.1:6789"}, "image": "img"}
		}},
		// On NFS, which takes mount options (a hostPath or local volume does not).
		{Name: "volume with the mount options annotation", Kinds: volume, ImmutableIn: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["nfs"] = Object{"server": "nfs.example.com", "path": "/exports/data"}
			at(o, "metadata", "annotations")["volume.beta.kubernetes.io/mount-options"] = "hard"
		}},
		// Volumes, invalid.
		{Name: "volume without a source", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) { removeSources(o) }},
		{Name: "volume with two sources", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["flexVolume"] = Object{"driver": "example.com/flex", "options": Object{"kubernetes.io/x": "y"}}
			spec(o)["gcePersistentDisk"] = Object{"pdName": "", "partition": -1}
		}},
		{Name: "volume without capacity", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) { delete(spec(o), "capacity") }},
		{Name: "volume with more than storage", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["capacity"] = Object{"storage": "1Gi", "cpu": "1"}
		}},
		{Name: "volume of no size", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) { spec(o)["capacity"] = Object{"storage": "0"} }},
		{Name: "volume without access modes", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) { spec(o)["accessModes"] = []any{} }},
		{Name: "volume with a bad reclaim policy", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["persistentVolumeReclaimPolicy"] = "Keep"
		}},
		{Name: "local volume without node affinity", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["local"] = Object{"path": "/mnt/../etc"}
		}},
		{Name: "csi volume without driver or handle", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["csi"] = Object{"driver": "Bad_Driver", "volumeHandle": "", "controllerExpandSecretRef": Object{"name": ""}}
			spec(o)["volumeAttributesClassName"] = ""
		}},
		{Name: "volume attributes class without csi", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["nfs"] = Object{"server": "", "path": "relative"}
			spec(o)["volumeAttributesClassName"] = "gold"
		}},
		{Name: "iscsi volume with a bad iqn", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["iscsi"] = Object{"targetPortal": "", "iqn": "bad", "lun": 300, "chapAuthSession": true,
				"initiatorName": "iqn.nope"}
		}},
		{Name: "volume node affinity without terms", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["nodeAffinity"] = Object{"required": Object{"nodeSelectorTerms": []any{}}}
		}},
		{Name: "hostPath of / recycled", Invalid: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["hostPath"] = Object{"path": "/"}
			spec(o)["persistentVolumeReclaimPolicy"] = "Recycle"
		}},
		// Volumes, updates.
		{Name: "volume source changed", UpdateOnly: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			removeSources(o)
			spec(o)["nfs"] = Object{"server": "other.example.com", "path": "/other"}
		}},
		{Name: "volume node affinity changed", UpdateOnly: true, Kinds: volume, Apply: func(_ *rand.Rand, o Object) {
			if spec(o)["nodeAffinity"] == nil {
				return
			}
			spec(o)["nodeAffinity"] = Object{"required": Object{"nodeSelectorTerms": []any{Object{"matchExpressions": []any{
				Object{"key": "kubernetes.io/hostname", "operator": "In", "values": []any{"node-2"}},
			}}}}}
		}},

		// Nodes, valid.
		{Name: "node cordoned", Kinds: node, Apply: func(_ *rand.Rand, o Object) { spec(o)["unschedulable"] = true }},
		{Name: "node with the not-ready taint", Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["taints"] = []any{Object{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}, Object{"key": "x", "effect": "NoExecute"}}
		}},
		{Name: "node with an external ID", Kinds: node, ImmutableIn: node, Apply: func(_ *rand.Rand, o Object) { spec(o)["externalID"] = "i-123" }},
		{Name: "node podCIDRs only", Kinds: node, ImmutableIn: node, Apply: func(_ *rand.Rand, o Object) {
			delete(spec(o), "podCIDR")
			spec(o)["podCIDRs"] = []any{"10.250.0.0/24"}
		}},
		{Name: "node podCIDR differs from podCIDRs", Kinds: node, ImmutableIn: node, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["podCIDR"] = "10.251.0.0/24"
			spec(o)["podCIDRs"] = []any{"10.252.0.0/24", "fd01::/64"}
		}},
		{Name: "node config source", Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["configSource"] = Object{"configMap": Object{"namespace": "kube-system", "name": "cfg", "kubeletConfigKey": "kubelet"}}
		}},
		// Nodes, invalid.
		{Name: "node taint with a bad effect", Invalid: true, Kinds: node, Apply: func(r *rand.Rand, o Object) {
			spec(o)["taints"] = []any{Object{"key": "Bad Key", "value": "-v", "effect": pick(r, []string{"Never", ""})}}
		}},
		{Name: "node taints duplicated", Invalid: true, Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["taints"] = []any{Object{"key": "a", "effect": "NoSchedule"}, Object{"key": "a", "value": "b", "effect": "NoSchedule"}}
		}},
		{Name: "node with bad podCIDRs", Invalid: true, Kinds: node, Apply: func(r *rand.Rand, o Object) {
			delete(spec(o), "podCIDR")
			spec(o)["podCIDRs"] = pick(r, [][]any{{"10.0.0.1/24"}, {"10.0.0.0/24", "10.1.0.0/24"}, {"nope", "fd00::/64"}, {"010.0.0.0/24"}, {"::ffff:10.0.0.0/120"}})
		}},
		{Name: "node with a negative capacity", Invalid: true, Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			o["status"] = Object{"capacity": Object{"memory": "-1Gi", "pods": "1500m"}}
		}},
		{Name: "node with bad declared features", Invalid: true, Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			if o["status"] == nil {
				o["status"] = Object{}
			}
			at(o, "status")["declaredFeatures"] = []any{"lowercase", "Zeta", "Alpha", "Alpha"}
		}},
		// Nodes, updates.
		{Name: "node podCIDR changed", UpdateOnly: true, Kinds: node, Apply: func(_ *rand.Rand, o Object) {
			spec(o)["podCIDR"] = "10.253.0.0/24"
			delete(spec(o), "podCIDRs")
		}},
		{Name: "node providerID changed", UpdateOnly: true, Kinds: node, Apply: func(r *rand.Rand, o Object) {
			if r.IntN(2) == 0 {
				spec(o)["providerID"] = "aws:///other"
			} else {
				delete(spec(o), "providerID")
			}
		}},
	}
}
