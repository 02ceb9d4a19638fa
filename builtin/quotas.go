package builtin

import (
	"fmt"
	"slices"
	"strings"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/codec/protobuf"
	"github.com/apikit-dev/apikit/scheme"
)

// quotaResources are core/v1 resourcequotas (short name quota, with status) and
// limitranges (limits) as kube-apiserver v1.37.2 serves them. kube's printer has
// columns for quotas (REQUEST and LIMIT as "used/hard" per resource); limit ranges have
// no printer, so kube's default table (Name and Created At) serves them.
var quotaResources = []scheme.Resource{
	{Kind: "ResourceQuota", Plural: "resourcequotas", ShortNames: []string{"quota"}, Namespaced: true, StatusSubresource: true,
		PrinterColumns: []scheme.PrinterColumn{
			{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume.",
				Cell: cellOf(func(q *corev1.ResourceQuota) any { request, _ := quotaCells(q); return request })},
			{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
				Cell: cellOf(func(q *corev1.ResourceQuota) any { _, limit := quotaCells(q); return limit })},
			ageColumn,
		}},
	// kube's limitrange strategy allows a PUT to create.
	{Kind: "LimitRange", Plural: "limitranges", ShortNames: []string{"limits"}, Namespaced: true, AllowCreateOnUpdate: true},
}

// quotaCells are kube's printResourceQuota REQUEST and LIMIT cells: for each resource of
// status.hard, by name, "name: used/hard", joined by ", "; those named limits.* go to
// LIMIT, the rest to REQUEST.
func quotaCells(q *corev1.ResourceQuota) (request, limit string) {
	names := make([]corev1.ResourceName, 0, len(q.Status.Hard))
	for n := range q.Status.Hard {
		names = append(names, n)
	}
	slices.Sort(names)
	var req, lim []string
	for _, n := range names {
		used, hard := q.Status.Used[n], q.Status.Hard[n]
		cell := fmt.Sprintf("%s: %s/%s", n, used.String(), hard.String())
		if first, _, ok := strings.Cut(string(n), "."); ok && first == "limits" {
			lim = append(lim, cell)
		} else {
			req = append(req, cell)
		}
	}
	return strings.Join(req, ", "), strings.Join(lim, ", ")
}

// AddQuotaToScheme registers core/v1 ResourceQuota and LimitRange with their lists,
// their resources, their protobuf messages and kube's defaults of them. AddToScheme
// calls it.
func AddQuotaToScheme(s *scheme.Scheme) error {
	s.AddKnownTypes(corev1.SchemeGroupVersion, &corev1.ResourceQuota{}, &corev1.ResourceQuotaList{},
		&corev1.LimitRange{}, &corev1.LimitRangeList{})
	for _, r := range quotaResources {
		if err := s.AddResource(r); err != nil {
			return fmt.Errorf("builtin: %w", err)
		}
	}
	if err := protobuf.RegisterTypes(s, corev1.SchemeGroupVersion, &corev1.ResourceQuota{}, &corev1.LimitRange{}); err != nil {
		return fmt.Errorf("builtin: %w", err)
	}
	registerQuotaDefaults(s)
	return nil
}
