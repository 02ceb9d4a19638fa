// Package v1 holds Kubernetes' discovery.k8s.io/v1 kinds (EndpointSlice), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/discovery/v1: import it as discoveryv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the discovery.k8s.io group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "discovery.k8s.io", Version: "v1"}

// Resource names of the discovery.k8s.io/v1 kinds.
var (
	EndpointSlices = scheme.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
)
