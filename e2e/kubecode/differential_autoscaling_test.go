package kubecode

import "testing"

// TestDifferential_Autoscaling feeds generated HorizontalPodAutoscalers, at autoscaling/v2
// and at autoscaling/v1 (the v2-only fields in kube's annotations), valid and invalid,
// creates and updates, to k8s.io/kubernetes v1.37.2's code and to apikit, and compares
// the stored objects (read at the version written) and the 422 causes.
func TestDifferential_Autoscaling(t *testing.T) {
	differential(t, []string{"HorizontalPodAutoscaler", "HorizontalPodAutoscalerV1"})
}
