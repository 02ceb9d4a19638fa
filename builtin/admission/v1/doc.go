// Package v1 holds Kubernetes' admission.k8s.io/v1 AdmissionReview, the request
// kube-apiserver sends to an admission webhook and the response it reads back, laid
// out like k8s.io/api/admission/v1 (JSON only: webhooks are called with JSON). Import
// it as admissionv1. The same shapes serve admission.k8s.io/v1beta1, whose wire form
// is identical.
package v1

import "github.com/apikit-dev/apikit/scheme"

// SchemeGroupVersion is the admission.k8s.io group's v1 version.
var SchemeGroupVersion = scheme.GroupVersion{Group: "admission.k8s.io", Version: "v1"}

// SchemeGroupVersionV1beta1 is the group's v1beta1 version, sent to a webhook whose
// admissionReviewVersions name only it.
var SchemeGroupVersionV1beta1 = scheme.GroupVersion{Group: "admission.k8s.io", Version: "v1beta1"}
