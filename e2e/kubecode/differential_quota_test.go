package kubecode

import (
	"encoding/json"
	"regexp"
	"testing"
)

// uuidName is the form of the name kube's limitrange strategy gives a LimitRange
// created without one.
var uuidName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func init() {
	intendedDifferences = append(intendedDifferences, intendedDifference{
		name: "the random name of a LimitRange created without one",
		why: "kube's limitrange strategy names a LimitRange created without name or generateName with a new " +
			"UUID, and so does apikit's: both are random, so two UUID names are set aside.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "LimitRange" && kube.Code < 300 && apikit.Code < 300 &&
				uuidName.MatchString(nameOf(kube.Object)) && uuidName.MatchString(nameOf(apikit.Object))
		},
		normalize: func(kube, apikit *Result) {
			kube.Object, apikit.Object = withoutName(kube.Object), withoutName(apikit.Object)
		},
	})
}

func nameOf(b []byte) string {
	var o struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(b, &o)
	return o.Metadata.Name
}

func withoutName(b []byte) []byte {
	var o map[string]any
	if json.Unmarshal(b, &o) != nil {
		return b
	}
	if m, ok := o["metadata"].(map[string]any); ok {
		delete(m, "name")
	}
	out, _ := json.Marshal(o)
	return out
}

// TestDifferential_CoreV1Quota feeds generated ReplicationControllers, ResourceQuotas
// and LimitRanges, valid and invalid, creates and updates, to k8s.io/kubernetes
// v1.37.2's code and to apikit, and compares the stored objects and the 422 causes.
func TestDifferential_CoreV1Quota(t *testing.T) {
	differential(t, []string{"ReplicationController", "ResourceQuota", "LimitRange"})
}
