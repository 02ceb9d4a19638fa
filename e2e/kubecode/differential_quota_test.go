package kubecode

import "testing"

// TestDifferential_CoreV1Quota feeds generated ReplicationControllers, valid and
// invalid, creates and updates, to k8s.io/kubernetes v1.37.2's code and to apikit, and
// compares the stored objects and the 422 causes.
func TestDifferential_CoreV1Quota(t *testing.T) {
	differential(t, []string{"ReplicationController"})
}
