package kubecode

import (
	"slices"
	"testing"
)

// A PodDisruptionBudget's name is any path segment, as kube's BeforeCreate checks it
// (its validation has no name rule): the generator's few fixed names that are not DNS
// subdomains are then created, and a later case that draws the same name finds it
// stored on the apikit side, which keeps every object, while kube's in-process run
// stores none.
func init() {
	intendedDifferences = append(intendedDifferences, intendedDifference{
		name: "a repeated PDB name already stored on the apikit side",
		why: "the apikit side is one server whose store keeps every created object; kube's in-process run stores " +
			"nothing. PodDisruptionBudget takes path-segment names, so the generator's fixed non-DNS names " +
			"(\"-web\", \"web.App\", ...) repeat across cases and the second create of one is apikit's 409 " +
			"AlreadyExists where kube, storing nothing, answers 201. Only that pair of answers is set aside.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "PodDisruptionBudget" && c.Op() == "create" && slices.Contains(c.Mutations, "name not a DNS subdomain") &&
				kube.Code == 201 && apikit.Code == 409 && apikit.Reason == "AlreadyExists"
		},
		normalize: func(kube, apikit *Result) { *apikit = *kube },
	})
}

// TestDifferential_PolicyV1 compares apikit with kube's code on generated
// PodDisruptionBudgets, valid and invalid, created and updated.
func TestDifferential_PolicyV1(t *testing.T) {
	differential(t, []string{"PodDisruptionBudget"})
}
