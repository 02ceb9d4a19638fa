package kubecode

import (
	"encoding/json"
	"testing"
)

// admittedKinds are the kinds differential compares against apikit's handler with
// admission.Builtin() (admittingApikit), as their kube side runs their plugins
// (Kind.Admission).
var admittedKinds = map[string]bool{"PersistentVolumeClaim": true, "PersistentVolume": true, "Node": true}

func init() {
	intendedDifferences = append(intendedDifferences, intendedDifference{
		name: "PersistentVolumeClaim status.phase defaulted when read back",
		why: "kube's claim strategy stores an empty status and kube-apiserver answers with the object decoded from " +
			"etcd, which its defaulting (SetDefaults_PersistentVolumeClaim) gives status.phase Pending; the " +
			"in-process kube run encodes the object it stored without decoding it, so its status is {}. apikit " +
			"sets Pending in its strategy. e2e's TestStorageDiff_ManifestsReadBackAsKube holds the real server's Pending.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "PersistentVolumeClaim" && kube.Code < 300 && apikit.Code < 300 &&
				phaseOf(kube.Object) == "" && phaseOf(apikit.Object) == "Pending"
		},
		normalize: func(_, apikit *Result) {
			var o map[string]any
			if json.Unmarshal(apikit.Object, &o) != nil {
				return
			}
			st, _ := o["status"].(map[string]any)
			delete(st, "phase")
			apikit.Object, _ = json.Marshal(o)
		},
	})
}

func phaseOf(b []byte) string {
	var o struct {
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	if json.Unmarshal(b, &o) != nil {
		return ""
	}
	return o.Status.Phase
}

// TestDifferential_CoreV1StorageAndNodes feeds generated PersistentVolumeClaims,
// PersistentVolumes and Nodes, valid and invalid, creates and updates, to
// k8s.io/kubernetes v1.37.2's code (with its StorageObjectInUseProtection and
// TaintNodesByCondition admission) and to apikit (with admission.Builtin()), and
// compares the stored objects and the 422 causes.
func TestDifferential_CoreV1StorageAndNodes(t *testing.T) {
	differential(t, []string{"PersistentVolumeClaim", "PersistentVolume", "Node"})
}
