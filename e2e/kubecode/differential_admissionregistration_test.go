package kubecode

import "testing"

// TestDifferential_AdmissionRegistrationV1Webhooks feeds generated validating and mutating
// webhook configurations, valid and invalid, creates and updates, to k8s.io/kubernetes
// v1.37.2's code and to apikit, and compares the stored objects and the 422 causes.
func TestDifferential_AdmissionRegistrationV1Webhooks(t *testing.T) {
	differential(t, webhookConfigurationKinds)
}

// TestDifferential_AdmissionRegistrationV1Policies does the same with the validating and
// mutating admission policies and their bindings.
func TestDifferential_AdmissionRegistrationV1Policies(t *testing.T) {
	differential(t, admissionPolicyKinds)
}
