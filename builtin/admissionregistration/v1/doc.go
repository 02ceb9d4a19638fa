// Package v1 holds Kubernetes' admissionregistration.k8s.io/v1 kinds (the validating and
// mutating webhook configurations, admission policies and their bindings), generated from
// k8s.io/api by internal/typegen, laid out like k8s.io/api/admissionregistration/v1:
// import it as admissionregistrationv1.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the admissionregistration.k8s.io group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}

// Resource names of the admissionregistration.k8s.io/v1 kinds.
var (
	ValidatingWebhookConfigurations   = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}
	MutatingWebhookConfigurations     = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}
	ValidatingAdmissionPolicies       = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}
	ValidatingAdmissionPolicyBindings = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}
	MutatingAdmissionPolicies         = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}
	MutatingAdmissionPolicyBindings   = scheme.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}
)
