package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install" // discovery.k8s.io/v1 defaulting, declarative validation
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
)

func init() {
	Kinds["EndpointSlice"] = Kind{schema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"},
		"endpointslices", endpointslice.Strategy, nil}
}
