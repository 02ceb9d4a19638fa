package kubecode

import "testing"

// TestDifferential_DiscoveryV1 feeds generated EndpointSlices, valid and invalid,
// creates and updates, to k8s.io/kubernetes v1.37.2's code and to apikit, and compares
// the stored objects and the 422 causes.
func TestDifferential_DiscoveryV1(t *testing.T) {
	differential(t, []string{"EndpointSlice"})
}
