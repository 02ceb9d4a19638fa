package builtin

import (
	"fmt"

	policyv1 "github.com/apikit-dev/apikit/builtin/policy/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// policyResources are the policy/v1 resources as kube-apiserver v1.37.2 serves them:
// poddisruptionbudgets (short name pdb, status subresource) with the columns of kube's
// printer.
var policyResources = []scheme.Resource{
	{Group: policyv1.SchemeGroupVersion.Group, Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", ShortNames: []string{"pdb"},
		Namespaced: true, StatusSubresource: true,
		// kube's PDB validation leaves the name to BeforeCreate's path-segment check.
		NameValidation: validation.NameIsPathSegment,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available.",
				Cell: cellOf(func(p *policyv1.PodDisruptionBudget) any { return intOrStringOrNA(p.Spec.MinAvailable) })},
			{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable.",
				Cell: cellOf(func(p *policyv1.PodDisruptionBudget) any { return intOrStringOrNA(p.Spec.MaxUnavailable) })},
			{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time.",
				Cell: cellOf(func(p *policyv1.PodDisruptionBudget) any { return int64(p.Status.DisruptionsAllowed) })},
			ageColumn,
		}},
}

// intOrStringOrNA is kube's printer cell of an optional IntOrString: "N/A" when unset.
func intOrStringOrNA(v *scheme.IntOrString) string {
	if v == nil {
		return "N/A"
	}
	return v.String()
}

// AddPolicyToScheme registers policy/v1: PodDisruptionBudget and its list, Eviction
// (the body of pods/eviction, no resource of its own), their protobuf field numbers
// and the poddisruptionbudgets resource. kube's policy/v1 has no defaults.
func AddPolicyToScheme(s *scheme.Scheme) error {
	gv := policyv1.SchemeGroupVersion
	s.AddKnownTypes(gv, &policyv1.PodDisruptionBudget{}, &policyv1.PodDisruptionBudgetList{}, &policyv1.Eviction{})
	for _, r := range policyResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, gv, &policyv1.PodDisruptionBudget{}, &policyv1.Eviction{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	return nil
}
