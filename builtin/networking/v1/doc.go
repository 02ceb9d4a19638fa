// Package v1 holds Kubernetes' networking.k8s.io/v1 kinds (Ingress, IngressClass, NetworkPolicy), generated from k8s.io/api by
// internal/typegen, laid out like k8s.io/api/networking/v1: import it as networkingv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the networking.k8s.io group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "networking.k8s.io", Version: "v1"}

// Resource names of the networking.k8s.io/v1 kinds.
var (
	Ingresses       = scheme.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}
	IngressClasses  = scheme.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}
	NetworkPolicies = scheme.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}
)
