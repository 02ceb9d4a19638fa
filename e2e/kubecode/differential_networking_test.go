package kubecode

import "testing"

// TestDifferential_NetworkingV1 feeds generated Ingresses, IngressClasses and
// NetworkPolicies, valid and invalid, creates and updates, to k8s.io/kubernetes
// v1.37.2's code and to apikit, and compares the stored objects and the 422 causes.
func TestDifferential_NetworkingV1(t *testing.T) {
	differential(t, networkingKinds)
}
