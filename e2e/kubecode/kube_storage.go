package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/plugin/pkg/admission/nodetaint"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageobjectinuseprotection"
)

// The core/v1 storage kinds and Node, with kube's registry strategies and the default
// admission plugins of theirs that read no other object: StorageObjectInUseProtection
// (the pvc-/pv-protection finalizers) and TaintNodesByCondition (the not-ready taint).
// DefaultStorageClass and PersistentVolumeClaimResize read StorageClasses, which
// neither side serves: the first is then a no-op and the second only acts on updates
// of bound claims, which the generated cases cannot make (status is not written).
func init() {
	protection := kubePlugin(storageobjectinuseprotection.PluginName, storageobjectinuseprotection.Register)
	Kinds["PersistentVolumeClaim"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, "persistentvolumeclaims",
		persistentvolumeclaim.Strategy, []admission.MutationInterface{protection}}
	Kinds["PersistentVolume"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, "persistentvolumes",
		persistentvolume.Strategy, []admission.MutationInterface{protection}}
	Kinds["Node"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, "nodes", node.Strategy,
		[]admission.MutationInterface{kubePlugin(nodetaint.PluginName, nodetaint.Register)}}
}

// kubePlugin is kube's admission plugin name as kube-apiserver builds it from its
// registration, with no configuration and no initializers (the plugin reads nothing).
func kubePlugin(name string, register func(*admission.Plugins)) admission.MutationInterface {
	ps := admission.NewPlugins()
	register(ps)
	p, err := ps.InitPlugin(name, nil, admission.PluginInitializers{})
	if err != nil {
		panic(err)
	}
	return p.(admission.MutationInterface)
}
