package kubecode

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
)

// The admissionregistration.k8s.io/v1 admission policies and their bindings, with kube's
// registry strategies built without an authorizer (kube then makes no check of the
// paramKind or paramRef; apikit makes none either). A binding's strategy wants a resource
// resolver even so: unresolvable, since it is not asked without an authorizer.
func init() {
	unresolvable := resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
		return schema.GroupVersionResource{}, fmt.Errorf("no resource for %s", gvk)
	})
	gv := schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}
	Kinds["ValidatingAdmissionPolicy"] = Kind{gv.WithKind("ValidatingAdmissionPolicy"), "validatingadmissionpolicies", validatingadmissionpolicy.NewStrategy(nil, nil), nil}
	Kinds["ValidatingAdmissionPolicyBinding"] = Kind{gv.WithKind("ValidatingAdmissionPolicyBinding"), "validatingadmissionpolicybindings", validatingadmissionpolicybinding.NewStrategy(nil, nil, unresolvable), nil}
	Kinds["MutatingAdmissionPolicy"] = Kind{gv.WithKind("MutatingAdmissionPolicy"), "mutatingadmissionpolicies", mutatingadmissionpolicy.NewStrategy(nil, nil), nil}
	Kinds["MutatingAdmissionPolicyBinding"] = Kind{gv.WithKind("MutatingAdmissionPolicyBinding"), "mutatingadmissionpolicybindings", mutatingadmissionpolicybinding.NewStrategy(nil, nil, unresolvable), nil}
}
