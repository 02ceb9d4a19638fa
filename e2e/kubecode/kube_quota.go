package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
)

// The core/v1 kinds of quota and workload control: ReplicationController here, with
// kube's registry strategies.
func init() {
	Kinds["ReplicationController"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}, "replicationcontrollers", replicationcontroller.Strategy, nil}
}

func init() {
	Kinds["ResourceQuota"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "ResourceQuota"}, "resourcequotas", resourcequota.Strategy, nil}
	Kinds["LimitRange"] = Kind{schema.GroupVersionKind{Version: "v1", Kind: "LimitRange"}, "limitranges", limitrange.Strategy, nil}
}
