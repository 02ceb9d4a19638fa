package builtin

import (
	"testing"

	corev1 "github.com/apikit-dev/apikit/builtin/core/v1"
	"github.com/apikit-dev/apikit/quantity"
)

// TestQuotaCells_AsKubePrinter holds kube's printResourceQuota REQUEST and LIMIT cells:
// "name: used/hard" for each hard resource by name, limits.* apart, an unused resource
// as 0.
func TestQuotaCells_AsKubePrinter(t *testing.T) {
	q := func(s string) quantity.Quantity { return quantity.MustParse(s) }
	for _, c := range []struct {
		name           string
		status         corev1.ResourceQuotaStatus
		request, limit string
	}{
		{"no status yet", corev1.ResourceQuotaStatus{}, "", ""},
		{"requests and limits", corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{"requests.cpu": q("1"), "limits.memory": q("2Gi"), "pods": q("10"), "limits.cpu": q("2")},
			Used: corev1.ResourceList{"requests.cpu": q("500m"), "pods": q("1"), "limits.cpu": q("1")},
		}, "pods: 1/10, requests.cpu: 500m/1", "limits.cpu: 1/2, limits.memory: 0/2Gi"},
		{"count of an API resource", corev1.ResourceQuotaStatus{
			Hard: corev1.ResourceList{"count/deployments.apps": q("3")},
			Used: corev1.ResourceList{"count/deployments.apps": q("3")},
		}, "count/deployments.apps: 3/3", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, lim := quotaCells(&corev1.ResourceQuota{Status: c.status})
			if req != c.request || lim != c.limit {
				t.Errorf("cells = %q, %q; want %q, %q", req, lim, c.request, c.limit)
			}
		})
	}
}
