package kubecode

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install" // admissionregistration.k8s.io/v1 conversion, defaulting
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
)

// The admissionregistration.k8s.io/v1 webhook configurations, with kube's registry
// strategies. The policies and their bindings are not here: their strategies need an
// authorizer and a resource resolver.
func init() {
	gv := schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}
	Kinds["ValidatingWebhookConfiguration"] = Kind{gv.WithKind("ValidatingWebhookConfiguration"), "validatingwebhookconfigurations", validatingwebhookconfiguration.Strategy, nil}
	Kinds["MutatingWebhookConfiguration"] = Kind{gv.WithKind("MutatingWebhookConfiguration"), "mutatingwebhookconfigurations", mutatingwebhookconfiguration.Strategy, nil}
}
