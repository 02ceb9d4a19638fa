package kubecode

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
)

// The intended differences of Services: the values the allocators hand out, and the
// repeats of a metadata cause on an update.
func init() {
	intendedDifferences = append(intendedDifferences, intendedDifference{
		name: "repeated metadata causes of a Service update",
		why: "kube's ValidateServiceUpdate starts with core's ValidateObjectMetaUpdate (the generic one, then the " +
			"annotations again) and the store runs the generic one too, so an update with a bad label reports it " +
			"twice and a bad annotation three times; apikit's registry reports a cause once (appendUnique). Only " +
			"exact repeats of a metadata cause on kube's side are dropped.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "Service" && c.Old != nil && kube.Code == 422 && repeatsMetadataCause(kube.Causes)
		},
		normalize: func(kube, _ *Result) {
			seen := map[Cause]bool{}
			var out []Cause
			for _, c := range kube.Causes {
				k := Cause{Type: c.Type, Field: c.Field, Message: c.Message}
				if strings.HasPrefix(c.Field, "metadata.") && seen[k] {
					continue
				}
				seen[k] = true
				out = append(out, c)
			}
			kube.Causes = out
		},
	}, intendedDifference{
		name: "metadata causes beside an allocation's refusal",
		why: "kube-apiserver's store answers a failed BeginCreate or BeginUpdate (its service allocation and " +
			"ipFamilies checks) alone, before any validation; this harness runs those hooks from the strategy, so " +
			"its rest.ValidateCreate and ValidateUpdate add the metadata causes to them. Those metadata causes " +
			"are dropped from kube's side when kube's allocation refused the object.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "Service" && allocationRefused.Swap(false) && kube.Code == 422
		},
		normalize: func(kube, _ *Result) {
			var out []Cause
			for _, c := range kube.Causes {
				if !strings.HasPrefix(c.Field, "metadata.") {
					out = append(out, c)
				}
			}
			kube.Causes = out
		},
	}, intendedDifference{
		name: "allocated cluster IP and node ports",
		why: "both sides allocate a Service's cluster IP (10.0.0.0/24) and node ports (30000-32767) the manifest " +
			"leaves out, each at random as kube's allocators do: where both stored one in range, the values are " +
			"set aside (a requested value is the manifest's on both sides and is compared).",
		applies: func(c Case, kube, apikit *Result) bool {
			if c.Kind != "Service" {
				return false
			}
			if kube.Code == 422 && apikit.Code == 422 {
				return duplicateNodePort(kube.Causes) && duplicateNodePort(apikit.Causes)
			}
			return kube.Code < 300 && apikit.Code < 300
		},
		normalize: func(kube, apikit *Result) {
			if kube.Code == 422 {
				// A duplicate allocated node port (one service port listed twice) names
				// the value each side allocated.
				for _, r := range []*Result{kube, apikit} {
					for i, c := range r.Causes {
						if c.Type == "FieldValueDuplicate" && strings.HasSuffix(c.Field, ".nodePort") {
							r.Causes[i].Message = "Duplicate value: allocated"
						}
					}
				}
				return
			}
			var k, a map[string]any
			if json.Unmarshal(kube.Object, &k) != nil || json.Unmarshal(apikit.Object, &a) != nil {
				return
			}
			ks, _ := k["spec"].(map[string]any)
			as, _ := a["spec"].(map[string]any)
			if ks == nil || as == nil {
				return
			}
			cidr := netip.MustParsePrefix("10.0.0.0/24")
			inRange := func(v any) bool {
				s, _ := v.(string)
				ip, err := netip.ParseAddr(s)
				return err == nil && cidr.Contains(ip)
			}
			nodePort := func(v any) bool { n, ok := v.(float64); return ok && n >= 30000 && n <= 32767 }
			if inRange(ks["clusterIP"]) && inRange(as["clusterIP"]) {
				ks["clusterIP"], as["clusterIP"] = "allocated", "allocated"
				ks["clusterIPs"], as["clusterIPs"] = []any{"allocated"}, []any{"allocated"}
			}
			if nodePort(ks["healthCheckNodePort"]) && nodePort(as["healthCheckNodePort"]) {
				ks["healthCheckNodePort"], as["healthCheckNodePort"] = "allocated", "allocated"
			}
			kp, _ := ks["ports"].([]any)
			ap, _ := as["ports"].([]any)
			for i := range min(len(kp), len(ap)) {
				kpi, _ := kp[i].(map[string]any)
				api, _ := ap[i].(map[string]any)
				if kpi != nil && api != nil && nodePort(kpi["nodePort"]) && nodePort(api["nodePort"]) {
					kpi["nodePort"], api["nodePort"] = "allocated", "allocated"
				}
			}
			kube.Object, _ = json.Marshal(k)
			apikit.Object, _ = json.Marshal(a)
		},
	})
}

// duplicateNodePort says whether causes hold a duplicate node port.
func duplicateNodePort(causes []Cause) bool {
	for _, c := range causes {
		if c.Type == "FieldValueDuplicate" && strings.HasSuffix(c.Field, ".nodePort") {
			return true
		}
	}
	return false
}

// repeatsMetadataCause says whether a metadata cause repeats in causes.
func repeatsMetadataCause(causes []Cause) bool {
	seen := map[Cause]bool{}
	for _, c := range causes {
		k := Cause{Type: c.Type, Field: c.Field, Message: c.Message}
		if strings.HasPrefix(c.Field, "metadata.") && seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// TestDifferential_CoreV1Services feeds generated Services (each type, headless,
// requested and allocated cluster IPs and node ports) and Endpoints, valid and
// invalid, creates and updates, to k8s.io/kubernetes v1.37.2's code, with its service
// REST storage's allocation, and to apikit, and compares the stored objects and the 422
// causes.
func TestDifferential_CoreV1Services(t *testing.T) {
	differential(t, []string{"Service", "Endpoints"})
}
