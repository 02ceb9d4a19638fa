package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/kubernetes/pkg/apis/networking/install" // networking.k8s.io/v1 conversion, defaulting, declarative validation
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
)

// The networking.k8s.io/v1 kinds: Ingress, IngressClass and NetworkPolicy, with kube's
// registry strategies. DefaultIngressClass is not run here: it reads IngressClasses
// through an informer (TestDifferential_DefaultIngressClass compares it on its own).
func init() {
	gv := schema.GroupVersion{Group: "networking.k8s.io", Version: "v1"}
	Kinds["Ingress"] = Kind{gv.WithKind("Ingress"), "ingresses", ingress.Strategy, nil}
	Kinds["IngressClass"] = Kind{gv.WithKind("IngressClass"), "ingressclasses", ingressclass.Strategy, nil}
	Kinds["NetworkPolicy"] = Kind{gv.WithKind("NetworkPolicy"), "networkpolicies", networkpolicy.Strategy, nil}
}
